/* fs-paths: path names and short writes, as Linux has them (bugs the syscall fuzzer found).
 *  - a write whose buffer runs into a PROT_NONE page returns the bytes before it (EFAULT if
 *    none); the file grows by those only, and an ftruncate up afterwards reads zeroes past
 *    them, also in a new file made where an unlinked one was (no page outlives its file);
 *  - "." and ".." are resolved in every component: "d/b/../c" creates d/c, never an entry
 *    named ".."; a missing parent is ENOENT for mkdir and open(O_CREAT); mkdir of "d/a/." or
 *    "d/a/.." is EEXIST, rmdir of them EINVAL and ENOTEMPTY, unlink EISDIR; trailing slashes;
 *  - a removed directory still open lists nothing (ENOENT);
 *  - faultline: the free frames come back once every file is gone. */
#define _GNU_SOURCE
#define UTEST_NAME "fs-paths"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"

#include <dirent.h>

#define P	   VM_PAGE
#define VALID	   100 /* bytes of the write buffer before the PROT_NONE page */
#define NSTALE	   16  /* files that each get a short write, then are unlinked */

static unsigned char rbuf[4 * P];
static unsigned char *guard; /* a read-write page, then a PROT_NONE one */
static char d[64];

static char *at(const char *sub)
{
	static char bufs[8][128];
	static int n;
	char *b = bufs[n++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", d, sub);
	return b;
}

/* the buffer that is VALID bytes long before it faults: pattern seed at file offset off */
static const unsigned char *short_buf(unsigned long off, unsigned seed)
{
	unsigned char *b = guard + P - VALID;

	pat_fill(b, off, VALID, seed);
	return b;
}

static void test_short_write(void)
{
	const char *path = at("short");
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "0123456789", 10), 10);
	/* within one file page: the first VALID bytes land, the rest of the buffer faults */
	CHECK_EQ(pwrite(fd, short_buf(10, 3), 2 * P, 10), VALID);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 10 + VALID);
	/* nothing copyable at all: EFAULT, and the size stays (at the end: ext4 moves a size
	 * it was asked to write past up to the write's offset) */
	CHECK_ERR(pwrite(fd, guard + P, 64, 10 + VALID), EFAULT);
	CHECK_ERR(write(fd, guard + P, P), EFAULT);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 10 + VALID);
	/* up: what lies past the short write's end reads as zeroes */
	CHECK_EQ(ftruncate(fd, 4 * P), 0);
	memset(rbuf, 0xee, sizeof(rbuf));
	CHECK_EQ(pread(fd, rbuf, 4 * P, 0), 4 * P);
	CHECK(memcmp(rbuf, "0123456789", 10) == 0);
	CHECK_EQ(pat_diff(rbuf + 10, 10, VALID, 3), -1);
	CHECK_EQ(first_nonzero(rbuf + 10 + VALID, 4 * P - 10 - VALID), -1);
	/* a write crossing a file page boundary, faulting in the second page */
	CHECK_EQ(pwrite(fd, short_buf(5 * P - 40, 4), P, 5 * P - 40), VALID);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(5 * P - 40 + VALID));
	CHECK_EQ(ftruncate(fd, 7 * P), 0);
	CHECK_EQ(pread(fd, rbuf, 2 * P, 4 * P), 2 * P);
	CHECK_EQ(first_nonzero(rbuf, P - 40), -1);
	CHECK_EQ(pat_diff(rbuf + P - 40, 5 * P - 40, VALID, 4), -1);
	CHECK_EQ(first_nonzero(rbuf + P - 40 + VALID, P + 40 - VALID), -1);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(unlink(path), 0);
}

/* Files that get a short write far past their end, then go; new files made right after
 * them (the kernel may put them where the old ones were) must read as zeroes. */
static void test_no_page_outlives_its_file(void)
{
	const char *path = at("stale");

	for (int i = 0; i < NSTALE; i++) {
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		long r, z;

		CHECK(fd >= 0);
		r = pwrite(fd, short_buf(0, 5), P, 2 * P + 8);
		CHECK_EQ(r, VALID);
		CHECK_EQ(ftruncate(fd, 0), 0);
		CHECK_EQ(close(fd), 0);
		CHECK_EQ(unlink(path), 0);

		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0);
		CHECK_EQ(ftruncate(fd, 4 * P), 0);
		memset(rbuf, 0xee, sizeof(rbuf));
		CHECK_EQ(pread(fd, rbuf, 4 * P, 0), 4 * P);
		z = first_nonzero(rbuf, 4 * P);
		CHECK_EQ(z, -1);
		CHECK_EQ(close(fd), 0);
		CHECK_EQ(unlink(path), 0);
		if (z != -1) {
			fprintf(stderr, "fs-paths:   new file %d: byte %ld is %#x\n", i, z,
				rbuf[z]);
			break;
		}
	}
}

/* how many entries of directory path are named name (-1 if it cannot be read) */
static int count_named(const char *path, const char *name)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		n += !strcmp(e->d_name, name);
	closedir(dir);
	return n;
}

