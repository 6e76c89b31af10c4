/* thresh.h — glibc's dynamic mmap and trim thresholds, moved as glibc
 * would move them although the blocks that move them are hmpt's.
 *
 * Why: glibc serves a large request with its own mapping, and when the
 * program frees such a block (up to 32 MiB) it raises its mmap threshold
 * to the block's size and its trim threshold to twice that.  A program
 * that frees one large buffer thus stops giving its heap top back to the
 * kernel on every free and faulting it in again on the next round of
 * allocations.  Under hmpt those blocks are tracked and never reach glibc,
 * whose thresholds stay at 128 KiB: a heap top that rises and falls by
 * more than that is trimmed and refaulted every cycle (bench/alloc_rows.c,
 * row heaptop: hundreds of times slower).  So on the free of a tracked
 * block that glibc would have mapped and counted, hmpt sets the thresholds
 * glibc would have set, with glibc's mallopt().
 *
 * Not when the program fixed them itself (mallopt, MALLOC_*_ variables,
 * GLIBC_TUNABLES): glibc then leaves them alone, and so does hmpt.  Not
 * when the next allocator is not glibc's.  (A program that calls mallopt
 * while another of its threads frees a tracked block may see hmpt's value
 * land after its own once.)
 *
 * Contract: no malloc; thread-safe without a lock; nothing happens before
 * hmpt_thresh_init(), which the constructor calls once.
 */
#ifndef HMPT_THRESH_H
#define HMPT_THRESH_H

#include <stdbool.h>
#include <stdint.h>

/* Follow glibc from now on, unless `env` fixes its thresholds or the next
 * allocator is not glibc's. */
void hmpt_thresh_init(char **env);
/* glibc's thresholds are the program's own from now on (mallopt(param)). */
void hmpt_thresh_note_mallopt(int param);
/* A tracked block of `size` bytes is about to be freed by free(): raise
 * glibc's thresholds as its own free of that block would have. */
void hmpt_thresh_note_free(uint64_t size);
/* hmpt may still move glibc's thresholds: a tracked free must call
 * hmpt_thresh_note_free() (one load). */
bool hmpt_thresh_following(void);

#endif
