/*
 * fbench: what one page fault costs, measured from ring 3 (`make bench`, docs/bench.md).
 *
 * For each kind of fault, N pages (default 4096) are touched once each, one byte per page, and
 * every touch is timed on its own: lfence;rdtsc;lfence, one movb, lfence;rdtsc;lfence. Under
 * QEMU with -icount shift=0,sleep=off the TSC advances by one per guest instruction, so the
 * deltas are instruction counts and every run prints the same numbers. The same timed loop
 * over pages that are already mapped is the baseline (the cost of the timing itself).
 *
 *   per_fault_mean   = (sum of the N deltas - N * baseline mean) / faults
 *                      faults = getrusage minor + major faults during the loop, so this
 *                      includes what is paid now and then (page-table pages, timer ticks)
 *   per_fault_median = median of the N deltas - baseline median: the common path
 *
 * Two kinds are signals: sig_catch (lmbench's lat_sig catch: kill(self), the handler,
 * rt_sigreturn) and anon_write_sigsegv_mprotect (a write fault handled in user space: the
 * SIGSEGV handler mprotects the page writable and the write restarts); "faults" counts the
 * signals there.
 *
 * Four kinds are lmbench's pipe and process latencies, each operation timed on its own from
 * the parent (on one CPU the TSC also counts the child and the kernel): lat_pipe (a 1-byte
 * round trip between two processes over two pipes), bw_pipe (one 64 KiB chunk streamed
 * through a pipe: per chunk, not per KiB), lat_proc_fork (fork + child _exit + wait) and
 * lat_proc_exec (fork + exec of /bin/fexit, which exits at once, + wait); "faults" counts the
 * operations, PAGES round trips for lat_pipe and PAGES/16 for the other three.
 *
 * Kind names are those of the Linux reference (tests/bench/linux/), so the
 * two tables join on the first column. A kind whose setup fails (no writable file system,
 * no device, no remap_file_pages yet) prints "kind  n/a  n/a  (reason)"; it lights up by
 * itself when the kernel grows the feature.
 *
 * usage: fbench [PAGES [VMA_STEPS]]   e.g. fbench 256 10,100
 * (also the environment variables FB_PAGES and FB_NVMA; arguments win). It runs under
 * faultline as init=/bin/fbench and natively on Linux as an ordinary program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fbench.h"

#define MAX_PAGES   65536L
#define FILE_PATH   "/tmp/fbench.dat"
#ifndef MAP_NONBLOCK
#define MAP_NONBLOCK 0x10000
#endif

static long npages = 4096;
static uint64_t delta[MAX_PAGES]; /* one timed touch per page */
static uint64_t sorted[MAX_PAGES];

/* ---------------------------------------------------------------- statistics */

struct run {
	long pages, faults;
	uint64_t sum, median;
};

static long faults_so_far(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return ru.ru_minflt + ru.ru_majflt;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Touch page 0..n-1 of p once each (a write or a read of its first byte), timing each. */
static struct run touch_pages(char *p, long n, int write)
{
	struct run r = { n, 0, 0, 0 };
	long f0, f1, i;

	/* the result arrays must not fault inside the loop (after fork they are COW) */
	memset(delta, 0, (size_t)n * sizeof(delta[0]));
	memset(sorted, 0, (size_t)n * sizeof(sorted[0]));
	f0 = faults_so_far();
	if (write)
		for (i = 0; i < n; i++)
			delta[i] = timed_write(p + (size_t)i * PG);
	else
		for (i = 0; i < n; i++)
			delta[i] = timed_read(p + (size_t)i * PG);
	f1 = faults_so_far();
	r.faults = f1 - f0;
	for (i = 0; i < n; i++) {
		r.sum += delta[i];
		sorted[i] = delta[i];
	}
	qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u64);
	r.median = sorted[n / 2];
	return r;
}

static struct run base_write, base_read;

static void print_header(void)
{
	printf("%-34s %14s %16s %7s %6s  %s\n", "kind", "per_fault_mean", "per_fault_median",
	       "faults", "pages", "note");
}

static void print_na(const char *kind, const char *why)
{
	printf("%-34s %14s %16s  (%s)\n", kind, "n/a", "n/a", why);
}

