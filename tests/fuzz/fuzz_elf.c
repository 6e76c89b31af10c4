/* fuzz_elf.c — libFuzzer target for the ELF symbol-table reader
 * (statics.c), which runs inside every preloaded program on the files of its
 * modules: any image is refused or yields objects whose names are strings
 * inside the image (or a section's name). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "statics.h"

typedef struct {
	const char *img;
	size_t len;
	int n;
} seen_t;

static void on_object(uint64_t vaddr, uint64_t size, const char *name, const char *section,
                      void *ctx)
{
	seen_t *s = ctx;

	(void)vaddr;
	(void)size;
	fuzz_check(name && section && *section == '.', "name or section");
	if (name >= s->img && name < s->img + s->len)
		fuzz_check(memchr(name, '\0', (size_t)(s->img + s->len - name)) != NULL,
		           "a name runs off the image");
	else
		fuzz_check(strcmp(name, section) == 0, "a name from outside the image");
	s->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly the image's size, aligned as a mapping is */
	char *img = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!img)
		return 0;
	memcpy(img, data, size);
	for (uint64_t min = 0; min <= 4096; min += 4096) {
		seen_t s = {img, size, 0};
		int rc = hmpt_elf_data_objects(img, size, min, on_object, &s);
		fuzz_check(rc < 0 || rc == s.n, "objects reported and counted differ");
	}
	free(img);
	return 0;
}
