/* report.c — see report.h. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "profiles.h"
#include "sitesym.h"

#define MAX_INLINE 16

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* expand one frame; returns entries and the module name */
static int expand(hmpt_sym_t *sym, const json_t *prof, const char *frame, hmpt_sym_frame_t *out,
                  int max)
{
	char module[256];
	uint64_t off;

	if (hmpt_prof_parse_frame(frame, module, sizeof(module), &off) != 0) {
		out[0] = (hmpt_sym_frame_t){.function = "??"};
		return 1;
	}
	return hmpt_sym_resolve(sym, hmpt_prof_module_path(prof, module), off, out, max);
}

bool hmpt_report_is_static(const json_t *site)
{
	const char *kind = hmpt_prof_str(site, "kind");
	return kind && strcmp(kind, "static") == 0;
}

bool hmpt_report_static_text(const json_t *site, char *buf, size_t cap)
{
	if (!hmpt_report_is_static(site))
		return false;
	snprintf(buf, cap, "%s (static, %s)", hmpt_prof_str(site, "symbol") ?: "??",
	         hmpt_prof_str(site, "section") ?: "?");
	return true;
}

uint64_t hmpt_report_static_bytes(const json_t *prof, size_t *count)
{
	uint64_t bytes = 0;
	size_t i;
	json_t *s;

	*count = 0;
	json_array_foreach(json_object_get(prof, "sites"), i, s)
	{
		if (hmpt_report_is_static(s)) {
			bytes += hmpt_prof_u64(s, "bytes");
			(*count)++;
		}
	}
	return bytes;
}

/* what the share column divides by: tracked heap bytes and static data */
static uint64_t all_bytes(const json_t *prof)
{
	size_t n;
	return hmpt_prof_u64(json_object_get(prof, "totals"), "tracked_bytes") +
	       hmpt_report_static_bytes(prof, &n);
}

/* which call of its statement frame k of the site is (sitesym.h) */
static void statement(hmpt_sym_t *sym, const json_t *prof, const json_t *site, size_t k,
                      hmpt_site_loc_t *loc)
{
	const hmpt_symframe_t *f = hmpt_sitesym_frame(sym, prof, site, k);

	if (!f || f->positions < 2)
		return;
	loc->position = f->position;
	loc->positions = f->positions;
	loc->variable = f->variable;
	hmpt_sitesym_ordinal(loc->detail, sizeof(loc->detail), f->position, f->positions,
	                     f->variable);
}

void hmpt_report_locate(hmpt_sym_t *sym, const json_t *prof, const json_t *site,
                        hmpt_site_loc_t *loc)
{
	loc->detail[0] = '\0';
	loc->position = loc->positions = 1;
	loc->variable = NULL;
	if (hmpt_report_is_static(site)) { /* a data address: no function to find */
		loc->function = hmpt_prof_str(site, "symbol") ?: "??";
		snprintf(loc->location, sizeof(loc->location), "static, %s",
		         hmpt_prof_str(site, "section") ?: "?");
		return;
	}
	const json_t *frames = json_object_get(site, "frames");
	hmpt_sym_frame_t chain[MAX_INLINE], any = {0}, first = {.function = "??"};
	bool have_any = false, have_first = false;
	size_t i;
	json_t *f;

	size_t any_frame = 0;

	json_array_foreach(frames, i, f)
	{
		int n = expand(sym, prof, json_string_value(f), chain, MAX_INLINE);
		for (int k = 0; k < n; k++) {
			if (!have_first) {
				first = chain[k];
				have_first = true;
			}
			if (!chain[k].file)
				continue;
			if (!have_any) {
				any = chain[k];
				any_frame = i;
				have_any = true;
			}
			if (strncmp(chain[k].file, "/usr/", 5) != 0) {
				loc->function = chain[k].function;
				snprintf(loc->location, sizeof(loc->location), "%s:%d",
				         base_name(chain[k].file), chain[k].line);
				statement(sym, prof, site, i, loc);
				return;
			}
		}
	}
	if (have_any) {
		loc->function = any.function;
		snprintf(loc->location, sizeof(loc->location), "%s:%d", base_name(any.file),
		         any.line);
		statement(sym, prof, site, any_frame, loc);
		return;
	}
	loc->function = first.function;
	snprintf(loc->location, sizeof(loc->location), "??:0");
}

/* Where a site's bytes went under a plan: "hbm", "hbm 75% ddr* 25%" (a
 * star marks a fallback); "" without a plan. */
