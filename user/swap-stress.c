/* swap-stress: anonymous memory beyond RAM, every word written with a value of its address and a
 * round number, read back (twice), then checked by a forked child while the parent rewrites half
 * of it (copy-on-write of pages that sit in swap). Natively a small size proves the checks.
 * usage: swap-stress MIB                       rounds 1 and 2, then the fork (round 3)
 *        swap-stress MIB swapoff DEV KEEP_MIB  write MIB, unmap all but the first KEEP_MIB,
 *                                              swapoff(DEV) brings those back; check, swapon */
#define _GNU_SOURCE
#define UTEST_NAME "swap-stress"
#include "utest.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define PAGE 4096UL
#define WORDS (PAGE / 8)
#define MIB (1UL << 20)
/* The word at address a in round r is ((a / 8) ^ r * RK) * K1. K1 is odd, so the map can be
 * undone: a wrong word names the address and round it was written for (a page swapped in from
 * the wrong slot, a stale copy). RK's multiples differ in their top bits, far above any word
 * index, so no two rounds give one address the same value. */
#define K1 0x9e3779b97f4a7c15ULL
#define RK 0xd6e8feb86659fd93ULL

static const char *who = "process"; /* "parent" or "child" in the fork phase */
static uint64_t *base;
static size_t npages;
static int reported; /* the first wrong word of this process has been shown */

