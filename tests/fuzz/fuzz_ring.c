/* fuzz_ring.c — libFuzzer target for the perf ring reader (ring.c): the
 * input is a sample type, the ring positions and the ring's bytes; reading
 * never leaves the ring, never goes past head, and every sample parsed
 * decodes to a level. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ring.h"

static void on_sample(const hmpt_ring_sample_t *s, void *ctx)
{
	hmpt_level_t l = hmpt_datasrc_level(s->data_src);
	fuzz_check(l <= HMPT_LEVEL_NONE, "level");
	fuzz_check(hmpt_datasrc_level_name(l) != NULL, "level name");
	(void)hmpt_datasrc_is_store(s->data_src);
	++*(uint64_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t hdr[3], n = 0;
	hmpt_ring_counts_t c = {0};
	hmpt_ring_sample_t s;

	if (size < sizeof(hdr) + 1)
		return 0;
	memcpy(hdr, data, sizeof(hdr));
	/* the low bits are the sample types hmpt knows; a set top bit keeps
	 * all of them, to reach the refusal of unknown types */
	uint64_t st = hdr[0] >> 63 ? hdr[0] : hdr[0] & ((1ull << 25) - 1);
	uint64_t tail = hdr[1];
	/* mostly a span the ring can hold; now and then any */
	uint64_t head = tail + (hdr[2] >> 63 ? hdr[2] : hdr[2] & 0xfff);
	unsigned shift = data[sizeof(hdr)] & 7;
	uint64_t ring_size = 64ull << shift; /* 64 B .. 8 KiB, 1 in 8 not a power of two */
	if (shift == 7)
		ring_size = 96;
	const uint8_t *bytes = data + sizeof(hdr) + 1;
	size_t len = size - sizeof(hdr) - 1;

	/* the ring exactly as big as it says, so ASan sees a read past it */
	uint8_t *ring = calloc(1, ring_size);
	if (!ring)
		return 0;
	memcpy(ring, bytes, len < ring_size ? len : ring_size);
	uint64_t next = hmpt_ring_read(ring, ring_size, tail, head, st, on_sample, &n, &c);
	fuzz_check(next - tail <= head - tail, "tail moved past head");
	fuzz_check(n == c.samples, "samples counted and delivered differ");
	free(ring);

	/* a record body on its own, of exactly its length */
	uint8_t *body = malloc(len ? len : 1);
	if (!body)
		return 0;
	memcpy(body, bytes, len);
	if (hmpt_ring_parse_sample(body, len, st, &s) == 0)
		on_sample(&s, &n);
	free(body);
	return 0;
}
