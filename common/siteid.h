/* siteid.h — which frames of a call stack make an allocation site's
 * identity; shared by the shim (sites.c), the plan loader (plan.c) and
 * hmpt-tune, so that an id means the same thing in a profile, in a plan and
 * in the running program.
 *
 * Why: the system's runtime libraries (the C library and its dynamic
 * loader, the C++/Fortran runtimes, the OpenMP runtimes, libgcc) are not
 * the user's: a distribution update moves every offset in them, and
 * another host has other builds of them.  Their frames between or below the
 * program's own (libc's start-up frames, an OpenMP runtime's fork or
 * thread-start frames, ld.so running constructors) say nothing about which
 * array is allocated, so a site's identity leaves them out.  Frames of any
 * other library (the program's own, MPI, HDF5, BLAS) stay: an allocation
 * made inside a library the program calls is named by that library's
 * frames.  (Leading runtime frames, such as operator new or a libc wrapper,
 * are not recorded at all: sites.c skips them.)  A stack made only of
 * runtime frames keeps them all: there is nothing else to name it by.
 *
 * A frame in no loaded module (anonymous executable memory: the JIT code of
 * a JVM or of V8, an interpreter's trampolines) is written "??!0x<absolute
 * address>": ASLR and the JIT place that code anew in every run, so such a
 * frame is no part of any identity either, not even of a stack made of
 * nothing else (its id is then the hash of no frame).
 *
 * Version-1 plans hashed every frame (HMPT_SITEID_ALL): plan.c accepts
 * either id there and matches on the identity frames.  Version-2 plans and
 * profiles written before anonymous frames were left out hashed them as
 * owned frames, module hash 0 (HMPT_SITEID_OWNED_ANON): their ids are
 * accepted too.
 */
#ifndef HMPT_SITEID_H
#define HMPT_SITEID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"

/* Is this module (a base name, as frames write it) a system runtime
 * library?  Matched by prefix, so that every soname version counts. */
static inline bool hmpt_siteid_runtime(const char *name)
{
	static const char *const prefixes[] = {
	    /* the C library, its companions and the dynamic loader */
	    "libc.so", "ld-linux", "ld64.so", "libpthread.so", "libdl.so", "librt.so", "libm.so",
	    /* compiler runtimes: GNU, LLVM, Intel, NVIDIA HPC SDK, Cray */
	    "libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libatomic.so",
	    "libquadmath.so", "libgfortran.so", "libFortranRuntime", "libflang", "libifcore",
	    "libifport", "libimf.so", "libintlc.so", "libsvml.so", "libirng.so", "libnvf.so",
	    "libnvc.so", "libnvcpumath", "libpgmath", "libfi.so", "libcsup.so",
	    /* OpenMP runtimes */
	    "libgomp.so", "libomp.so", "libiomp5.so", "libnvomp.so", "libcraymp"};
	for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* What "module!0x..." frames write for a frame in no loaded module. */
#define HMPT_SITEID_NO_MODULE "??"

/* Where a frame is, as the identity rules see it. */
typedef enum {
	HMPT_SITEID_FRAME_OWNED,   /* the program or any library not a runtime one */
	HMPT_SITEID_FRAME_RUNTIME, /* a system runtime library (hmpt_siteid_runtime) */
	HMPT_SITEID_FRAME_ANON,    /* no module: JIT or interpreter code */
} hmpt_siteid_class_t;

/* The class of a frame of module `name` as frames write it. */
static inline hmpt_siteid_class_t hmpt_siteid_class(const char *name)
{
	return strcmp(name, HMPT_SITEID_NO_MODULE) == 0 ? HMPT_SITEID_FRAME_ANON
	       : hmpt_siteid_runtime(name)              ? HMPT_SITEID_FRAME_RUNTIME
	                                                : HMPT_SITEID_FRAME_OWNED;
}

typedef enum {
	HMPT_SITEID_OWNED, /* owned frames; none: the runtime ones; never anonymous */
	HMPT_SITEID_ALL,   /* every frame: ids of version-1 plans and profiles */
	/* anonymous frames as owned ones: ids of version-2 plans and profiles
	 * written before they were left out */
	HMPT_SITEID_OWNED_ANON,
} hmpt_siteid_rule_t;

/* The indices of the identity frames of n frames (cls[i]: frame i's class)
 * into idx; returns how many. */
static inline uint32_t hmpt_siteid_frames(const hmpt_siteid_class_t *cls, uint32_t n,
                                          hmpt_siteid_rule_t rule, uint32_t *idx)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (rule == HMPT_SITEID_ALL || cls[i] == HMPT_SITEID_FRAME_OWNED ||
		    (rule == HMPT_SITEID_OWNED_ANON && cls[i] == HMPT_SITEID_FRAME_ANON))
			idx[k++] = i;
	if (k == 0) /* only runtime frames (and anonymous ones): they are all there is */
		for (uint32_t i = 0; i < n; i++)
			if (cls[i] == HMPT_SITEID_FRAME_RUNTIME)
				idx[k++] = i;
	return k;
}

/* The site id: the hash of the identity frames (module-name hash, offset). */
static inline uint64_t hmpt_siteid_hash(const uint64_t *name_hashes, const uint64_t *offsets,
                                        const uint32_t *idx, uint32_t k)
{
	uint64_t id = HMPT_HASH_SEED;

	for (uint32_t i = 0; i < k; i++)
		id = hmpt_hash_frame(id, name_hashes[idx[i]], offsets[idx[i]]);
	return id;
}

#endif
