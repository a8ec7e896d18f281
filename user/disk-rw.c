/* A disk through its block special file: the test image has each 512-byte sector stamped
 * "SECTOR%08d" (tests/boot/disk.sh makes it). Reads at aligned and unaligned offsets, writes
 * (whole and partial sectors: read-modify-write) read back, the size ioctls, /proc/partitions,
 * /proc/diskstats' counts around one read and one write (O_DIRECT: one request each on Linux)
 * and around reads of a cached page (none) and after BLKFLSBUF (one).
 * usage: disk-rw DEV SECTORS         the checks, then writes the host verifies
 *        disk-rw DEV SECTORS BAD     reading sector BAD fails with EIO, and the rest of its page
 *                                    (the page cache's unit); O_DIRECT and other pages do not
 *        disk-rw DEV SECTORS bench   time stamp counter ticks per 4 KiB read (under QEMU's
 *                                    -icount: guest instructions, idle time included)
 * Run by tests/boot/disk.sh only: the host has no such disk. */
#define UTEST_NAME "disk-rw"
#include "utest.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#ifndef O_DIRECT
#define O_DIRECT 040000
#endif

#define BLKGETSIZE 0x1260
#define BLKSSZGET 0x1268
#define BLKGETSIZE64 0x80081272
#define BLKFLSBUF 0x1261
#define BLKBSZGET 0x80081270

static int fd;

/* What sector s held before any write: its stamp, padded with dots. */
static void stamp(char *buf, long s)
{
	memset(buf, '.', 512);
	memcpy(buf, "SECTOR", 6);
	for (int i = 0; i < 8; i++, s /= 10)
		buf[13 - i] = (char)('0' + s % 10);
}

/* Bytes [off, off + n) of the untouched image match the stamps. */
static int pattern_ok(const char *buf, long off, long n)
{
	char sec[512];

	for (long i = 0; i < n; i++) {
		long p = off + i;

		if (i == 0 || p % 512 == 0)
			stamp(sec, p / 512);
		if (buf[i] != sec[p % 512]) {
			fprintf(stderr, "disk-rw: byte %ld (sector %ld) is %02x, not %02x\n", p,
				p / 512, (unsigned char)buf[i], (unsigned char)sec[p % 512]);
			return 0;
		}
	}
	return 1;
}

static int read_ok(long off, long n)
{
	char *buf = malloc((size_t)n);
	int ok = buf && pread(fd, buf, (size_t)n, off) == n && pattern_ok(buf, off, n);

	free(buf);
	return ok;
}

static void check_device(const char *dev, long sectors)
{
	struct stat st;
	uint64_t bytes = 0;
	unsigned long nsec = 0;
	int ssz = 0;

	CHECK_EQ(fstat(fd, &st), 0);
	CHECK(S_ISBLK(st.st_mode));
	CHECK_EQ(major(st.st_rdev), 8u);
	CHECK_EQ(minor(st.st_rdev), 0u);
	CHECK_EQ(ioctl(fd, BLKGETSIZE64, &bytes), 0);
	CHECK_EQ(bytes, (uint64_t)sectors * 512);
	CHECK_EQ(ioctl(fd, BLKGETSIZE, &nsec), 0);
	CHECK_EQ(nsec, (unsigned long)sectors);
	CHECK_EQ(ioctl(fd, BLKSSZGET, &ssz), 0);
	CHECK_EQ(ssz, 512);
	CHECK_ERR(ioctl(fd, 0x5401 /* TCGETS */, &ssz), ENOTTY);
	CHECK_EQ(lseek(fd, 0, SEEK_END), sectors * 512);
	CHECK_ERR(lseek(fd, 1, SEEK_END), EINVAL);
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	(void)dev;
}

static void check_reads(long sectors)
{
	char buf[1024];

	CHECK(read_ok(0, 512));
	CHECK(read_ok(512, 512));
	CHECK(read_ok(7 * 512, 1024));
	CHECK(read_ok(100 * 512 + 100, 1000));        /* unaligned both ends */
	CHECK(read_ok(3, 1));                          /* one byte */
	CHECK(read_ok(200 * 512 - 7, 100 * 1024 + 9)); /* several requests */
	CHECK(read_ok((sectors - 1) * 512, 512));      /* the last sector */
	/* read(2) moves the offset; at the end it reads nothing, short before it */
	CHECK_EQ(lseek(fd, 5 * 512 + 500, SEEK_SET), 5 * 512 + 500);
	CHECK_EQ(read(fd, buf, 24), 24);
	CHECK(pattern_ok(buf, 5 * 512 + 500, 24));
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5 * 512 + 524);
	CHECK_EQ(pread(fd, buf, sizeof(buf), sectors * 512 - 10), 10);
	CHECK(pattern_ok(buf, sectors * 512 - 10, 10));
	CHECK_EQ(pread(fd, buf, sizeof(buf), sectors * 512), 0);
}

