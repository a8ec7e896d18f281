/* file-race.h: the words file-race and file-race-smp write at the start of each page of their
 * file: the low half a generation g (only ever increasing), the high half a hash of g, so a
 * word read while a pwrite is copying it (torn) is told apart from a real one; the record of
 * the kernel's PTE checks; its race counters. Include after utest.h and vmstat.h. */
#ifndef FILE_RACE_H
#define FILE_RACE_H

#include <stdint.h>
#include <stdlib.h>

static inline uint32_t mix32(uint32_t x)
{
	x += 0x9e3779b9U;
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x | 1; /* never 0: a real word is never all zeroes */
}

static inline uint64_t encode(uint32_t g)
{
	return (uint64_t)mix32(g) << 32 | g;
}

/* the generation in w; 0 for a page of zeroes; -1 for a torn word */
static inline long decode(uint64_t w)
{
	uint32_t g = (uint32_t)w;

	if (w == 0)
		return 0;
	return g != 0 && (uint32_t)(w >> 32) == mix32(g) ? (long)g : -1;
}

/* The kernel's PTE checks so far (fl_vminfo FL_CHECK; include vmstat.h first): how many, the
 * last, the worst of each count, and one at the end. */
static struct fl_check worst, last, at_end;
static unsigned long nchecks;

/* One check into c, kept as the last and counted into the worst; 0, or -1 when the call
 * failed (a failed test check). */
static int fl_check_record(struct fl_check *c)
{
	if (fl_check(c) != 0) {
		CHECK(!"fl_vminfo(FL_CHECK) works");
		return -1;
	}
	nchecks++;
	last = *c;
	if (c->orphans > worst.orphans)
		worst.orphans = c->orphans;
	if (c->bad_counts > worst.bad_counts)
		worst.bad_counts = c->bad_counts;
	return 0;
}

#endif
