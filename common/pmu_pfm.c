/* pmu_pfm.c — the one place that talks to libpfm4 (see pmu.h).
 *
 * A file of its own because libpfm4's perfmon/perf_event.h declares its own
 * struct perf_event_attr, which cannot share a translation unit with the
 * kernel's linux/perf_event.h.  Only plain numbers cross this boundary.
 * libpfm4 allocates while it initialises: callers hold the shim's
 * re-entrancy guard, so those allocations go to the normal allocator.
 *
 * libpfm4 is opened with dlopen the first time sampling asks for it, not
 * linked: its tables carry some 40,000 relocations, which the loader would
 * otherwise process at the start of every program run under the shim.
 */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmu_pfm.h"
#include "sys.h"

#define LIBPFM "libpfm.so.4"

static struct {
	__typeof__(&pfm_initialize) initialize;
	__typeof__(&pfm_strerror) strerror;
	__typeof__(&pfm_get_os_event_encoding) encode;
	__typeof__(&pfm_get_pmu_info) pmu_info;
} pfm_g;
static int init_rc_g = -1; /* PFM_SUCCESS once initialised */
static char why_g[160];    /* why libpfm4 cannot be used, once known */

static bool load(void)
{
	static const hmpt_sys_sym_t syms[] = {
	    {"pfm_initialize", (void **)&pfm_g.initialize},
	    {"pfm_strerror", (void **)&pfm_g.strerror},
	    {"pfm_get_os_event_encoding", (void **)&pfm_g.encode},
	    {"pfm_get_pmu_info", (void **)&pfm_g.pmu_info},
	};
	const char *why = NULL;
	void *h;
	int rc =
	    hmpt_sys_dlopen_syms(LIBPFM, syms, (int)(sizeof(syms) / sizeof(syms[0])), &h, &why);

	if (rc == -ENOENT)
		snprintf(why_g, sizeof(why_g), "libpfm4 cannot be loaded: %s", why);
	else if (rc)
		snprintf(why_g, sizeof(why_g), "%s has no %s", LIBPFM, why);
	return rc == 0;
}

static bool ensure_init(char *err, size_t errlen)
{
	if (init_rc_g != PFM_SUCCESS && !why_g[0]) {
		if (load()) {
			init_rc_g = pfm_g.initialize();
			if (init_rc_g != PFM_SUCCESS)
				snprintf(why_g, sizeof(why_g), "libpfm4 cannot initialise: %s",
				         pfm_g.strerror(init_rc_g));
		}
	}
	if (init_rc_g != PFM_SUCCESS)
		snprintf(err, errlen, "%s", why_g);
	return init_rc_g == PFM_SUCCESS;
}

int hmpt_pfm_encode(const char *event, hmpt_pfm_code_t *out, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	memset(out, 0, sizeof(*out));
	if (!ensure_init(err, errlen))
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	int rc = pfm_g.encode(event, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 cannot encode %s: %s", event, pfm_g.strerror(rc));
		return -1;
	}
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	return 0;
}

const char *hmpt_pfm_pmu(void)
{
	char err[128];
	pfm_pmu_info_t info;

	if (!ensure_init(err, sizeof(err)))
		return NULL;
	/* the first present core PMU libpfm4 knows (or LIBPFM_FORCE_PMU's) */
	for (int p = PFM_PMU_NONE + 1; p < PFM_PMU_MAX; p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_g.pmu_info(p, &info) == PFM_SUCCESS && info.is_present &&
		    info.type == PFM_PMU_TYPE_CORE)
			return info.name;
	}
	return NULL;
}