/* The writes tests/boot/disk.sh looks for in the image afterwards. */
static void check_writes(long sectors)
{
	char sec[512], buf[2048], want[2048];

	memset(sec, 'W', sizeof(sec));
	memcpy(sec, "WRITTEN-300", 11);
	CHECK_EQ(pwrite(fd, sec, 512, 300 * 512), 512);
	CHECK_EQ(pread(fd, buf, 512, 300 * 512), 512);
	CHECK(memcmp(buf, sec, 512) == 0);
	CHECK(read_ok(299 * 512, 512) && read_ok(301 * 512, 512));

	/* 600 bytes from the middle of sector 400 into 402: both ends read-modify-write */
	memset(sec, 'p', sizeof(sec));
	CHECK_EQ(pwrite(fd, sec, 300, 400 * 512 + 450), 300);
	CHECK_EQ(pwrite(fd, sec, 300, 400 * 512 + 750), 300);
	CHECK_EQ(pread(fd, buf, 3 * 512, 400 * 512), 3 * 512);
	stamp(want, 400), stamp(want + 512, 401), stamp(want + 1024, 402);
	memset(want + 450, 'p', 600);
	CHECK(memcmp(buf, want, 3 * 512) == 0);

	/* write(2) at the offset, then at the end: ENOSPC, as Linux's block devices */
	CHECK_EQ(lseek(fd, 500 * 512 + 1, SEEK_SET), 500 * 512 + 1);
	CHECK_EQ(write(fd, "hello, disk", 11), 11);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 500 * 512 + 12);
	CHECK_EQ(pwrite(fd, "tail", 4, sectors * 512 - 2), 2);
	CHECK_ERR(pwrite(fd, "x", 1, sectors * 512), ENOSPC);
}

/* Four processes reading at once: requests queue up behind each other, and each completion
 * starts the next and wakes its own caller (drivers/block/blk-core.c). */