static void placed_text(char *buf, size_t cap, const json_t *site)
{
	const json_t *pl = json_object_get(site, "placement");
	const json_t *pools = json_object_get(pl, "pools"), *p;
	uint64_t total = 0;
	size_t i, len = 0;

	buf[0] = '\0';
	json_array_foreach(pools, i, p) total += hmpt_prof_u64(p, "bytes");
	json_array_foreach(pools, i, p)
	{
		bool fb = json_is_true(json_object_get(p, "fallback"));
		uint64_t b = hmpt_prof_u64(p, "bytes");
		if (len >= cap)
			break;
		if (json_array_size(pools) == 1)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s",
			                        hmpt_prof_str(p, "pool") ?: "?", fb ? "*" : "");
		else
			len += (size_t)snprintf(buf + len, cap - len, "%s%s%s %.0f%%", i ? " " : "",
			                        hmpt_prof_str(p, "pool") ?: "?", fb ? "*" : "",
			                        total ? 100.0 * (double)b / (double)total : 0.0);
	}
}

void hmpt_report_frame_text(hmpt_sym_t *sym, const json_t *prof, const char *frame,
                            const char *detail, char *buf, size_t cap)
{
	hmpt_sym_frame_t chain[MAX_INLINE];
	int n = expand(sym, prof, frame, chain, MAX_INLINE);
	const hmpt_sym_frame_t *in = &chain[0], *out = &chain[n - 1];

	if (n > 1)
		snprintf(buf, cap, "%s inlined in %s", in->function, out->function);
	else
		snprintf(buf, cap, "%s", in->function);
	if (in->file) {
		size_t len = strlen(buf);
		snprintf(buf + len, cap - len, " (%s:%d%s%s)", base_name(in->file), in->line,
		         detail && *detail ? ", " : "", detail ? detail : "");
	}
}

/* An instruction's function and line.  Frames are return addresses, which
 * symbolize.c looks up a byte early (in the call); a sampled instruction
 * pointer is the instruction itself, so it is given a byte late. */
static void instruction_text(hmpt_sym_t *sym, const json_t *prof, const char *at, char *buf,
                             size_t cap)
{
	char module[256], frame[300];
	uint64_t off;

	if (hmpt_prof_parse_frame(at, module, sizeof(module), &off) != 0) {
		snprintf(buf, cap, "%s", at);
		return;
	}
	snprintf(frame, sizeof(frame), "%s!0x%" PRIx64, module, off + 1);
	hmpt_report_frame_text(sym, prof, frame, NULL, buf, cap);
}

bool hmpt_report_top_instruction(hmpt_sym_t *sym, const json_t *prof, const json_t *site, char *buf,
                                 size_t cap)
{
	const json_t *smp = json_object_get(site, "samples"), *ip, *top = NULL;
	size_t i;

	json_array_foreach(json_object_get(smp, "ips"), i, ip)
	{
		if (!top || hmpt_prof_u64(ip, "n") > hmpt_prof_u64(top, "n"))
			top = ip;
	}
	const char *at = top ? hmpt_prof_str(top, "at") : NULL;
	uint64_t of = hmpt_prof_u64(smp, "ips_of");
	if (!at || !of)
		return false;
	char fn[192];
	if (!strcmp(at, "[kernel]"))
		snprintf(fn, sizeof(fn), "the kernel (a copy into it: read(), a receive)");
	else
		instruction_text(sym, prof, at, fn, sizeof(fn));
	snprintf(buf, cap, "%s, %.0f %%", fn, 100.0 * (double)hmpt_prof_u64(top, "n") / (double)of);
	return true;
}

