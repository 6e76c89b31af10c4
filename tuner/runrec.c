/* runrec.c — see runrec.h. */
#include "runrec.h"

#include <stdlib.h>
#include <string.h>

void hmpt_runrec_journal_line(const char *line, hmpt_runrec_t *r)
{
	json_t *j = json_loads(line, 0, NULL);

	memset(r, 0, sizeof(*r));
	if (!j)
		return;
	r->key = json_incref(json_object_get(j, "key"));
	const char *seed = json_string_value(json_object_get(j, "seed"));
	r->seed = seed ? strtoull(seed, NULL, 16) : 0;
	if (json_object_get(j, "profile")) {
		r->kind = HMPT_RUNREC_PROFILE;
		r->wall = json_number_value(json_object_get(j, "wall"));
	} else if (json_object_get(j, "config")) {
		r->kind = HMPT_RUNREC_RUN;
		snprintf(r->config, sizeof(r->config), "%s",
		         json_string_value(json_object_get(j, "config")) ?: "");
		r->run.rep = (int)json_integer_value(json_object_get(j, "rep"));
		r->run.status = (int)json_integer_value(json_object_get(j, "status"));
		r->run.wall = json_number_value(json_object_get(j, "wall"));
		r->run.value = json_number_value(json_object_get(j, "value"));
		snprintf(r->run.why, sizeof(r->run.why), "%s",
		         json_string_value(json_object_get(j, "why")) ?: "");
		snprintf(r->run.host, sizeof(r->run.host), "%s",
		         json_string_value(json_object_get(j, "host")) ?: "");
		/* what the machine did meanwhile: absent under --slurm and in
		 * journals older than these fields */
		json_t *cpu = json_object_get(j, "cpu_s"), *others = json_object_get(j, "others_s");
		r->run.has_cpu = json_is_number(cpu);
		r->run.cpu = json_number_value(cpu);
		r->run.nivcsw = (long)json_integer_value(json_object_get(j, "nivcsw"));
		r->run.has_load = json_is_number(others);
		r->run.others = json_number_value(others);
		r->run.steal = json_number_value(json_object_get(j, "steal_s"));
		r->run.ncpus = (int)json_integer_value(json_object_get(j, "ncpus"));
		json_t *after = json_object_get(j, "after_slow");
		r->run.has_prev = json_is_boolean(after);
		r->run.prev_slow = json_is_true(after);
		json_t *mem = json_object_get(j, "mem_load");
		r->run.has_mem_load = json_is_number(mem);
		r->run.mem_load = json_number_value(mem);
		snprintf(r->run.retaken, sizeof(r->run.retaken), "%s",
		         json_string_value(json_object_get(j, "retaken")) ?: "");
		snprintf(r->run.disturbed, sizeof(r->run.disturbed), "%s",
		         json_string_value(json_object_get(j, "disturbed")) ?: "");
	} else {
		r->kind = HMPT_RUNREC_OTHER;
	}
	json_decref(j);
}

int hmpt_runrec_slurm_result(FILE *f, hmpt_sjob_t *j)
{
	json_error_t e;
	json_t *r = json_loadf(f, 0, &e);

	if (!r)
		return 0;
	j->status = (int)json_integer_value(json_object_get(r, "status"));
	j->wall = json_number_value(json_object_get(r, "wall"));
	snprintf(j->why, sizeof(j->why), "%s", json_string_value(json_object_get(r, "why")) ?: "");
	snprintf(j->host, sizeof(j->host), "%s",
	         json_string_value(json_object_get(r, "host")) ?: "");
	json_decref(r);
	return 1;
}
