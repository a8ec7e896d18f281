/*
 * fbench_smp.c: /bin/fsmpbench, fbench's SMP kinds (docs/bench.md): anonymous write faults
 * from 1, 2 and 4 threads each pinned to its own CPU, and a munmap that 0 to 3 other CPUs must
 * hear of. A program of its own: linked into fbench, its threads made fbench's one-CPU
 * lat_proc_fork 600 guest instructions dearer. usage: fsmpbench [PAGES] (or FB_PAGES=),
 * pages per thread, default 4096.
 *
 * Under QEMU -icount all virtual CPUs run in turn on one host thread and the TSC counts the
 * guest instructions of every CPU together. So the figure of a fault kind is the aggregate
 * cost of one fault: (TSC from the first thread's start to the last thread's end - the loop's
 * own cost per page x pages) / faults of all threads. With perfect scaling it is the one-CPU
 * figure; whatever a CPU spends waiting for another (a spinlock, a sleeping lock) adds to it.
 * A CPU idle in hlt runs no instructions, so it adds nothing but its timer ticks.
 *
 * Every thread waits, and the other threads of the munmap kinds run, in a `pause` loop: under
 * QEMU's TCG a `pause` ends that CPU's turn, so a waiting CPU costs a few instructions per
 * turn of the others instead of a whole time slice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fbench.h"

#define MAXT	      4
#define MAX_THR_PAGES 16384L

static long npages;	/* pages per thread */
static int ncpus;	/* CPUs online */
/* each thread's timed touches, and all of them sorted: mapped by fbench_smp, not in .bss,
 * so that the one-CPU run's process (which lat_proc_fork copies) stays the size it was */
static uint64_t (*tdelta)[MAX_THR_PAGES];
static uint64_t *pool;
static double loop_cost;	/* TSC per page of the timed loop over mapped pages, in all */
static double base_mean;	/* one timed touch of a mapped page: its mean and median */
static uint64_t base_median;

/* ---------------------------------------------------------------- threads */

struct thr {
	int cpu;		 /* the CPU it is pinned to (thread i: CPU i) */
	int cpu_seen, cpu_after; /* getcpu() before the start and after the end */
	int err;		 /* errno of a failed sched_setaffinity, else 0 */
	char *base;		 /* its first page (fault kinds) or the mapping (munmap kinds) */
	long n;			 /* its pages */
	uint64_t t0, t1;	 /* TSC at its start and end */
	uint64_t *delta;
	pthread_t tid;
};

static struct thr thr[MAXT];
static int ready, go, finished, quit;

static void spin_until(int *flag, int value)
{
	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value)
		__builtin_ia32_pause();
}

static int getcpu_now(void)
{
	unsigned cpu = ~0u;

	if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
		return -1;
	return (int)cpu;
}

/* Move the calling thread to cpu (at once, on both kernels) and say where it runs. */
static int pin_self(struct thr *t)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	t->err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
	t->cpu_seen = getcpu_now();
	return t->err;
}

/* Touch the thread's pages once each, timed (the same loop as fbench's one-CPU kinds), with a
 * `pause` after each touch: under QEMU's round robin it hands the turn to the next CPU, so the
 * CPUs take one fault each in turn instead of one time slice (millions of instructions) each. */
static void touch_loop(struct thr *t)
{
	t->t0 = tsc_now();
	for (long i = 0; i < t->n; i++) {
		t->delta[i] = timed_write(t->base + (size_t)i * PG);
		__builtin_ia32_pause();
	}
	t->t1 = tsc_now();
}

static void *fault_thread(void *arg)
{
	struct thr *t = arg;

	pin_self(t);
	__atomic_add_fetch(&ready, 1, __ATOMIC_ACQ_REL);
	spin_until(&go, 1);
	touch_loop(t);
	__atomic_add_fetch(&finished, 1, __ATOMIC_ACQ_REL);
	spin_until(&quit, 1);
	t->cpu_after = getcpu_now(); /* a system call: only once every thread is done */
	return NULL;
}

