/* mapcalls.h — the program's own changes to tracked memory.
 *
 * Why: glibc unmaps a large block when it is freed, and with it whatever
 * the program did to the mapping (protection, protection keys, advice such
 * as DONTFORK or WIPEONFORK, guard regions, locks, pages moved or unmapped).
 * The arena keeps a freed block's granules for reuse, so the next block
 * there would inherit all of it (arena.h).  mapcalls.c exports mprotect,
 * pkey_mprotect, madvise, mlock, mlock2, munlock, munmap, mremap and mmap:
 * a call whose range meets the arena marks the granules it touches
 * (hmpt_arena_taint), and a marked granule gets a fresh mapping when its
 * block is freed.  Every other call costs one range compare, then goes to
 * the next definition (dlsym(RTLD_NEXT), resolved at boot: another
 * preloaded library's, or libc's).
 *
 * hmpt's own calls (the arena's mappings, the pools' advice) are made with
 * the re-entrancy guard held (boot.h) and mark nothing.
 *
 * munmap of tracked memory, and mremap that moves pages out of it, would
 * leave a hole in the arena that another mapping could take, and the arena
 * maps its granules with MAP_FIXED: the hole is reserved again at once
 * (PROT_NONE: to the program the pages are gone all the same), and if
 * something took it meanwhile those granules are never used again.
 */
#ifndef HMPT_MAPCALLS_H
#define HMPT_MAPCALLS_H

/* Find the next definitions (dlsym): boot.c's resolve_next, once.  Until
 * then the calls go to the kernel directly. */
void hmpt_mapcalls_resolve(void);

#endif