int hmpt_report_tsv(FILE *out, const json_t *prof, hmpt_sym_t *sym)
{
	const json_t *sites = json_object_get(prof, "sites");
	uint64_t total = all_bytes(prof);
	size_t i, k;
	json_t *s, *f;

	fprintf(out, "id\tbytes\tshare\tallocations\tmax_size\tpeak_live_bytes\tlive_bytes\t"
	             "function\tlocation\tframes\tplaced\tsamples\taccess_share\tper_mib\t"
	             "first_touch_bytes\tlatency_mean\tposition\tvariable\tpattern\tstride\t"
	             "pattern_confidence\tmost_from\n");
	json_array_foreach(sites, i, s)
	{
		hmpt_site_loc_t loc;
		uint64_t b = hmpt_prof_u64(s, "bytes");
		hmpt_report_locate(sym, prof, s, &loc);
		fprintf(
		    out, "%s\t%llu\t%.4f\t%llu\t%llu\t%llu\t%llu\t%s\t%s\t", hmpt_prof_str(s, "id"),
		    (unsigned long long)b, total ? (double)b / (double)total : 0.0,
		    (unsigned long long)hmpt_prof_u64(s, "allocations"),
		    (unsigned long long)hmpt_prof_u64(s, "max_size"),
		    (unsigned long long)hmpt_prof_u64(s, "peak_live_bytes"),
		    (unsigned long long)hmpt_prof_u64(s, "live_bytes"), loc.function, loc.location);
		json_array_foreach(json_object_get(s, "frames"), k, f)
		    fprintf(out, "%s%s", k ? " " : "", json_string_value(f));
		char placed[256];
		placed_text(placed, sizeof(placed), s);
		fprintf(out, "\t%s", placed);
		const json_t *ss = json_object_get(s, "samples");
		const json_t *pm = json_object_get(ss, "per_mib");
		const json_t *lm = json_object_get(ss, "latency_mean");
		if (ss)
			fprintf(out, "\t%llu\t%.6f\t", (unsigned long long)hmpt_prof_u64(ss, "n"),
			        json_number_value(json_object_get(ss, "share")));
		else
			fputs("\t\t\t", out);
		if (json_is_number(pm))
			fprintf(out, "%.3f", json_number_value(pm));
		fputc('\t', out);
		if (json_object_get(ss, "first_touch_bytes"))
			fprintf(out, "%llu",
			        (unsigned long long)hmpt_prof_u64(ss, "first_touch_bytes"));
		fputc('\t', out);
		if (json_is_number(lm))
			fprintf(out, "%.1f", json_number_value(lm));
		/* the arrays of one statement, told apart (new columns go last:
		 * scripts read the others by number) */
		fputc('\t', out);
		if (loc.positions > 1)
			fprintf(out, "%d/%d", loc.position, loc.positions);
		fprintf(out, "\t%s", loc.variable ? loc.variable : "");
		/* how it is walked, and the instruction most of its samples name */
		hmpt_pattern_class_t pc;
		char from[256] = "";
		hmpt_prof_site_pattern(s, &pc);
		hmpt_report_top_instruction(sym, prof, s, from, sizeof(from));
		if (json_object_get(ss, "pattern"))
			fprintf(out, "\t%s\t%llu\t%.3f", hmpt_pattern_name(pc.kind),
			        (unsigned long long)pc.stride, pc.confidence);
		else
			fputs("\t\t\t", out);
		fprintf(out, "\t%s\n", from);
	}
	return ferror(out) ? -EIO : 0;
}

/* How each source's samples read in a figure's note; another source is
 * named by its own name. */
static const struct {
	const char *source, *text;
} source_texts_g[] = {
    {"timer", "timer samples: where the CPU time went"},
    {"pebs", "PEBS load samples"},
    {"ibs", "IBS op samples"},
    {"faults", "page faults"},
};

void hmpt_report_source(const json_t *sm, hmpt_report_source_t *src)
{
	const char *name = hmpt_prof_str(sm, "source") ?: hmpt_prof_str(sm, "mode");
	hmpt_prof_caps_t caps = hmpt_prof_sampling_caps(sm);

	*src = (hmpt_report_source_t){0};
	src->density = caps.access_density;
	src->first_touch = caps.first_touch;
	/* samples that count accesses say what each cost (latency, weight) or
	 * how many it stands for (regions); a timer's are the cost itself */
	src->time = src->density && !caps.latency && !caps.weight && !caps.regions;
	src->kind = src->density ? "accesses" : src->first_touch ? "first touches" : NULL;
	if (!src->kind || !name)
		return;
	snprintf(src->source, sizeof(src->source), "%s %s", name,
	         src->density ? "samples" : "first touches");
	for (size_t i = 0; i < sizeof(source_texts_g) / sizeof(source_texts_g[0]); i++)
		if (!strcmp(name, source_texts_g[i].source))
			snprintf(src->source, sizeof(src->source), "%s", source_texts_g[i].text);
}

/* What the profile's sampling could not see or had to give up, one line
 * each, only where there is something to say. */