/* The munmap kinds' other threads: read every page of the mapping (so the mm is in use on
 * this CPU and its TLB holds the pages), then run in ring 3 until told to stop. */
static void *spin_thread(void *arg)
{
	struct thr *t = arg;
	long sum = 0;

	pin_self(t);
	for (long i = 0; i < t->n; i++)
		sum += ((volatile char *)t->base)[(size_t)i * PG];
	(void)sum;
	__atomic_add_fetch(&ready, 1, __ATOMIC_ACQ_REL);
	spin_until(&quit, 1);
	t->cpu_after = getcpu_now();
	return NULL;
}

/* Start threads 1..n-1 and wait until each is pinned and waiting, then pin the caller (thread
 * 0) to CPU 0; 0, or -1 if a thread could not be created or pinned. The caller is on every
 * CPU meanwhile: a new thread inherits its mask, and one bound to a CPU where the caller spins
 * would wait for the end of the caller's time slice to run at all. */
static int start_threads(int n, void *(*fn)(void *))
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int i = 0; i < ncpus; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
	ready = go = finished = quit = 0;
	for (int i = 1; i < n; i++)
		if (pthread_create(&thr[i].tid, NULL, fn, &thr[i]) != 0) {
			__atomic_store_n(&go, 1, __ATOMIC_RELEASE); /* the ones started end */
			__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
			for (int j = 1; j < i; j++)
				pthread_join(thr[j].tid, NULL);
			return -1;
		}
	/* a spin, not sched_yield: a loop of system calls on CPU 0 while a thread started on
	 * CPU 1 once left CPU 1 stuck at its timer interrupt's first instruction under -icount */
	spin_until(&ready, n - 1);
	return pin_self(&thr[0]) ? -1 : 0;
}

static void stop_threads(int n)
{
	__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
	for (int i = 1; i < n; i++)
		pthread_join(thr[i].tid, NULL);
	thr[0].cpu_after = getcpu_now();
}

