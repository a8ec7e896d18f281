/*
 * swapbench: what a swap-out and a swap-in fault cost, in guest instructions and disk
 * operations per page (`make bench`'s "swap" rows, docs/bench.md "Swap").
 *
 * In a small machine (make bench's, with a swap area on the first IDE disk) it maps an
 * anonymous region bigger than RAM (default 2 x totalram of sysinfo), writes one byte of every
 * page (the pages written first are swapped out to make room for the later ones), then reads
 * every page back twice (swap-in faults), and once more with page-cluster 0 (no readahead)
 * where /proc/sys/vm/page-cluster exists. Each touch is timed as fbench times it (fbench.h:
 * rdtsc around one access; under QEMU -icount shift=0 one tick per guest instruction), and
 * around each pass it reads /proc/vmstat (pswpin, pswpout), /proc/diskstats (requests and
 * sectors of the swap disk, named by /proc/swaps) and getrusage (faults).
 *
 * Waiting for the disk: a CPU idle in hlt runs no instructions, but under -icount sleep=off
 * QEMU then jumps the clock to the next timer, so the TSC across an I/O would count time, not
 * instructions, and by an amount that depends on the host. So a child process, the spinner,
 * keeps the CPU busy whenever nothing else wants it: it reads the TSC in a loop and adds up
 * the gaps short enough to be its own loop, in a shared counter. Every figure below is TSC
 * less spinner time: the instructions of everything else (this process, the kernel, its
 * swap daemon, interrupts). The spinner runs as SCHED_IDLE where the kernel has it (Linux:
 * a woken task preempts it at once); else it calls sched_yield every few thousand turns, and
 * a yield that came back quickly (nothing else ran) counts as spinner time too.
 *
 * Rows (table 1, per page of the pass): mean = (TSC - spinner) over the whole loop / pages
 * - the loop's own cost per page; median = of the per-touch (TSC - spinner), less the
 * baseline's median. Table 2, per operation: swap_out = the write pass less the same number
 * of zero-fill faults without memory pressure, per page swapped out (pswpout); swap_in = the
 * second read pass per page swapped in (pswpin) and per major fault.
 *
 * usage: swapbench [PAGES]  (or SB_PAGES=N; 0 or nothing: 2 x totalram; SB_SPIN=yield: the
 * yielding spinner even where there is SCHED_IDLE). Prints "swapbench: done" at the end.
 * Runs as init=/bin/swapbench under faultline, and as an ordinary program on Linux (it forks
 * a worker, so an out-of-memory kill of the worker is reported as such and the program still
 * ends).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fbench.h"
#include "iowait.h"

#define MAX_PAGES   (1L << 18) /* 1 GiB */
#define SMALL_PAGES 1024L      /* the baseline and zero-fill regions: fit in RAM */

static long npages;
static char swapdev[32]; /* "sda": the first swap area's disk, for /proc/diskstats */
static uint64_t delta[MAX_PAGES];
static uint64_t sorted[MAX_PAGES];

/* ---------------------------------------------------------------- counters */

struct counters {
	long pswpin, pswpout;		   /* -1: no /proc/vmstat line */
	long rd_ios, rd_sect, wr_ios, wr_sect; /* -1: no /proc/diskstats line */
	long majflt, minflt;
};

/* The value of "name value" in /proc/vmstat's text, -1 if absent. */
static long vmstat_value(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, name, len) == 0 && l[len] == ' ')
			return atol(l + len + 1);
	return -1;
}

static void read_counters(struct counters *c)
{
	struct rusage ru;

	c->pswpin = c->pswpout = -1;
	if (slurp("/proc/vmstat") > 0) {
		c->pswpin = vmstat_value(filebuf, "pswpin");
		c->pswpout = vmstat_value(filebuf, "pswpout");
	}
	disk_counts(swapdev, &c->rd_ios, &c->rd_sect, &c->wr_ios, &c->wr_sect);
	getrusage(RUSAGE_SELF, &ru);
	c->majflt = ru.ru_majflt;
	c->minflt = ru.ru_minflt;
}

/* The disk of the first swap area in /proc/swaps ("/dev/sda ..." gives "sda"). */
static void find_swapdev(void)
{
	char *l, *s, *end;

	if (slurp("/proc/swaps") <= 0 || !(l = strchr(filebuf, '\n')) || !l[1])
		return;
	l++;
	end = l + strcspn(l, " \t\n");
	*end = 0;
	s = strrchr(l, '/');
	snprintf(swapdev, sizeof(swapdev), "%s", s ? s + 1 : l);
}

/* ---------------------------------------------------------------- one pass */

struct pass {
	long pages;
	int64_t work;	 /* TSC less spinner time over the whole loop */
	uint64_t median; /* of the per-touch (TSC less spinner time) */
	struct counters c; /* the change over the pass */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long diff(long after, long before)
{
	return after < 0 || before < 0 ? -1 : after - before;
}

/* Touch page 0..n-1 of p once each, each touch timed; the counters' change around it. */
static struct pass run_pass(char *p, long n, int write)
{
	struct counters c0, c1;
	struct pass r = { .pages = n };
	uint64_t t0, t1, s0, s1;
	long i;