static void sampling_limits(FILE *out, const json_t *sm, const hmpt_prof_caps_t *caps)
{
	bool faults = caps->first_touch;
	const char *fb = hmpt_prof_str(sm, "fallbacks");
	uint64_t failed =
	    hmpt_prof_u64(sm, "threads_failed") + hmpt_prof_u64(sm, "threads_unsampled");
	uint64_t lost = hmpt_prof_u64(sm, "lost") + hmpt_prof_u64(sm, "lost_samples");
	const json_t *kt = json_object_get(sm, "kernel_touches");

	if (fb && *fb)
		fprintf(out, "hmpt: sampling fell back: %s\n", fb);
	if (faults && json_is_false(kt))
		fprintf(out,
		        "hmpt: sampling: first touches the kernel makes for the program (read() "
		        "into a block, a receive) are not counted: they need "
		        "perf_event_paranoid <= 1 or CAP_PERFMON\n");
	if (failed)
		fprintf(out,
		        "hmpt: sampling: %llu thread%s ran unsampled (the kernel's budget for perf "
		        "rings, or more than 1024 threads)\n",
		        (unsigned long long)failed, failed == 1 ? "" : "s");
	if (lost && !caps->access_density) /* the access line says it already */
		fprintf(out, "hmpt: sampling: %llu samples lost (the reader fell behind)\n",
		        (unsigned long long)lost);
	if (faults && hmpt_prof_u64(sm, "unobserved_faults"))
		fprintf(out,
		        "hmpt: sampling: sites allocated more than %llu times: 1 block in %llu "
		        "observed, their bytes scaled up\n",
		        (unsigned long long)hmpt_prof_u64(sm, "observe_first"),
		        (unsigned long long)hmpt_prof_u64(sm, "observe_every"));
}

/* One line on how accesses were sampled, and what that means, then the
 * limits (report.h) */
void hmpt_report_sampling(FILE *out, const json_t *sm)
{
	const char *mode = hmpt_prof_str(sm, "mode");
	const char *why = hmpt_prof_str(sm, "why");

	if (!json_is_object(sm) || !mode)
		return;
	if (!strcmp(mode, "off")) {
		fprintf(out, "hmpt: sampling: off (%s)\n", why && *why ? why : "not asked for");
		return;
	}
	hmpt_prof_caps_t caps = hmpt_prof_sampling_caps(sm);
	if (!caps.access_density) {
		fprintf(out,
		        "hmpt: sampling: page faults: first touch only, access density is not "
		        "available (%s)\n",
		        why && *why ? why : "asked for");
		sampling_limits(out, sm, &caps);
		return;
	}
	uint64_t n = hmpt_prof_u64(sm, "samples");
	uint64_t in = hmpt_prof_u64(sm, "attributed") + hmpt_prof_u64(sm, "attributed_after_free");
	const json_t *dec = json_object_get(sm, "decode");
	if (json_is_object(dec)) /* the timer: its samples, not the page faults beside */
		fprintf(out,
		        "hmpt: sampling: %s, every %.3g ms of CPU time: %llu samples, %.1f%% in "
		        "tracked blocks, and page faults for the bytes first touched; lost %llu\n",
		        mode, 1e-6 * (double)hmpt_prof_u64(sm, "period"),
		        (unsigned long long)hmpt_prof_u64(dec, "samples"),
		        hmpt_prof_u64(sm, "share_of")
		            ? 100.0 * (double)in / (double)hmpt_prof_u64(sm, "share_of")
		            : 0.0,
		        (unsigned long long)(hmpt_prof_u64(sm, "lost") +
		                             hmpt_prof_u64(sm, "lost_samples")));
	else
		fprintf(out,
		        "hmpt: sampling: %s on %s, period %llu: %llu samples, %.1f%% in tracked "
		        "blocks; "
		        "lost %llu, throttled %llu\n",
		        mode, hmpt_prof_str(sm, "model") ?: "?",
		        (unsigned long long)hmpt_prof_u64(sm, "period"), (unsigned long long)n,
		        hmpt_prof_u64(sm, "share_of")
		            ? 100.0 * (double)in / (double)hmpt_prof_u64(sm, "share_of")
		            : 0.0,
		        (unsigned long long)(hmpt_prof_u64(sm, "lost") +
		                             hmpt_prof_u64(sm, "lost_samples")),
		        (unsigned long long)hmpt_prof_u64(sm, "throttled"));
	if (json_is_object(dec)) {
		uint64_t mem = hmpt_prof_u64(dec, "memory"), ok = hmpt_prof_u64(dec, "decoded");
		fprintf(out,
		        "hmpt: sampling: timer samples decoded to data addresses: %llu of %llu on "
		        "an instruction that touches memory (%.1f%%); the rest name no memory "
		        "operand\n",
		        (unsigned long long)ok, (unsigned long long)mem,
		        mem ? 100.0 * (double)ok / (double)mem : 0.0);
	}
	sampling_limits(out, sm, &caps);
}

