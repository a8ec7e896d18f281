/* replay: reference patterns replayed over anonymous memory under a fixed small memory, the major
 * faults of each printed (getrusage's ru_majflt, /proc/vmstat's pswpin): the replacement lab,
 * docs/reclaim-lab.md; tests/boot/reclaim-lab.sh compares the policies with what it prints.
 * usage: replay [-f FRAMES] [-k PAGES] [-b | -n] [PATTERN...]
 *   -f FRAMES  the frames the patterns get (default 1024 with the balloon, 256 without);
 *              -k PAGES: a block of the Belady string (default FRAMES / 4); -b: fix the memory
 *              with an mlocked balloon and lock the program's own pages (the default under
 *              faultline with swap on), -n: never (the default elsewhere: natively the patterns
 *              just run, and print the host's numbers).
 *   PATTERN    seq loop random hot belady (the default: all; belady runs with 3 and 4 blocks)
 * Every page holds its own number: each access checks it, so a page swapped back wrong fails. */
#define _GNU_SOURCE
#define UTEST_NAME "replay"
#include "utest.h"
#include "vmstat.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <time.h>

#define PAGE 4096L
#define MAX_CHUNKS 256

static long frames, block;
static int balloon_on = -1; /* -1: decide (faultline with swap) */

/* The pattern's region: every page written with its stamp at its first access (a minor fault,
 * zero-fill), read and checked at every later one. */
static unsigned char *region;
static long region_pages;
static unsigned char *written;
static uint64_t salt;
static long bad_pages;

/* The balloon: mlocked chunks holding every frame but those the pattern may have. */
static struct { void *p; long pages; } chunks[MAX_CHUNKS];
static int nr_chunks;

static uint64_t stamp(long i)
{
	return salt ^ (uint64_t)i * 0x9e3779b97f4a7c15ULL;
}

static void touch(long i)
{
	volatile uint64_t *w = (volatile uint64_t *)(region + i * PAGE);

	if (!written[i]) {
		w[0] = stamp(i);
		w[PAGE / 8 - 1] = ~stamp(i);
		written[i] = 1;
	} else if (w[0] != stamp(i) || w[PAGE / 8 - 1] != ~stamp(i)) {
		if (bad_pages++ < 5)
			fprintf(stderr, "replay: FAIL page %ld reads %#llx %#llx, not its own\n", i,
				(unsigned long long)w[0], (unsigned long long)w[PAGE / 8 - 1]);
	}
}

/* ---------------------------------------------------------------- counters */

static long majflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_majflt;
}

