/* statics.c — see statics.h. */
#include "statics.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

static hmpt_static_t *table_g;
static uint32_t count_g, unreadable_g;

/* ------------------------------------------------------------ ELF parser */

static const char *const data_sections_g[] = {".bss", ".data", ".lbss", ".ldata"};
#define NDATA (sizeof(data_sections_g) / sizeof(data_sections_g[0]))

typedef struct {
	const uint8_t *img;
	size_t len;
	const ElfW(Shdr) * sh;
	unsigned shnum;
	const char *shstr; /* section names */
	size_t shstr_len;
} elf_t;

static bool in_file(const elf_t *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

/* a NUL-terminated string at `off` of a table of `cap` bytes, or NULL */
static const char *str_at(const char *tab, size_t cap, uint64_t off)
{
	if (off >= cap || !memchr(tab + off, '\0', cap - off))
		return NULL;
	return tab + off;
}

/* the data section name of section i, or NULL */
static const char *data_section(const elf_t *e, unsigned i)
{
	if (i == 0 || i >= e->shnum || !(e->sh[i].sh_flags & SHF_ALLOC) ||
	    (e->sh[i].sh_flags & SHF_TLS))
		return NULL;
	const char *name = str_at(e->shstr, e->shstr_len, e->sh[i].sh_name);
	for (unsigned k = 0; name && k < NDATA; k++)
		if (strcmp(name, data_sections_g[k]) == 0)
			return data_sections_g[k];
	return NULL;
}

/* objects of symbol table section `t`; returns how many were reported */
static int scan_symbols(const elf_t *e, unsigned t, uint64_t min, hmpt_elf_object_fn fn, void *ctx)
{
	const ElfW(Shdr) *s = &e->sh[t];
	int n = 0;

	if (s->sh_entsize != sizeof(ElfW(Sym)) || s->sh_offset % sizeof(void *) != 0 ||
	    !in_file(e, s->sh_offset, s->sh_size) || s->sh_link == 0 || s->sh_link >= e->shnum)
		return 0;
	const ElfW(Shdr) *st = &e->sh[s->sh_link];
	if (st->sh_type != SHT_STRTAB || !in_file(e, st->sh_offset, st->sh_size))
		return 0;
	const ElfW(Sym) *sym = (const ElfW(Sym) *)(e->img + s->sh_offset);
	const char *strtab = (const char *)e->img + st->sh_offset;
	for (size_t k = 0; k < s->sh_size / sizeof(*sym); k++) {
		const ElfW(Sym) *y = &sym[k];
		if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT || y->st_size < min)
			continue;
		const char *sec = data_section(e, y->st_shndx);
		const ElfW(Shdr) *d = sec ? &e->sh[y->st_shndx] : NULL;
		/* the object must lie inside its section */
		if (!d || y->st_value < d->sh_addr || y->st_size > d->sh_size ||
		    y->st_value - d->sh_addr > d->sh_size - y->st_size)
			continue;
		const char *name = str_at(strtab, st->sh_size, y->st_name);
		fn(y->st_value, y->st_size, name && *name ? name : sec, sec, ctx);
		n++;
	}
	return n;
}

