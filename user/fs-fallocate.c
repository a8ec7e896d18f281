/* fs-fallocate: fallocate(2) as Linux answers it on tmpfs (/dev/shm): the mode checks and the
 * descriptor's in today's Linux's order, a file grown, KEEP_SIZE, a hole punched with its
 * partial pages zeroed (seen through a mapping too), the times, and RLIMIT_FSIZE (EFBIG). */
#define _GNU_SOURCE
#define UTEST_NAME "fs-fallocate"
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "utest.h"

#define F "/dev/shm/fs-fallocate-test"
#define G "/dev/shm/fs-fallocate-test2"
#define PG 4096L

/* linux/falloc.h, which musl lacks */
#define KEEP_SIZE 0x01
#define PUNCH_HOLE 0x02
#define COLLAPSE_RANGE 0x08
#define ZERO_RANGE 0x10
#define INSERT_RANGE 0x20
#define UNSHARE_RANGE 0x40

static long falloc(int fd, int mode, long off, long len)
{
	return syscall(SYS_fallocate, fd, mode, off, len);
}

static unsigned char pattern(long i)
{
	return (unsigned char)(i % 251 + 1);
}

static void errors(int fd)
{
	int ro = open(F, O_RDONLY), null = open("/dev/null", O_WRONLY), p[2];

	CHECK(ro >= 0 && null >= 0 && pipe(p) == 0);
	CHECK_ERR(falloc(999, 0, 0, PG), EBADF);
	CHECK_ERR(falloc(fd, 0, -1, PG), EINVAL);
	CHECK_ERR(falloc(fd, 0, 0, 0), EINVAL);
	CHECK_ERR(falloc(fd, 0, 0, -PG), EINVAL);
	CHECK_ERR(falloc(fd, 0x100, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, PUNCH_HOLE, 0, PG), EOPNOTSUPP); /* without KEEP_SIZE */
	CHECK_ERR(falloc(fd, PUNCH_HOLE | ZERO_RANGE | KEEP_SIZE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, COLLAPSE_RANGE | KEEP_SIZE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, INSERT_RANGE | KEEP_SIZE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, UNSHARE_RANGE | PUNCH_HOLE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(-1, UNSHARE_RANGE | PUNCH_HOLE, 0, PG), EBADF); /* the descriptor first */
	CHECK_ERR(falloc(ro, 0, -1, PG), EINVAL); /* before the descriptor's mode */
	CHECK_ERR(falloc(ro, 0, 0, PG), EBADF);
	CHECK_ERR(falloc(p[0], 0, 0, PG), EBADF); /* a pipe's read end: not open for writing */
	CHECK_ERR(falloc(p[1], 0, 0, PG), ESPIPE);
	CHECK_ERR(falloc(null, 0, 0, PG), ENODEV);
	CHECK_ERR(falloc(fd, 0, 1L << 62, 1L << 62), EFBIG); /* the end wraps */
	/* tmpfs has none of these */
	CHECK_ERR(falloc(fd, ZERO_RANGE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, UNSHARE_RANGE, 0, PG), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, COLLAPSE_RANGE, 0, PG), EOPNOTSUPP);
	close(ro), close(null), close(p[0]), close(p[1]);
}

/* A new file of 16 pages (a hole): allocating past the end with KEEP_SIZE, or inside it,
 * keeps the size; the pages read as zeroes. */
static void keep_size(void)
{
	int fd = open(G, O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct stat st;
	volatile char *map;

	CHECK(fd >= 0 && ftruncate(fd, 16 * PG) == 0);
	map = mmap(NULL, 16 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	CHECK_EQ(falloc(fd, KEEP_SIZE, 4 * PG, 64 * PG), 0); /* past the end too */
	CHECK(fstat(fd, &st) == 0 && st.st_size == 16 * PG);
	CHECK_EQ(falloc(fd, 0, 0, 2 * PG + 1), 0); /* inside: the size stays */
	CHECK(fstat(fd, &st) == 0 && st.st_size == 16 * PG);
	CHECK_EQ(map[PG] | map[5 * PG] | map[15 * PG + 4095], 0);
	munmap((void *)map, 16 * PG);
	close(fd);
	unlink(G);
}

/* Pattern in pages 0-3, a hole punched in [1000, 9000): zeroes there, through read and
 * through a mapping made before; the size, and the bytes around it, stay. */
static void punch(int fd)
{
	static unsigned char buf[4 * PG];
	struct stat st;
	unsigned char *map;
	long bad = -1;

	CHECK_EQ(ftruncate(fd, 4 * PG), 0);
	for (long i = 0; i < 4 * PG; i++)
		buf[i] = pattern(i);
	CHECK_EQ(pwrite(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	map = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	CHECK_EQ(map[1000], pattern(1000));
	CHECK_EQ(falloc(fd, PUNCH_HOLE | KEEP_SIZE, 1000, 8000), 0);
	CHECK_EQ(falloc(fd, PUNCH_HOLE | KEEP_SIZE, 3 * PG + 10, 20), 0); /* inside one page */
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	for (long i = 0; i < 4 * PG && bad < 0; i++) {
		int hole = (i >= 1000 && i < 9000) || (i >= 3 * PG + 10 && i < 3 * PG + 30);

		if (buf[i] != (hole ? 0 : pattern(i)) || map[i] != buf[i])
			bad = i;
	}
	CHECK_EQ(bad, -1);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 4 * PG);
	CHECK_EQ(falloc(fd, PUNCH_HOLE | KEEP_SIZE, 2 * PG, 100 * PG), 0); /* to past the end */
	CHECK(fstat(fd, &st) == 0 && st.st_size == 4 * PG);
	CHECK_EQ(map[2 * PG + 1], 0);
	munmap(map, 4 * PG);
}

int main(void)
{
	int fd = open(F, O_RDWR | O_CREAT | O_TRUNC, 0600), status;
	const struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	static char buf[5 * PG];
	struct stat st;
	pid_t pid;
	long i;

	CHECK(fd >= 0);
	errors(fd);
	/* Growing: the new bytes read as zeroes; mtime and ctime are now. */
	CHECK_EQ(futimens(fd, old), 0);
	CHECK_EQ(falloc(fd, 0, PG, 3 * PG + 100), 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 4 * PG + 100);
	CHECK(st.st_mtime > 1000000000 && st.st_ctime > 1000000000);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 4 * PG + 100);
	for (i = 0; i < 4 * PG + 100 && !buf[i]; i++)
		;
	CHECK_EQ(i, 4 * PG + 100);
	keep_size();
	punch(fd);
	/* RLIMIT_FSIZE: growing past it is EFBIG (SIGXFSZ ignored), KEEP_SIZE too; inside it
	 * is fine. In a child, whose limit is its own. */
	pid = fork();
	if (!pid) {
		struct rlimit rl = { 8 * PG, 8 * PG };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) || falloc(fd, 0, 0, 8 * PG) ||
		    falloc(fd, 0, 0, 8 * PG + 1) != -1 || errno != EFBIG ||
		    falloc(fd, KEEP_SIZE, 4 * PG, 5 * PG) != -1 || errno != EFBIG)
			_exit(1);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	unlink(F);
	return utest_done();
}