/* the sampled columns' text for a site */
static void sample_cells(char *a, char *b, size_t cap, const json_t *s, bool faults)
{
	const json_t *ss = json_object_get(s, "samples");
	const json_t *pm = json_object_get(ss, "per_mib");

	snprintf(a, cap, "%5.1f%%", 100.0 * json_number_value(json_object_get(ss, "share")));
	if (faults)
		hmpt_fmt_size_text(b, cap, hmpt_prof_u64(ss, "first_touch_bytes"));
	else if (json_is_number(pm))
		snprintf(b, cap, "%.1f", json_number_value(pm));
	else
		snprintf(b, cap, "-");
}

/* "name (file:line)" cut to `width` columns, keeping the location; which
 * call of its statement it is comes on top (the column is the last) */
static void where(char *buf, size_t cap, const hmpt_site_loc_t *loc, int width)
{
	char at[sizeof(loc->location) + sizeof(loc->detail) + 2];
	snprintf(at, sizeof(at), "%s%s%s", loc->location, *loc->detail ? ", " : "", loc->detail);
	int room = width - (int)strlen(loc->location) - 3;
	int fl = (int)strlen(loc->function);

	if (room < 8)
		room = 8;
	if (fl > room)
		snprintf(buf, cap, "%.*s~ (%s)", room - 1, loc->function, at);
	else
		snprintf(buf, cap, "%s (%s)", loc->function, at);
}