static void check_concurrent(long sectors)
{
	pid_t pids[3];
	int status;

	for (int c = 0; c < 3; c++) {
		pids[c] = fork();
		if (pids[c] == 0) {
			int bad = 0;

			for (long i = 0; i < 64; i++) {
				long s = 1024 + (i * 7919 + c * 104729) % (sectors - 2048);

				bad += !read_ok(s * 512 + c * 100, 4096 + 300);
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (long i = 0; i < 64; i++)
		CHECK(read_ok((1024 + i * 613) * 512, 4096));
	for (int c = 0; c < 3; c++) {
		CHECK_EQ(waitpid(pids[c], &status, 0), pids[c]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

static void check_proc(long sectors)
{
	char buf[4096], line[80];

	CHECK(utest_slurp("/proc/partitions", buf, sizeof(buf)) > 0);
	CHECK(strncmp(buf, "major minor  #blocks  name\n\n", 28) == 0);
	snprintf(line, sizeof(line), "   8        0 %10ld sda\n", sectors / 2);
	CHECK(strstr(buf, line) != NULL);
	CHECK(utest_slurp("/proc/bus/pci/devices", buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "\tata_piix\n") || strstr(buf, "\tahci\n"));
}

/* The fields of name's /proc/diskstats line, Linux's 17 counters after major, minor, name:
 * [0] reads, [2] sectors read, [4] writes, [6] sectors written, [8] in flight. */
static int diskstats(const char *name, unsigned long f[17])
{
	static char buf[8192];
	char *l, n[32];
	unsigned int major, minor;

	if (utest_slurp("/proc/diskstats", buf, sizeof(buf)) <= 0)
		return -1;
	for (l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%u %u %31s %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu "
			   "%lu %lu %lu %lu", &major, &minor, n, &f[0], &f[1], &f[2], &f[3], &f[4],
			   &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12], &f[13],
			   &f[14], &f[15], &f[16]) == 20 && strcmp(n, name) == 0)
			return major == 8 && minor == 0 ? 0 : -1;
	return -1;
}

/* One 4 KiB read, then the same bytes written back (the image stays as it was): one request
 * and 8 sectors each in /proc/diskstats, nothing in flight once they returned. */
static void check_diskstats(const char *dev)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	unsigned long a[17], b[17], c[17];
	char *buf = aligned_alloc(4096, 4096);
	int dfd = open(dev, O_RDWR | O_DIRECT);

	if (!CHECK(buf && dfd >= 0) || !CHECK(diskstats(name, a) == 0))
		return;
	CHECK_EQ(pread(dfd, buf, 4096, 64 * 4096), 4096);
	CHECK(pattern_ok(buf, 64 * 4096, 4096));
	CHECK_EQ(diskstats(name, b), 0);
	CHECK_EQ(b[0] - a[0], 1ul);
	CHECK_EQ(b[2] - a[2], 8ul);
	CHECK_EQ(b[4], a[4]);
	CHECK_EQ(b[6], a[6]);
	CHECK_EQ(b[8], 0ul);
	CHECK_EQ(pwrite(dfd, buf, 4096, 64 * 4096), 4096);
	CHECK_EQ(diskstats(name, c), 0);
	CHECK_EQ(c[0], b[0]);
	CHECK_EQ(c[2], b[2]);
	CHECK_EQ(c[4] - b[4], 1ul);
	CHECK_EQ(c[6] - b[6], 8ul);
	CHECK_EQ(c[8], 0ul);
	/* the weighted time counts each busy moment once per request in flight */
	CHECK(c[10] >= c[9]);
	/* no merges, discards or flushes */
	CHECK(c[1] == 0 && c[5] == 0 && c[11] == 0 && c[15] == 0);
	CHECK_EQ(close(dfd), 0);
	free(buf);
}

/*
 * read() goes through the device's page cache: a page read once is one request, and reading it
 * again, or another sector of it, is none; BLKFLSBUF (write back and drop the cache, root
 * only) sends the next read to the disk again. BLKBSZGET: the cache's block size, a page for
 * a disk of whole pages.
 */
static void check_cache(const char *dev)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	unsigned long a[17], b[17], c[17], d[17];
	char buf[512];
	int bsz = 0;

	CHECK_EQ(ioctl(fd, BLKBSZGET, &bsz), 0);
	CHECK_EQ(bsz, 4096);
	CHECK_EQ(ioctl(fd, BLKFLSBUF, 0), 0);
	if (!CHECK(diskstats(name, a) == 0))
		return;
	CHECK_EQ(pread(fd, buf, 512, 77 * 4096), 512);
	CHECK(pattern_ok(buf, 77 * 4096, 512));
	CHECK_EQ(diskstats(name, b), 0);
	CHECK_EQ(b[0] - a[0], 1ul); /* the control: a page not cached is read */
	CHECK_EQ(pread(fd, buf, 512, 77 * 4096 + 3584), 512);
	CHECK(pattern_ok(buf, 77 * 4096 + 3584, 512));
	CHECK_EQ(pread(fd, buf, 512, 77 * 4096), 512);
	CHECK_EQ(diskstats(name, c), 0);
	CHECK_EQ(c[0], b[0]);
	CHECK_EQ(ioctl(fd, BLKFLSBUF, 0), 0);
	CHECK_EQ(pread(fd, buf, 512, 77 * 4096), 512);
	CHECK_EQ(diskstats(name, d), 0);
	CHECK_EQ(d[0] - c[0], 1ul);
}

/*
 * Sector bad fails with EIO, and so does another sector of its page: read() goes through the
 * device's page cache, which reads a page (8 sectors) at a time and fails it whole, as Linux's
 * does. The pages around it read, O_DIRECT (no cache) reads that other sector alone, and the
 * disk goes on working.
 */
static void check_error(const char *dev, long bad)
{
	char buf[4096];
	long first = bad - bad % 8, other = bad ^ 1; /* its page's first sector; a neighbour */
	char *dbuf = aligned_alloc(512, 512);
	int dfd = open(dev, O_RDONLY | O_DIRECT);

	CHECK_ERR(pread(fd, buf, 512, bad * 512), EIO);
	CHECK_ERR(pread(fd, buf, 512, other * 512), EIO);
	CHECK(read_ok((first - 1) * 512, 512));
	CHECK(read_ok((first + 8) * 512, 512));
	if (CHECK(dbuf && dfd >= 0)) {
		CHECK_EQ(pread(dfd, dbuf, 512, other * 512), 512);
		CHECK(pattern_ok(dbuf, other * 512, 512));
		CHECK_ERR(pread(dfd, dbuf, 512, bad * 512), EIO);
		CHECK_EQ(close(dfd), 0);
	}
	CHECK_ERR(pread(fd, buf, 512, bad * 512), EIO);
	CHECK(read_ok(0, 4096));
	free(dbuf);
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* 4 KiB reads at 256 places: the whole path, syscall to completion interrupt and back; the
 * time stamp counter's ticks (guest instructions under QEMU's -icount, waits included) and
 * the monotonic clock's microseconds per read. */
static void bench(long sectors)
{
	char buf[4096];
	struct timespec a, b;
	uint64_t t0;
	int n = 256;
	long us;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = rdtsc();
	for (int i = 0; i < n; i++)
		CHECK_EQ(pread(fd, buf, sizeof(buf), (long)i * 97 % (sectors / 8) * 4096), 4096);
	t0 = rdtsc() - t0;
	clock_gettime(CLOCK_MONOTONIC, &b);
	us = (b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000;
	printf("disk-rw: bench: %d reads of 4096 bytes: %lu ticks, %ld us each\n", n,
	       (unsigned long)(t0 / (uint64_t)n), us / n);
}

int main(int argc, char **argv)
{
	long sectors;

	if (argc < 3) {
		fprintf(stderr, "usage: disk-rw DEV SECTORS [BAD_SECTOR]\n");
		return 2;
	}
	sectors = atol(argv[2]);
	fd = open(argv[1], O_RDWR);
	if (!CHECK(fd >= 0))
		return utest_done();
	check_device(argv[1], sectors);
	if (argc > 3 && strcmp(argv[3], "bench") == 0) {
		bench(sectors);
	} else if (argc > 3) {
		check_error(argv[1], atol(argv[3]));
	} else {
		check_reads(sectors);
		check_writes(sectors);
		check_concurrent(sectors);
		check_proc(sectors);
		check_diskstats(argv[1]);
		check_cache(argv[1]);
	}
	CHECK_EQ(close(fd), 0);
	return utest_done();
}
