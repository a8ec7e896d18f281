/* fs-eio: a disk that fails a write, as Linux reports it. write() only fills the page cache and
 * succeeds; the writeback's error reaches fsync, fdatasync, msync(MS_SYNC) and syncfs, once
 * through each open file (today's Linux's errseq_t), and nothing else is lost: another file's
 * bytes, a file written after. The error is the disk's: EIO from a disk, ENOSPC from a loop
 * device whose file is on a full file system (today's Linux passes its file's error on).
 * usage: fs-eio DIR   (DIR: an ext2 mount holding kept, lost and spare, KEPT, LOST and SPARE
 * bytes of seeds 1, 2 and 5, whose disk fails every write to lost's blocks and no other:
 * tests/boot/ext2-eio.sh makes it, with QEMU's blkdebug, or with a loop device over a file
 * whose blocks under lost are holes on a full ext2)
 *        fs-eio DIR meta   (the disk fails the write of the block holding meta's inode: its
 *        new bytes go to the disk, its new times do not, and fsync says EIO, once) */
#define _GNU_SOURCE
#define UTEST_NAME "fs-eio"
#include <sys/mman.h>

#include "utest.h"

#define KEPT 65536 /* the sizes tests/boot/ext2-eio.sh gives the files */
#define LOST 32768
#define SPARE 16384
#define PG 4096

static char buf[KEPT], back[KEPT];
static char path[4096];
static int disk_err; /* the errno the disk's failure gave first */

/* the byte at offset i of the files seed names (tests/boot/ext2-eio.sh's pattern) */
static char byte(long i, unsigned seed)
{
	return (char)((i * 7 + seed * 13) >> 3);
}

static void pattern(long len, unsigned seed)
{
	for (long i = 0; i < len; i++)
		buf[i] = byte(i, seed);
}

static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* "what: 0" or "what: -1 EIO", the line both kernels must give; whether r is 0 (failed 0) or,
 * failed 1, the disk's error: EIO or ENOSPC the first time, the same after */
static int said(const char *what, long r, int failed)
{
	int e = errno;

	if (r < 0)
		printf("fs-eio: %s: -1 %s\n", what,
		       e == EIO ? "EIO" : e == ENOSPC ? "ENOSPC" : strerror(e));
	else
		printf("fs-eio: %s: %ld\n", what, r);
	if (!failed)
		return r == 0;
	if (r != -1)
		return 0;
	if (!disk_err && (e == EIO || e == ENOSPC))
		disk_err = e;
	return e == disk_err;
}

/* DIR/name holds len bytes of seed's pattern */
static int intact(const char *dir, const char *name, long len, unsigned seed)
{
	int fd = open(at(dir, name), O_RDONLY);
	long n = fd >= 0 ? read(fd, back, sizeof(back)) : -1;

	if (fd >= 0)
		close(fd);
	pattern(len, seed);
	return n == len && memcmp(back, buf, (size_t)len) == 0;
}

/* A metadata buffer the disk fails to write: meta's block of the inode table. */
static int meta(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd = open(at(dir, "meta"), O_WRONLY);

	pattern(PG, 6);
	if (!CHECK(dfd >= 0 && fd >= 0 && pwrite(fd, buf, PG, 0) == PG))
		return utest_done();
	CHECK(said("fsync when the inode's block fails", fsync(fd), 1));
	CHECK(said("fsync again", fsync(fd), 0));
	CHECK(said("syncfs", syncfs(dfd), 1));
	CHECK(said("syncfs again", syncfs(dfd), 0));
	close(fd);
	close(dfd);
	CHECK(intact(dir, "meta", PG, 6));
	return utest_done();
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : NULL;
	int fd1, fd2, fd3, fd, dfd;
	char *m;

	if (!dir) {
		fprintf(stderr, "usage: fs-eio DIR [meta]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && strcmp(argv[2], "meta") == 0)
		return meta(dir);
	CHECK(intact(dir, "kept", KEPT, 1));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd1 = open(at(dir, "lost"), O_RDWR);
	fd2 = open(at(dir, "lost"), O_RDWR);
	if (!CHECK(fd1 >= 0 && fd2 >= 0))
		return utest_done();
	/* Into the page cache: nothing is written yet, nothing fails. */
	pattern(LOST, 3);
	CHECK_EQ(pwrite(fd1, buf, LOST, 0), LOST);
	CHECK(said("fsync after a write the disk fails", fsync(fd1), 1));
	CHECK(said("fsync again", fsync(fd1), 0));
	/* Each open file of it hears of the error once (not the old AS_EIO's first comer). */
	CHECK(said("fdatasync of another open file of it", fdatasync(fd2), 1));
	CHECK(said("fsync of that file again", fsync(fd2), 0));
	/* The file system's open files hear of its files' errors through syncfs, once each. */
	CHECK(said("syncfs", syncfs(dfd), 1));
	CHECK(said("syncfs again", syncfs(dfd), 0));
	close(dfd);
	/* Opened after the error was reported: it is not this file's to hear of. */
	fd3 = open(at(dir, "lost"), O_RDWR);
	if (!CHECK(fd3 >= 0))
		return utest_done();
	CHECK(said("fsync of a file opened after the report", fsync(fd3), 0));
	m = mmap(NULL, LOST, PROT_READ | PROT_WRITE, MAP_SHARED, fd3, 0);
	if (!CHECK(m != MAP_FAILED))
		return utest_done();
	m[0] = 'M';
	CHECK(said("msync(MS_SYNC) after a store", msync(m, PG, MS_SYNC), 1));
	CHECK(said("msync(MS_SYNC) again", msync(m, PG, MS_SYNC), 0));
	/* The mapping's open file is fd3's: it has heard. fd1 has not heard of this one. */
	CHECK(said("fsync of the mapped file", fsync(fd3), 0));
	CHECK(said("fsync of the first file", fsync(fd1), 1));
	/* Met by another's writeback (sync(2), which cannot say it): the next fsync hears. */
	CHECK_EQ(pwrite(fd1, buf, LOST, 0), LOST);
	sync();
	CHECK(said("fsync after sync() met the error", fsync(fd1), 1));
	CHECK(said("fsync again", fsync(fd1), 0));
	CHECK_EQ(munmap(m, LOST), 0);
	close(fd1);
	close(fd2);
	close(fd3);
	/* The kernel goes on: another file's blocks are written and synced as ever. */
	fd = open(at(dir, "spare"), O_WRONLY);
	pattern(SPARE, 4);
	CHECK(fd >= 0 && pwrite(fd, buf, SPARE, 0) == SPARE);
	CHECK(said("fsync of another file written after", fsync(fd), 0));
	close(fd);
	CHECK(intact(dir, "spare", SPARE, 4));
	CHECK(intact(dir, "kept", KEPT, 1));
	return utest_done();
}
