/* swap-in: page 0 out to swap, back from the disk (a forked child), then from the swap cache
 * (the parent): docs/gdb.md's swap walkthrough. Under faultline no swap, or page 0 still in
 * memory after MIB, is a failure; natively (a host without swap, or with RAM to spare) a SKIP.
 * usage: swap-in [-v] [MIB]   writes at most MIB (default 64) MiB at 0x20000000; -v tells the
 * faults and frames of the reads of page 0 (user/narrate.h) */
#define _GNU_SOURCE
#define UTEST_NAME "swap-in"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#define PAGE 4096UL
#define MIB (1UL << 20)
#define BASE 0x20000000UL /* a fixed address: the walkthrough's breakpoint names it */
/* Every word holds its own address, tagged: a page read back from the wrong slot shows
 * another address, a fresh zeroed page shows no tag. */
#define TAG 0xfa17000000000000ULL

static uint64_t *base;

static void fill_page(size_t pg)
{
	uint64_t *p = base + pg * (PAGE / 8);

	for (size_t i = 0; i < PAGE / 8; i++)
		p[i] = TAG | (uintptr_t)&p[i];
}

/* The words of page 0 that do not hold the pattern (the first one shown). */
static size_t bad_words(const char *who)
{
	size_t bad = 0;

	for (size_t i = 0; i < PAGE / 8; i++) {
		uint64_t want = TAG | (uintptr_t)&base[i];

		if (base[i] != want && !bad++)
			fprintf(stderr, "%s: %s: the word at %p is %#llx, expected %#llx\n",
				UTEST_NAME, who, (void *)&base[i], (unsigned long long)base[i],
				(unsigned long long)want);
	}
	return bad;
}

/* Is page 0 in memory? mincore counts a page in the swap cache too (as Linux does). */
static int resident(void)
{
	unsigned char v = 0;

	CHECK(mincore(base, PAGE, &v) == 0);
	return v & 1;
}

static long majflt(void)
{
	struct rusage ru;

	CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
	return ru.ru_majflt;
}

/* /proc/vmstat's pswpin: pages read from swap since boot; -1 if not there */
static long pswpin(void)
{
	static char buf[16384];
	const char *s;
	long n = -1;

	if (utest_slurp("/proc/vmstat", buf, sizeof(buf)) > 0 && (s = strstr(buf, "\npswpin ")))
		sscanf(s, "\npswpin %ld", &n);
	return n;
}

int main(int argc, char **argv)
{
	size_t mib, pages, pg, bad = 0;
	int status = -1, out;
	struct sysinfo si;
	long before, maj = 0, in0;
	pid_t pid;

	argc = narrate_opt(argc, argv);
	/* Telling a step touches the narrator's own pages, which went out to swap with the rest:
	 * with swap readahead their read would bring page 0 into the swap cache as a neighbour,
	 * and the child's fault would not be the disk read it shows without -v. */
	if (narrate.on && on_faultline() && utest_page_cluster_off() < 0)
		perror("swap-in: page-cluster");
	mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	pages = mib * MIB / PAGE;
	/* No swap: nothing can go out, so no memory is worth filling (a small machine would
	 * only run out of it). */
	if (CHECK(sysinfo(&si) == 0) && si.totalswap == 0)
		pages = 1;

	base = mmap((void *)BASE, mib * MIB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (!CHECK(base == (uint64_t *)BASE))
		return utest_done();
	/* Write until page 0, the oldest, has gone out: written to its slot and freed. */
	for (pg = 0; pg < pages; pg++) {
		fill_page(pg);
		if (pg % 256 == 255 && !resident())
			break;
	}
	out = !resident();
	printf("%s: page 0 at %#lx %s after %zu MiB\n", UTEST_NAME, BASE,
	       out ? "is in swap" : "is still in memory", (pg + 1) * PAGE / MIB);
	/* Only page 0 matters now: the rest goes, and with it the memory pressure (reclaim has
	 * no reason to take page 0 back out of the swap cache below). */
	if (pg + 1 < pages)
		CHECK(munmap((char *)base + PAGE, mib * MIB - PAGE) == 0);
	fflush(stdout);

	in0 = pswpin();
	pid = fork();
	if (pid == 0) {
		/* The child's PTE holds page 0's swap entry, as its parent's does: its read is a
		 * major fault, which leaves the page in the swap cache for the parent's entry. */
		STEP(base, "the child reads page 0%s", out ? ", its PTE a swap entry" : "") {
			before = majflt();
			bad = bad_words("child");
			maj = majflt() - before;
		}
		if (out && maj != 1) {
			fprintf(stderr, "%s: child: %ld major faults to read page 0, expected 1\n",
				UTEST_NAME, maj);
			_exit(2);
		}
		_exit(bad ? 1 : 0);
	}
	if (!CHECK(pid > 0))
		return utest_done();
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_EQ(status, 0); /* the child read page 0 back whole (1) in one major fault (2) */
	if (out) {
		/* The parent's PTE still holds the entry, but the page is in the swap cache. */
		CHECK(resident());
		STEP(base, "the parent reads page 0, its PTE the same swap entry") {
			before = majflt();
			bad = bad_words("parent");
			maj = majflt() - before;
		}
		CHECK_EQ(bad, 0);
		CHECK_EQ(maj, 0); /* a minor fault: no disk read */
		CHECK(resident());
		/* the child's major fault read at least page 0 from the disk */
		CHECK(pswpin() > in0);
		printf("%s: pswpin +%ld\n", UTEST_NAME, pswpin() - in0);
	} else {
		const char *why = si.totalswap ? "page 0 never went out to swap" : "no swap area";

		CHECK_EQ(bad_words("parent"), 0);
		/* faultline's tests give it swap and little memory: nothing out is a failure */
		if (!CHECK(!on_faultline()))
			fprintf(stderr, "%s: %s under faultline\n", UTEST_NAME, why);
		else
			utest_skip("page 0 from the disk, then from the swap cache", why);
	}
	return utest_done();
}
