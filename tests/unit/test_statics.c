/* test_statics.c — the ELF data-object parser on this test's own executable
 * (whole, stripped of .symtab, truncated, corrupted), the scan of the live
 * process, and the page rule for objects that share pages. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "statics.h"

#define MIN 100000

/* the objects to find: one in .bss, one in .data; one too small */
char unit_bss_big[300000];
char unit_data_big[200000] = {1};
char unit_bss_small[1000];

typedef struct {
	int n, bss, data, small;
	uint64_t bss_size, data_size;
	char names[8][32];
} found_t;

static void note(uint64_t vaddr, uint64_t size, const char *name, const char *section, void *ctx)
{
	found_t *f = ctx;
	(void)vaddr;
	if (f->n < 8)
		snprintf(f->names[f->n], sizeof(f->names[0]), "%s", name);
	f->n++;
	if (strcmp(name, "unit_bss_big") == 0 && strcmp(section, ".bss") == 0) {
		f->bss++;
		f->bss_size = size;
	}
	if (strcmp(name, "unit_data_big") == 0 && strcmp(section, ".data") == 0) {
		f->data++;
		f->data_size = size;
	}
	if (strcmp(name, "unit_bss_small") == 0)
		f->small++;
}

static void count(uint64_t vaddr, uint64_t size, const char *name, const char *section, void *ctx)
{
	(void)vaddr, (void)size, (void)name, (void)section;
	(*(int *)ctx)++;
}

static uint8_t *read_self(size_t *len)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return NULL;
	uint8_t *buf = malloc((size_t)st.st_size);
	size_t got = 0;
	while (buf && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return buf;
}

static void test_whole(const uint8_t *img, size_t len)
{
	found_t f = {0};
	int n = hmpt_elf_data_objects(img, len, MIN, note, &f);

	CHECK_OP(n, ==, f.n);
	CHECK_OP(f.bss, ==, 1);
	CHECK_OP(f.data, ==, 1);
	CHECK_OP(f.small, ==, 0);
	/* sanitizers may pad globals: at least the declared size */
	CHECK_OP(f.bss_size, >=, sizeof(unit_bss_big));
	CHECK_OP(f.bss_size, <, sizeof(unit_bss_big) + 65536);
	CHECK_OP(f.data_size, >=, sizeof(unit_data_big));
	CHECK_OP(f.data_size, <, sizeof(unit_data_big) + 65536);
	(void)unit_bss_small[0];
}

/* without .symtab (as `strip` leaves it): the exported objects, else the
 * large sections by name */
static void test_stripped(const uint8_t *img, size_t len)
{
	uint8_t *copy = malloc(len);
	memcpy(copy, img, len);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)copy;
	ElfW(Shdr) *sh = (ElfW(Shdr) *)(copy + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			sh[i].sh_type = SHT_PROGBITS;
	found_t f = {0};
	int n = hmpt_elf_data_objects(copy, len, MIN, note, &f);
	CHECK_OP(n, >=, 1);
	CHECK_OP(f.bss, ==, 0);
	CHECK_OP(f.data, ==, 0);
	bool bss = false;
	for (int i = 0; i < f.n && i < 8; i++)
		bss |= strcmp(f.names[i], ".bss") == 0;
	CHECK(bss);
	free(copy);
}

/* every truncation and many corruptions: an answer, never a crash */
static void test_damaged(const uint8_t *img, size_t len)
{
	uint8_t *copy = malloc(len);
	int n = 0;

	CHECK_OP(hmpt_elf_data_objects("not an ELF file at all, just text...", 36, MIN, count, &n),
	         ==, -EINVAL);
	CHECK_OP(hmpt_elf_data_objects(img, 10, MIN, count, &n), ==, -EINVAL);
	for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 4093) {
		memcpy(copy, img, cut);
		int rc = hmpt_elf_data_objects(copy, cut, MIN, count, &n);
		CHECK(rc >= 0 || rc == -EINVAL);
	}
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
	size_t shdrs = eh->e_shoff, shlen = (size_t)eh->e_shnum * sizeof(ElfW(Shdr));
	srand(8);
	for (int k = 0; k < 3000; k++) {
		memcpy(copy, img, len);
		for (int b = 0; b < 4; b++) /* bytes of the section header table */
			copy[shdrs + (size_t)rand() % shlen] = (uint8_t)rand();
		int rc = hmpt_elf_data_objects(copy, len, k % 2 ? MIN : 0, count, &n);
		CHECK(rc >= 0 || rc == -EINVAL);
	}
	free(copy);
}

