/* file-ops: the file system calls on scratch files under /tmp.
 *  - open(O_CREAT|O_EXCL) of an existing file: EEXIST; open without O_CREAT of a missing one:
 *    ENOENT;
 *  - O_APPEND writes go to the end whatever the offset;
 *  - pread/pwrite at offsets leave the file offset alone; dup shares it;
 *  - lseek(SEEK_END) past EOF and a write leave a hole of zeroes, across pages; fstat sizes;
 *  - unlink, then open: ENOENT; a file unlinked while open stays usable through its descriptor;
 *  - mkdir/rmdir; mkdir of an existing name: EEXIST; rmdir of a non-empty directory: ENOTEMPTY;
 *  - write through an O_RDONLY descriptor and read through an O_WRONLY one: EBADF; read of a
 *    directory: EISDIR;
 *  - a 1 MiB file written in uneven pieces reads back right in other uneven pieces;
 *  - faultline: FL_MM's free frames come back (within 4) once every file is unlinked and
 *    closed: the page-cache pages of deleted files are freed. */
#define _GNU_SOURCE
#define UTEST_NAME "file-ops"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"

#define P   VM_PAGE
#define BIG (1UL << 20)

static unsigned char buf[3 * P + 64], rbuf[3 * P + 64];
static char a[64], b[64], dir[64], inner[80], big[64], gone[64];

