/*
 * extbench: what a page of a file on a disk costs to fault in, or to read(), on a cold cache,
 * with the disk's read-ahead at its default and off (`make bench`'s "Files on a disk" rows,
 * docs/bench.md).
 *
 * For each pass it mounts the file system of DEV read-only on /mnt/extbench (so the file's
 * pages are not cached: mincore must say so, else the pass is n/a), sets the disk's read-ahead
 * with BLKRASET (it applies to files opened afterwards), opens FILE, and either touches one
 * byte of each page of a MAP_SHARED read mapping in order (each touch timed as fbench times
 * it, fbench.h) or read()s the file in 4 KiB reads (each call timed), then unmounts. After the
 * passes at the default read-ahead the same file, now cached, is faulted (a new mapping) or
 * read again: the cost without the disk. Around each pass: getrusage's faults and the disk's
 * read requests and sectors of /proc/diskstats.
 *
 * Then the writeback passes: for N of WB_PAGES, on a fresh read-write mount, the first N
 * pages of WBFILE mapped MAP_SHARED, read in (untimed), each stored to once (timed: the
 * write-protect fault, page_mkwrite), written back by one msync(MS_SYNC) over them (timed),
 * stored to again and written back by fsync (timed): guest instructions, write requests and
 * sectors per page written.
 *
 * Disk waits are host time under -icount, not instructions: a spinner (iowait.h) keeps the
 * CPU busy meanwhile and its time comes off every figure, as in swapbench.
 *
 * usage: extbench [DEV [FSTYPE [FILE [WBFILE]]]]  (default: /dev/sda ext2 data wb; FILE and
 * WBFILE inside the file system). Runs as init=/bin/extbench under faultline, and as root on
 * Linux. Prints "extbench: done" at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fbench.h"
#include "iowait.h"

#ifndef BLKRASET
#define BLKRASET 0x1262
#define BLKRAGET 0x1263
#endif
#define MNT	    "/mnt/extbench"
#define MAX_PAGES   (1L << 14) /* 64 MiB */
#define SMALL_PAGES 1024L      /* the baseline's anonymous region */
#define RA_DEFAULT  256	       /* sectors: 32 pages, Linux's and faultline's default */

#define WB_SIZES    2
static const long wb_pages[WB_SIZES] = { 256, 4096 }; /* the writeback passes' N */

static const char *dev = "/dev/sda", *fstype = "ext2", *fname = "data", *wbname = "wb";
static char disk[32]; /* "sda", for /proc/diskstats */
static char path[256], wbpath[256];
static uint64_t delta[MAX_PAGES], sorted[MAX_PAGES];
static unsigned char vec[MAX_PAGES];
static char buf[PG];

struct pass {
	long pages;
	int64_t work;	 /* TSC less spinner time over the whole loop */
	uint64_t median; /* of the per-touch (TSC less spinner time) */
	long majflt, minflt;
	long ios, sect; /* the disk's read requests and sectors; a writeback pass's: written */
	char na[160];	/* why the pass could not run; "" if it ran */
};

static struct pass base; /* the timed read of resident anonymous pages */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Faults so far, and the disk's requests and sectors read (write 0) or written (write 1) */
static void counters(long *maj, long *min, long *ios, long *sect, int write)
{
	struct rusage ru;
	long ri, rs, wi, ws;

	disk_counts(disk, &ri, &rs, &wi, &ws);
	*ios = write ? wi : ri;
	*sect = write ? ws : rs;
	getrusage(RUSAGE_SELF, &ru);
	*maj = ru.ru_majflt;
	*min = ru.ru_minflt;
}

/* The pass's counters from before (pass_begin) to now, and its instructions less the
 * spinner's; counting writes (write 1) or reads */
static void pass_begin(struct pass *r, int write, uint64_t *t0, uint64_t *s0)
{
	counters(&r->majflt, &r->minflt, &r->ios, &r->sect, write);
	*s0 = spin->total;
	*t0 = tsc_now();
}

static void pass_end(struct pass *r, int write, uint64_t t0, uint64_t s0)
{
	uint64_t t1 = tsc_now(), s1 = spin->total;
	long maj, min, ios, sect;

	counters(&maj, &min, &ios, &sect, write);
	r->majflt = maj - r->majflt;
	r->minflt = min - r->minflt;
	r->ios = ios < 0 || r->ios < 0 ? -1 : ios - r->ios;
	r->sect = sect < 0 || r->sect < 0 ? -1 : sect - r->sect;
	r->work = (int64_t)(t1 - t0) - (int64_t)(s1 - s0);
}

/* n pages: page i of the mapping p read (p, write 0) or stored to (write 1), or the next
 * 4 KiB read() of fd (p NULL), each timed */
