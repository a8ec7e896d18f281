/* smp-faults: threads faulting the same pages at the same time end with the right contents:
 * a fresh anonymous region written (and first read: the zero page) by every thread at once,
 * a MAP_SHARED file read and written through, and COW pages written by the threads of a forked
 * child while the parent writes its copy. One thread per CPU, 2 to 4. Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#define UTEST_NAME "smp-faults"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"

#define PAGE	    4096UL
#define WORDS	    (PAGE / 8)
#define MAXT	    4
#define ANON_PAGES  32 /* powers of two: the orders below are permutations of the pages */
#define FILE_PAGES  16
#define COW_PAGES   32
#define SLOT(i)	    ((i) * 8)  /* thread i's word in a page: a cache line apart */
#define PSLOT	    SLOT(MAXT) /* the COW parent's own word */
#define ANON_ROUNDS 1000
#define FILE_ROUNDS 500
#define COW_ROUNDS  1000
#define MAXERR	    5 /* mismatches shown per thread and test */
/* A test stops early, after at least MIN_ROUNDS, once it has run BUDGET_S seconds: under
 * QEMU's TCG with more virtual CPUs than the host has cores, a round can take 1000 times
 * longer than with one CPU (the shootdowns wait for descheduled virtual CPUs). */
#define MIN_ROUNDS  10
#define BUDGET_S    5.0

/* the most rounds of each test; argv[1] scales them by N/100 (0: that test is not run),
 * and argv[2], when given, names the tests to run: "anon,cow" */
static int anon_rounds = ANON_ROUNDS, file_rounds = FILE_ROUNDS, cow_rounds = COW_ROUNDS;
static int go_on;      /* thread 0 to all, before the round's first barrier: run round r */
static int rounds_run; /* of the test that ran last */
static double test_start;
static int nthreads;

/* ---------------------------------------------------------------- barrier */
/* A spinning barrier (futex wake-ups would spread the threads out). After the first 1024
 * turns it yields every 64, so that threads sharing a CPU get to arrive; not before, for a
 * system call in every turn would slow the threads that do have CPUs of their own (more so
 * with a kernel that takes a lock in each). */
static struct {
	int count, gen;
} bar;