	memset(delta, 0, (size_t)n * sizeof(delta[0])); /* no fault on them in the loop */
	memset(sorted, 0, (size_t)n * sizeof(sorted[0]));
	read_counters(&c0);
	s0 = spin->total;
	t0 = tsc_now();
	for (i = 0; i < n; i++) {
		uint64_t a = spin->total, d;

		d = write ? timed_write(p + (size_t)i * PG) : timed_read(p + (size_t)i * PG);
		a = spin->total - a;
		delta[i] = d > a ? d - a : 0;
	}
	t1 = tsc_now();
	s1 = spin->total;
	read_counters(&c1);
	r.work = (int64_t)(t1 - t0) - (int64_t)(s1 - s0);
	r.c.pswpin = diff(c1.pswpin, c0.pswpin);
	r.c.pswpout = diff(c1.pswpout, c0.pswpout);
	r.c.rd_ios = diff(c1.rd_ios, c0.rd_ios);
	r.c.rd_sect = diff(c1.rd_sect, c0.rd_sect);
	r.c.wr_ios = diff(c1.wr_ios, c0.wr_ios);
	r.c.wr_sect = diff(c1.wr_sect, c0.wr_sect);
	r.c.majflt = c1.majflt - c0.majflt;
	r.c.minflt = c1.minflt - c0.minflt;
	memcpy(sorted, delta, (size_t)n * sizeof(delta[0]));
	qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u64);
	r.median = sorted[n / 2];
	return r;
}

/* ---------------------------------------------------------------- output */

static struct pass base_write, base_read; /* the loops over resident pages */

static void print_header(void)
{
	printf("%-26s %12s %12s %7s %6s %7s %7s %6s %6s %7s %7s\n", "kind", "per_page_mean",
	       "per_page_med", "faults", "pages", "pswpout", "pswpin", "wr_ios", "rd_ios",
	       "wr_sect", "rd_sect");
}

static void print_na(const char *kind, const char *why)
{
	printf("%-26s %12s %12s  (%s)\n", kind, "n/a", "n/a", why);
	fflush(stdout);
}

static void print_counts(const struct pass *r)
{
	const long v[] = { r->c.pswpout, r->c.pswpin, r->c.wr_ios, r->c.rd_ios, r->c.wr_sect,
			   r->c.rd_sect };
	const int w[] = { 7, 7, 6, 6, 7, 7 };

	for (int i = 0; i < 6; i++) {
		if (v[i] < 0)
			printf(" %*s", w[i], "-");
		else
			printf(" %*ld", w[i], v[i]);
	}
}

/* A pass's row, net of the baseline loop (same direction, resident pages). raw: the
 * baseline itself, nothing subtracted. */
static void print_row(const char *kind, const struct pass *r, int write, int raw, const char *note)
{
	const struct pass *b = write ? &base_write : &base_read;
	double mean = (double)r->work / (double)r->pages;
	long long med = (long long)r->median;

	if (!raw) {
		mean -= (double)b->work / (double)b->pages;
		med -= (long long)b->median;
	}
	printf("%-26s %12.1f %12lld %7ld %6ld", kind, mean, med, r->c.majflt + r->c.minflt,
	       r->pages);
	print_counts(r);
	printf("%s%s\n", note[0] ? "  " : "", note);
	fflush(stdout);
}

/* Table 2: instructions and disk operations per operation; n/a where a count is missing. */
static void print_op(const char *kind, double work, long ops, long ios, long sect,
		     const char *what)
{
	if (ops <= 0) {
		printf("%-26s %12s %8s %10s %10s  (%s: %s)\n", kind, "n/a", "-", "-", "-",
		       ops < 0 ? "no count" : "none counted", what);
		return;
	}
	printf("%-26s %12.1f %8ld", kind, work / (double)ops, ops);
	if (ios < 0)
		printf(" %10s %10s", "-", "-");
	else
		printf(" %10.3f %10.2f", (double)ios / (double)ops, (double)sect / (double)ops);
	printf("  %s\n", what);
}

/* ---------------------------------------------------------------- the worker */

static int page_cluster(int set)
{
	char buf[16];
	int fd = open("/proc/sys/vm/page-cluster", set >= 0 ? O_WRONLY : O_RDONLY), v = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (set >= 0) {
		n = snprintf(buf, sizeof(buf), "%d\n", set);
		v = write(fd, buf, (size_t)n) == n ? set : -1;
	} else if ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		v = atoi(buf);
	}
	close(fd);
	return v;
}