static void test_create_append_offsets(void)
{
	struct stat st;
	int fd, fd2, app, d;
	char c[16];

	fd = open(a, O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	CHECK_ERR(open(a, O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
	CHECK_ERR(open(a, O_RDONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	fd2 = open(a, O_RDWR | O_CREAT, 0644); /* without O_EXCL: the same file */
	CHECK(fd2 >= 0);
	CHECK_EQ(write(fd, "0123", 4), 4);
	CHECK(fstat(fd2, &st) == 0 && st.st_size == 4 && S_ISREG(st.st_mode));
	CHECK_EQ(close(fd2), 0);

	/* O_APPEND: every write lands at the current end */
	app = open(a, O_WRONLY | O_APPEND);
	CHECK(app >= 0);
	CHECK_EQ(write(app, "abc", 3), 3);
	CHECK_EQ(lseek(app, 0, SEEK_SET), 0);
	CHECK_EQ(write(app, "def", 3), 3);
	CHECK_EQ(lseek(app, 0, SEEK_CUR), 10);
	CHECK_EQ(write(fd, "!", 1), 1); /* fd's offset was 4: overwrites 'a' */
	CHECK_EQ(write(app, "g", 1), 1);
	memset(c, 0, sizeof(c));
	CHECK_EQ(pread(fd, c, sizeof(c), 0), 11);
	CHECK(memcmp(c, "0123!bcdefg", 11) == 0);
	CHECK_ERR(read(app, c, 1), EBADF); /* O_WRONLY */
	CHECK_EQ(close(app), 0);

	/* pread/pwrite leave the offset; dup shares it */
	CHECK_EQ(lseek(fd, 3, SEEK_SET), 3);
	CHECK_EQ(pwrite(fd, "XY", 2, 7), 2);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3);
	CHECK_EQ(pread(fd, c, 2, 7), 2);
	CHECK(memcmp(c, "XY", 2) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3);
	CHECK_EQ(pread(fd, c, 4, 9), 2); /* short at EOF */
	CHECK_EQ(pread(fd, c, 4, 11), 0);
	CHECK_EQ(pread(fd, c, 4, 1000), 0);
	d = dup(fd);
	CHECK(d >= 0);
	CHECK_EQ(read(d, c, 2), 2);
	CHECK(memcmp(c, "3!", 2) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5);
	CHECK_EQ(close(d), 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 11);

	/* a hole: lseek past the end, write; the gap reads as zeroes (across pages) */
	CHECK_EQ(lseek(fd, 3 * P, SEEK_END), 11 + 3 * P);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 11); /* seeking alone does not extend */
	CHECK_EQ(write(fd, "end", 3), 3);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(14 + 3 * P));
	memset(rbuf, 0xff, sizeof(rbuf));
	CHECK_EQ(pread(fd, rbuf, sizeof(rbuf), 0), 14 + 3 * P);
	CHECK(memcmp(rbuf, "0123!bcXYfg", 11) == 0);
	CHECK_EQ(first_nonzero(rbuf + 11, 3 * P), -1);
	CHECK(memcmp(rbuf + 11 + 3 * P, "end", 3) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_END), 14 + 3 * P);
	CHECK_ERR(lseek(fd, -1, SEEK_SET), EINVAL);
	CHECK_EQ(close(fd), 0);
}

static void test_unlink(void)
{
	struct stat st;
	int fd, rd;
	char c[8];

	/* unlink, then open: gone */
	fd = open(gone, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "x", 1), 1);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(unlink(gone), 0);
	CHECK_ERR(open(gone, O_RDONLY), ENOENT);
	CHECK_ERR(unlink(gone), ENOENT);
	CHECK_ERR(stat(gone, &st), ENOENT);

	/* unlinked while open: the descriptor still reads and writes it */
	fd = open(b, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	pat_fill(buf, 0, 2 * P, 7);
	CHECK_EQ(write(fd, buf, 2 * P), 2 * P);
	rd = open(b, O_RDONLY);
	CHECK(rd >= 0);
	CHECK_ERR(write(rd, "x", 1), EBADF); /* O_RDONLY */
	CHECK_ERR(pwrite(rd, "x", 1, 0), EBADF);
	CHECK_EQ(unlink(b), 0);
	CHECK_ERR(open(b, O_RDONLY), ENOENT);
	CHECK_EQ(pread(rd, rbuf, 3 * P, 0), 2 * P);
	CHECK_EQ(pat_diff(rbuf, 0, 2 * P, 7), -1);
	CHECK_EQ(pwrite(fd, "late", 4, 2 * P), 4);
	CHECK(fstat(rd, &st) == 0 && st.st_size == (off_t)(2 * P + 4));
	CHECK_EQ(pread(rd, c, 4, 2 * P), 4);
	CHECK(memcmp(c, "late", 4) == 0);
	/* a new file of the same name is another file */
	CHECK_EQ(close(fd), 0);
	fd = open(b, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0);
	CHECK_EQ(pread(rd, c, 4, 2 * P), 4); /* the old one is still there */
	CHECK_EQ(close(rd), 0);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(unlink(b), 0);
}

static void test_dirs(void)
{
	int fd;
	char c;

	CHECK_EQ(mkdir(dir, 0755), 0);
	CHECK_ERR(mkdir(dir, 0755), EEXIST);
	fd = open(inner, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "in", 2), 2);
	CHECK_EQ(close(fd), 0);
	CHECK_ERR(rmdir(dir), ENOTEMPTY);
	CHECK_ERR(rmdir(inner), ENOTDIR);
	CHECK_ERR(unlink(dir), EISDIR);
	fd = open(dir, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(read(fd, &c, 1), EISDIR);
	CHECK_ERR(write(fd, &c, 1), EBADF);
	CHECK_EQ(close(fd), 0);
	CHECK_ERR(open(dir, O_RDWR), EISDIR);
	CHECK_EQ(unlink(inner), 0);
	CHECK_EQ(rmdir(dir), 0);
	CHECK_ERR(rmdir(dir), ENOENT);
	CHECK_ERR(open(inner, O_RDONLY), ENOENT);
}

/* piece sizes that do not line up with pages */
static size_t piece(unsigned i)
{
	static const size_t sizes[] = { 1, 4095, 4097, 10000, 3 * P, 777, 8192, 12289 };

	return sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void test_big(void)
{
	unsigned long off;
	struct stat st;
	unsigned i;
	int fd, bad = 0;

	fd = open(big, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	for (off = 0, i = 0; off < BIG; off += piece(i++)) {
		size_t n = piece(i) < BIG - off ? piece(i) : BIG - off;

		pat_fill(buf, off, n, 9);
		if (write(fd, buf, n) != (ssize_t)n) {
			CHECK(!"a piece of the 1 MiB file was written whole");
			break;
		}
	}
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)BIG);
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	for (off = 0, i = 3; off < BIG;) {
		ssize_t r = read(fd, rbuf, piece(i++));

		if (r <= 0) {
			CHECK(!"read of the 1 MiB file ended early");
			break;
		}
		bad += pat_diff(rbuf, off, (size_t)r, 9) != -1;
		off += (unsigned long)r;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(off, BIG);
	CHECK_EQ(read(fd, rbuf, 1), 0);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(unlink(big), 0);
}

int main(void)
{
	long frames0 = 0, frames1;

	if (tmp_setup())
		return 1;
	tmp_path(a, sizeof(a), "ops-a");
	tmp_path(b, sizeof(b), "ops-b");
	tmp_path(gone, sizeof(gone), "ops-gone");
	tmp_path(big, sizeof(big), "ops-big");
	tmp_path(dir, sizeof(dir), "ops-dir");
	snprintf(inner, sizeof(inner), "%s/inner", dir);
	/* our own pages are all in place before counting: later changes are the files' */
	memset(buf, 1, sizeof(buf));
	memset(rbuf, 1, sizeof(rbuf));
	printf("file-ops: %s ...\n", a);
	fflush(stdout);
	if (on_faultline())
		frames0 = (long)fl_mm_now().free_frames;

	test_create_append_offsets();
	test_unlink();
	test_dirs();
	test_big();
	{ /* a huge sparse size and back: truncate must not try every page index (it once did) */
		int fd = open(b, O_RDWR | O_CREAT | O_TRUNC, 0600);

		CHECK(fd >= 0);
		CHECK_EQ(pwrite(fd, "x", 1, 4096), 1);
		CHECK_EQ(ftruncate(fd, 1L << 40), 0);
		CHECK_EQ(pwrite(fd, "y", 1, (1L << 40) - 1), 1);
		CHECK_EQ(ftruncate(fd, 0), 0);
		close(fd);
		CHECK_EQ(unlink(b), 0);
	}
	CHECK_EQ(unlink(a), 0);

	if (on_faultline()) {
		frames1 = (long)fl_mm_now().free_frames;
		if (!CHECK(frames1 >= frames0 - 4 && frames1 <= frames0 + 4))
			fprintf(stderr, "file-ops:   free frames %ld at the start, %ld once every "
				"file is gone\n", frames0, frames1);
	}
	tmp_cleanup();
	return utest_done();
}