int hmpt_elf_data_objects(const void *img, size_t len, uint64_t min, hmpt_elf_object_fn fn,
                          void *ctx)
{
	const ElfW(Ehdr) *eh = img;
	elf_t e = {.img = img, .len = len};

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return -EINVAL;
	if (eh->e_shoff == 0) /* no section headers: nothing to name objects by */
		return 0;
	if (eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff % sizeof(void *) != 0 ||
	    !in_file(&e, eh->e_shoff, sizeof(ElfW(Shdr))))
		return -EINVAL;
	e.sh = (const ElfW(Shdr) *)(e.img + eh->e_shoff);
	/* more than SHN_LORESERVE sections: the counts live in section 0 */
	e.shnum = eh->e_shnum ? eh->e_shnum : (unsigned)e.sh[0].sh_size;
	unsigned shstrndx = eh->e_shstrndx == SHN_XINDEX ? e.sh[0].sh_link : eh->e_shstrndx;
	if (!in_file(&e, eh->e_shoff, (uint64_t)e.shnum * sizeof(ElfW(Shdr))) ||
	    shstrndx >= e.shnum || !in_file(&e, e.sh[shstrndx].sh_offset, e.sh[shstrndx].sh_size))
		return -EINVAL;
	e.shstr = (const char *)e.img + e.sh[shstrndx].sh_offset;
	e.shstr_len = e.sh[shstrndx].sh_size;

	int symtab = -1, dynsym = -1;
	for (unsigned i = 1; i < e.shnum; i++) {
		if (e.sh[i].sh_type == SHT_SYMTAB && symtab < 0)
			symtab = (int)i;
		else if (e.sh[i].sh_type == SHT_DYNSYM && dynsym < 0)
			dynsym = (int)i;
	}
	if (symtab >= 0)
		return scan_symbols(&e, (unsigned)symtab, min, fn, ctx);
	int n = dynsym >= 0 ? scan_symbols(&e, (unsigned)dynsym, min, fn, ctx) : 0;
	if (n > 0)
		return n;
	/* stripped, nothing exported: the large sections themselves */
	for (unsigned i = 1; i < e.shnum; i++) {
		const char *sec = data_section(&e, i);
		if (sec && e.sh[i].sh_size >= min && e.sh[i].sh_size > 0) {
			fn(e.sh[i].sh_addr, e.sh[i].sh_size, sec, sec, ctx);
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------- the table */

static void add_object(uint64_t vaddr, uint64_t size, const char *name, const char *section,
                       void *ctx)
{
	const uintptr_t *bias = ctx;

	if (count_g == HMPT_STATICS_MAX)
		return;
	const char *copy = hmpt_sys_perm_strdup(name);
	if (!copy)
		return;
	table_g[count_g++] = (hmpt_static_t){
	    .addr = *bias + vaddr,
	    .size = size,
	    .name = copy,
	    .section = section,
	    .file_backed = section[1] == 'd' || section[2] == 'd', /* .data, .ldata */
	};
}

/* true when the module holds `self` */
static bool holds(const struct dl_phdr_info *info, const void *self)
{
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (uintptr_t)self >= a &&
		    (uintptr_t)self < a + ph->p_memsz)
			return true;
	}
	return false;
}

/* a module with writable data big enough to hold an object of `min` */
static bool has_data(const struct dl_phdr_info *info, uint64_t min)
{
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz >= min)
			return true;
	}
	return false;
}

typedef struct {
	uint64_t min;
	const void *self;
} scan_args_t;

static int module_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const scan_args_t *a = ctx;
	char exe[4096];
	const char *path = info->dlpi_name;
	struct stat st;

	(void)size;
	if (holds(info, a->self) || !has_data(info, a->min))
		return 0;
	if (!path || !*path) { /* the executable */
		if (hmpt_sys_readlink("/proc/self/exe", exe, sizeof(exe)) < 0)
			return 0;
		path = exe;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* not a FIFO's writer wait */
	if (fd < 0) {
		unreadable_g++;
		return 0;
	}
	void *img = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		unreadable_g++;
		return 0;
	}
	uintptr_t bias = info->dlpi_addr;
	if (hmpt_elf_data_objects(img, (size_t)st.st_size, a->min, add_object, &bias) < 0)
		unreadable_g++;
	munmap(img, (size_t)st.st_size);
	return 0;
}

static void sort_table(void)
{
	for (uint32_t gap = count_g / 2; gap > 0; gap /= 2)
		for (uint32_t i = gap; i < count_g; i++) {
			hmpt_static_t v = table_g[i];
			uint32_t j = i;
			while (j >= gap && table_g[j - gap].addr > v.addr) {
				table_g[j] = table_g[j - gap];
				j -= gap;
			}
			table_g[j] = v;
		}
}

uint32_t hmpt_statics_scan(uint64_t min, const void *self)
{
	scan_args_t a = {.min = min ? min : 1, .self = self};

	table_g = hmpt_sys_map(HMPT_STATICS_MAX * sizeof(*table_g));
	if (!table_g)
		return 0;
	dl_iterate_phdr(module_cb, &a);
	sort_table();
	/* aliases (two symbols, one address) and overlaps: the first stays */
	uint32_t n = 0;
	for (uint32_t i = 0; i < count_g; i++) {
		if (n && table_g[i].addr < table_g[n - 1].addr + table_g[n - 1].size)
			continue;
		table_g[n++] = table_g[i];
	}
	count_g = n;
	return count_g;
}

uint32_t hmpt_statics_count(void)
{
	return count_g;
}

hmpt_static_t *hmpt_statics_get(uint32_t i)
{
	return &table_g[i];
}

uint32_t hmpt_statics_unreadable(void)
{
	return unreadable_g;
}

const hmpt_static_t *hmpt_statics_at(uintptr_t addr)
{
	uint32_t lo = 0, hi = count_g;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (addr < table_g[mid].addr)
			hi = mid;
		else if (addr - table_g[mid].addr >= table_g[mid].size)
			lo = mid + 1;
		else
			return &table_g[mid];
	}
	return NULL;
}

void hmpt_statics_pages(const hmpt_static_t *o, uintptr_t page, uintptr_t *lo, uintptr_t *hi)
{
	*lo = (o->addr + page / 2) & ~(page - 1);
	*hi = (o->addr + o->size + page / 2) & ~(page - 1);
	if (*hi < *lo)
		*hi = *lo;
}