static void run(struct pass *r, char *p, int fd, long n, int write)
{
	uint64_t t0, s0;

	r->pages = n;
	pass_begin(r, write, &t0, &s0);
	for (long i = 0; i < n; i++) {
		uint64_t a = spin->total, d;

		if (p && write) {
			d = timed_write(p + (size_t)i * PG);
		} else if (p) {
			d = timed_read(p + (size_t)i * PG);
		} else {
			d = tsc_now();
			if (read(fd, buf, PG) != (ssize_t)PG)
				snprintf(r->na, sizeof(r->na), "read of page %ld: %s", i,
					 strerror(errno));
			d = tsc_now() - d;
		}
		spin_step();
		a = spin->total - a;
		delta[i] = d > a ? d - a : 0;
	}
	pass_end(r, write, t0, s0);
	memcpy(sorted, delta, (size_t)n * sizeof(delta[0]));
	qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u64);
	r->median = sorted[n / 2];
}

/* The disk's read-ahead set to sectors, as BLKRAGET reads it back; -1 on failure. */
static long set_ra(long sectors)
{
	long got = -1;
	int fd = open(dev, O_RDONLY);

	if (fd < 0)
		return -1;
	if ((sectors >= 0 && ioctl(fd, BLKRASET, (unsigned long)sectors)) ||
	    ioctl(fd, BLKRAGET, &got))
		got = -1;
	close(fd);
	return got;
}

/* The end of a pass on its own mount: the mapping p of n pages (if any) and fd (if open)
 * gone, the file system unmounted (a failure said in r's na, unless it has one already) */
static void pass_close(struct pass *r, char *p, long n, int fd)
{
	if (p != MAP_FAILED)
		munmap(p, (size_t)n * PG);
	if (fd >= 0)
		close(fd);
	if (umount(MNT) && !r->na[0])
		snprintf(r->na, sizeof(r->na), "umount " MNT ": %s", strerror(errno));
}

/*
 * One cold pass: mount, read-ahead ra, open; mmap (1) or read() (0) every page; then, if
 * cached is given, the same again on the pages now cached (a new mapping, or reads from the
 * start); unmount.
 */
static void cold_pass(struct pass *r, struct pass *cached, int mmapped, long ra)
{
	struct stat st;
	long got, n = 0, resident = 0;
	char *p = MAP_FAILED;
	int fd = -1;

	if ((got = set_ra(ra)) != ra) {
		snprintf(r->na, sizeof(r->na), "BLKRASET %ld on %.60s: %s", ra, dev,
			 got < 0 ? strerror(errno) : "another value read back");
		return;
	}
	if (mount(dev, MNT, fstype, MS_RDONLY, NULL)) {
		snprintf(r->na, sizeof(r->na), "mount %.60s on " MNT ": %s", dev, strerror(errno));
		return;
	}
	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st)) {
		snprintf(r->na, sizeof(r->na), "%.100s: %s", path, strerror(errno));
		goto out;
	}
	n = st.st_size / (long)PG;
	if (n > MAX_PAGES)
		n = MAX_PAGES;
	p = n ? mmap(NULL, (size_t)n * PG, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (p == MAP_FAILED || mincore(p, (size_t)n * PG, vec)) {
		snprintf(r->na, sizeof(r->na), "mmap/mincore of %ld pages: %s", n,
			 n ? strerror(errno) : "an empty file");
		goto out;
	}
	for (long i = 0; i < n; i++)
		resident += vec[i] & 1;
	if (resident) {
		snprintf(r->na, sizeof(r->na), "%ld of %ld pages cached after the mount", resident,
			 n);
		goto out;
	}
	run(r, mmapped ? p : NULL, fd, n, 0);
	if (cached && !r->na[0]) {
		munmap(p, (size_t)n * PG);
		p = mmap(NULL, (size_t)n * PG, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED || lseek(fd, 0, SEEK_SET))
			snprintf(cached->na, sizeof(cached->na), "again: %s", strerror(errno));
		else
			run(cached, mmapped ? p : NULL, fd, n, 0);
	}
out:
	pass_close(r, p, n, fd);
}

/* One timed system call (msync or fsync) that writes back n dirty pages, as a pass over them:
 * its instructions less the spinner's, the disk's write requests and sectors */
static void timed_sync(struct pass *r, char *p, int fd, long n, const char *what)
{
	uint64_t t0, s0;
	int err;

	r->pages = n;
	pass_begin(r, 1, &t0, &s0);
	err = p ? msync(p, (size_t)n * PG, MS_SYNC) : fsync(fd);
	spin_step();
	pass_end(r, 1, t0, s0);
	if (err)
		snprintf(r->na, sizeof(r->na), "%s: %s", what, strerror(errno));
}