/* NULL if every thread ran where it was pinned, before and after; else why not. */
static const char *placement_error(int n, char *why, size_t size)
{
	for (int i = 0; i < n; i++) {
		if (thr[i].err) {
			snprintf(why, size, "sched_setaffinity(CPU %d): %s", thr[i].cpu,
				 strerror(thr[i].err));
			return why;
		}
		if (thr[i].cpu_seen != thr[i].cpu || thr[i].cpu_after != thr[i].cpu) {
			snprintf(why, size, "thread %d pinned to CPU %d ran on CPU %d, then %d", i,
				 thr[i].cpu, thr[i].cpu_seen, thr[i].cpu_after);
			return why;
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- output */

static long faults_so_far(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0) /* every thread of the process */
		return -1;
	return ru.ru_minflt + ru.ru_majflt;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_na(const char *kind, const char *why)
{
	printf("%-34s %14s %16s  (%s)\n", kind, "n/a", "n/a", why);
}

/* A row in fbench's columns: kind mean median count pages note. */
static void print_smp_row(const char *kind, double mean, long long median, long count,
			  long pages, const char *note)
{
	printf("%-34s %14.1f %16lld %7ld %6ld  %s\n", kind, mean, median, count, pages, note);
}

/* Median of the n deltas of each of the first nt threads together. */
static uint64_t pooled_median(int nt, long n)
{
	long k = 0;

	for (int i = 0; i < nt; i++)
		for (long j = 0; j < n; j++)
			pool[k++] = thr[i].delta[j];
	qsort(pool, (size_t)k, sizeof(pool[0]), cmp_u64);
	return pool[k / 2];
}

/* ---------------------------------------------------------------- the kinds */

/* The timed loop over mapped pages on one CPU: its whole cost per page (loop included: the
 * fault kinds' figure is their elapsed TSC less this per page) and one touch's. */
static int smp_baseline(void)
{
	char *p = map_anon(npages);

	if (!p)
		return -1;
	thr[0] = (struct thr){ .n = npages, .base = p, .delta = tdelta[0] };
	for (long i = 0; i < npages; i++)
		p[i * PG] = 1;
	touch_loop(&thr[0]); /* warm */
	touch_loop(&thr[0]);
	loop_cost = (double)(thr[0].t1 - thr[0].t0) / (double)npages;
	base_mean = 0;
	for (long i = 0; i < npages; i++)
		base_mean += (double)thr[0].delta[i];
	base_mean /= (double)npages;
	base_median = pooled_median(1, npages);
	print_smp_row("smp_baseline_write_mapped", loop_cost, (long long)base_median, 0, npages,
		      "raw: TSC per page of the whole loop (mean), one timed touch (median)");
	munmap(p, (size_t)npages * PG);
	return 0;
}

/* Thread i writes npages pages once each, all threads at once: in a VMA of its own (a
 * PROT_NONE guard page below each keeps neighbours from merging) or in one VMA (disjoint
 * ranges of it, npages each). */
static void smp_fault_kind(int nt, int one_vma)
{
	char kind[64], why[128], note[128];
	char *one = NULL, *mine[MAXT] = { 0 };
	long f0, f1, total = (long)nt * npages;
	uint64_t start = UINT64_MAX, end = 0;
	double sum = 0;
	int i;

	snprintf(kind, sizeof(kind), "smp_anon_write_%s_%dthr", one_vma ? "onevma" : "sepvma", nt);
	if (nt > ncpus) {
		snprintf(why, sizeof(why), "needs %d CPUs, %d online", nt, ncpus);
		print_na(kind, why);
		return;
	}
	if (one_vma && !(one = map_anon(total))) {
		print_na(kind, "mmap failed");
		return;
	}
	for (i = 0; i < nt; i++) {
		if (!one_vma) {
			char *g = map_anon(npages + 1);

			if (!g || mprotect(g, PG, PROT_NONE)) {
				print_na(kind, "mmap failed");
				goto out;
			}
			mine[i] = g;
		}
		thr[i] = (struct thr){ .cpu = i, .n = npages, .delta = tdelta[i] };
		thr[i].base = one_vma ? one + (size_t)i * npages * PG : mine[i] + PG;
		memset(tdelta[i], 0, (size_t)npages * sizeof(tdelta[i][0])); /* no fault later */
	}
	if (start_threads(nt, fault_thread)) {
		print_na(kind, thr[0].err ? "sched_setaffinity failed" : "pthread_create failed");
		goto out;
	}
	f0 = faults_so_far();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	touch_loop(&thr[0]);
	spin_until(&finished, nt - 1);
	f1 = faults_so_far();
	stop_threads(nt);
	if (placement_error(nt, why, sizeof(why))) {
		print_na(kind, why);
		goto out;
	}
	if (f1 - f0 < total) {
		snprintf(why, sizeof(why), "%ld faults counted for %ld pages", f1 - f0, total);
		print_na(kind, why);
		goto out;
	}
	for (i = 0; i < nt; i++) {
		start = thr[i].t0 < start ? thr[i].t0 : start;
		end = thr[i].t1 > end ? thr[i].t1 : end;
		for (long j = 0; j < npages; j++)
			sum += (double)thr[i].delta[j];
	}
	/* thr_mean: the threads' own timed windows, summed; above the aggregate when QEMU ran
	 * other CPUs inside a window (counted there as well) */
	snprintf(note, sizeof(note), "cpus=0-%d thr_mean=%.1f", nt - 1,
		 (sum - base_mean * (double)total) / (double)(f1 - f0));
	print_smp_row(kind, ((double)(end - start) - loop_cost * (double)total) / (double)(f1 - f0),
		      (long long)pooled_median(nt, npages) - (long long)base_median, f1 - f0, total,
		      note);
out:
	if (one)
		munmap(one, (size_t)total * PG);
	for (i = 0; i < nt; i++)
		if (mine[i])
			munmap(mine[i], (size_t)(npages + 1) * PG);
}

/* munmap of one page while `others` other threads, each on its own CPU, run in ring 3 in the
 * same mm having read the mapping: every munmap must shoot down their TLBs. The mapping
 * shrinks from its end, one page per call (no VMA split; its first page stays). Each call
 * timed on its own, less one timed touch's mean (as fbench's per-operation rows). */
static void smp_munmap_kind(int others)
{
	long n = npages / 16 > 0 ? npages / 16 : 1, i;
	char kind[64], why[128], note[64];
	char *p;
	double sum = 0;

	snprintf(kind, sizeof(kind), "smp_munmap_1page_%dothers", others);
	if (others + 1 > ncpus) {
		snprintf(why, sizeof(why), "needs %d CPUs, %d online", others + 1, ncpus);
		print_na(kind, why);
		return;
	}
	p = map_anon(n + 1);
	if (!p) {
		print_na(kind, "mmap failed");
		return;
	}
	for (i = 0; i < n + 1; i++)
		p[i * PG] = 1;
	for (i = 0; i <= others; i++)
		thr[i] = (struct thr){ .cpu = i, .n = n + 1, .base = p };
	memset(tdelta[0], 0, (size_t)n * sizeof(tdelta[0][0]));
	if (start_threads(others + 1, spin_thread)) {
		print_na(kind, thr[0].err ? "sched_setaffinity failed" : "pthread_create failed");
		munmap(p, (size_t)(n + 1) * PG);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t t0 = tsc_now();

		if (munmap(p + (size_t)(n - i) * PG, PG) != 0)
			break;
		tdelta[0][i] = tsc_now() - t0;
	}
	stop_threads(others + 1);
	munmap(p, PG);
	thr[0].delta = tdelta[0];
	if (i != n) {
		print_na(kind, "munmap failed");
		return;
	}
	if (placement_error(others + 1, why, sizeof(why))) {
		print_na(kind, why);
		return;
	}
	for (i = 0; i < n; i++)
		sum += (double)tdelta[0][i];
	snprintf(note, sizeof(note), "per munmap; cpus=0-%d", others);
	print_smp_row(kind, sum / (double)n - base_mean,
		      (long long)pooled_median(1, n) - (long long)base_median, n, n, note);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	uint64_t t0 = tsc_now();
	static const int counts[] = { 1, 2, 4 };
	const char *env = getenv("FB_PAGES");

	setvbuf(stdout, NULL, _IOLBF, 0);
	npages = argc > 1 ? atol(argv[1]) : env ? atol(env) : 4096;
	if (npages < 16 || npages > MAX_THR_PAGES) {
		fprintf(stderr, "fsmpbench: PAGES must be 16..%ld\n", MAX_THR_PAGES);
		return 2;
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;
	tdelta = mmap(NULL, 2 * MAXT * MAX_THR_PAGES * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tdelta == MAP_FAILED) {
		fprintf(stderr, "fsmpbench: mmap: %s\n", strerror(errno));
		return 1;
	}
	pool = tdelta[MAXT];
	/* fault the result arrays in now, not in a timed loop */
	memset(tdelta, 0, 2 * MAXT * MAX_THR_PAGES * sizeof(uint64_t));
	printf("fbench: SMP page-fault and munmap cost, %ld pages per thread, %d CPUs online\n",
	       npages, ncpus);
	printf("%-34s %14s %16s %7s %6s  %s\n", "kind", "per_fault_mean", "per_fault_median",
	       "faults", "pages", "note");
	if (smp_baseline()) {
		fprintf(stderr, "fsmpbench: mmap of %ld pages: %s\n", npages, strerror(errno));
		return 1;
	}
	/* the munmaps first: no CPU but this one has used the mm yet */
	for (int k = 0; k < MAXT; k++)
		smp_munmap_kind(k);
	for (int v = 0; v < 2; v++)
		for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			smp_fault_kind(counts[c], v);
	printf("fbench: done, %llu TSC ticks in all\n", (unsigned long long)(tsc_now() - t0));
	return 0;
}
