/* symbolize.c — see symbolize.h. */
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* from libstdc++ (the C++ ABI); hmpt-tune links it for this one call */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* one symbol of a module's table, for lookups by address */
typedef struct {
	GElf_Addr addr;
	GElf_Xword size;
	const char *name;
	bool global;
} sym_entry_t;

typedef struct {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	/* the symbol table sorted by address, read at the first lookup:
	 * dwfl_module_addrinfo scans the whole table per call, which made
	 * naming N frames of a module of N functions O(N^2) */
	sym_entry_t *syms;
	size_t nsyms;
	bool syms_read;
} sym_module_t;

typedef struct strnode {
	struct strnode *next;
	char s[];
} strnode_t;

struct hmpt_sym {
	sym_module_t *mods;
	size_t n, cap;
	strnode_t *strings; /* every string handed out, freed with the session */
	void *slot;         /* hmpt_sym_slot's */
	void (*slot_release)(void *);
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

hmpt_sym_t *hmpt_sym_new(void)
{
	return calloc(1, sizeof(hmpt_sym_t));
}

void hmpt_sym_free(hmpt_sym_t *s)
{
	if (!s)
		return;
	if (s->slot && s->slot_release)
		s->slot_release(s->slot);
	for (size_t i = 0; i < s->n; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		free(s->mods[i].syms);
		free(s->mods[i].path);
	}
	free(s->mods);
	while (s->strings) {
		strnode_t *n = s->strings->next;
		free(s->strings);
		s->strings = n;
	}
	free(s);
}

static const char *keep(hmpt_sym_t *s, const char *str)
{
	size_t n = strlen(str) + 1;
	strnode_t *node = malloc(sizeof(*node) + n);

	if (!node)
		return "??";
	memcpy(node->s, str, n);
	node->next = s->strings;
	s->strings = node;
	return node->s;
}

/* demangled copy of a symbol name (C names come back as they are) */
static const char *name_of(hmpt_sym_t *s, const char *raw)
{
	int status = -1;
	char *d;

	if (!raw)
		return "??";
	d = strncmp(raw, "_Z", 2) == 0 ? __cxa_demangle(raw, NULL, NULL, &status) : NULL;
	if (d && status == 0) {
		const char *k = keep(s, d);
		free(d);
		return k;
	}
	free(d);
	return keep(s, raw);
}

static int by_addr(const void *a, const void *b)
{
	const sym_entry_t *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address: the global one first, then by name (a stable choice) */
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* the module's defined symbols that name code or data, sorted by address */
static void read_symbols(sym_module_t *m)
{
	int n = dwfl_module_getsymtab(m->mod);

	m->syms_read = true;
	if (n <= 0)
		return;
	m->syms = malloc((size_t)n * sizeof(*m->syms));
	if (!m->syms)
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name =
		    dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		m->syms[m->nsyms++] =
		    (sym_entry_t){addr, sym.st_size, name, GELF_ST_BIND(sym.st_info) != STB_LOCAL};
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), by_addr);
}

/* The symbol holding addr: of those at or below it, the nearest whose size
 * covers it, else the nearest without a size (as dwfl_module_addrinfo
 * chooses); its name and addr's offset in it, or NULL. */
static const char *symbol_at(sym_module_t *m, GElf_Addr addr, GElf_Off *off)
{
	size_t lo = 0, hi;
	const sym_entry_t *sizeless = NULL;

	if (!m->syms_read)
		read_symbols(m);
	hi = m->nsyms;
	while (lo < hi) { /* lo: the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a few back at most: symbols nest (a function inside a larger one) */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 64; seen++) {
		const sym_entry_t *e = &m->syms[i];
		if (e->size && addr < e->addr + e->size) {
			while (i > 0 && m->syms[i - 1].addr == e->addr && m->syms[i - 1].size)
				e = &m->syms[--i]; /* sorted first: the global one */
			*off = addr - e->addr;
			return e->name;
		}
		if (!e->size && !sizeless)
			sizeless = e;
	}
	if (sizeless)
		*off = addr - sizeless->addr;
	return sizeless ? sizeless->name : NULL;
}

