/* memory.c: the fuzzer's own memory (the arena between its guard pages, the mappings its
 * calls made) and the pickers of addresses, lengths and ranges biased to edge values. */
#include "fuzz.h"

WORKER uint64_t arena, arena_end, holes[2], unterm; /* see fuzz.h */
unsigned char sbuf[16384];

struct region {
	uint64_t start, len;
};
static WORKER struct region tracked[MAX_TRACKED]; /* what the fuzzer's own mmap/mremap made */
static WORKER int ntracked, next_evict;

/* an address no access can succeed at: invalid, or a guard page */
uint64_t ptr_bad(void)
{
	switch (below(8)) {
	case 0:
		return arena - P + PICK(((const uint64_t[]){ 0, 1, 8, 4095 }));
	case 1:
		return arena_end + PICK(((const uint64_t[]){ 0, 1, 8, 4095 }));
	}
	return PICK(bad_addrs);
}

void track(uint64_t start, uint64_t len)
{
	len = (len + P - 1) & ~(P - 1);
	if (len > TRACK_MAX_LEN || !len) {
		hk(SYS_munmap, (long)start, (long)len, 0);
		return;
	}
	if (ntracked == MAX_TRACKED) { /* full: give back the oldest */
		hk(SYS_munmap, (long)tracked[next_evict].start, (long)tracked[next_evict].len, 0);
		tracked[next_evict] = (struct region){ start, len };
		next_evict = (next_evict + 1) % MAX_TRACKED;
		return;
	}
	tracked[ntracked++] = (struct region){ start, len };
}

/* A buffer the kernel may write: *maxlen is how much may be written there without leaving
 * the fuzzer's memory (UINT64_MAX where a guard page or an invalid address stops any copy). */
uint64_t ptr_wr(uint64_t *maxlen)
{
	static const uint64_t offs[] = { 0, 1, 7, 8, 63, 4095, 4096, 4097, 8191 };
	uint64_t r = below(100);

	*maxlen = UINT64_MAX;
	if (r < 35) {
		if (below(3) == 0)
			return arena_end - PICK(((const uint64_t[]){ 1, 8, 16, 144, 4096 }));
		return arena + below(ARENA_PAGES) * P + PICK(offs);
	}
	if (r < 55 && ntracked) {
		struct region *t = &tracked[below(ntracked)];
		uint64_t off = below(2) ? 0 : below((t->len - P) / P + 1) * P;

		off += PICK(((const uint64_t[]){ 0, 0, 1, 8, 100 }));
		*maxlen = t->len - off;
		return t->start + off;
	}
	if (r < 70)
		return ptr_bad();
	if (r < 76)
		return 0;
	if (r < 82)
		return holes[below(2)] + PICK(((const uint64_t[]){ 0, 1, 4096 }));
	if (r < 85 && on_faultline()) {
		*maxlen = P; /* maybe the fuzzer's own mapping at the last user page */
		return LASTPAGE;
	}
	return arena + below(ARENA_PAGES * P);
}

/* A buffer the kernel only reads */
uint64_t ptr_rd(uint64_t *maxlen)
{
	uint64_t r = below(100), off;

	if (r < 70)
		return ptr_wr(maxlen);
	off = below(2) ? 0 : below(sizeof(sbuf));
	*maxlen = sizeof(sbuf) - off;
	return (uint64_t)sbuf + off;
}

static const uint64_t lens[] = {
	0, 1, 2, 7, 8, 15, 16, 63, 64, 144, 255, 256, 257, 4095, 4096, 4097, 8192, 65536,
	1UL << 20, 1UL << 31, 1UL << 32, 1UL << 40, 1UL << 47, 0x7fffffffffffUL, 1UL << 63,
	0xffffffffffffffffUL, 0xfffffffffffff000UL, 0x7fffffffffffffffUL,
};

uint64_t len_any(void)
{
	return below(4) ? PICK(lens) : below(3 * P);
}

/* a length no larger than maxlen (except when maxlen is UINT64_MAX) */
uint64_t len_max(uint64_t maxlen)
{
	uint64_t l = len_any();

	if (l > maxlen)
		l = below(2) ? maxlen : below(maxlen + 1);
	return l;
}

/* an argument nothing reads as a pointer to valid memory */
long junk(void)
{
	return below(3) ? (long)PICK(ints) : below(2) ? (long)ptr_bad() : (long)below(100);
}

/* [start, start + len) inside one of the fuzzer's own regions: the arena or a mapping of
 * its own. len may end mid-page (rounded up it still stays inside). */
void range_own(uint64_t *start, uint64_t *len)
{
	uint64_t base = arena, n = ARENA_PAGES, p, k;

	if (ntracked && below(5) < 2) {
		struct region *t = &tracked[below(ntracked)];

		base = t->start;
		n = t->len / P;
	}
	p = below(n);
	k = below(4) ? below(n - p) + 1 : below(n - p + 1);
	if (below(4) == 0 && k > 1)
		k = 1;
	*start = base + p * P;
	*len = k * P;
	if (k && below(4) == 0)
		*len -= 1 + below(P - 1);
}

/* a range for munmap and friends: the fuzzer's own, or one no kernel acts on */
void range_any(uint64_t *start, uint64_t *len)
{
	range_own(start, len);
	switch (below(12)) {
	case 0: /* unaligned start: EINVAL before anything is looked at */
		*start += 1 + below(P - 1);
		*len = len_any();
		break;
	case 1: /* a length that rounds up to 0 or wraps around */
		*len = PICK(((const uint64_t[]){ 0xffffffffffffffffUL, 0xfffffffffffff001UL,
						 0xfffffffffffff000UL }));
		break;
	case 2: /* kernel or non-canonical */
		*start = PICK(((const uint64_t[]){ KDIRECT, KIMAGE, KVMAP, KVMAP + 0x6000,
						   NONCANON, 0x0000800000000000UL,
						   0xfffffffffffff000UL }));
		*len = len_any();
		break;
	case 3: /* NULL: nothing can be mapped below 64 KiB */
		*start = 0;
		*len = PICK(((const uint64_t[]){ 0, 1, 4096, 0x10000 }));
		break;
	case 4:
		if (on_faultline()) {
			*start = LASTPAGE;
			*len = PICK(((const uint64_t[]){ 0, 1, 4096 }));
		}
		break;
	}
}