/* One row: net of the baseline (the same loop, same direction, over mapped pages). */
static void print_row(const char *kind, const struct run *r, int write, const char *note)
{
	const struct run *b = write ? &base_write : &base_read;
	double bmean = (double)b->sum / (double)b->pages;
	double net = (double)r->sum - bmean * (double)r->pages;
	long long median = (long long)r->median - (long long)b->median;

	if (r->faults <= 0) {
		char why[96];

		snprintf(why, sizeof(why), "no fault counted over %ld pages", r->pages);
		print_na(kind, why);
		return;
	}
	printf("%-34s %14.1f %16lld %7ld %6ld  %s\n", kind, net / (double)r->faults, median,
	       r->faults, r->pages, note);
}

/* The baselines themselves: raw per-page mean and median of the loop (nothing subtracted). */
static void print_baseline(const char *kind, const struct run *r)
{
	printf("%-34s %14.1f %16llu %7ld %6ld  %s\n", kind, (double)r->sum / (double)r->pages,
	       (unsigned long long)r->median, r->faults, r->pages, "raw loop cost");
}

static void fail_reason(char *buf, size_t size, const char *what)
{
	snprintf(buf, size, "%s: %s", what, strerror(errno));
}

/* ---------------------------------------------------------------- anonymous kinds */

static void bench_baselines(void)
{
	char *p = map_anon(npages);
	long i;

	if (!p) {
		fprintf(stderr, "fbench: mmap of %ld pages: %s\n", npages, strerror(errno));
		exit(1);
	}
	for (i = 0; i < npages; i++)
		p[i * PG] = 1;
	touch_pages(p, npages, 1); /* warm the loop's own pages */
	base_write = touch_pages(p, npages, 1);
	base_read = touch_pages(p, npages, 0);
	print_baseline("baseline_write_mapped", &base_write);
	print_baseline("baseline_read_mapped", &base_read);
	munmap(p, (size_t)npages * PG);
}

static void bench_anon_write(const char *kind, long vmas)
{
	char why[128], note[32] = "";
	char *p = map_anon(npages);
	struct run r;

	if (!p) {
		fail_reason(why, sizeof(why), "mmap");
		print_na(kind, why);
		return;
	}
	if (vmas >= 0)
		snprintf(note, sizeof(note), "vmas=%ld", vmas);
	r = touch_pages(p, npages, 1);
	print_row(kind, &r, 1, note);
	munmap(p, (size_t)npages * PG);
}

static void bench_anon_read_then_write(void)
{
	char why[128];
	char *p = map_anon(npages);
	struct run r;

	if (!p) {
		fail_reason(why, sizeof(why), "mmap");
		print_na("anon_read_zeropage", why);
		print_na("anon_write_after_zeropage_read", why);
		return;
	}
	r = touch_pages(p, npages, 0); /* maps the zero page */
	print_row("anon_read_zeropage", &r, 0, "");
	r = touch_pages(p, npages, 1); /* write-protect fault: a new page replaces it */
	print_row("anon_write_after_zeropage_read", &r, 1, "");
	munmap(p, (size_t)npages * PG);
}

/* COW: the parent writes every page, forks; the child's first write to each is a copy. */
static void bench_cow_after_fork(void)
{
	const char *kind = "anon_cow_after_fork";
	char why[128];
	char *p = map_anon(npages);
	pid_t pid;
	long i;
	int status;

	if (!p) {
		fail_reason(why, sizeof(why), "mmap");
		print_na(kind, why);
		return;
	}
	for (i = 0; i < npages; i++)
		p[i * PG] = 2;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fail_reason(why, sizeof(why), "fork");
		print_na(kind, why);
	} else if (pid == 0) {
		/* break COW on our own stack and buffers first: only p's faults are timed */
		volatile char stack[32768];
		struct run r;

		for (i = 0; i < (long)sizeof(stack); i += 256)
			stack[i] = 0;
		r = touch_pages(p, npages, 1);
		print_row(kind, &r, 1, "");
		fflush(stdout);
		_exit(0);
	} else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		   WEXITSTATUS(status) != 0) {
		print_na(kind, "the child did not exit 0");
	}
	munmap(p, (size_t)npages * PG);
}

