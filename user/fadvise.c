/* fadvise: posix_fadvise and readahead(2), as Linux answers them. usage: fadvise [DIR]
 * (DIR, default /tmp, holds the scratch file). The errors: EBADF, ESPIPE for a pipe, EINVAL
 * for an unknown advice or a negative length, readahead's EBADF and EINVAL. Then what the
 * advice does to the cache, by the kind of file system DIR is (statfs): on a disk (ext2, ext4)
 * DONTNEED drops the clean, unmapped whole pages of its range (mincore sees them go; a page
 * mapped or only partly covered stays) and the data reads back from the disk, WILLNEED and
 * readahead(2) bring the pages in again; in memory (tmpfs, ramfs: the cache is the file's only
 * copy) every advice is taken and nothing leaves the cache. */
#define _GNU_SOURCE
#define UTEST_NAME "fadvise"
#include "utest.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define NPAGES 16
#define EXT2_SUPER_MAGIC 0xEF53 /* ext2, ext3 and ext4 */
#define TMPFS_MAGIC 0x01021994
#define RAMFS_MAGIC 0x858458f6

static long pagesz;

/* How many of the file's first n pages are in the page cache (mincore of a fresh mapping,
 * which maps nothing: it only looks). */
static int resident(int fd, int n)
{
	unsigned char vec[NPAGES];
	void *p = mmap(NULL, (size_t)n * pagesz, PROT_READ, MAP_SHARED, fd, 0);
	int count = 0;

	if (p == MAP_FAILED || mincore(p, (size_t)n * pagesz, vec) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		count += vec[i] & 1;
	munmap(p, (size_t)n * pagesz);
	return count;
}

/* resident(), polled for up to 2 s until it reaches want: WILLNEED only starts the reads. */
static int resident_by(int fd, int n, int want)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int r = resident(fd, n);

	for (int i = 0; i < 200 && r != want; i++) {
		nanosleep(&tick, NULL);
		r = resident(fd, n);
	}
	return r;
}

/* Every page of the file holds its own index in every byte. */
static int contents_ok(int fd)
{
	char *buf = malloc(pagesz);
	int ok = 1;

	for (int i = 0; i < NPAGES && ok; i++)
		ok = pread(fd, buf, pagesz, (off_t)i * pagesz) == pagesz &&
		     buf[0] == (char)('a' + i) && buf[pagesz - 1] == (char)('a' + i);
	free(buf);
	return ok;
}

static void errors(int fd, const char *path)
{
	int pipefd[2], wfd = open(path, O_WRONLY);

	CHECK_EQ(posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL), EBADF);
	CHECK_EQ(posix_fadvise(fd, 0, 0, 99), EINVAL);
	CHECK_EQ(posix_fadvise(fd, 0, -1, POSIX_FADV_NORMAL), EINVAL);
	CHECK(pipe(pipefd) == 0);
	CHECK_EQ(posix_fadvise(pipefd[0], 0, 0, POSIX_FADV_NORMAL), ESPIPE);
	CHECK_ERR(readahead(pipefd[0], 0, pagesz), EINVAL);
	close(pipefd[0]);
	close(pipefd[1]);
	CHECK_ERR(readahead(-1, 0, pagesz), EBADF);
	CHECK(wfd >= 0);
	CHECK_ERR(readahead(wfd, 0, pagesz), EBADF); /* not open for reading */
	CHECK_EQ(posix_fadvise(wfd, 0, 0, POSIX_FADV_NORMAL), 0); /* fadvise does not care */
	close(wfd);
	/* (DONTNEED on the pages just written is left out: whether Linux drops them depends on
	 * how soon the disk has written them) */
	for (int advice = POSIX_FADV_NORMAL; advice <= POSIX_FADV_NOREUSE; advice++)
		if (advice != POSIX_FADV_DONTNEED)
			CHECK_EQ(posix_fadvise(fd, 0, 0, advice), 0);
}

/* A disk's file: what DONTNEED drops, what stays, and WILLNEED and readahead(2) reading it. */
static void on_disk(int fd)
{
	char *map;

	CHECK_EQ(fsync(fd), 0);
	CHECK_EQ(resident(fd, NPAGES), NPAGES);
	/* Less than a page, and a range covering two pages only in part: nothing goes. */
	CHECK_EQ(posix_fadvise(fd, 0, pagesz - 1, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(posix_fadvise(fd, pagesz / 2, pagesz, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(resident(fd, NPAGES), NPAGES);
	/* Page 3 mapped and read: it stays; every other page goes. */
	map = mmap(NULL, pagesz, PROT_READ, MAP_SHARED, fd, 3 * pagesz);
	CHECK(map != MAP_FAILED && map[0] == 'd');
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(resident(fd, NPAGES), 1);
	munmap(map, pagesz);
	/* Exactly pages 0-3 now (len covers them whole), the mapping gone. */
	CHECK_EQ(posix_fadvise(fd, 0, 4 * pagesz, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(resident(fd, NPAGES), 0);
	CHECK(contents_ok(fd)); /* read back from the disk */
	CHECK_EQ(resident(fd, NPAGES), NPAGES);
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(resident(fd, NPAGES), 0);
	CHECK_EQ(posix_fadvise(fd, 0, 4 * pagesz, POSIX_FADV_WILLNEED), 0);
	CHECK_EQ(resident_by(fd, NPAGES, 4), 4);
	CHECK_EQ(readahead(fd, 4 * pagesz, 12 * pagesz), 0);
	CHECK_EQ(resident_by(fd, NPAGES, NPAGES), NPAGES);
	CHECK(contents_ok(fd));
}

/* A file in memory: the advice is taken, and the pages stay (they are the file). */
static void in_memory(int fd)
{
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	CHECK_EQ(resident(fd, NPAGES), NPAGES);
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED), 0);
	CHECK_EQ(readahead(fd, 0, NPAGES * pagesz), 0);
	CHECK_EQ(resident(fd, NPAGES), NPAGES);
	CHECK(contents_ok(fd));
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char path[512], *buf;
	struct statfs sf;
	int fd, made = 0;

	pagesz = sysconf(_SC_PAGESIZE);
	if (mkdir(dir, 0777) == 0)
		made = 1;
	snprintf(path, sizeof(path), "%s/fadvise-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || statfs(dir, &sf) != 0) {
		fprintf(stderr, "fadvise: %s: %s\n", path, strerror(errno));
		return 1;
	}
	buf = malloc(pagesz);
	for (int i = 0; i < NPAGES; i++) {
		memset(buf, 'a' + i, pagesz);
		CHECK_EQ(write(fd, buf, pagesz), pagesz);
	}
	free(buf);
	errors(fd, path);
	if (sf.f_type == EXT2_SUPER_MAGIC) {
		printf("fadvise: %s: a disk's file system (ext2/3/4)\n", dir);
		on_disk(fd);
	} else if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC) {
		printf("fadvise: %s: a file system in memory\n", dir);
		in_memory(fd);
	} else {
		fprintf(stderr, "fadvise: %s: file system %#lx: neither ext2/3/4 nor in memory\n",
			dir, (unsigned long)sf.f_type);
		CHECK(0);
	}
	close(fd);
	CHECK_EQ(unlink(path), 0);
	if (made)
		rmdir(dir);
	return utest_done();
}