static long free_pages(void)
{
	struct sysinfo si;

	return sysinfo(&si) ? -1 : (long)(si.freeram * si.mem_unit / PAGE);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------- memory */

/* Linux's high watermark (init_per_zone_pages_min; faultline's kswapd_init): min_free_kbytes =
 * sqrt(16 * RAM in KiB) between 128 and 65536, high = 3/2 of it. Only one zone: faultline's. */
static long high_watermark(void)
{
	struct sysinfo si;
	unsigned long kb, min_kb = 0;

	if (sysinfo(&si))
		return -1;
	kb = si.totalram * si.mem_unit / 1024;
	while ((min_kb + 1) * (min_kb + 1) <= kb * 16)
		min_kb++;
	min_kb = min_kb < 128 ? 128 : min_kb > 65536 ? 65536 : min_kb;
	return (long)(min_kb / 4 + min_kb / 8);
}

static void balloon_free(void)
{
	while (nr_chunks > 0) {
		nr_chunks--;
		CHECK(munmap(chunks[nr_chunks].p, chunks[nr_chunks].pages * PAGE) == 0);
	}
}

/*
 * Leave want frames for a pattern of pages pages: free memory brought down to the high
 * watermark + want + the pattern's page tables by mlocked, written chunks. Reclaim keeps free
 * frames between its watermarks (kswapd from below low up to high, direct reclaim below min),
 * so the pattern has want frames when free is at high, and up to high - min more as it falls.
 */
static void set_memory(long want, long pages)
{
	long high = high_watermark(), target = high + want + pages / 512 + 3, f;

	balloon_free();
	while ((f = free_pages()) > target && nr_chunks < MAX_CHUNKS) {
		long n = f - target;
		void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (!CHECK(p != MAP_FAILED))
			break;
		if (!CHECK(mlock(p, n * PAGE) == 0)) {
			munmap(p, n * PAGE);
			break;
		}
		for (long i = 0; i < n; i++) /* a frame of its own each, not the zero page */
			((volatile char *)p)[i * PAGE] = 1;
		chunks[nr_chunks].p = p;
		chunks[nr_chunks++].pages = n;
	}
	long held = 0;

	for (int i = 0; i < nr_chunks; i++)
		held += chunks[i].pages;
	printf("replay: memory %ld frames: free %ld (high watermark %ld), balloon %ld pages\n",
	       want, f, high, held);
	if (f < target - 64)
		printf("replay: (only %ld frames free beyond the watermark: the machine is too "
		       "small for %ld)\n", f - high, want);
}

/* ---------------------------------------------------------------- patterns */

struct result {
	long accesses, majflt, pswpin, hot_majflt;
};

static void begin(long pages, long mem)
{
	if (balloon_on)
		set_memory(mem, pages);
	region = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (!CHECK(region != MAP_FAILED))
		exit(utest_done());
	region_pages = pages;
	memset(written, 0, (size_t)pages);
	salt = ((uint64_t)now_ms() << 32) ^ 0x5eedf00dULL;
}

static void end(void)
{
	CHECK(munmap(region, region_pages * PAGE) == 0);
}

/* Each page once, twice over: a region twice the memory, so the second pass finds every page
 * evicted (whatever the policy: none was used since it was written). */
static void pat_seq(void)
{
	for (int pass = 0; pass < 2; pass++)
		for (long i = 0; i < region_pages; i++)
			touch(i);
}

/* Five passes over a loop a quarter larger than memory: each page is the one used longest ago
 * and the one loaded longest ago when it is needed again, so LRU, clock and FIFO all evict it
 * just before its use: every access after the first pass is a major fault. The optimum (MIN)
 * would miss about a quarter. */
static void pat_loop(void)
{
	for (int pass = 0; pass < 5; pass++)
		for (long i = 0; i < region_pages; i++)
			touch(i);
}

/* Uniformly random pages of a region twice the memory, 4 x memory accesses (a fixed sequence:
 * a 64-bit LCG). */
static void pat_random(void)
{
	uint64_t x = 0x853c49e6748fea9bULL;

	for (long n = 0; n < 2 * region_pages; n++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		touch((long)((x >> 33) % (uint64_t)region_pages));
	}
}

/*
 * A hot set of a quarter of the memory, read all over again after every HOT_EVERY pages of a
 * cold scan of eight times the memory, each cold page used once. The hot set fits, and is used
 * many times while reclaim goes once round the memory: a policy that keeps used pages keeps it
 * (LRU and clock, which see its accessed bits set whenever they look), FIFO throws each hot
 * page out once per memory's worth of pages loaded. hot_majflt: the faults of the hot reads.
 */
#define HOT_EVERY 64
static long hot_majflt;
static void pat_hot(void)
{
	long hot = frames / 4, cold = 8 * frames;

	for (long c = 0; c < cold; c++) {
		if (c % HOT_EVERY == 0) {
			long m = majflt();

			for (long i = 0; i < hot; i++)
				touch(i);
			hot_majflt += majflt() - m;
		}
		touch(hot + c);
	}
}

/* The string of Belady, Nelson and Shedler (1969): with FIFO, 4 frames fault more than 3. A
 * "page" of the string is a block of block pages, read in order. */
static void pat_belady(void)
{
	static const int string[] = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 };

	for (size_t s = 0; s < sizeof(string) / sizeof(string[0]); s++)
		for (long i = 0; i < block; i++)
			touch((string[s] - 1) * block + i);
}