static void barrier(void)
{
	int gen = __atomic_load_n(&bar.gen, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&bar.count, 1, __ATOMIC_ACQ_REL) == nthreads) {
		__atomic_store_n(&bar.count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&bar.gen, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	for (unsigned i = 1; __atomic_load_n(&bar.gen, __ATOMIC_ACQUIRE) == gen; i++) {
		if (i >= 1024 && i % 64 == 0)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
}

/* Thread i's k-th page of n (n a power of two) in round r. Even rounds: the same order for
 * every thread, so that they fault each page at the same moment. Odd rounds: forward,
 * backward, odd stride, from the middle; so that they meet on different pages at different
 * times and in different states (one thread's fault done, another's under way). */
static unsigned order(int i, int r, unsigned k, unsigned n)
{
	switch (r % 2 ? i : 0) {
	case 0:
		return k;
	case 1:
		return n - 1 - k;
	case 2:
		return (k * 7 + 3) % n;
	default:
		return (k + n / 2) % n;
	}
}

/* what thread i writes into its slot of page pg in round r (never 0) */
static uint64_t val(int r, unsigned pg, int i)
{
	return ((uint64_t)(r + 1) << 32) | (pg << 8) | (uint64_t)(i + 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the longest round of the test running (a thread left waiting by the scheduler shows here) */
static double slowest, lap_t;

static void lap_start(void)
{
	lap_t = now();
}

static void lap_end(void)
{
	if (now() - lap_t > slowest)
		slowest = now() - lap_t;
}

/* Thread 0 (or the COW parent): is there a round r, of at most max? */
static int more_rounds(int r, int max)
{
	rounds_run = r;
	return r < max && (r < MIN_ROUNDS || now() - test_start < BUDGET_S);
}

/* Every thread runs fn(i) (the main thread is 0); the errors they found, added up. */
static int errors[MAXT];

static void *thread_start(void *arg)
{
	void (*fn)(int) = ((void **)arg)[0];

	fn((int)(intptr_t)((void **)arg)[1]);
	return NULL;
}

static int run_threads(void (*fn)(int))
{
	pthread_t th[MAXT];
	void *args[MAXT][2];
	int sum = 0;

	bar.count = bar.gen = 0;
	for (int i = 0; i < nthreads; i++) {
		errors[i] = 0;
		args[i][0] = (void *)fn;
		args[i][1] = (void *)(intptr_t)i;
	}
	for (int i = 1; i < nthreads; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, thread_start, args[i]), 0);
	fn(0);
	for (int i = 1; i < nthreads; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < nthreads; i++)
		sum += errors[i];
	return sum;
}

static void mismatch(int i, const char *what, int r, unsigned pg, unsigned w, uint64_t got,
		     uint64_t want)
{
	if (errors[i]++ < MAXERR)
		fprintf(stderr, "smp-faults: %s round %d thread %d: page %u word %u is %#llx, "
			"want %#llx\n", what, r, i, pg, w, (unsigned long long)got,
			(unsigned long long)want);
}

/* ---------------------------------------------------------------- (a) anonymous */
static volatile uint64_t *anon_w, *anon_r; /* written first; read first, then written */

/* Every slot of every page holds its thread's value, every other word 0. */
static void anon_check(int i, volatile uint64_t *m, int r, const char *what)
{
	for (unsigned k = 0; k < ANON_PAGES; k++) {
		unsigned pg = order(i, r, k, ANON_PAGES);
		volatile uint64_t *p = m + pg * WORDS;

		for (unsigned w = 0; w < WORDS; w++) {
			uint64_t want = w % 8 == 0 && w / 8 < (unsigned)nthreads ?
				val(r, pg, (int)(w / 8)) : 0;

			if (p[w] != want)
				mismatch(i, what, r, pg, w, p[w], want);
		}
	}
}

static void anon_worker(int i)
{
	for (int r = 0;; r++) {
		if (i == 0 && (go_on = more_rounds(r, anon_rounds))) {
			lap_start();
			anon_w = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			anon_r = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (anon_w == MAP_FAILED || anon_r == MAP_FAILED) {
				fprintf(stderr, "smp-faults: mmap: %s\n", strerror(errno));
				exit(1);
			}
		}
		barrier();
		if (!go_on)
			break;
		/* first touches are writes, every thread on every page */
		for (unsigned k = 0; k < ANON_PAGES; k++) {
			unsigned pg = order(i, r, k, ANON_PAGES);

			anon_w[pg * WORDS + SLOT(i)] = val(r, pg, i);
		}
		/* first touches are reads (the zero page), then writes racing the others'
		 * reads: a slot is 0 or its final value, never anything else */
		for (unsigned k = 0; k < ANON_PAGES; k++) {
			unsigned pg = order(i, r, k, ANON_PAGES);

			for (int j = 0; j < nthreads; j++) {
				uint64_t v = anon_r[pg * WORDS + SLOT(j)];

				if (v != 0 && (j == i || v != val(r, pg, j)))
					mismatch(i, "anon read", r, pg, SLOT(j), v, 0);
			}
		}
		for (unsigned k = 0; k < ANON_PAGES; k++) {
			unsigned pg = order(i, r, k, ANON_PAGES);

			anon_r[pg * WORDS + SLOT(i)] = val(r, pg, i);
		}
		barrier();
		anon_check(i, anon_w, r, "anon write");
		anon_check(i, anon_r, r, "anon read-then-write");
		barrier();
		if (i == 0) {
			lap_end();
			CHECK_EQ(munmap((void *)anon_w, ANON_PAGES * PAGE), 0);
			CHECK_EQ(munmap((void *)anon_r, ANON_PAGES * PAGE), 0);
		}
	}
}

/* ---------------------------------------------------------------- (b) MAP_SHARED file */
static int file_fd;
static volatile unsigned char *fmap;
static unsigned char fwant[FILE_PAGES * PAGE], fgot[FILE_PAGES * PAGE];

/* thread i's bytes in page pg in round r: 8 of them, where depends on the round */
static unsigned fslot(int r, int i)
{
	return (unsigned)(r % 16) * 256 + (unsigned)i * 64;
}

static void file_worker(int i)
{
	for (int r = 0;; r++) {
		if (i == 0 && (go_on = more_rounds(r, file_rounds))) {
			lap_start();
			fmap = mmap(NULL, FILE_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				    file_fd, 0);
			if (fmap == MAP_FAILED) {
				fprintf(stderr, "smp-faults: mmap file: %s\n", strerror(errno));
				exit(1);
			}
		}
		barrier();
		if (!go_on)
			break;
		/* every thread reads every byte, faulting the same pages in */
		for (unsigned k = 0; k < FILE_PAGES; k++) {
			unsigned pg = order(i, r, k, FILE_PAGES);

			for (unsigned b = 0; b < PAGE; b++) {
				unsigned off = pg * PAGE + b;

				if (fmap[off] != fwant[off])
					mismatch(i, "file read", r, pg, b, fmap[off], fwant[off]);
			}
		}
		barrier();
		for (unsigned k = 0; k < FILE_PAGES; k++) {
			unsigned pg = order(i, r, k, FILE_PAGES);
			uint64_t v = val(r, pg, i);

			memcpy((void *)(fmap + pg * PAGE + fslot(r, i)), &v, 8);
		}
		barrier();
		/* the main thread checks the file and unmaps while the others wait for the
		 * next round's start */
		if (i == 0) {
			for (unsigned pg = 0; pg < FILE_PAGES; pg++)
				for (int j = 0; j < nthreads; j++) {
					uint64_t v = val(r, pg, j);

					memcpy(fwant + pg * PAGE + fslot(r, j), &v, 8);
				}
			if (!CHECK(pread_all(file_fd, fgot, sizeof(fgot), 0) == 0))
				exit(1);
			for (unsigned off = 0; off < sizeof(fgot); off++)
				if (fgot[off] != fwant[off])
					mismatch(i, "file pread", r, off / PAGE, off % PAGE,
						 fgot[off], fwant[off]);
			CHECK_EQ(munmap((void *)fmap, FILE_PAGES * PAGE), 0);
			lap_end();
		}
	}
}

/* ---------------------------------------------------------------- (c) COW after fork */
static volatile uint64_t *cow;
static int cow_round;

/* the parent's word w of page pg before the fork */
static uint64_t pval(int r, unsigned pg, unsigned w)
{
	return ((uint64_t)(r + 1) << 40) | ((uint64_t)pg << 20) | w | 0x8000000000000000ULL;
}

/* the parent's write to its own slot after the fork */
static uint64_t pnew(int r, unsigned pg)
{
	return val(r, pg, 100);
}

/* In the child: every thread writes its slot of every COW page, then checks them all. */
static void cow_worker(int i)
{
	int r = cow_round;

	barrier();
	for (unsigned k = 0; k < COW_PAGES; k++) {
		unsigned pg = order(i, r, k, COW_PAGES);

		cow[pg * WORDS + SLOT(i)] = val(r, pg, i);
	}
	barrier();
	for (unsigned k = 0; k < COW_PAGES; k++) {
		unsigned pg = order(i, r, k, COW_PAGES);
		volatile uint64_t *p = cow + pg * WORDS;

		for (unsigned w = 0; w < WORDS; w++) {
			uint64_t want = w % 8 == 0 && w / 8 < (unsigned)nthreads ?
				val(r, pg, (int)(w / 8)) : pval(r, pg, w);

			if (p[w] != want)
				mismatch(i, "cow child", r, pg, w, p[w], want);
		}
	}
}

static int cow_test(void)
{
	int bad = 0;

	for (int r = 0; more_rounds(r, cow_rounds); r++) {
		pid_t pid;
		int st;

		lap_start();
		cow = mmap(NULL, COW_PAGES * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!CHECK(cow != MAP_FAILED))
			return 1;
		for (unsigned pg = 0; pg < COW_PAGES; pg++)
			for (unsigned w = 0; w < WORDS; w++)
				cow[pg * WORDS + w] = pval(r, pg, w);
		cow_round = r;
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run_threads(cow_worker) ? 1 : 0);
		if (!CHECK(pid > 0))
			return 1;
		/* the parent breaks COW on the same pages while the child's threads do */
		for (unsigned k = 0; k < COW_PAGES; k++) {
			unsigned pg = order(r / 2 % MAXT, r, k, COW_PAGES);

			cow[pg * WORDS + PSLOT] = pnew(r, pg);
		}
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			fprintf(stderr, "smp-faults: cow round %d: the child: %s\n", r,
				status_str(st));
			bad++;
		}
		for (unsigned pg = 0; pg < COW_PAGES; pg++)
			for (unsigned w = 0; w < WORDS; w++) {
				uint64_t want = w == PSLOT ? pnew(r, pg) : pval(r, pg, w);

				if (cow[pg * WORDS + w] != want)
					mismatch(0, "cow parent", r, pg, w, cow[pg * WORDS + w],
						 want);
			}
		bad += errors[0];
		errors[0] = 0;
		lap_end();
		CHECK_EQ(munmap((void *)cow, COW_PAGES * PAGE), 0);
	}
	return bad;
}

/* the line of one kind: "smp-faults: anon 200 rounds ok (...)" */
static void report(const char *kind, int max, int bad, int pages)
{
	char cut[64] = "";

	CHECK_EQ(bad, 0);
	if (rounds_run < max)
		snprintf(cut, sizeof(cut), "of %d: time's up; ", max);
	printf("smp-faults: %s %d rounds %s (%s%d pages, %.1f s, slowest round %.1f ms)\n",
	       kind, rounds_run, bad ? "FAILED" : "ok", cut, pages, now() - test_start,
	       slowest * 1e3);
}

/* the start of a test */
static void start(void)
{
	test_start = now();
	slowest = 0;
	rounds_run = 0;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char path[64];
	double t0;
	int bad;

	if (argc > 1) {
		int pct = atoi(argv[1]);

		anon_rounds = anon_rounds * pct / 100;
		file_rounds = file_rounds * pct / 100;
		cow_rounds = cow_rounds * pct / 100;
	}
	if (argc > 2) {
		anon_rounds = strstr(argv[2], "anon") ? anon_rounds : 0;
		file_rounds = strstr(argv[2], "file") ? file_rounds : 0;
		cow_rounds = strstr(argv[2], "cow") ? cow_rounds : 0;
	}
	nthreads = ncpu < 2 ? 2 : ncpu > MAXT ? MAXT : (int)ncpu;
	printf("smp-faults: %ld CPUs online, %d threads\n", ncpu, nthreads);

	t0 = now();
	start();
	bad = run_threads(anon_worker);
	report("anon", anon_rounds, bad, ANON_PAGES);

	if (tmp_setup())
		return 1;
	tmp_path(path, sizeof(path), "smpfaults");
	file_fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (!CHECK(file_fd >= 0))
		return utest_done();
	pat_fill(fwant, 0, sizeof(fwant), 7);
	CHECK_EQ(pwrite_all(file_fd, fwant, sizeof(fwant), 0), 0);
	start();
	bad = run_threads(file_worker);
	report("file", file_rounds, bad, FILE_PAGES);
	close(file_fd);
	CHECK_EQ(unlink(path), 0);
	tmp_cleanup();

	start();
	bad = cow_test();
	report("cow", cow_rounds, bad, COW_PAGES);
	printf("smp-faults: %.1f s in all\n", now() - t0);
	return utest_done();
}