static int worker(void)
{
	struct pass z, w, r1, r2, r0 = { 0 };
	int cluster = page_cluster(-1);
	char *p;
	long i;

	/* warm-up, then the baselines: the same loops over resident pages */
	p = map_anon(SMALL_PAGES);
	if (!p) {
		perror("swapbench: mmap");
		return 1;
	}
	for (i = 0; i < SMALL_PAGES; i++)
		p[i * PG] = 1;
	run_pass(p, SMALL_PAGES, 1);
	base_write = run_pass(p, SMALL_PAGES, 1);
	base_read = run_pass(p, SMALL_PAGES, 0);
	munmap(p, SMALL_PAGES * PG);
	print_header();
	print_row("baseline_write_resident", &base_write, 1, 1, "raw loop cost");
	print_row("baseline_read_resident", &base_read, 0, 1, "raw loop cost");

	/* the zero-fill fault without memory pressure, to take out of the write pass */
	p = map_anon(SMALL_PAGES);
	if (!p) {
		perror("swapbench: mmap");
		return 1;
	}
	z = run_pass(p, SMALL_PAGES, 1);
	munmap(p, SMALL_PAGES * PG);
	print_row("anon_write_resident", &z, 1, 0, "zero-fill, no swapping");

	p = map_anon(npages);
	if (!p) {
		char why[96];

		snprintf(why, sizeof(why), "mmap of %ld pages: %s", npages, strerror(errno));
		print_na("swap_write_pass", why);
		return 1;
	}
	w = run_pass(p, npages, 1);
	print_row("swap_write_pass", &w, 1, 0, "first write: zero-fill + swap-out of older");
	r1 = run_pass(p, npages, 0);
	print_row("swap_read_pass", &r1, 0, 0, "swap-in + swap-out of the unwritten-back");
	r2 = run_pass(p, npages, 0);
	print_row("swap_reread_pass", &r2, 0, 0, "swap-in of clean pages");
	if (cluster > 0 && page_cluster(0) == 0) {
		r0 = run_pass(p, npages, 0);
		page_cluster(cluster);
		print_row("swap_reread_pass_cluster0", &r0, 0, 0, "page-cluster 0: no readahead");
	} else {
		print_na("swap_reread_pass_cluster0", cluster == 0 ? "page-cluster is already 0" :
			 "no writable /proc/sys/vm/page-cluster");
	}
	munmap(p, (size_t)npages * PG);

	/* table 2 */
	double zpage = (double)z.work / (double)z.pages;
	double bread = (double)base_read.work / (double)base_read.pages;

	printf("\n%-26s %12s %8s %10s %10s  %s\n", "op", "insns_per_op", "ops", "ios_per_op",
	       "sect_per_op", "what");
	print_op("swap_out", (double)w.work - zpage * (double)w.pages, w.c.pswpout, w.c.wr_ios,
		 w.c.wr_sect, "write pass less zero-fill, per page out (pswpout)");
	print_op("swap_in_page", (double)r2.work - bread * (double)r2.pages, r2.c.pswpin,
		 r2.c.rd_ios, r2.c.rd_sect, "reread pass per page in (pswpin)");
	print_op("swap_in_majfault", (double)r2.work - bread * (double)r2.pages, r2.c.majflt,
		 r2.c.rd_ios, r2.c.rd_sect, "reread pass per major fault");
	if (r0.pages) {
		print_op("swap_in_page_cluster0", (double)r0.work - bread * (double)r0.pages,
			 r0.c.pswpin, r0.c.rd_ios, r0.c.rd_sect,
			 "reread pass, page-cluster 0, per page in");
		print_op("swap_in_majfault_cluster0", (double)r0.work - bread * (double)r0.pages,
			 r0.c.majflt, r0.c.rd_ios, r0.c.rd_sect,
			 "reread pass, page-cluster 0, per major fault");
	}
	fflush(stdout);
	return 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	struct sysinfo si;
	const char *env;
	long ram = 0;
	pid_t sp, wk;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysinfo(&si) == 0)
		ram = (long)((uint64_t)si.totalram * si.mem_unit / PG);
	if ((env = getenv("SB_PAGES")))
		npages = atol(env);
	if (argc > 1)
		npages = atol(argv[1]);
	if (npages <= 0)
		npages = 2 * ram;
	if (npages < SMALL_PAGES || npages > MAX_PAGES) {
		fprintf(stderr, "swapbench: PAGES must be %ld..%ld (RAM: %ld pages)\n",
			SMALL_PAGES, MAX_PAGES, ram);
		return 2;
	}
	find_swapdev();
	sp = start_spinner("swapbench");
	if (sp < 0)
		return 1;
	printf("swapbench: swap cost, %ld pages (%ld MiB) against %ld pages of RAM, swap on %s,"
	       " page-cluster %d, spinner %s\n", npages, npages / 256, ram,
	       swapdev[0] ? swapdev : "nothing", page_cluster(-1), spin_mode_name[spin->mode]);

	fflush(stdout);
	wk = fork();
	if (wk == 0)
		_exit(worker());
	if (wk < 0 || waitpid(wk, &status, 0) != wk) {
		perror("swapbench: the worker");
		status = -1;
	}
	kill(sp, SIGKILL);
	waitpid(sp, NULL, 0);
	if (status != -1 && WIFSIGNALED(status))
		printf("swapbench: the worker was killed by signal %d (%s)%s\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)),
		       WTERMSIG(status) == SIGKILL ? ": out of memory, no swapping?" : "");
	else if (status != -1 && WEXITSTATUS(status))
		printf("swapbench: the worker exited %d\n", WEXITSTATUS(status));
	printf("swapbench: done\n");
	return status == 0 ? 0 : 1;
}