/* The VMAs of this process: lines of /proc/self/maps (-1 if it cannot be read). */
static long count_vmas(void)
{
	static char buf[4096];
	long lines = 0;
	ssize_t n, i;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

/* The extra 1-page VMAs of bench_vma_scaling, kept until drop_extra_vmas (in .bss: a heap
 * would add a VMA of its own to the counts). Beyond MAX_EXTRA_VMAS they stay mapped. */
#define MAX_EXTRA_VMAS 16384
static void *extra_vma[MAX_EXTRA_VMAS];
static long extra_vmas;

static void note_extra_vma(void *p)
{
	if (extra_vmas < MAX_EXTRA_VMAS)
		extra_vma[extra_vmas++] = p;
}

/* Unmap the extra VMAs: the process rows (lmbench's lat_proc) time a fork of a small
 * process, not of one with 10,000 VMAs to copy. */
static void drop_extra_vmas(void)
{
	while (extra_vmas > 0)
		munmap(extra_vma[--extra_vmas], PG);
}

/* The zero-fill write again with 10, 100, ... extra 1-page VMAs (cumulative). Neighbours get
 * alternating protections so that they cannot merge into one VMA. */
static void bench_vma_scaling(const char *steps)
{
	const char *s = steps;
	long made = 0;
	void *v;

	bench_anon_write("anon_write_fewvmas", count_vmas());
	while (*s) {
		char *end, kind[64], why[128];
		long target = strtol(s, &end, 10);

		if (end == s || target <= 0)
			break;
		s = *end == ',' ? end + 1 : end;
		snprintf(kind, sizeof(kind), "anon_write_%ldvmas", target);
		for (; made < target; made++) {
			int prot = made & 1 ? PROT_READ : PROT_READ | PROT_WRITE;

			v = mmap(NULL, PG, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (v == MAP_FAILED)
				break;
			note_extra_vma(v);
		}
		if (made < target) {
			snprintf(why, sizeof(why), "mmap of 1-page VMA %ld: %s", made + 1,
				 strerror(errno));
			print_na(kind, why);
			return;
		}
		bench_anon_write(kind, count_vmas());
	}
}

/* ---------------------------------------------------------------- file and device kinds */

static const char *const file_kinds[] = {
	"file_shared_read_nofa_ramfs",	/* MAP_SHARED read, page in the page cache */
	"file_shared_write_ramfs",	/* MAP_SHARED write, page in the page cache */
	"file_private_write_cow_ramfs", /* MAP_PRIVATE write: copy of the page-cache page */
	"file_nonlinear_read_ramfs",	/* read through a nonlinear (remap_file_pages) PTE */
};
#define NR_FILE_KINDS (int)(sizeof(file_kinds) / sizeof(file_kinds[0]))

/* mmap the whole file, touch every page, report; n/a with the reason if mmap fails. */
static void bench_file_map(const char *kind, int fd, int prot, int flags, int write)
{
	char why[128];
	char *p = mmap(NULL, (size_t)npages * PG, prot, flags, fd, 0);
	struct run r;

	if (p == MAP_FAILED) {
		fail_reason(why, sizeof(why), "mmap");
		print_na(kind, why);
		return;
	}
	r = touch_pages(p, npages, write);
	print_row(kind, &r, write, "");
	munmap(p, (size_t)npages * PG);
}

/* Nonlinear: a shared mapping whose pages show the file backwards (page i -> file page
 * N-1-i), set up with remap_file_pages(MAP_NONBLOCK) so that only file PTEs are written and
 * the first touch of each page is a do_nonlinear_fault. */
static void bench_file_nonlinear(const char *kind, int fd)
{
	char why[128];
	char *p = mmap(NULL, (size_t)npages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct run r;
	long i;

	if (p == MAP_FAILED) {
		fail_reason(why, sizeof(why), "mmap");
		print_na(kind, why);
		return;
	}
	for (i = 0; i < npages; i++) {
		if (syscall(SYS_remap_file_pages, p + i * PG, PG, 0, npages - 1 - i,
			    MAP_NONBLOCK) != 0) {
			fail_reason(why, sizeof(why), "remap_file_pages");
			print_na(kind, why);
			munmap(p, (size_t)npages * PG);
			return;
		}
	}
	r = touch_pages(p, npages, 0);
	print_row(kind, &r, 0, "");
	munmap(p, (size_t)npages * PG);
}

static void bench_files(void)
{
	static char page[PG];
	char why[128] = "";
	long i;
	int fd, k;

	fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		fail_reason(why, sizeof(why), "open " FILE_PATH);
	else if (ftruncate(fd, (off_t)npages * (off_t)PG) != 0)
		fail_reason(why, sizeof(why), "ftruncate");
	if (!why[0]) {
		/* write every page, so each is in the page cache before it is mapped */
		memset(page, 0x5a, sizeof(page));
		for (i = 0; i < npages && !why[0]; i++)
			if (pwrite(fd, page, PG, (off_t)i * (off_t)PG) != (ssize_t)PG)
				fail_reason(why, sizeof(why), "pwrite");
	}
	if (why[0]) {
		for (k = 0; k < NR_FILE_KINDS; k++)
			print_na(file_kinds[k], why);
		if (fd >= 0) {
			close(fd);
			unlink(FILE_PATH);
		}
		return;
	}
	bench_file_map(file_kinds[0], fd, PROT_READ, MAP_SHARED, 0);
	bench_file_map(file_kinds[1], fd, PROT_READ | PROT_WRITE, MAP_SHARED, 1);
	bench_file_map(file_kinds[2], fd, PROT_READ | PROT_WRITE, MAP_PRIVATE, 1);
	bench_file_nonlinear(file_kinds[3], fd);
	close(fd);
	unlink(FILE_PATH);
}

/* The same page-cache kinds on tmpfs (/dev/shm), where a page not cached would be a new
 * zeroed one: shmem's fault() (faultline's mm/shmem.c), Linux's tmpfs. */
static void bench_tmpfs_files(void)
{
	static const char *const kinds[] = { "file_shared_read_nofa_tmpfs",
					     "file_shared_write_tmpfs",
					     "file_private_write_cow_tmpfs" };
	static const char path[] = "/dev/shm/fbench.dat";
	static char page[PG];
	char why[128] = "";
	long i;
	int fd, k;

	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		fail_reason(why, sizeof(why), "open /dev/shm/fbench.dat");
	memset(page, 0x5a, sizeof(page));
	for (i = 0; i < npages && !why[0]; i++)
		if (pwrite(fd, page, PG, (off_t)i * (off_t)PG) != (ssize_t)PG)
			fail_reason(why, sizeof(why), "pwrite");
	for (k = 0; why[0] && k < 3; k++)
		print_na(kinds[k], why);
	if (!why[0]) {
		bench_file_map(kinds[0], fd, PROT_READ, MAP_SHARED, 0);
		bench_file_map(kinds[1], fd, PROT_READ | PROT_WRITE, MAP_SHARED, 1);
		bench_file_map(kinds[2], fd, PROT_READ | PROT_WRITE, MAP_PRIVATE, 1);
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

/* Shared anonymous memory (shmem underneath): the first read and the first write of a page
 * each make a new zeroed page in the page cache of the mapping's file. */
static void bench_shmem_anon(void)
{
	static const char *const kinds[] = { "shmem_anon_read_newpage",
					     "shmem_anon_write_newpage" };
	char why[128];
	struct run r;

	for (int k = 0; k < 2; k++) {
		char *p = mmap(NULL, (size_t)npages * PG, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			fail_reason(why, sizeof(why), "mmap");
			print_na(kinds[k], why);
			continue;
		}
		r = touch_pages(p, npages, k);
		print_row(kinds[k], &r, k, "");
		munmap(p, (size_t)npages * PG);
	}
}

/* 1 if a read of page i of p works. Tried in a child, which a SIGBUS (past the end of the
 * device) kills instead of us. */
static int page_readable(volatile char *p, long i)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		(void)p[i * (long)PG];
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* How many of the n mapped pages at p the device backs: Linux refuses a mapping longer than
 * the device, faultline maps it and sends SIGBUS past the end, so find the end by bisection. */
static long device_pages(volatile char *p, long n)
{
	long lo = 1, hi = n; /* pages [0, lo) can be read, page hi - 1 cannot */

	if (page_readable(p, n - 1))
		return n;
	if (!page_readable(p, 0))
		return 0;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (page_readable(p, mid - 1))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A device whose fault handler installs the PTE itself (VM_FAULT_NOPAGE): the frame buffer,
 * else faultline's /dev/kmsgbuf. N pages, or as many as the device has. */
static void bench_device(void)
{
	static const struct {
		const char *path;
		int oflags, prot;
	} devs[] = {
		{ "/dev/fb0", O_RDWR, PROT_READ | PROT_WRITE },
		{ "/dev/kmsgbuf", O_RDONLY, PROT_READ },
	};
	const char *kind = "device_nopage_read";
	char why[256] = "", part[96];
	unsigned d;

	for (d = 0; d < sizeof(devs) / sizeof(devs[0]); d++) {
		int fd = open(devs[d].path, devs[d].oflags);
		char *p = MAP_FAILED;
		long n, mapped;
		struct run r;

		if (fd < 0) {
			snprintf(part, sizeof(part), "%sopen %s: %s", why[0] ? "; " : "",
				 devs[d].path, strerror(errno));
			strncat(why, part, sizeof(why) - strlen(why) - 1);
			continue;
		}
		for (n = npages; n >= 1; n /= 2) {
			p = mmap(NULL, (size_t)n * PG, devs[d].prot, MAP_SHARED, fd, 0);
			if (p != MAP_FAILED)
				break;
		}
		if (p == MAP_FAILED) {
			snprintf(part, sizeof(part), "%smmap %s: %s", why[0] ? "; " : "",
				 devs[d].path, strerror(errno));
			strncat(why, part, sizeof(why) - strlen(why) - 1);
			close(fd);
			continue;
		}
		mapped = n;
		n = device_pages(p, mapped);
		if (n == 0) {
			snprintf(part, sizeof(part), "%s%s: page 0 cannot be read",
				 why[0] ? "; " : "", devs[d].path);
			strncat(why, part, sizeof(why) - strlen(why) - 1);
			munmap(p, (size_t)mapped * PG);
			close(fd);
			continue;
		}
		r = touch_pages(p, n, 0);
		print_row(kind, &r, 0, devs[d].path);
		munmap(p, (size_t)mapped * PG);
		close(fd);
		return;
	}
	print_na(kind, why);
}

/* ---------------------------------------------------------------- signals */

static volatile long sig_hits;

static void on_sigusr1(int sig)
{
	(void)sig;
	sig_hits++;
}

/* The user-level write fault's handler: make the page writable; the write then restarts. */
static void on_write_fault(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	mprotect((void *)((uintptr_t)si->si_addr & ~(PG - 1)), PG, PROT_READ | PROT_WRITE);
	sig_hits++;
}

/* lmbench's lat_sig catch: a handler installed once, then kill(self) delivers it and
 * rt_sigreturn comes back; each kill timed on its own. "faults" is the signals caught. */
static void bench_sig_catch(void)
{
	struct sigaction sa, old;
	struct run r = { npages, npages, 0, 0 };
	pid_t self = getpid();
	long i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigaction(SIGUSR1, &sa, &old);
	memset(delta, 0, (size_t)npages * sizeof(delta[0]));
	memset(sorted, 0, (size_t)npages * sizeof(sorted[0]));
	sig_hits = 0;
	for (i = 0; i < npages; i++) {
		uint64_t t0 = tsc_now();

		syscall(SYS_kill, self, SIGUSR1);
		delta[i] = tsc_now() - t0;
	}
	sigaction(SIGUSR1, &old, NULL);
	if (sig_hits != npages) {
		print_na("sig_catch", "the handler did not run for every kill");
		return;
	}
	for (i = 0; i < npages; i++) {
		r.sum += delta[i];
		sorted[i] = delta[i];
	}
	qsort(sorted, (size_t)npages, sizeof(sorted[0]), cmp_u64);
	r.median = sorted[npages / 2];
	print_row("sig_catch", &r, 1, "kill(self) + handler + rt_sigreturn");
}

/* A write fault handled in user space: pages made read-only, each first write faults, the
 * SIGSEGV handler mprotects the page writable, the write restarts (uf-barrier's path). */
static void bench_sig_write_fault(void)
{
	struct sigaction sa, old;
	char why[128];
	char *p = map_anon(npages);
	struct run r;
	long i;

	if (!p) {
		fail_reason(why, sizeof(why), "mmap");
		print_na("anon_write_sigsegv_mprotect", why);
		return;
	}
	for (i = 0; i < npages; i++)
		p[i * PG] = 1;
	mprotect(p, (size_t)npages * PG, PROT_READ);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_write_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, &old);
	sig_hits = 0;
	r = touch_pages(p, npages, 1);
	sigaction(SIGSEGV, &old, NULL);
	if (sig_hits != npages) {
		print_na("anon_write_sigsegv_mprotect", "not one SIGSEGV per page");
	} else {
		r.faults = sig_hits; /* the user-handled faults: getrusage counts none of them */
		print_row("anon_write_sigsegv_mprotect", &r, 1,
			  "read-only page, handler mprotects, write restarts");
	}
	munmap(p, (size_t)npages * PG);
}

/* ---------------------------------------------------------------- pipes and processes */

#define PIPE_CHUNK 65536
static char pipe_buf[PIPE_CHUNK];

/* delta[0..n-1] (one timed operation each) as a row's run: "faults" is the operations. */
static struct run ops_run(long n)
{
	struct run r = { n, n, 0, 0 };
	long i;

	for (i = 0; i < n; i++) {
		r.sum += delta[i];
		sorted[i] = delta[i];
	}
	qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u64);
	r.median = sorted[n / 2];
	return r;
}

static void clear_deltas(long n)
{
	memset(delta, 0, (size_t)n * sizeof(delta[0]));
	memset(sorted, 0, (size_t)n * sizeof(sorted[0]));
}

/* Read exactly len bytes (a pipe read returns what is there); 0 on success. */
static int read_full(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t k = read(fd, buf, len);

		if (k <= 0)
			return -1;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

static int write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t k = write(fd, buf, len);

		if (k <= 0)
			return -1;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

/*
 * lmbench's lat_pipe: one byte goes parent -> child over one pipe and back over another; each
 * round trip timed on its own in the parent. On one CPU the TSC counts the child's and the
 * kernel's instructions too: a round trip is two writes, two reads and two context switches.
 */
static void bench_lat_pipe(void)
{
	int to_child[2], to_parent[2], status;
	long i, n = npages;
	char c = 'x';
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent)) {
		print_na("lat_pipe", "pipe failed");
		return;
	}
	clear_deltas(n);
	pid = fork();
	if (pid < 0) {
		print_na("lat_pipe", "fork failed");
		return;
	}
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	for (i = 0; i < n; i++) {
		uint64_t t0 = tsc_now();

		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			break;
		delta[i] = tsc_now() - t0;
	}
	close(to_child[1]);
	close(to_parent[0]);
	waitpid(pid, &status, 0);
	if (i != n) {
		print_na("lat_pipe", "a round trip failed");
		return;
	}
	struct run r = ops_run(n);
	print_row("lat_pipe", &r, 1, "per round trip: 1 byte there and back, 2 processes");
}

/*
 * lmbench's bw_pipe, as a cost: a child writes 64 KiB chunks into a pipe, the parent reads
 * each whole chunk (as many read calls as the pipe needs), timing each chunk on its own; the
 * row's unit is one 64 KiB chunk (writer's and reader's copies, switches, wake-ups).
 */
static void bench_bw_pipe(void)
{
	long i, n = npages / 16 > 0 ? npages / 16 : 1;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds)) {
		print_na("bw_pipe", "pipe failed");
		return;
	}
	memset(pipe_buf, 'y', sizeof(pipe_buf));
	clear_deltas(n);
	pid = fork();
	if (pid < 0) {
		print_na("bw_pipe", "fork failed");
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		for (i = 0; i < n; i++)
			if (write_full(fds[1], pipe_buf, PIPE_CHUNK))
				break;
		_exit(0);
	}
	close(fds[1]);
	for (i = 0; i < n; i++) {
		uint64_t t0 = tsc_now();

		if (read_full(fds[0], pipe_buf, PIPE_CHUNK))
			break;
		delta[i] = tsc_now() - t0;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (i != n) {
		print_na("bw_pipe", "the stream ended early");
		return;
	}
	struct run r = ops_run(n);
	print_row("bw_pipe", &r, 1, "per 64 KiB chunk written and read through a pipe");
}

/*
 * lmbench's lat_proc fork and exec: fork, the child _exits (or execs /bin/fexit, which
 * returns from main at once), the parent waits; each timed on its own in the parent, so the
 * child's whole life and the reaping are in it. 1/16 of PAGES operations (they are long).
 */
static void bench_lat_proc(const char *kind, const char *path)
{
	long i, n = npages / 16 > 0 ? npages / 16 : 1;
	char *const argv[] = { (char *)path, NULL };
	char *const envp[] = { NULL };
	int status = 0;

	if (path && access(path, X_OK)) {
		char why[128];

		fail_reason(why, sizeof(why), path);
		print_na(kind, why);
		return;
	}
	clear_deltas(n);
	for (i = 0; i < n; i++) {
		uint64_t t0 = tsc_now();
		pid_t pid = fork();

		if (pid == 0) {
			if (path)
				execve(path, argv, envp);
			_exit(path ? 127 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
			break;
		delta[i] = tsc_now() - t0;
	}
	if (i != n) {
		print_na(kind, "a child failed or did not exit 0");
		return;
	}
	struct run r = ops_run(n);
	print_row(kind, &r, 1,
		  path ? "fork + exec /bin/fexit + exit + wait" : "fork + _exit + wait");
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	/* first thing: the TSC now. Under -icount shift=0 it is the guest instructions since
	 * QEMU started (virtual time, which also runs on while the CPU idles in hlt): SeaBIOS,
	 * GRUB, the kernel's boot, this program's exec and musl's start-up. */
	uint64_t tsc_main = tsc_now(), t0;
	const char *steps = "10,100,1000,10000";
	const char *env;
	char *p;
	long i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((env = getenv("FB_PAGES")))
		npages = atol(env);
	if ((env = getenv("FB_NVMA")))
		steps = env;
	if (argc > 1)
		npages = atol(argv[1]);
	if (argc > 2)
		steps = argv[2];
	if (npages < 16 || npages > MAX_PAGES) {
		fprintf(stderr, "fbench: PAGES must be 16..%ld\n", MAX_PAGES);
		return 2;
	}

	printf("fbench: page-fault cost, %ld pages per kind, extra VMAs %s\n", npages, steps);
	printf("boot_to_main_tsc %llu  (absolute TSC at main(); under -icount shift=0: guest "
	       "instructions since QEMU start, incl. firmware, GRUB, kernel boot, exec, libc "
	       "start-up)\n",
	       (unsigned long long)tsc_main);
	t0 = tsc_now();

	/* warm-up: fault a region in once and give it back (page tables, slab, free lists) */
	p = map_anon(npages);
	if (p) {
		for (i = 0; i < npages; i++)
			p[i * PG] = 1;
		munmap(p, (size_t)npages * PG);
	}

	print_header();
	bench_baselines();
	bench_anon_write("anon_write_zerofill", -1);
	bench_anon_read_then_write();
	bench_files();
	bench_device();
	bench_cow_after_fork();
	bench_vma_scaling(steps);
	bench_sig_catch();
	bench_sig_write_fault();
	bench_tmpfs_files();
	bench_shmem_anon();
	drop_extra_vmas();
	bench_lat_pipe();
	bench_bw_pipe();
	bench_lat_proc("lat_proc_fork", NULL);
	bench_lat_proc("lat_proc_exec", "/bin/fexit");
	printf("fbench: done, %llu TSC ticks in all\n", (unsigned long long)(tsc_now() - t0));
	return 0;
}