static int entries(const char *path)
{
	DIR *dir = opendir(path);
	int n = 0;

	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

static void test_paths(void)
{
	struct stat st;
	int fd;

	CHECK_EQ(mkdir(d, 0755), 0);
	CHECK_EQ(mkdir(at("a"), 0755), 0);
	CHECK_EQ(mkdir(at("b"), 0755), 0);

	/* missing parents are not made */
	CHECK_ERR(mkdir(at("x/y/z"), 0755), ENOENT);
	CHECK_ERR(mkdir(at("x/y"), 0755), ENOENT);
	CHECK_ERR(open(at("x/y"), O_RDWR | O_CREAT, 0600), ENOENT);
	CHECK_ERR(stat(at("x"), &st), ENOENT);
	CHECK_ERR(open(at("a/b/../c"), O_RDWR | O_CREAT, 0600), ENOENT); /* a/b is missing */

	/* ".." and "." in the middle are resolved, not made */
	fd = open(at("b/../c"), O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(close(fd), 0);
	CHECK(stat(at("c"), &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EQ(mkdir(at("b/../e"), 0755), 0);
	CHECK(stat(at("e"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ(mkdir(at("a/./f"), 0755), 0);
	CHECK(stat(at("a/f"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_ERR(mkdir(at("b/../a"), 0755), EEXIST);
	CHECK_EQ(count_named(at("b"), ".."), 1);
	CHECK_EQ(entries(at("b")), 2);
	CHECK_EQ(count_named(d, ".."), 1);
	CHECK_EQ(entries(d), 6); /* . .. a b c e */
	CHECK_EQ(ino_of(at("a/f/../..")), ino_of(d));
	CHECK_EQ(ino_of(at("a/./f/./..")), ino_of(at("a")));
	CHECK_EQ(ino_of("/.."), ino_of("/"));
	CHECK_EQ(ino_of("/tmp/.."), ino_of("/"));
	CHECK(stat(at("a/../c"), &st) == 0 && S_ISREG(st.st_mode));

	/* the last component "." or ".." */
	CHECK_ERR(mkdir(at("a/."), 0755), EEXIST);
	CHECK_ERR(mkdir(at("a/.."), 0755), EEXIST);
	CHECK_ERR(mkdir(at("x/."), 0755), ENOENT);
	CHECK_ERR(rmdir(at("a/.")), EINVAL);
	CHECK_ERR(rmdir(at("a/f/..")), ENOTEMPTY);
	CHECK_ERR(rmdir(at("b/..")), ENOTEMPTY);
	CHECK_ERR(rmdir(at("x/..")), ENOENT);
	CHECK_ERR(rmdir(at("c/.")), ENOTDIR);
	CHECK_ERR(unlink(at("a/.")), EISDIR);
	CHECK_ERR(unlink(at("a/..")), EISDIR);
	CHECK_ERR(rmdir("/"), EBUSY);
	CHECK(stat(at("a"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat(at("b"), &st) == 0 && S_ISDIR(st.st_mode));
	fd = open(at("a/f/.."), O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK_EQ(close(fd), 0);
	CHECK_ERR(open(at("a/."), O_RDONLY | O_CREAT, 0600), EISDIR);

	/* trailing slashes: a directory's name may have them, a file's may not */
	CHECK_ERR(stat(at("c/"), &st), ENOTDIR);
	CHECK_ERR(stat(at("c/."), &st), ENOTDIR);
	CHECK_ERR(open(at("c/"), O_RDONLY), ENOTDIR);
	CHECK_ERR(unlink(at("c/")), ENOTDIR);
	CHECK_ERR(rmdir(at("c")), ENOTDIR);
	CHECK_ERR(open(at("g/"), O_RDWR | O_CREAT, 0600), EISDIR);
	CHECK_ERR(stat(at("g"), &st), ENOENT);
	CHECK(stat(at("a/"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_ERR(mkdir(at("a/"), 0755), EEXIST);
	CHECK_ERR(mkdir(at("c/"), 0755), EEXIST);
	CHECK_EQ(mkdir(at("n//"), 0755), 0);
	CHECK_EQ(rmdir(at("n/")), 0);

	/* a removed directory still open: it lists nothing */
	fd = open(at("e"), O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK_EQ(rmdir(at("e")), 0);
	CHECK_ERR(syscall(SYS_getdents64, fd, rbuf, sizeof(rbuf)), ENOENT);
	CHECK(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ(close(fd), 0);

	/* and everything can be removed again */
	CHECK_EQ(rmdir(at("b/../a/f")), 0);
	CHECK_EQ(rmdir(at("a")), 0);
	CHECK_EQ(rmdir(at("b/")), 0);
	CHECK_EQ(unlink(at("c")), 0);
	CHECK_EQ(rmdir(d), 0);
}

int main(void)
{
	long frames0 = 0, frames1;

	if (tmp_setup())
		return 1;
	tmp_path(d, sizeof(d), "paths");
	guard = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + P, P, PROT_NONE)) {
		perror("fs-paths: mmap");
		return 1;
	}
	memset(guard, 1, P); /* our own pages are all in place before counting */
	memset(rbuf, 1, sizeof(rbuf));
	if (on_faultline())
		frames0 = (long)fl_mm_now().free_frames;

	test_paths();
	CHECK_EQ(mkdir(d, 0755), 0);
	test_short_write();
	test_no_page_outlives_its_file();
	CHECK_EQ(rmdir(d), 0);

	if (on_faultline()) {
		frames1 = (long)fl_mm_now().free_frames;
		if (!CHECK(frames1 >= frames0 - 4 && frames1 <= frames0 + 4))
			fprintf(stderr, "fs-paths:   free frames %ld at the start, %ld once every "
				"file is gone\n", frames0, frames1);
	}
	tmp_cleanup();
	return utest_done();
}