/* the live process: the executable's objects at their addresses */
static void test_scan(void)
{
	uint32_t n = hmpt_statics_scan(MIN, NULL);
	CHECK_OP(n, >=, 2);
	CHECK_OP(n, ==, hmpt_statics_count());
	const hmpt_static_t *o = hmpt_statics_at((uintptr_t)&unit_bss_big[299999]);
	CHECK(o && strcmp(o->name, "unit_bss_big") == 0 && o->addr == (uintptr_t)unit_bss_big &&
	      !o->file_backed);
	o = hmpt_statics_at((uintptr_t)unit_data_big);
	CHECK(o && strcmp(o->name, "unit_data_big") == 0 && o->file_backed);
	CHECK_OP(hmpt_statics_at((uintptr_t)unit_bss_small), ==, NULL);
	for (uint32_t i = 1; i < n; i++) /* sorted, no overlaps */
		CHECK_OP(hmpt_statics_get(i - 1)->addr + hmpt_statics_get(i - 1)->size, <=,
		         hmpt_statics_get(i)->addr);
}

static void pages(uintptr_t addr, uint64_t size, uintptr_t lo, uintptr_t hi)
{
	hmpt_static_t o = {.addr = addr, .size = size};
	uintptr_t a, b;
	hmpt_statics_pages(&o, 4096, &a, &b);
	CHECK_OP(a, ==, lo);
	CHECK_OP(b, ==, hi);
	if (a != lo || b != hi)
		fprintf(stderr, "  %#lx+%#lx: got %#lx-%#lx\n", (unsigned long)addr,
		        (unsigned long)size, (unsigned long)a, (unsigned long)b);
}

/* each end to the nearest page boundary, a middle rounding up: a shared
 * page goes with the object holding more of it, the lower one on a tie */
static void test_page_rule(void)
{
	pages(0x10000, 0x3000, 0x10000, 0x13000); /* aligned */
	pages(0x10100, 0x3000, 0x10000, 0x13000); /* holds most of its first and last page */
	pages(0x10900, 0x3000, 0x11000, 0x14000); /* holds less of its first page: not it */
	pages(0x10800, 0x3000, 0x11000, 0x14000); /* half of it: the lower neighbour's */
	pages(0x10000, 0x2800, 0x10000, 0x13000); /* ends halfway: keeps the page */
	pages(0x10000, 0x27ff, 0x10000, 0x12000); /* ends short of halfway: leaves it */
	pages(0x10900, 0x100, 0x11000, 0x11000);  /* smaller than half a page: nothing */
	/* two neighbours meeting anywhere: no page twice, none left out */
	for (uintptr_t meet = 0x20000; meet < 0x21000; meet += 0x100) {
		hmpt_static_t a = {.addr = 0x10000, .size = meet - 0x10000};
		hmpt_static_t b = {.addr = meet, .size = 0x30000 - meet};
		uintptr_t alo, ahi, blo, bhi;
		hmpt_statics_pages(&a, 4096, &alo, &ahi);
		hmpt_statics_pages(&b, 4096, &blo, &bhi);
		CHECK_OP(ahi, ==, blo);
		CHECK_OP(alo, ==, 0x10000);
		CHECK_OP(bhi, ==, 0x30000);
		uintptr_t held_by_a = meet - 0x20000;
		CHECK_OP((ahi == 0x21000), ==, (held_by_a >= 0x800));
	}
}

int main(void)
{
	size_t len = 0;
	uint8_t *img = read_self(&len);

	CHECK(img && len > sizeof(ElfW(Ehdr)));
	if (img) {
		test_whole(img, len);
		test_stripped(img, len);
		test_damaged(img, len);
	}
	test_scan();
	test_page_rule();
	free(img);
	unit_data_big[1] = unit_bss_big[1];
	if (failures)
		fprintf(stderr, "test_statics: %d failed\n", failures);
	return failures ? 1 : 0;
}