static sym_module_t *module_for(hmpt_sym_t *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->mods[i].path, path) == 0)
			return &s->mods[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		sym_module_t *m = realloc(s->mods, cap * sizeof(*m));
		if (!m)
			return NULL;
		s->mods = m;
		s->cap = cap;
	}
	sym_module_t *m = &s->mods[s->n];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return NULL;
	s->n++;
	/* base 0: a shared object's offsets are then its addresses, and an
	 * executable linked at a fixed address uses absolute ones anyway */
	m->dwfl = dwfl_begin(&callbacks);
	if (m->dwfl) {
		m->mod = dwfl_report_elf(m->dwfl, path, path, -1, 0, false);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	return m;
}

/* name of a subprogram or inlined-subroutine DIE, demangled */
static const char *die_name(hmpt_sym_t *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		n = dwarf_formstring(&attr);
	if (!n)
		n = dwarf_diename(die);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &attr))
		n = dwarf_formstring(&attr);
	return name_of(s, n);
}

int hmpt_sym_resolve(hmpt_sym_t *s, const char *module_path, uint64_t offset, hmpt_sym_frame_t *out,
                     int max)
{
	sym_module_t *m = module_path ? module_for(s, module_path) : NULL;
	Dwarf_Addr addr = offset ? offset - 1 : 0; /* the call, not the return address */
	int n = 0;

	if (max < 1)
		return 0;
	out[0] = (hmpt_sym_frame_t){.function = "??", .file = NULL, .line = 0};
	if (!m || !m->mod)
		return 1;

	/* a line only where a compile unit covers the address: outside one
	 * (startup code without debug information) libdw would offer the
	 * nearest line of some other function */
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &bias);
	Dwfl_Line *line = cu ? dwfl_module_getsrc(m->mod, addr) : NULL;
	const char *file = NULL;
	int lineno = 0, column = 0;
	unsigned disc = 0;
	if (line) {
		Dwarf_Addr lbias;
		Dwarf_Line *dl = dwfl_dwarf_line(line, &lbias);
		file = dwfl_lineinfo(line, NULL, &lineno, &column, NULL, NULL);
		if (dl && dwarf_linediscriminator(dl, &disc) != 0)
			disc = 0;
	}

	Dwarf_Die *scopes = NULL;
	int ns = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	/* past an inlined subroutine dwarf_getscopes goes on with the scopes
	 * around its abstract definition, not with the function it was
	 * inlined into: take the scopes that hold the inlined instance */
	for (int i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		Dwarf_Die *outer = NULL;
		int no =
		    tag == DW_TAG_inlined_subroutine ? dwarf_getscopes_die(&scopes[i], &outer) : -1;
		if (no > 0) {
			free(scopes);
			scopes = outer;
			ns = no;
		} else {
			free(outer);
		}
		break;
	}
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (cu)
		dwarf_getsrcfiles(cu, &files, &nfiles);

	/* walk from the innermost scope out: each inlined subroutine is one
	 * frame whose caller's position is its DW_AT_call_file/line */
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n].function = die_name(s, &scopes[i]);
		out[n].file = file ? keep(s, file) : NULL;
		out[n].line = lineno;
		out[n].column = column;
		out[n].discriminator = disc;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0, cc = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 &&
		    files && cf < nfiles)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		else
			file = NULL;
		lineno = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0
		             ? (int)cl
		             : 0;
		column = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_column, &a), &cc) == 0
		             ? (int)cc
		             : 0;
		disc = 0; /* the line table's is the innermost position's only */
	}
	free(scopes);
	if (n == 0) {
		/* no function DIE found (Fortran contained procedures, OpenMP
		 * outlined bodies): the symbol table's name, and the line only
		 * if it lies inside that symbol; outside one, libdw offers the
		 * nearest line of another function (startup code) */
		GElf_Off sym_off = 0;
		Dwarf_Addr line_addr = 0;
		const char *nm = symbol_at(m, addr, &sym_off);
		out[0].function = name_of(s, nm);
		if (line)
			dwfl_lineinfo(line, &line_addr, NULL, NULL, NULL, NULL);
		if (file && nm && line_addr >= addr - sym_off) {
			out[0].file = keep(s, file);
			out[0].line = lineno;
			out[0].column = column;
			out[0].discriminator = disc;
		}
		n = 1;
	}
	return n;
}

void **hmpt_sym_slot(hmpt_sym_t *s, void (*release)(void *))
{
	s->slot_release = release;
	return &s->slot;
}
