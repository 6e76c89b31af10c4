/* forktab.c — the ordered fork table (forktab.h). */
#include "forktab.h"

#define FORK_MAX 16

typedef struct {
	int rank;
	hmpt_fork_fn prepare, parent, child;
} entry_t;

/* sorted by rank; registered from the constructor, before any fork */
static entry_t table_g[FORK_MAX];
static int n_g;

void hmpt_fork_register(int rank, hmpt_fork_fn prepare, hmpt_fork_fn parent, hmpt_fork_fn child)
{
	int i;

	if (n_g == FORK_MAX)
		return;
	for (i = n_g; i > 0 && table_g[i - 1].rank > rank; i--)
		table_g[i] = table_g[i - 1];
	table_g[i] = (entry_t){rank, prepare, parent, child};
	n_g++;
}

void hmpt_fork_prepare(void)
{
	for (int i = 0; i < n_g; i++)
		if (table_g[i].prepare)
			table_g[i].prepare();
}

void hmpt_fork_parent(void)
{
	for (int i = n_g - 1; i >= 0; i--)
		if (table_g[i].parent)
			table_g[i].parent();
}

void hmpt_fork_child(void)
{
	for (int i = n_g - 1; i >= 0; i--)
		if (table_g[i].child)
			table_g[i].child();
}
