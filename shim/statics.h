/* statics.h — the large static data objects of the loaded program: arrays
 * in .bss, .data and the large-model .lbss/.ldata, Fortran COMMON blocks.
 *
 * Why: STREAM, NPB and most legacy Fortran keep their big arrays in static
 * storage, which never passes through malloc.  They are found once, before
 * main, in the ELF symbol tables of the executable and its shared libraries,
 * and become sites like heap call stacks: one frame, `module!0xoffset` of
 * the object itself.
 *
 * Contract: hmpt_statics_scan() once, in the constructor, before sampling
 * starts and before any other call; the table is read-only afterwards, so
 * hmpt_statics_at() takes no lock.  No malloc and no stdio: module files are
 * mapped read-only and unmapped again, names are copied into permanent
 * memory.  hmpt_elf_data_objects() is the pure parser, for the unit tests.
 */
#ifndef HMPT_STATICS_H
#define HMPT_STATICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMPT_STATICS_MAX 4096u

typedef struct {
	uintptr_t addr;      /* where it is in this process */
	uint64_t size;       /* bytes, as the symbol table says */
	const char *name;    /* the symbol, or the section's name (stripped module) */
	const char *section; /* ".bss", ".data", ".lbss" or ".ldata" */
	bool file_backed;    /* .data/.ldata: pages come from the file (a private mapping) */
	uint32_t site;       /* set by the caller once the site exists */
} hmpt_static_t;

/* One object of an ELF image: `vaddr` is its address in the file's own
 * numbering (add the load bias for the process's). */
typedef void (*hmpt_elf_object_fn)(uint64_t vaddr, uint64_t size, const char *name,
                                   const char *section, void *ctx);

/* Every object symbol of at least `min` bytes in .bss, .data, .lbss or
 * .ldata of the ELF image `img` (a whole file of `len` bytes).  The symbols
 * come from .symtab; a module without one (stripped) gives the objects of
 * .dynsym, and when none qualifies there, each large section itself, named
 * after the section.  Returns the number of objects reported, or -EINVAL
 * when `img` is not an ELF file of this machine's class or is truncated. */
int hmpt_elf_data_objects(const void *img, size_t len, uint64_t min, hmpt_elf_object_fn fn,
                          void *ctx);

/* Scan every loaded module except the one holding `self` (libhmpt); objects
 * sorted by address, overlaps and aliases dropped.  Returns the count. */
uint32_t hmpt_statics_scan(uint64_t min, const void *self);
uint32_t hmpt_statics_count(void);
hmpt_static_t *hmpt_statics_get(uint32_t i);
/* The object holding addr, or NULL. */
const hmpt_static_t *hmpt_statics_at(uintptr_t addr);
/* Modules with large writable data whose file could not be read or parsed
 * (skipped), for messages. */
uint32_t hmpt_statics_unreadable(void);

/* The page range an object's placement covers: each end rounded to the
 * nearest page boundary, an end in the middle of a page rounding up.  So a
 * page two objects share goes with the one holding more of it (the lower
 * one on a tie), and no page belongs to two objects.  Empty (*lo == *hi)
 * for an object smaller than half a page. */
void hmpt_statics_pages(const hmpt_static_t *o, uintptr_t page, uintptr_t *lo, uintptr_t *hi);

#endif
