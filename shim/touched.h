/* touched.h — the base pages whose first touch page-fault mode has counted.
 *
 * Why: page-fault mode reports the bytes of each block first touched, and a
 * fault is not one new page.  A page read before it is written faults twice
 * (the kernel maps its shared zero page for the read, then copies on the
 * write: `a[i] += x` on calloc'd memory), and a huge page's one fault maps
 * 512 base pages.  So each base page counts once in the life of the block
 * that holds it: the first fault that maps it.
 *
 * How: a fixed open-addressed table of 2 MiB granules of address space, each
 * with the birth stamp of the block it counted for and one bit per base
 * page.  A granule seen for a block born at another time starts empty (the
 * range was freed and taken again).  Blocks whose samples wait in two
 * threads' rings across a free and a reuse of the same range can be counted
 * twice: the stamps tell blocks apart, not the order of the rings.
 *
 * Contract: one caller at a time (the sampler's reader, under its lock); no
 * malloc (the table is one lazily backed mapping).  When the table is full,
 * a fault counts the bytes it mapped, unchecked.
 */
#ifndef HMPT_TOUCHED_H
#define HMPT_TOUCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Map the table for base pages of `page` bytes; false without memory. */
bool hmpt_touched_init(size_t page);
/* Of the page-aligned range [from, to) of the block born at `born`, the
 * bytes not counted before; they are counted now. */
uint64_t hmpt_touched_add(uintptr_t from, uintptr_t to, uint64_t born);
/* Whether a page of [from, to) (page-aligned) is not counted for the block
 * born at `born` (page-fault mode reads the page table only then). */
bool hmpt_touched_missing(uintptr_t from, uintptr_t to, uint64_t born);
/* A counted page that maps the kernel's zero page waits for its node until
 * the block writes it (its refault) or is freed, whatever the time: mark
 * it (false: not counted for this block, or no table), take one mark off
 * (true: it was waiting), or take every mark in [from, to) off (how many). */
bool hmpt_touched_wait(uintptr_t page, uint64_t born);
bool hmpt_touched_unwait(uintptr_t page, uint64_t born);
uint64_t hmpt_touched_unwait_range(uintptr_t from, uintptr_t to, uint64_t born);
/* Bytes of the npages pages from `from` that `resident` (mincore's vector:
 * bit 0 set when resident) holds and no fault counted for the block born
 * at `born`: first touched where no perf event is raised (get_user_pages:
 * process_vm_writev, O_DIRECT), or whose sample was lost. */
uint64_t hmpt_touched_unseen(uintptr_t from, const unsigned char *resident, size_t npages,
                             uint64_t born);
/* Forget everything (a fork child counts from the fork). */
void hmpt_touched_reset(void);

#endif
