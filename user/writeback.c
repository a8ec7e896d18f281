/* writeback: stores through a MAP_SHARED mapping of a block device (a loop device over a file
 * in /tmp) reach the disk as Linux's do: the first store to a page faults and dirties it
 * (/proc/kpageflags, /proc/meminfo's Dirty, getrusage's minflt), msync(MS_SYNC) writes it and
 * cleans it, a store after that faults again, the writeback thread writes an old dirty page
 * without msync, MS_ASYNC writes nothing, and a dirty page outlives munmap until fsync writes
 * it. What reached the disk is read from the loop device's file, which the device's page cache
 * never shows.
 * usage: writeback             the checks on a loop device over /tmp/writeback-test.img
 *        writeback DEV RAW OFF the same on the partition DEV (zeroed), whose bytes are read
 *                              from its disk RAW at byte OFF with O_DIRECT (an O_DIRECT read
 *                              writes back the dirty cache of its own device, not DEV's)
 *        writeback DEV RAW OFF leave  page 9 stored and left to the writeback thread, page 10
 *                              stored with the thread off; tests/boot/writeback.sh reads the
 *                              image on the host after the boot
 *        writeback DEV RAW OFF eio   page 0 of DEV fails to write (tests/boot/writeback.sh's
 *                              blkdebug): msync of it is EIO, msync of page 1 is 0
 *        writeback DEV RAW OFF fill MB RATIO  with the thread off and dirty_ratio RATIO, MB
 *                              MiB of DEV stored to (page i: its number, then 'P'), then
 *                              fsync: prints the KiB pgpgout grew by during the stores, that
 *                              is what reclaim and the writer itself wrote back */
#define _GNU_SOURCE
#define UTEST_NAME "writeback"
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "utest.h"

#define LOOP_SET_FD 0x4C00
#define LOOP_CLR_FD 0x4C01
#define LOOP_GET_STATUS64 0x4C05
#define LOOP_CTL_GET_FREE 0x4C82
#define KPF_DIRTY 4
#ifndef O_DIRECT
#define O_DIRECT 040000
#endif

#define IMG "/tmp/writeback-test.img"
#define PAGES 256
#define PG 4096L
#define SIZE (PAGES * PG)

static char *map;
static int lo = -1, img = -1; /* the device, and what shows its disk: IMG, or RAW's O_DIRECT */
static long img_off; /* where the device starts in img */
static char saved_interval[16], saved_expire[16], lopath[32];
static int loop = 1; /* a loop device over IMG, not a disk */

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
}

/* The PG_dirty bit of the page mapped at va (/proc/self/pagemap, then /proc/kpageflags):
 * 1, 0, or -1 when it cannot be read (no frame mapped there). */
static int page_dirty(const void *va)
{
	uint64_t ent = 0, flags = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -1;
	if (pread(fd, &ent, 8, (off_t)((uintptr_t)va / PG) * 8) != 8 || !(ent >> 63)) {
		close(fd);
		return -1;
	}
	close(fd);
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &flags, 8, (off_t)(ent & ((1ULL << 55) - 1)) * 8) != 8)
		flags = ~0ULL;
	close(fd);
	return flags == ~0ULL ? -1 : (int)((flags >> KPF_DIRTY) & 1);
}

/* How many of the mapping's pages are dirty (each one read-touched first would fault it in:
 * the callers have touched them all). */
static int dirty_pages(void)
{
	int n = 0;

	for (int i = 0; i < PAGES; i++)
		n += page_dirty(map + i * PG) == 1;
	return n;
}

/* Does page i of the file behind the device (the "disk") hold byte c throughout? */
static int on_disk(int i, char c)
{
	static char buf[PG] __attribute__((aligned(4096)));

	if (pread(img, buf, PG, img_off + i * PG) != PG)
		return 0;
	for (long k = 0; k < PG; k++)
		if (buf[k] != c)
			return 0;
	return 1;
}

static void sysctl_set(const char *name, const char *value, char *save, size_t size)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	if (save)
		CHECK(utest_slurp(path, save, size) > 0);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && write(fd, value, strlen(value)) == (ssize_t)strlen(value));
	if (fd >= 0)
		close(fd);
}