/*
 * One writeback pass on a fresh read-write mount: the first n pages of wbpath mapped shared,
 * read in (untimed; none cached before: mincore), each stored to once (store: timed per page),
 * written back by one msync(MS_SYNC) (ms), stored to again (untimed) and written back by
 * fsync (fs); unmounted. A failure of any step is said in store's na.
 */
static void wb_pass(long n, struct pass *store, struct pass *ms, struct pass *fs)
{
	char *p = MAP_FAILED;
	long resident = 0;
	struct stat st;
	int fd = -1;

	if (set_ra(RA_DEFAULT) != RA_DEFAULT || mount(dev, MNT, fstype, 0, NULL)) {
		snprintf(store->na, sizeof(store->na), "BLKRASET or read-write mount of %.60s: %s",
			 dev, strerror(errno));
		return;
	}
	if ((fd = open(wbpath, O_RDWR)) < 0 || fstat(fd, &st)) {
		snprintf(store->na, sizeof(store->na), "%.100s: %s", wbpath, strerror(errno));
		goto out;
	}
	if (st.st_size < n * (long)PG) {
		snprintf(store->na, sizeof(store->na), "%.100s has %ld pages, not %ld", wbpath,
			 (long)(st.st_size / (long)PG), n);
		goto out;
	}
	p = mmap(NULL, (size_t)n * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || mincore(p, (size_t)n * PG, vec)) {
		snprintf(store->na, sizeof(store->na), "mmap/mincore of %ld pages: %s", n,
			 strerror(errno));
		goto out;
	}
	for (long i = 0; i < n; i++)
		resident += vec[i] & 1;
	if (resident) {
		snprintf(store->na, sizeof(store->na), "%ld of %ld pages cached after the mount",
			 resident, n);
		goto out;
	}
	for (long i = 0; i < n; i++)
		(void)*(volatile char *)(p + (size_t)i * PG);
	run(store, p, -1, n, 1);
	timed_sync(ms, p, fd, n, "msync");
	for (long i = 0; i < n; i++)
		p[(size_t)i * PG] = 2;
	timed_sync(fs, NULL, fd, n, "fsync");
out:
	pass_close(store, p, n, fd);
	if (store->na[0]) {
		memcpy(ms->na, store->na, sizeof(ms->na));
		memcpy(fs->na, store->na, sizeof(fs->na));
	}
}

/* ---------------------------------------------------------------- output */

static void print_row(const char *kind, const struct pass *r, int sub, long ra)
{
	double mean = (double)r->work / (double)r->pages;
	long long med = (long long)r->median;

	if (r->na[0] || !r->pages) {
		printf("%-20s %12s %12s  (%s)\n", kind, "n/a", "n/a", r->na[0] ? r->na : "not run");
		return;
	}
	if (sub) {
		mean -= (double)base.work / (double)base.pages;
		med -= (long long)base.median;
	}
	printf("%-20s %12.1f %12lld %7ld %7ld %6ld %6ld %7ld", kind, mean, med, r->majflt,
	       r->minflt, r->pages, r->ios, r->sect);
	if (ra < 0)
		printf(" %4s  raw loop cost\n", "-");
	else
		printf(" %4ld\n", ra);
}

