/* file-race-smp: the truncate race of file-race on several CPUs: the fault on one, truncate on
 * another. docs/history.md ("On two CPUs").
 * usage: file-race-smp [K [expect-race | expect-overlap]]   (K truncator iterations, default 3000)
 *
 * The truncator (this process) is pinned to the first CPU, one reader (a child) to each other
 * one. Each of the K iterations is ftruncate(fd, 0), ftruncate(fd, SMP_PAGES pages), one pwrite
 * of generation k per page (the words of file-race.h), with no pause. A reader touches one page
 * after another and drops each PTE again with madvise(MADV_DONTNEED) at once, so that it
 * faults all the time, and while it faults its mm maps nothing of the file: a truncate that
 * unmaps it then needs no TLB shootdown IPI to the reader's CPU. (With pages mapped it would,
 * and a reader stalled inside its fault would hold the truncate up until its PTE is in,
 * which closes the race: readers that kept their pages found 5 orphans in 8 runs of 2000.)
 *
 * The fault's window, from filemap_nopage's i_size check to __do_fault's lock_page, is a few
 * hundred instructions; truncate needs far more (set i_size, unmap every VMA of the file, find
 * the page, lock it). It fits only when the reader's CPU stops inside the window for a while:
 * under QEMU's TCG, the host descheduling that virtual CPU's thread; on hardware an SMI, a
 * hypervisor, a long interrupt. So the race shows more often on a busy host. With
 * race_window_us (the boots of make test) the kernel makes that stop itself, far longer than
 * the truncator's iteration: then nopage() loses the race on every fault a truncate overlaps.
 *
 * The readers make no system call but madvise (the truncator holds the big kernel lock most of
 * the time). They skip the file while it is empty (between the two ftruncates a fault is
 * SIGBUS, whose delivery also waits for that lock) and survive the SIGBUS of a fault that began
 * just before (a handler jumps back into the loop). A stale read: once ftruncate(fd, 0) of
 * iteration k has returned, no page older than generation k is in the page cache, so a mapped
 * word of a generation below the last such k ("cut", published by the truncator after the
 * call) comes from an orphan PTE. A reader reads the word (the fault), then cut, then the word
 * again, and on a stale read asks FL_CHECK at once whether the kernel sees the orphan too. The
 * truncator runs FL_CHECK every SMP_CHECK iterations, and at the end. It stops early after
 * SMP_BUDGET_S seconds (a busy host), saying so.
 *
 * With race_window_us the kernel counts, in /proc/vmstat, the fault/truncate pairs that
 * overlapped (fl_truncate_overlap: each truncate that unmapped the file while a fault was in
 * the window) and the faults that mapped an orphan (fl_orphan_pte); read before and after.
 *
 * Passes when no stale read and no orphan was seen and the readers did compare words;
 * expect-overlap also wants overlaps counted by the kernel (a clean run without them shows
 * nothing; with no window on one CPU, reader and truncator take turns and there are none).
 * expect-race (faultline booted with legacy_nopage) turns the verdict round: it passes only if
 * the race showed. Natively there is no FL_CHECK (0 orphans) and no fl_ counter. */
#define _GNU_SOURCE
#define UTEST_NAME "file-race-smp"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"
#include "file-race.h"
#include <sched.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define P VM_PAGE

#define SMP_PAGES   64
#define SMP_READERS 8 /* at most */
#define SMP_CHECK   8
#define SMP_BUDGET_S 25.0 /* seconds: the truncator stops early after that */

struct smp_reader {
	unsigned long reads, compares, zeroes, torn, sigbus, stale, confirmed, faults;
	unsigned long madvise_failed;
	long first_page, first_seen, first_cut; /* the first stale read */
	int cpu;
	int started; /* on its CPU, the file mapped: the truncator may begin */
};

struct smp_shared { /* in a shared anonymous page */
	uint32_t cut;  /* ftruncate(fd, 0) of this generation has returned */
	int is_short;  /* between the two ftruncates */
	int stop;
	struct smp_reader r[SMP_READERS];
};

static char path[64];
static int fd;

/* r == 0, else one failed check with errno */
static int ok0(long r, const char *what)
{
	if (r == 0)
		return 1;
	CHECK(!"a truncator call failed");
	fprintf(stderr, "file-race-smp:   %s: %s\n", what, strerror(errno));
	return 0;
}
#define CHECK_EQ_OK(call) ok0((long)(call), #call)

static void vm_check(void)
{
	struct fl_check c;

	fl_check_record(&c);
}

static struct smp_shared *sh;
static sigjmp_buf smp_jb;
static volatile unsigned smp_next; /* the reader's next page (it survives the siglongjmp) */