static void restore(void)
{
	if (saved_interval[0])
		sysctl_set("dirty_writeback_centisecs", saved_interval, NULL, 0);
	if (saved_expire[0])
		sysctl_set("dirty_expire_centisecs", saved_expire, NULL, 0);
	if (lo >= 0 && loop) {
		ioctl(lo, LOOP_CLR_FD, 0);
		close(lo);
		unlink(IMG);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait up to secs for page i of the disk to hold c: the seconds it took, or -1. */
static double wait_on_disk(int i, char c, double secs)
{
	double t0 = now();

	while (now() - t0 < secs) {
		if (on_disk(i, c))
			return now() - t0;
		usleep(50000);
	}
	return -1;
}

/* A free loop device bound to IMG, open read-write: -1 if none. */
static int loop_setup(void)
{
	int ctl = open("/dev/loop-control", O_RDWR);

	for (int tries = 0; ctl >= 0 && tries < 10; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), fd;
		if (n < 0)
			break;
		snprintf(lopath, sizeof(lopath), "/dev/loop%d", n);
		fd = open(lopath, O_RDWR);
		if (fd >= 0 && ioctl(fd, LOOP_SET_FD, img) == 0) {
			close(ctl);
			return fd;
		}
		if (fd >= 0)
			close(fd); /* another program took it first */
	}
	if (ctl >= 0)
		close(ctl);
	return -1;
}

/* The first store to each page faults and dirties it; the second does not fault. */
static void first_store(void)
{
	long f0, f1, f2, dirty_kb;
	volatile char sink = 0;

	for (int i = 0; i < PAGES; i++)
		sink += map[i * PG]; /* read faults: every page mapped, clean, read-only */
	(void)sink;
	CHECK_EQ(dirty_pages(), 0);
	CHECK_EQ(page_dirty(map), 0);
	f0 = minflt();
	map[0] = 'A';
	f1 = minflt();
	map[1] = 'A';
	f2 = minflt();
	CHECK(f1 - f0 >= 1); /* the store to a read-only PTE faulted */
	CHECK_EQ(f2 - f1, 0); /* ... and made it writable */
	CHECK_EQ(page_dirty(map), 1);
	CHECK_EQ(page_dirty(map + PG), 0);
	memset(map, 'A', SIZE);
	CHECK_EQ(dirty_pages(), PAGES);
	/* The machine's counters count every writer's pages: on a busy host its flusher may
	 * already be writing ours (the writeback of another program's gigabytes takes them too),
	 * so they are checked only where this test is the one writer (faultline's runs). */
	if (access("/proc/sys/vm/faulttrace", F_OK)) {
		utest_skip("Dirty and nr_dirty count the stores",
			   "this host's counters count every writer's pages, its flusher's too");
		return;
	}
	dirty_kb = utest_proc_field("/proc/meminfo", "Dirty", ':');
	CHECK(dirty_kb >= PAGES * PG / 1024);
	CHECK(utest_vmstat("nr_dirty") >= PAGES);
	if (dirty_kb < PAGES * PG / 1024)
		fprintf(stderr, "writeback: Dirty is %ld kB\n", dirty_kb);
}

/* MS_SYNC writes every page and cleans it; the next store faults and dirties again. */
static void msync_sync(void)
{
	static char buf[PG] __attribute__((aligned(4096)));
	long f0, f1, f2;
	int direct;

	CHECK(!on_disk(0, 'A') && !on_disk(PAGES - 1, 'A')); /* not written yet */
	CHECK_EQ(msync(map, SIZE, MS_SYNC), 0);
	CHECK(on_disk(0, 'A') && on_disk(PAGES - 1, 'A'));
	CHECK_EQ(dirty_pages(), 0);
	direct = open(lopath, O_RDONLY | O_DIRECT); /* the disk itself, past the cache */
	CHECK(direct >= 0 && pread(direct, buf, PG, 3 * PG) == PG && buf[0] == 'A' &&
	      buf[PG - 1] == 'A');
	if (direct >= 0)
		close(direct);
	f0 = minflt();
	map[0] = 'B';
	f1 = minflt();
	map[1] = 'B';
	f2 = minflt();
	CHECK(f1 - f0 >= 1); /* msync made it read-only again */
	CHECK_EQ(f2 - f1, 0);
	CHECK_EQ(page_dirty(map), 1);
	CHECK_EQ(page_dirty(map + PG), 0);
	memset(map, 'B', PG);
	CHECK(!on_disk(0, 'B'));
	CHECK_EQ(msync(map, PG, MS_SYNC), 0);
	CHECK(on_disk(0, 'B') && page_dirty(map) == 0);
}

/* MS_ASYNC starts nothing (today's Linux): the page stays dirty, the disk old. */
static void msync_async(void)
{
	memset(map + 8 * PG, 'C', PG);
	CHECK_EQ(msync(map + 8 * PG, PG, MS_ASYNC), 0);
	CHECK(!on_disk(8, 'C'));
	CHECK_EQ(page_dirty(map + 8 * PG), 1);
	CHECK_EQ(msync(map + 8 * PG, PG, MS_SYNC), 0);
	CHECK(on_disk(8, 'C'));
}

/* The writeback thread writes the page with no msync. (That it writes nothing when off is
 * tests/boot/writeback.sh's check: here, natively, any sync(1) on the host would write it.) */
static void writeback_thread(void)
{
	double took;

	memset(map + 5 * PG, 'T', PG);
	CHECK(!on_disk(5, 'T')); /* not written by the store itself */
	CHECK_EQ(page_dirty(map + 5 * PG), 1);
	/* (only now: natively, shorter times wake the host's flusher, which writes the whole
	 * file's pages once any of them has expired) */
	sysctl_set("dirty_expire_centisecs", "100\n", saved_expire, sizeof(saved_expire));
	sysctl_set("dirty_writeback_centisecs", "50\n", saved_interval, sizeof(saved_interval));
	took = wait_on_disk(5, 'T', 15);
	CHECK(took >= 0);
	if (took >= 0) { /* the thread cleaned it as it wrote it (Linux's a moment later) */
		for (int i = 0; i < 60 && page_dirty(map + 5 * PG) != 0; i++)
			usleep(50000);
		CHECK_EQ(page_dirty(map + 5 * PG), 0);
	}
}

/* A dirty page outlives munmap in the page cache; fsync of the device writes it. */
static void munmap_keeps(void)
{
	memset(map + 7 * PG, 'M', PG);
	sysctl_set("dirty_writeback_centisecs", "0\n", NULL, 0);
	CHECK_EQ(munmap(map, SIZE), 0);
	CHECK(!on_disk(7, 'M'));
	CHECK_EQ(fsync(lo), 0);
	CHECK(on_disk(7, 'M'));
	map = NULL;
}

/* Page 9 to the writeback thread, page 10 stored with the thread off: both left behind. */
static void leave(void)
{
	sysctl_set("dirty_expire_centisecs", "100\n", saved_expire, sizeof(saved_expire));
	sysctl_set("dirty_writeback_centisecs", "50\n", saved_interval, sizeof(saved_interval));
	memset(map + 9 * PG, 'W', PG);
	CHECK(wait_on_disk(9, 'W', 15) >= 0);
	sysctl_set("dirty_writeback_centisecs", "0\n", NULL, 0);
	memset(map + 10 * PG, 'X', PG);
	CHECK_EQ(munmap(map, SIZE), 0);
	CHECK(!on_disk(10, 'X'));
	saved_interval[0] = '\0'; /* the thread stays off: page 10 must not reach the disk */
}

static char saved_ratio[16];

static void restore_ratio(void)
{
	sysctl_set("dirty_ratio", saved_ratio, NULL, 0);
}

static int fill(long mb, const char *ratio)
{
	long pages = mb << 8, out0, out1;
	char *m;

	sysctl_set("dirty_ratio", ratio, saved_ratio, sizeof(saved_ratio));
	atexit(restore_ratio);
	sysctl_set("dirty_writeback_centisecs", "0\n", saved_interval, sizeof(saved_interval));
	m = mmap(NULL, pages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, lo, 0);
	if (!CHECK(m != MAP_FAILED))
		return utest_done();
	out0 = utest_vmstat("pgpgout");
	for (long i = 0; i < pages; i++) {
		memset(m + i * PG, 'P', PG);
		memcpy(m + i * PG, &i, sizeof(i));
	}
	out1 = utest_vmstat("pgpgout");
	CHECK_EQ(munmap(m, pages * PG), 0);
	CHECK_EQ(fsync(lo), 0);
	printf("writeback: fill %ld MiB at dirty_ratio %s: pgpgout +%ld KiB\n", mb, ratio,
	       out1 - out0);
	return utest_done();
}

int main(int argc, char **argv)
{
	static char zero[SIZE];

	if (argc > 3) {
		loop = 0;
		lo = open(argv[1], O_RDWR);
		img = open(argv[2], O_RDONLY | O_DIRECT);
		img_off = atol(argv[3]);
		if (!CHECK(lo >= 0 && img >= 0))
			return utest_done();
		snprintf(lopath, sizeof(lopath), "%s", argv[1]);
		atexit(restore);
	} else {
		unlink(IMG);
		img = open(IMG, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (!CHECK(img >= 0 && write(img, zero, SIZE) == SIZE))
			return utest_done();
		atexit(restore);
		lo = loop_setup();
		if (!CHECK(lo >= 0))
			return utest_done();
	}
	if (argc > 6 && strcmp(argv[4], "fill") == 0)
		return fill(atol(argv[5]), argv[6]);
	map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, lo, 0);
	if (!CHECK(map != MAP_FAILED))
		return utest_done();
	if (argc > 4 && strcmp(argv[4], "eio") == 0) {
		sysctl_set("dirty_writeback_centisecs", "0\n", saved_interval,
			   sizeof(saved_interval));
		memset(map, 'E', 2 * PG);
		CHECK_EQ(msync(map + PG, PG, MS_SYNC), 0); /* the disk takes page 1 */
		CHECK(on_disk(1, 'E'));
		CHECK_ERR(msync(map, PG, MS_SYNC), EIO);
		return utest_done();
	}
	if (argc > 4 && strcmp(argv[4], "leave") == 0) {
		leave();
		return utest_done();
	}
	first_store();
	msync_sync();
	msync_async();
	writeback_thread();
	munmap_keeps();
	return utest_done();
}