int hmpt_report_table(FILE *out, const json_t *prof, hmpt_sym_t *sym, const hmpt_report_opts_t *o)
{
	const json_t *sites = json_object_get(prof, "sites");
	const json_t *tot = json_object_get(prof, "totals");
	const json_t *proc = json_object_get(prof, "process");
	const json_t *procs = json_object_get(prof, "processes");
	uint64_t total = all_bytes(prof), nstatic_bytes;
	size_t nsites = json_array_size(sites), i, k, nstatic;
	char b1[32], b2[32], b3[32], w[1024];
	json_t *s, *f;

	fprintf(out, "hmpt: %s", hmpt_prof_str(proc, "exe") ?: "?");
	if (json_array_size(procs) > 1)
		fprintf(out, " (+%zu processes)", json_array_size(procs) - 1);
	fprintf(out, ": %zu site%s, %s tracked in %llu allocations, peak %s live", nsites,
	        nsites == 1 ? "" : "s",
	        hmpt_fmt_size_text(b1, sizeof(b1), hmpt_prof_u64(tot, "tracked_bytes")),
	        (unsigned long long)hmpt_prof_u64(tot, "tracked_allocations"),
	        hmpt_fmt_size_text(b2, sizeof(b2), hmpt_prof_u64(tot, "peak_tracked_bytes")));
	nstatic_bytes = hmpt_report_static_bytes(prof, &nstatic);
	if (nstatic)
		fprintf(out, ", static data %s in %zu object%s",
		        hmpt_fmt_size_text(b1, sizeof(b1), nstatic_bytes), nstatic,
		        nstatic == 1 ? "" : "s");
	fprintf(out, ", peak RSS %s\n",
	        hmpt_fmt_size_text(b3, sizeof(b3), hmpt_prof_u64(tot, "peak_rss_bytes")));
	if (hmpt_prof_u64(tot, "untracked_large"))
		fprintf(out, "hmpt: %llu large allocations could not be tracked\n",
		        (unsigned long long)hmpt_prof_u64(tot, "untracked_large"));
	const json_t *plan = json_object_get(prof, "plan");
	if (plan) {
		const json_t *p;
		const char *hbm = hmpt_prof_str(plan, "hbm_nodes"),
		           *ddr = hmpt_prof_str(plan, "ddr_nodes");
		fprintf(out, "hmpt: plan %s (HBM nodes %s%s%s, DDR nodes %s%s%s):",
		        hmpt_prof_str(plan, "path") ?: "?", hbm && *hbm ? hbm : "none",
		        hbm && *hbm ? " from " : "",
		        hbm && *hbm ? hmpt_prof_str(plan, "hbm_from") : "",
		        ddr && *ddr ? ddr : "none", ddr && *ddr ? " from " : "",
		        ddr && *ddr ? hmpt_prof_str(plan, "ddr_from") : "");
		json_array_foreach(json_object_get(plan, "pools"), k, p)
		{
			fprintf(out, "%s %s %s placed, %llu refused", k ? ";" : "",
			        hmpt_prof_str(p, "name") ?: "?",
			        hmpt_fmt_size_text(b1, sizeof(b1), hmpt_prof_u64(p, "bytes")),
			        (unsigned long long)hmpt_prof_u64(p, "refused"));
		}
		fputc('\n', out);
	}
	const json_t *sm = json_object_get(prof, "sampling");
	hmpt_prof_caps_t caps = hmpt_prof_sampling_caps(sm);
	bool sampled = caps.sampled;
	bool faults = sampled && !caps.access_density;
	hmpt_report_sampling(out, sm);
	if (!nsites)
		return ferror(out) ? -EIO : 0;
	hmpt_report_source_t src;
	hmpt_report_source(sm, &src);
	if (sampled && src.kind) /* where the sampled columns come from */
		fprintf(out, "hmpt: %s: each site's share of the %s (%s); %s\n",
		        faults ? "touch%" : "access", src.kind, src.source,
		        faults ? "touched: its bytes first touched"
		               : "per MiB: its samples per MiB of its peak live bytes");
	fprintf(out, "%3s  %-8s  %10s  %6s  ", "#", "site", "bytes", "share");
	if (sampled)
		fprintf(out, "%6s  %8s  ", faults ? "touch%" : "access",
		        faults ? "touched" : "per MiB");
	fprintf(out, "%6s  %10s  ", "allocs", "max size");
	if (plan)
		fprintf(out, "%-12s  ", "pool");
	fprintf(out, "where\n");
	json_array_foreach(sites, i, s)
	{
		hmpt_site_loc_t loc;
		uint64_t b = hmpt_prof_u64(s, "bytes");
		if (o->max_rows && (int)i >= o->max_rows) {
			fprintf(out, "... %zu more site%s", nsites - i, nsites - i == 1 ? "" : "s");
			if (o->more)
				fprintf(out, " (see %s)", o->more);
			fputc('\n', out);
			break;
		}
		hmpt_report_locate(sym, prof, s, &loc);
		where(w, sizeof(w), &loc, 40);
		fprintf(out, "%3zu  %-8.8s  %10s  %5.1f%%  ", i + 1, hmpt_prof_str(s, "id"),
		        hmpt_fmt_size_text(b1, sizeof(b1), b),
		        total ? 100.0 * (double)b / (double)total : 0.0);
		if (sampled) {
			char c1[32], c2[32];
			sample_cells(c1, c2, sizeof(c1), s, faults);
			fprintf(out, "%6s  %8s  ", c1, c2);
		}
		fprintf(out, "%6llu  %10s  ", (unsigned long long)hmpt_prof_u64(s, "allocations"),
		        hmpt_fmt_size_text(b2, sizeof(b2), hmpt_prof_u64(s, "max_size")));
		if (plan) {
			char placed[256];
			placed_text(placed, sizeof(placed), s);
			fprintf(out, "%-12s  ", placed);
		}
		fprintf(out, "%s\n", w);
		if (!o->verbose)
			continue;
		char st[512];
		if (hmpt_report_static_text(s, st, sizeof(st))) {
			json_array_foreach(json_object_get(s, "frames"), k, f)
			    fprintf(out, "       %-28s %s\n", json_string_value(f), st);
			continue;
		}
		json_array_foreach(json_object_get(s, "frames"), k, f)
		{
			hmpt_sym_frame_t chain[MAX_INLINE];
			int n = expand(sym, prof, json_string_value(f), chain, MAX_INLINE);
			for (int c = 0; c < n; c++) {
				fprintf(out, "       %-28s %s",
				        c ? "  (inlined)" : json_string_value(f),
				        chain[c].function);
				if (chain[c].file)
					fprintf(out, " %s:%d", chain[c].file, chain[c].line);
				const hmpt_symframe_t *sf = hmpt_sitesym_frame(sym, prof, s, k);
				if (c == 0 && sf && sf->positions > 1) {
					char call[160];
					hmpt_sitesym_ordinal(call, sizeof(call), sf->position,
					                     sf->positions, sf->variable);
					fprintf(out, ", %s", call);
				}
				fputc('\n', out);
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}
