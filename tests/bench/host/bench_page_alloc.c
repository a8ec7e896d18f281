/* Host micro-benchmark of the buddy frame allocator (mm/page_alloc.c), part of `make bench`:
 * alloc_page and __free_page of single frames with 0% ... 99% of 512 MiB of simulated RAM
 * in use, the used frames scattered at random (free memory fragmented). The kernel file is
 * compiled in as tests/host/test_page_alloc.c does, with -O2 and no sanitizers. Operations
 * per second are this host's wall clock and move from run to run; the splits and merges per
 * operation are exact and the same every run: at most MAX_ORDER - 1 each, whatever the fill,
 * which is what makes both O(1). Not a test: nothing here passes or fails on speed. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "tests/host/kstubs.h"

#define NR_FRAMES 131072UL /* 512 MiB, the size `make bench` boots QEMU with */
#define BATCH	  1000L	   /* frames allocated, then freed, per timed batch */
#define OPS	  2000000L /* allocations (and as many frees) per fill level */
#define ROUNDS	  3	   /* each timing is the best of this many rounds */

static struct page *held[NR_FRAMES]; /* frames the fill holds */
static struct page *batch[BATCH];
static double clock_cost; /* ns of one now_ns() pair, taken off each timed batch */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void shuffle(struct page **a, long n)
{
	long i;

	for (i = n - 1; i > 0; i--) {
		long j = (long)(rnd() % (uint64_t)(i + 1));
		struct page *t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* The order alloc_pages(0) will take a block from: it splits that many times. */
static unsigned int next_alloc_order(void)
{
	unsigned int o;

	for (o = 0; o < MAX_ORDER; o++)
		if (!list_empty(&free_area[o].free_list))
			return o;
	return MAX_ORDER;
}

static unsigned long free_blocks(void)
{
	unsigned long n = 0;
	unsigned int o;

	for (o = 0; o < MAX_ORDER; o++)
		n += free_area[o].nr_free;
	return n;
}

/* One batch: nb allocations, then the frees in a random order. With count set, the
 * splits and merges are added up (untimed); otherwise the two halves are timed. */
static void run_batch(long nb, int count, double *t_alloc, double *t_free, unsigned long *splits,
		      unsigned long *merges)
{
	double t;
	long i;

	if (count) {
		for (i = 0; i < nb; i++) {
			*splits += next_alloc_order();
			batch[i] = alloc_page(GFP_KERNEL);
		}
	} else {
		t = now_ns();
		for (i = 0; i < nb; i++)
			batch[i] = alloc_page(GFP_KERNEL);
		*t_alloc += now_ns() - t - clock_cost;
	}
	for (i = 0; i < nb; i++)
		if (!batch[i])
			panic("bench_page_alloc: out of frames");
	shuffle(batch, nb);
	if (count) {
		for (i = 0; i < nb; i++) {
			unsigned long before = free_blocks();

			__free_page(batch[i]);
			*merges += before + 1 - free_blocks(); /* each merge joins two blocks */
		}
	} else {
		t = now_ns();
		for (i = 0; i < nb; i++)
			__free_page(batch[i]);
		*t_free += now_ns() - t - clock_cost;
	}
}

static void bench(unsigned pct, long nb, unsigned long usable)
{
	unsigned long keep = usable * pct / 100, i, splits = 0, merges = 0;
	double best_a = 1e300, best_f = 1e300;
	long done, r;

	rng_state = 0xd1b54a32d192ed03ULL ^ pct;
	/* take every frame, then give back a random (1 - pct) share: scattered holes */
	for (i = 0; i < usable; i++)
		if (!(held[i] = alloc_page(GFP_KERNEL)))
			panic("bench_page_alloc: frame %lu missing", i);
	shuffle(held, (long)usable);
	for (i = keep; i < usable; i++)
		__free_page(held[i]);

	for (done = 0; done < OPS; done += nb)
		run_batch(nb, 1, NULL, NULL, &splits, &merges);
	for (r = 0; r < ROUNDS; r++) {
		double ta = 0, tf = 0;

		for (done = 0; done < OPS; done += nb)
			run_batch(nb, 0, &ta, &tf, NULL, NULL);
		if (ta < best_a)
			best_a = ta;
		if (tf < best_f)
			best_f = tf;
	}
	printf("%5u%% %6ld %12.0f %7.1f %12.0f %7.1f %8.3f %8.3f %10lu\n", pct, nb,
	       OPS / best_a * 1e9, best_a / OPS, OPS / best_f * 1e9, best_f / OPS,
	       (double)splits / OPS, (double)merges / OPS, nr_free_pages());
	for (i = 0; i < keep; i++)
		__free_page(held[i]);
}

int main(void)
{
	static const unsigned fills[] = { 0, 25, 50, 75, 90, 99 };
	unsigned char *ram = aligned_alloc(PAGE_SIZE, NR_FRAMES * PAGE_SIZE);
	struct page *map = malloc(NR_FRAMES * sizeof(*map));
	unsigned long usable, i;

	if (!ram || !map)
		return 1;
	host_phys_base = (uintptr_t)ram; /* never touched: nothing asks for __GFP_ZERO */
	free_area_init(map, NR_FRAMES);
	free_area_add_range(256, NR_FRAMES);
	usable = nr_free_pages();
	clock_cost = 1e300;
	for (i = 0; i < 100000; i++) {
		double t = now_ns(), d = now_ns() - t;

		if (d < clock_cost)
			clock_cost = d;
	}

	printf("host: buddy allocator (mm/page_alloc.c), gcc -O2, %lu frames (512 MiB); "
	       "ops/s and ns/op are this host's wall clock\n",
	       usable);
	printf("  fill: frames held, scattered at random; then batches of alloc_page, "
	       "each batch freed in random order;\n");
	printf("  splits/alloc and merges/free: exact, the same every run (each at most %d)\n",
	       MAX_ORDER - 1);
	printf("%6s %6s %12s %7s %12s %7s %8s %8s %10s\n", "fill", "batch", "alloc/s", "ns",
	       "free/s", "ns", "splits", "merges", "free_after");
	/* the worst case: each alloc splits a 4 MiB block, each free rejoins it */
	bench(0, 1, usable);
	for (i = 0; i < sizeof(fills) / sizeof(fills[0]); i++)
		bench(fills[i], BATCH, usable);
	if (nr_free_pages() != usable) {
		fprintf(stderr, "bench_page_alloc: %lu frames not given back\n",
			usable - nr_free_pages());
		return 1;
	}
	return 0;
}