static uint64_t k1_inverse(void)
{
	uint64_t x = K1; /* right in 3 bits; each Newton step doubles them */

	for (int i = 0; i < 5; i++)
		x *= 2 - K1 * x;
	return x;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fill_page(size_t pg, unsigned round)
{
	uint64_t *p = base + pg * WORDS, rr = round * RK;

	for (size_t i = 0; i < WORDS; i++)
		p[i] = (((uintptr_t)&p[i] >> 3) ^ rr) * K1;
}

/* What a wrong word holds, in words: zero, or the value of some address and round. */
static void explain(uint64_t got)
{
	uint64_t w = got * k1_inverse(), lo = (uintptr_t)base >> 3, hi = lo + npages * WORDS;

	if (got == 0) {
		fprintf(stderr, "%s:   0: a zero where data belongs (a fresh page?)\n", UTEST_NAME);
		return;
	}
	for (unsigned r = 1; r <= 3; r++)
		if ((w ^ r * RK) >= lo && (w ^ r * RK) < hi) {
			uintptr_t a = (uintptr_t)((w ^ r * RK) << 3);

			fprintf(stderr, "%s:   that is the word of %#lx (page %lu, byte %lu) "
				"in round %u\n", UTEST_NAME, (unsigned long)a,
				(unsigned long)((a - (uintptr_t)base) / PAGE),
				(unsigned long)(a % PAGE), r);
			return;
		}
	fprintf(stderr, "%s:   no address of the area has that word in any round\n", UTEST_NAME);
}

/* The wrong words of page pg for round; the first wrong word of the process is shown exactly. */
static size_t check_page(size_t pg, unsigned round)
{
	uint64_t *p = base + pg * WORDS, rr = round * RK;
	size_t bad = 0;

	for (size_t i = 0; i < WORDS; i++) {
		uint64_t want = (((uintptr_t)&p[i] >> 3) ^ rr) * K1;

		if (p[i] == want)
			continue;
		if (!bad++ && !reported) {
			reported = 1;
			fprintf(stderr, "%s: %s: round %u: the word at %p (page %zu of %zu, "
				"byte %zu) is %#lx, expected %#lx\n", UTEST_NAME, who, round,
				(void *)&p[i], pg, npages, i * 8, (unsigned long)p[i],
				(unsigned long)want);
			explain(p[i]);
		}
	}
	return bad;
}

/* Pages first, first + step, ... checked against round: 1 if every word is right. */
static int check(const char *what, size_t first, size_t step, unsigned round)
{
	size_t bad = 0, bad_pages = 0, n = 0;
	double t0 = now();

	for (size_t pg = first; pg < npages; pg += step, n++) {
		size_t b = check_page(pg, round);

		bad += b;
		bad_pages += b != 0;
	}
	if (bad) {
		fprintf(stderr, "%s: %s: %s: %zu wrong words in %zu of %zu pages\n", UTEST_NAME,
			who, what, bad, bad_pages, n);
		return 0;
	}
	printf("%s: %s: %s: %zu pages right (%.2f s)\n", UTEST_NAME, who, what, n, now() - t0);
	return 1;
}

static void fill(const char *what, size_t first, size_t step, unsigned round)
{
	double t0 = now();
	size_t n = 0;

	for (size_t pg = first; pg < npages; pg += step, n++)
		fill_page(pg, round);
	printf("%s: %s: %s: %zu pages written (%.2f s)\n", UTEST_NAME, who, what, n, now() - t0);
}

static long major_faults(int whose)
{
	struct rusage ru;

	return getrusage(whose, &ru) == 0 ? ru.ru_majflt : -1;
}

struct stats {
	long majflt, pswpin, pswpout;
};

static struct stats stats_now(void)
{
	return (struct stats){ major_faults(RUSAGE_SELF) + major_faults(RUSAGE_CHILDREN),
			       utest_vmstat("pswpin"), utest_vmstat("pswpout") };
}

/* One line the boot tests read: the major faults and the swap traffic since s0. */
static void print_stats(size_t mib, struct stats s0)
{
	struct stats s1 = stats_now();

	printf("%s: %zu MiB: major faults %ld", UTEST_NAME, mib, s1.majflt - s0.majflt);
	if (s0.pswpin >= 0 && s1.pswpin >= 0)
		printf(", pswpin %ld, pswpout %ld", s1.pswpin - s0.pswpin, s1.pswpout - s0.pswpout);
	else
		printf(", no pswpin/pswpout in /proc/vmstat");
	printf("\n");
}

/* The child checks every page against round 2 while the parent writes round 3 into the even
 * pages; then the parent checks both halves. The child's copies must not see the parent's
 * writes: each write breaks copy-on-write of a page that may be out in swap. */
static int fork_phase(void)
{
	int go[2], status, ok;
	pid_t pid;
	char c = 0;

	if (!CHECK(pipe(go) == 0))
		return 0;
	pid = fork();
	if (!CHECK(pid >= 0))
		return 0;
	if (pid == 0) {
		who = "child";
		reported = 0;
		close(go[0]);
		ok = write(go[1], &c, 1) == 1; /* the parent starts writing now */
		ok = check("every page, round 2, while the parent writes", 0, 1, 2) && ok;
		_exit(ok ? 0 : 1);
	}
	who = "parent";
	close(go[1]);
	CHECK_EQ(read(go[0], &c, 1), 1);
	close(go[0]);
	fill("round 3 into the even pages", 0, 2, 3);
	ok = check("the even pages, round 3", 0, 2, 3);
	ok = check("the odd pages, round 2", 1, 2, 2) && ok;
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fprintf(stderr, "%s: the child was killed by signal %d (%s)\n", UTEST_NAME,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "%s: the child exited with %d\n", UTEST_NAME, WEXITSTATUS(status));
	ok = CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0) && ok;
	return ok;
}

static int stress(size_t mib)
{
	struct stats s0 = stats_now();
	int ok = 1;

	for (unsigned round = 1; round <= 2 && ok; round++) {
		char what[32];

		snprintf(what, sizeof(what), "round %u", round);
		fill(what, 0, 1, round);
		ok = CHECK(check(what, 0, 1, round));
	}
	if (ok)
		ok = CHECK(fork_phase());
	print_stats(mib, s0);
	return ok;
}

