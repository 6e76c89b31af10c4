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
/* Forget everything (a fork child counts from the fork). */
void hmpt_touched_reset(void);

#endif
