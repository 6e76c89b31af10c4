/* touched.c — see touched.h. */
#include "touched.h"

#include <sys/mman.h>

#include "sys.h"

#define GRANULE_SHIFT 21
#define SLOTS         (1u << 16) /* 128 GiB of distinct granules */
#define PROBES        64
#define WORDS         ((1u << GRANULE_SHIFT) / 4096 / 64) /* bits for 4 KiB pages */

typedef struct {
	uint64_t key; /* granule number + 1; 0: empty */
	uint64_t born;
	uint64_t bits[WORDS];
	uint64_t wait[WORDS]; /* counted pages that map the zero page, node not known */
} granule_t;

static granule_t *table_g;
static unsigned page_shift_g = 12;

bool hmpt_touched_init(size_t page)
{
	page_shift_g = 12;
	while (((size_t)1 << page_shift_g) < page)
		page_shift_g++;
	if (!table_g)
		table_g = hmpt_sys_map(SLOTS * sizeof(granule_t));
	return table_g != NULL;
}

void hmpt_touched_reset(void)
{
	if (table_g)
		madvise(table_g, SLOTS * sizeof(granule_t), MADV_DONTNEED);
}

/* the slot a granule's probes start at (its key: granule number + 1) */
static uint32_t home(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (SLOTS - 1);
}

/* a page's bit in its granule's bitmaps */
static unsigned bit_of(uintptr_t p)
{
	return (unsigned)((p & ((1u << GRANULE_SHIFT) - 1)) >> page_shift_g);
}

static granule_t *granule(uint64_t g, uint64_t born)
{
	uint64_t key = g + 1;
	uint32_t h = home(key);

	for (unsigned i = 0; i < PROBES; i++) {
		granule_t *e = &table_g[(h + i) & (SLOTS - 1)];
		if (e->key == key || e->key == 0) {
			if (e->key != key || e->born != born) {
				for (unsigned w = 0; w < WORDS; w++)
					e->bits[w] = e->wait[w] = 0;
				e->key = key;
				e->born = born;
			}
			return e;
		}
	}
	return NULL;
}

uint64_t hmpt_touched_add(uintptr_t from, uintptr_t to, uint64_t born)
{
	uint64_t fresh = 0;

	if (!table_g || page_shift_g > GRANULE_SHIFT)
		return to > from ? to - from : 0;
	for (uintptr_t p = from; p < to;) {
		uintptr_t end = ((p >> GRANULE_SHIFT) + 1) << GRANULE_SHIFT;
		if (end > to)
			end = to;
		granule_t *e = granule(p >> GRANULE_SHIFT, born);
		if (!e) {
			fresh += end - p;
			p = end;
			continue;
		}
		for (; p < end; p += (uintptr_t)1 << page_shift_g) {
			unsigned bit = bit_of(p);
			uint64_t m = 1ull << (bit & 63);
			if (!(e->bits[bit >> 6] & m)) {
				e->bits[bit >> 6] |= m;
				fresh += (uint64_t)1 << page_shift_g;
			}
		}
	}
	return fresh;
}

/* the granule of g as the block born at `born` left it, or NULL (none, or
 * another block's): never reset */
static granule_t *find(uint64_t g, uint64_t born)
{
	uint64_t key = g + 1;
	uint32_t h = home(key);

	if (!table_g)
		return NULL;
	for (unsigned i = 0; i < PROBES; i++) {
		granule_t *e = &table_g[(h + i) & (SLOTS - 1)];
		if (e->key == 0)
			return NULL;
		if (e->key == key)
			return e->born == born ? e : NULL;
	}
	return NULL;
}

/* whether page p was counted for the block born at `born` */
static bool counted(uintptr_t p, uint64_t born)
{
	granule_t *e = find(p >> GRANULE_SHIFT, born);
	unsigned bit = bit_of(p);

	return e && (e->bits[bit >> 6] & 1ull << (bit & 63));
}

bool hmpt_touched_missing(uintptr_t from, uintptr_t to, uint64_t born)
{
	for (uintptr_t p = from; p < to; p += (uintptr_t)1 << page_shift_g)
		if (!counted(p, born))
			return true;
	return false;
}

bool hmpt_touched_wait(uintptr_t page, uint64_t born)
{
	granule_t *e = find(page >> GRANULE_SHIFT, born);
	unsigned bit = bit_of(page);

	if (!e || page_shift_g > GRANULE_SHIFT)
		return false;
	e->wait[bit >> 6] |= 1ull << (bit & 63);
	return true;
}

bool hmpt_touched_unwait(uintptr_t page, uint64_t born)
{
	granule_t *e = find(page >> GRANULE_SHIFT, born);
	unsigned bit = bit_of(page);
	uint64_t m = 1ull << (bit & 63);

	if (!e || !(e->wait[bit >> 6] & m))
		return false;
	e->wait[bit >> 6] &= ~m;
	return true;
}

uint64_t hmpt_touched_unwait_range(uintptr_t from, uintptr_t to, uint64_t born)
{
	uint64_t n = 0;

	for (uintptr_t p = from; p < to; p += (uintptr_t)1 << page_shift_g)
		n += hmpt_touched_unwait(p, born);
	return n;
}

uint64_t hmpt_touched_unseen(uintptr_t from, const unsigned char *resident, size_t npages,
                             uint64_t born)
{
	uint64_t n = 0;

	for (size_t i = 0; i < npages; i++)
		n += (resident[i] & 1) && !counted(from + (i << page_shift_g), born);
	return n << page_shift_g;
}