static void smp_on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(smp_jb, 1);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void smp_read_one(struct smp_reader *me, volatile uint64_t *word, unsigned i)
{
	long cut, v;
	struct fl_check c;

	(void)*word; /* a fault: the PTE is gone (madvise below, or a truncate) */
	cut = __atomic_load_n(&sh->cut, __ATOMIC_ACQUIRE);
	v = decode(*word); /* through the PTE that fault installed */
	me->reads++;
	if (v < 0) {
		me->torn++;
	} else if (v == 0) {
		me->zeroes++;
	} else {
		me->compares++;
		if (v < cut) {
			if (me->stale++ == 0) {
				me->first_page = i;
				me->first_seen = v;
				me->first_cut = cut;
			}
			if (on_faultline() && fl_check(&c) == 0) /* the PTE is still there */
				me->confirmed += c.orphans != 0;
		}
	}
	if (madvise((void *)((uintptr_t)word & ~(P - 1)), P, MADV_DONTNEED))
		me->madvise_failed++;
}

static void smp_reader(int id)
{
	struct smp_reader *me = &sh->r[id];
	volatile uint64_t *m;
	struct sigaction sa;
	struct rusage ru;

	if (me->cpu >= 0 && !pin(me->cpu))
		_exit(2);
	m = mmap(NULL, SMP_PAGES * P, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		_exit(2);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = smp_on_sigbus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		_exit(2);
	smp_next = (unsigned)id * 7;
	__atomic_store_n(&me->started, 1, __ATOMIC_RELEASE);
	if (sigsetjmp(smp_jb, 1)) /* the file had just become empty: on to the next page */
		me->sigbus++;
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		unsigned i = smp_next % SMP_PAGES;

		if (__atomic_load_n(&sh->is_short, __ATOMIC_ACQUIRE)) {
			if (me->cpu < 0)
				sched_yield(); /* one CPU: the truncator needs it to go on */
			continue;
		}
		smp_next++;
		smp_read_one(me, m + i * (P / sizeof(uint64_t)), i);
		if (me->cpu < 0) /* one CPU: turn about with the truncator, not a slice each */
			sched_yield();
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		me->faults = ru.ru_minflt + ru.ru_majflt;
	_exit(0);
}

/* the CPUs this process may run on, in cpus[]; how many */
static int smp_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* one iteration of the truncator; 0 if a call failed */
static int smp_truncate(long k)
{
	uint64_t w = encode((uint32_t)k);

	__atomic_store_n(&sh->is_short, 1, __ATOMIC_RELEASE);
	if (!CHECK_EQ_OK(ftruncate(fd, 0)))
		return 0;
	__atomic_store_n(&sh->cut, (uint32_t)k, __ATOMIC_RELEASE);
	if (!CHECK_EQ_OK(ftruncate(fd, SMP_PAGES * P)))
		return 0;
	__atomic_store_n(&sh->is_short, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < SMP_PAGES; i++)
		if (!CHECK_EQ_OK(pwrite(fd, &w, sizeof(w), (off_t)(i * P)) - (ssize_t)sizeof(w)))
			return 0;
	return 1;
}

static int smp_main(long iterations, int expect_race, int expect_overlap)
{
	int cpus[SMP_READERS + 1], ncpu = smp_cpus(cpus, SMP_READERS + 1), nreaders, i, st;
	unsigned long stale = 0, confirmed = 0, compares = 0, reads = 0, sigbus = 0, faults = 0;
	unsigned long long orphans = 0;
	long overlap0 = utest_vmstat("fl_truncate_overlap");
	long orphan0 = utest_vmstat("fl_orphan_pte"), overlaps = -1, orphan_ptes = -1;
	pid_t pids[SMP_READERS];
	double t0 = now();
	long k, done;

	sh = mmap(NULL, P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(sh != MAP_FAILED) || tmp_setup())
		return utest_done();
	nreaders = ncpu > 1 ? ncpu - 1 : 1;
	if (ncpu > 1)
		CHECK(pin(cpus[0]));
	tmp_path(path, sizeof(path), "race");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (!CHECK(fd >= 0))
		return utest_done();
	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(ftruncate(fd, SMP_PAGES * P), 0);
	for (i = 0; i < nreaders; i++) {
		sh->r[i].cpu = ncpu > 1 ? cpus[1 + i] : -1;
		fflush(stdout);
		pids[i] = fork();
		if (pids[i] == 0)
			smp_reader(i);
		CHECK(pids[i] > 0);
	}
	/* every reader on its CPU first: a reader still moving there would miss the whole run
	 * (200 iterations take less than a reader's start on a fast host) */
	for (i = 0; i < nreaders && now() - t0 < SMP_BUDGET_S; i++)
		while (pids[i] > 0 && !__atomic_load_n(&sh->r[i].started, __ATOMIC_ACQUIRE) &&
		       now() - t0 < SMP_BUDGET_S)
			sched_yield();
	for (k = 2; k < iterations + 2 && smp_truncate(k); k++) {
		if (ncpu == 1) /* one CPU: the reader runs only when the truncator lets it */
			sched_yield();
		if (k % SMP_CHECK)
			continue;
		if (now() - t0 > SMP_BUDGET_S)
			break; /* a slow (or busy) host: a boot must not time out */
		if (on_faultline()) {
			vm_check();
			orphans += last.orphans;
		}
	}
	done = k - 2;
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nreaders; i++) {
		struct smp_reader *r = &sh->r[i];

		if (pids[i] <= 0 || waitpid(pids[i], &st, 0) != pids[i])
			continue;
		if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			fprintf(stderr, "file-race-smp: reader %d: %s\n", i, status_str(st));
		if (r->stale)
			fprintf(stderr, "file-race-smp: reader %d: %lu STALE reads; the first: "
				"page %ld showed generation %ld after ftruncate(fd, 0) of "
				"generation %ld had returned\n", i, r->stale, r->first_page,
				r->first_seen, r->first_cut);
		printf("file-race-smp: reader %d (CPU %d): %lu reads (%lu faults), %lu compares, "
		       "%lu zero pages, %lu torn, %lu SIGBUS, %lu stale (%lu confirmed)\n", i,
		       r->cpu, r->reads, r->faults, r->compares, r->zeroes, r->torn, r->sigbus,
		       r->stale,
		       r->confirmed);
		CHECK_EQ(r->madvise_failed, 0);
		stale += r->stale;
		confirmed += r->confirmed;
		compares += r->compares;
		reads += r->reads;
		sigbus += r->sigbus;
		faults += r->faults;
	}
	/* The kernel's own count, the readers gone: on faultline the lines exist (the first
	 * failure is a failed check); natively they do not, and nothing is claimed. */
	if (on_faultline() && CHECK(overlap0 >= 0 && orphan0 >= 0)) {
		overlaps = utest_vmstat("fl_truncate_overlap") - overlap0;
		orphan_ptes = utest_vmstat("fl_orphan_pte") - orphan0;
	}
	if (expect_race) {
		CHECK(stale > 0 || orphans > 0 || orphan_ptes > 0);
	} else {
		CHECK_EQ(stale, 0);
		CHECK_EQ(orphans, 0);
		CHECK_EQ(worst.orphans, 0);
		if (on_faultline())
			CHECK_EQ(orphan_ptes, 0);
		/* no loss means something only if they did race */
		if (on_faultline() && expect_overlap)
			CHECK(overlaps > 0);
	}
	CHECK(compares > 0);
	CHECK_EQ(worst.bad_counts, 0);
	if (on_faultline()) {
		CHECK(nchecks > 0);
		CHECK_EQ(fl_check(&at_end), 0);
		CHECK_EQ(at_end.orphans, 0); /* the readers are gone, and their PTEs */
		CHECK_EQ(at_end.bad_counts, 0);
		CHECK_EQ(at_end.past_eof, 0);
	}
	if (done < iterations)
		printf("file-race-smp: stopped after %ld of %ld iterations (%.0f s)\n", done,
		       iterations, SMP_BUDGET_S);
	printf("file-race-smp: %ld iterations, %d CPUs, %d readers, %d pages: %lu stale reads "
	       "(%lu confirmed by FL_CHECK), %lu reads (%lu faults, %lu compares), %lu SIGBUS, "
	       "%.1f s\n", done, ncpu, nreaders, SMP_PAGES, stale, confirmed, reads, faults,
	       compares, sigbus, now() - t0);
	if (on_faultline())
		printf("file-race-smp: FL_CHECK x%lu: %llu orphan PTEs, max %llu at once\n",
		       nchecks, orphans, (unsigned long long)worst.orphans);
	else
		printf("file-race-smp: FL_CHECK: not available natively (taken as 0 orphans)\n");
	if (overlaps >= 0)
		printf("file-race-smp: /proc/vmstat: %ld fault/truncate pairs overlapped "
		       "(fl_truncate_overlap), %ld faults mapped an orphan page "
		       "(fl_orphan_pte)%s\n",
		       overlaps, orphan_ptes,
		       overlaps == 0 ? ": nothing raced, a clean run shows nothing" : "");
	else
		printf("file-race-smp: /proc/vmstat: no fl_truncate_overlap natively\n");
	if (expect_race)
		printf("file-race-smp: expect-race: the race %s (%lu stale reads, %llu orphans, "
		       "%ld orphan PTEs mapped)\n",
		       stale > 0 || orphans > 0 || orphan_ptes > 0 ? "showed" : "did NOT show",
		       stale, orphans, orphan_ptes);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(munmap(sh, P), 0);
	tmp_cleanup();
	return utest_done();
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? atol(argv[1]) : 3000;
	int expect_race = argc > 2 && strcmp(argv[2], "expect-race") == 0;
	int expect_overlap = argc > 2 && strcmp(argv[2], "expect-overlap") == 0;

	if (iterations <= 0 || argc > 3 || (argc > 2 && !expect_race && !expect_overlap)) {
		fprintf(stderr, "usage: file-race-smp [iterations "
			"[expect-race | expect-overlap]]\n");
		return 2;
	}
	return smp_main(iterations, expect_race, expect_overlap);
}