/* Table 2: instructions (the pass net of the timing loop) and disk requests per op. */
static void print_op(const char *kind, const struct pass *r, int sub, long ops, const char *what)
{
	double work = (double)r->work;

	if (sub)
		work -= (double)base.work / (double)base.pages * (double)r->pages;
	if (r->na[0] || ops <= 0) {
		printf("%-20s %12s %8s %10s %10s  (%s: %s)\n", kind, "n/a", "-", "-", "-",
		       r->na[0] ? "not run" : "none counted", what);
		return;
	}
	printf("%-20s %12.1f %8ld", kind, work / (double)ops, ops);
	if (r->ios < 0)
		printf(" %10s %10s", "-", "-");
	else
		printf(" %10.3f %10.2f", (double)r->ios / (double)ops,
		       (double)r->sect / (double)ops);
	printf("  %s\n", what);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	struct pass mra = { 0 }, mnora = { 0 }, mcached = { 0 }, rra = { 0 }, rnora = { 0 },
		    rcached = { 0 }, store[WB_SIZES] = { 0 }, ms[WB_SIZES] = { 0 },
		    fs[WB_SIZES] = { 0 };
	char name[32], what[64];
	const char *s;
	long ra0;
	pid_t sp;
	char *p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		dev = argv[1];
	if (argc > 2)
		fstype = argv[2];
	if (argc > 3)
		fname = argv[3];
	if (argc > 4)
		wbname = argv[4];
	s = strrchr(dev, '/');
	snprintf(disk, sizeof(disk), "%s", s ? s + 1 : dev);
	snprintf(path, sizeof(path), MNT "/%s", fname);
	snprintf(wbpath, sizeof(wbpath), MNT "/%s", wbname);
	if (mkdir("/mnt", 0755) && errno != EEXIST)
		perror("extbench: mkdir /mnt");
	if (mkdir(MNT, 0755) && errno != EEXIST)
		perror("extbench: mkdir " MNT);
	ra0 = set_ra(-1);
	sp = start_spinner("extbench");
	if (sp < 0)
		return 1;
	printf("extbench: file read and writeback cost, %s and %s on %s (%s), read-ahead %ld"
	       " sectors at the start, spinner %s\n", fname, wbname, dev, fstype, ra0,
	       spin_mode_name[spin->mode]);

	/* warm-up, then the timed read of resident pages: the loop's own cost */
	p = map_anon(SMALL_PAGES);
	if (!p) {
		perror("extbench: mmap");
		return 1;
	}
	for (long i = 0; i < SMALL_PAGES; i++)
		p[i * PG] = 1;
	run(&base, p, -1, SMALL_PAGES, 0);
	run(&base, p, -1, SMALL_PAGES, 0);
	munmap(p, SMALL_PAGES * PG);

	cold_pass(&mra, &mcached, 1, RA_DEFAULT);
	cold_pass(&mnora, NULL, 1, 0);
	cold_pass(&rra, &rcached, 0, RA_DEFAULT);
	cold_pass(&rnora, NULL, 0, 0);
	for (int k = 0; k < WB_SIZES; k++)
		wb_pass(wb_pages[k], &store[k], &ms[k], &fs[k]);
	set_ra(ra0 >= 0 ? ra0 : RA_DEFAULT);

	printf("%-20s %12s %12s %7s %7s %6s %6s %7s %4s\n", "kind", "per_page_mean",
	       "per_page_med", "majflt", "minflt", "pages", "ios", "sect", "ra");
	print_row("baseline_read_mapped", &base, 0, -1);
	print_row("mmap_cold_ra", &mra, 1, RA_DEFAULT);
	print_row("mmap_cold_nora", &mnora, 1, 0);
	print_row("mmap_cached", &mcached, 1, RA_DEFAULT);
	print_row("read_cold_ra", &rra, 0, RA_DEFAULT);
	print_row("read_cold_nora", &rnora, 0, 0);
	print_row("read_cached", &rcached, 0, RA_DEFAULT);
	for (int k = 0; k < WB_SIZES; k++) {
		snprintf(name, sizeof(name), "mmap_store_%ld", wb_pages[k]);
		print_row(name, &store[k], 1, RA_DEFAULT);
	}

	printf("\n%-20s %12s %8s %10s %10s  %s\n", "op", "insns_per_op", "ops", "ios_per_op",
	       "sect_per_op", "what");
	print_op("mmap_page_ra", &mra, 1, mra.pages, "cold fault pass, per page");
	print_op("mmap_majfault_ra", &mra, 1, mra.majflt, "cold fault pass, per major fault");
	print_op("mmap_page_nora", &mnora, 1, mnora.pages, "read-ahead 0, per page");
	print_op("mmap_majfault_nora", &mnora, 1, mnora.majflt, "read-ahead 0, per major fault");
	print_op("mmap_page_cached", &mcached, 1, mcached.pages, "the file cached, per page");
	print_op("read_page_ra", &rra, 0, rra.pages, "cold 4 KiB read()s, per read");
	print_op("read_page_nora", &rnora, 0, rnora.pages, "read-ahead 0, per read");
	print_op("read_page_cached", &rcached, 0, rcached.pages, "the file cached, per read");
	for (int k = 0; k < WB_SIZES; k++) {
		snprintf(what, sizeof(what), "first store to a cached page of %ld, per page",
			 wb_pages[k]);
		snprintf(name, sizeof(name), "mmap_store_%ld", wb_pages[k]);
		print_op(name, &store[k], 1, store[k].pages, what);
		snprintf(what, sizeof(what), "msync(MS_SYNC) of %ld dirty pages, per page",
			 wb_pages[k]);
		snprintf(name, sizeof(name), "msync_page_%ld", wb_pages[k]);
		print_op(name, &ms[k], 0, ms[k].pages, what);
		snprintf(what, sizeof(what), "fsync of %ld dirty pages, per page", wb_pages[k]);
		snprintf(name, sizeof(name), "fsync_page_%ld", wb_pages[k]);
		print_op(name, &fs[k], 0, fs[k].pages, what);
	}
	if (spin->mode == 2)
		printf("extbench: the spinner's shortest yield of its own: %llu instructions\n",
		       (unsigned long long)spin->alone);
	fflush(stdout);
	kill(sp, SIGKILL);
	waitpid(sp, NULL, 0);
	printf("extbench: done\n");
	return 0;
}
