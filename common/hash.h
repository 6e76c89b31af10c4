/* hash.h — the one hash behind site ids, shared by the shim and the tuner.
 *
 * Why here: a plan names sites by their module!offset frames, and the plan
 * loader (also linked into hmpt-tune, which has no libunwind) must compute
 * the same stable ids the shim writes into profiles.  64-bit FNV-1a.
 */
#ifndef HMPT_HASH_H
#define HMPT_HASH_H

#include <stdint.h>

#define HMPT_HASH_SEED 0xcbf29ce484222325ull

static inline uint64_t hmpt_hash_bytes(uint64_t h, const void *data, unsigned long n)
{
	const unsigned char *p = data;

	for (unsigned long i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The hash of a module's base name, as frames and ids use it. */
static inline uint64_t hmpt_hash_module(const char *name, unsigned long len)
{
	return hmpt_hash_bytes(HMPT_HASH_SEED, name, len);
}

/* Extend a site id by one frame: (module-name hash, offset). */
static inline uint64_t hmpt_hash_frame(uint64_t id, uint64_t name_hash, uint64_t off)
{
	id = hmpt_hash_bytes(id, &name_hash, sizeof(name_hash));
	return hmpt_hash_bytes(id, &off, sizeof(off));
}

#endif