/* Run one pattern over pages pages with mem frames; print its line. */
static void run(const char *name, void (*fn)(void), long pages, long mem, long accesses)
{
	long m, s, t;

	begin(pages, mem);
	hot_majflt = 0;
	bad_pages = 0;
	m = majflt();
	s = utest_vmstat("pswpin");
	t = now_ms();
	fn();
	t = now_ms() - t;
	m = majflt() - m;
	if (s >= 0)
		s = utest_vmstat("pswpin") - s;
	printf("replay: %s frames=%ld pages=%ld accesses=%ld majflt=%ld pswpin=%ld", name, mem,
	       pages, accesses, m, s);
	if (fn == pat_hot)
		printf(" hot_majflt=%ld", hot_majflt);
	printf(" ms=%ld\n", t);
	fflush(stdout);
	CHECK_EQ(bad_pages, 0);
	end();
}

int main(int argc, char **argv)
{
	struct sysinfo si;
	long pswpin0 = utest_vmstat("pswpin");
	int opt;

	while ((opt = getopt(argc, argv, "f:k:bn")) != -1) {
		switch (opt) {
		case 'f': frames = atol(optarg); break;
		case 'k': block = atol(optarg); break;
		case 'b': balloon_on = 1; break;
		case 'n': balloon_on = 0; break;
		default:
			fprintf(stderr, "usage: replay [-f FRAMES] [-k PAGES] [-b|-n] "
				"[PATTERN...]\n");
			return 2;
		}
	}
	CHECK(sysinfo(&si) == 0);
	if (balloon_on < 0)
		balloon_on = on_faultline() && si.totalswap > 0;
	if (!frames) /* without the balloon nothing is measured: keep it small */
		frames = balloon_on ? 1024 : 256;
	if (!block)
		block = frames / 4;
	if (frames < 64 || block < 1)
		return fprintf(stderr, "replay: -f at least 64, -k at least 1\n"), 2;
	if (!balloon_on)
		printf("replay: no balloon: the patterns get whatever memory there is (%s)\n",
		       si.totalswap ? "swap on" : "no swap");
	written = malloc((size_t)(5 * block + 9 * frames));
	if (!CHECK(written))
		return utest_done();
	memset(written, 0, (size_t)(5 * block + 9 * frames));
	/*
	 * Under the balloon the program's own pages (text, stack, heap, this array) are locked:
	 * reclaim would otherwise take them too, and their faults would count with the pattern's.
	 * Only the regions mapped from now on are reclaimable (MCL_CURRENT, not MCL_FUTURE).
	 */
	if (balloon_on && !CHECK(mlockall(MCL_CURRENT) == 0))
		return utest_done();
	/* Page numbers are printed and read by tests/boot/reclaim-lab.sh: keep the format. */
	for (int a = optind; a < argc || a == optind; a++) {
		const char *p = a < argc ? argv[a] : NULL;
		bool all = !p;

		if (all || !strcmp(p, "seq"))
			run("seq", pat_seq, 2 * frames, frames, 4 * frames);
		if (all || !strcmp(p, "loop"))
			run("loop", pat_loop, frames + frames / 4, frames,
			    5 * (frames + frames / 4));
		if (all || !strcmp(p, "random"))
			run("random", pat_random, 2 * frames, frames, 4 * frames);
		if (all || !strcmp(p, "hot"))
			run("hot", pat_hot, frames / 4 + 8 * frames, frames,
			    8 * frames + (8 * frames + HOT_EVERY - 1) / HOT_EVERY * (frames / 4));
		if (all || !strcmp(p, "belady")) {
			run("belady3", pat_belady, 5 * block, 3 * block + block / 4, 12 * block);
			run("belady4", pat_belady, 5 * block, 4 * block + block / 4, 12 * block);
		}
		if (!all && strcmp(p, "seq") && strcmp(p, "loop") && strcmp(p, "random") &&
		    strcmp(p, "hot") && strcmp(p, "belady")) {
			fprintf(stderr, "replay: unknown pattern '%s'\n", p);
			return 2;
		}
	}
	balloon_free();
	/* Without swap nothing can have come back from it. */
	if (!si.totalswap && pswpin0 >= 0)
		CHECK_EQ(utest_vmstat("pswpin") - pswpin0, 0);
	return utest_done();
}