/* The "Used" column (KiB) of dev's line in /proc/swaps, -1 if dev is not listed. */
static long swaps_used(const char *dev)
{
	static char buf[8192];
	size_t len = strlen(dev);
	long size, used;

	if (utest_slurp("/proc/swaps", buf, sizeof(buf)) < 0)
		return -1;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, dev, len) == 0 && (l[len] == ' ' || l[len] == '\t') &&
		    sscanf(l + len, " %*s %ld %ld", &size, &used) == 2)
			return used;
	return -1;
}

/* swapoff while pages are out: after the unmap what is left fits in RAM, so swapoff(2) must
 * read every page of it back in and succeed; the check then needs no major fault. */
static int swapoff_test(size_t mib, const char *dev, size_t keep_mib)
{
	struct stats s0 = stats_now();
	long used, used2, maj;

	if (keep_mib == 0 || keep_mib >= mib) {
		fprintf(stderr, "%s: KEEP_MIB must be between 1 and MIB - 1\n", UTEST_NAME);
		return 0;
	}
	if (!CHECK(swaps_used(dev) >= 0)) {
		fprintf(stderr, "%s: %s is not in /proc/swaps\n", UTEST_NAME, dev);
		return 0;
	}
	fill("round 1", 0, 1, 1);
	if (!CHECK(check("round 1", 0, 1, 1)))
		return 0;
	used = swaps_used(dev);
	printf("%s: %s: %ld KiB used with %zu MiB written\n", UTEST_NAME, dev, used, mib);
	if (!CHECK(used > 0)) {
		fprintf(stderr, "%s: nothing of %zu MiB went out to %s: the test proves nothing\n",
			UTEST_NAME, mib, dev);
		return 0;
	}
	CHECK(munmap((char *)base + keep_mib * MIB, (mib - keep_mib) * MIB) == 0);
	npages = keep_mib * MIB / PAGE;
	used2 = swaps_used(dev);
	printf("%s: %s: %ld KiB used with %zu MiB left mapped\n", UTEST_NAME, dev, used2, keep_mib);
	CHECK(used2 >= 0 && used2 < used); /* the unmapped pages' slots are free */
	if (used2 == 0)
		printf("%s: nothing of the first %zu MiB is out: swapoff has nothing to read\n",
		       UTEST_NAME, keep_mib);
	errno = 0;
	if (!CHECK(syscall(SYS_swapoff, dev) == 0)) {
		fprintf(stderr, "%s: swapoff(%s) with %ld KiB out that fit in RAM: %s\n",
			UTEST_NAME, dev, used2, strerror(errno));
		return 0;
	}
	CHECK_EQ(swaps_used(dev), -1); /* no longer an area */
	maj = major_faults(RUSAGE_SELF);
	CHECK(check("the kept pages after swapoff", 0, 1, 1));
	CHECK_EQ(major_faults(RUSAGE_SELF), maj); /* swapoff brought every page back */
	print_stats(mib, s0);
	CHECK(syscall(SYS_swapon, dev, 0) == 0); /* on again for the programs after this one */
	CHECK_EQ(swaps_used(dev), 0);
	return 1;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int swapoff_mode = argc == 5 && strcmp(argv[2], "swapoff") == 0;

	setvbuf(stdout, NULL, _IONBF, 0); /* progress shows even if the process dies */
	if (mib == 0 || (argc != 2 && !swapoff_mode)) {
		fprintf(stderr, "usage: swap-stress MIB | swap-stress MIB swapoff DEV KEEP_MIB\n");
		return 2;
	}
	npages = mib * MIB / PAGE;
	/* MAP_NORESERVE: more than RAM + swap must reach the OOM killer; Linux's overcommit
	 * heuristic refuses a mapping that large outright otherwise */
	base = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!CHECK(base != MAP_FAILED))
		return utest_done();
	printf("%s: pid %d: %zu MiB at %p\n", UTEST_NAME, (int)getpid(), mib, (void *)base);
	if (swapoff_mode)
		swapoff_test(mib, argv[3], strtoul(argv[4], NULL, 0));
	else
		stress(mib);
	return utest_done();
}
