/* stage_plans.c — the plans stage: DIR/plan-*.json from the choices. */
#include "stages.h"

#include <limits.h>
#include <stdio.h>

#include "config.h"
#include "confirm.h"
#include "plan.h"
#include "planout.h"

/* --------------------------------------------------------------- plans */

int hmpt_stage_plans(hmpt_tune_t *t, hmpt_measure_t *x)
{
	(void)x;
	struct {
		const char *file;
		int config;
		const char *what;
	} out[] = {{"plan-best.json", t->best,
	            "smallest fast footprint not measurably slower than the fastest"},
	           {"plan-90.json", t->best90,
	            "smallest fast footprint with 90 % of the fastest's speedup"},
	           {"plan-capacity.json", t->fit,
	            "smallest fast footprint within --capacity not measurably slower than the "
	            "fastest there"},
	           {"plan-slow.json", t->ref, "the all-slow reference"}};
	int searched[] = {t->search_best, t->search_best90, t->search_fit};
	for (size_t k = 0; k < sizeof(out) / sizeof(out[0]); k++) {
		char path[PATH_MAX], text[512];
		int ci = out[k].config >= 0 ? out[k].config : t->ref;
		const hmpt_tconfig_t *c = &t->configs[ci];
		if (k == 2 && !t->opt->capacity)
			continue;
		const hmpt_tconfirm_t *cf = hmpt_confirm_of(t, out[k].config);
		const hmpt_tconfirm_t *lost = k < 3 ? hmpt_confirm_of(t, searched[k]) : NULL;
		char fig[96] = "";
		if (lost && lost->pairs > 1)
			snprintf(fig, sizeof(fig), " (%.3fx, %.2f %% interval %.3f-%.3f)",
			         lost->sp.speedup, 100 * (1 - t->confirm_alpha), lost->sp.lo,
			         lost->sp.hi);
		if (out[k].config < 0 && lost)
			snprintf(
			    text, sizeof(text),
			    "%s: none; the search's choice, %s at %.3fx, was not confirmed "
			    "faster in %d fresh rounds beside all-slow%s%s, so nothing is placed "
			    "in the fast pool",
			    out[k].what, t->configs[lost->of].label,
			    t->configs[lost->of].sp.speedup, lost->pairs, fig,
			    t->ntried > 1 ? ", nor was any other configuration tried" : "");
		else if (out[k].config < 0)
			snprintf(
			    text, sizeof(text),
			    "%s: none; no configuration was measurably faster than all-slow%s, "
			    "so nothing is placed in the fast pool",
			    out[k].what, k == 2 ? " within --capacity" : "");
		else if (ci == t->ref)
			snprintf(text, sizeof(text), "%s", out[k].what);
		else if (cf)
			snprintf(
			    text, sizeof(text),
			    "%s: %s, confirmed %.3fx over all-slow (%.2f %% interval %.3f-%.3f, %d "
			    "fresh paired rounds; the search measured %.3fx), %.1f %% of the "
			    "footprint in the fast pool",
			    out[k].what, c->label, cf->sp.speedup, 100 * (1 - t->confirm_alpha),
			    cf->sp.lo, cf->sp.hi, cf->pairs, c->sp.speedup, 100 * c->fast_fraction);
		else
			snprintf(text, sizeof(text),
			         "%s: %s, %.3fx over all-slow (%.0f %% interval %.3f-%.3f, %d runs "
			         "each), %.1f %% of the footprint in the fast pool",
			         out[k].what, c->label, c->sp.speedup, 100 * (1 - t->alpha_used),
			         c->sp.lo, c->sp.hi, c->sum.n, 100 * c->fast_fraction);
		json_t *plan = hmpt_config_plan(t, c, text);
		snprintf(path, sizeof(path), "%s/%s", t->opt->dir, out[k].file);
		int rc = hmpt_plan_emit(plan, path);
		json_decref(plan);
		if (rc)
			return -1;
	}
	return 0;
}
