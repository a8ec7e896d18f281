/* fs-tree: builds a deterministic tree (files of every block-map depth, holes, 200 names in one
 * directory, symbolic links, a FIFO, renames, unlinks, truncates, owners and fixed times) under
 * a directory, and prints a sorted manifest of a tree, for tests/boot/ext2-write.sh.
 * usage: fs-tree build DIR     the tree, every file read back (DIR is emptied first)
 *        fs-tree mmap DIR      DIR/mapped written through a MAP_SHARED mapping and msync
 *        fs-tree manifest DIR  one line per name, sorted: path type mode uid gid links size
 *                              mtime CRC-32 target ('-' where a field does not apply) */
#define _GNU_SOURCE
#define UTEST_NAME "fs-tree"
#include <dirent.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "utest.h"

#define KIB 1024L
/* a target longer than i_block's 60 bytes: a slow symbolic link, in a block of its own */
#define LONG_TARGET "./././././././././././././././././././././././././././a/b/c/d/e/deep.txt"

/* DIR/NAME in one of two static buffers, taken in turn: a call may name two paths */
static const char *at(const char *dir, const char *name)
{
	static char buf[2][4096];
	static int next;

	next ^= 1;
	snprintf(buf[next], sizeof(buf[next]), "%s/%s", dir, name);
	return buf[next];
}

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV_START 0xcbf29ce484222325ULL

/* n bytes of the pattern named seed: the same on every run and every kernel */
static void pattern(unsigned char *buf, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (unsigned char)(x >> 24);
	}
}

static unsigned char data[400 * KIB], back[400 * KIB];

/* pwrite n bytes of pattern seed at off into path (created 0644 if missing) */
static void put(const char *path, off_t off, size_t n, uint64_t seed, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);

	pattern(data, n, seed);
	CHECK(fd >= 0);
	CHECK_EQ(pwrite(fd, data, n, off), (long)n);
	CHECK_EQ(close(fd), 0);
}

/* the n bytes at off of path are pattern seed (seed 0: zeros) */
static int same(const char *path, off_t off, size_t n, uint64_t seed)
{
	int fd = open(path, O_RDONLY);
	long r;

	if (seed)
		pattern(data, n, seed);
	else
		memset(data, 0, n);
	r = fd < 0 ? -1 : pread(fd, back, n, off);
	if (fd >= 0)
		close(fd);
	if (r != (long)n || memcmp(data, back, n)) {
		fprintf(stderr, "fs-tree: %s: %zu bytes at %lld: read %ld, not what was written\n",
			path, n, (long long)off, r);
		return 0;
	}
	return 1;
}

static void sizes(const char *top)
{
	static const long size[] = { 0, 1, 1023, 1024, 4095, 4097, 70 * KIB, 300 * KIB };
	char name[64];

	CHECK_EQ(mkdir(at(top, "files"), 0755), 0);
	for (unsigned i = 0; i < sizeof(size) / sizeof(size[0]); i++) {
		snprintf(name, sizeof(name), "files/size-%ld", size[i]);
		put(at(top, name), 0, (size_t)size[i], 100 + i, O_EXCL);
		CHECK(same(at(top, name), 0, (size_t)size[i], 100 + i));
	}
	/* a hard link: one inode, two names */
	CHECK_EQ(link(at(top, "files/size-1023"), at(top, "hardlink")), 0);
}

/* Holes before, between and after blocks reached through the direct, indirect and double
 * indirect blocks of 1 and 4 KiB block file systems; the last one ends in a hole. */
static void sparse(const char *top)
{
	const char *p = at(top, "sparse");
	int fd;

	put(p, 0, 5, 200, O_EXCL);
	put(p, 300 * KIB, 5000, 201, 0);
	put(p, 6 * KIB * KIB + 100, 3000, 202, 0);
	fd = open(p, O_WRONLY);
	CHECK_EQ(ftruncate(fd, 7 * KIB * KIB), 0);
	close(fd);
	CHECK(same(p, 0, 5, 200) && same(p, 5, 300 * KIB - 5, 0));
	CHECK(same(p, 300 * KIB, 5000, 201) && same(p, 6 * KIB * KIB + 100, 3000, 202));
	CHECK(same(p, 7 * KIB * KIB - 200 * KIB, 200 * KIB, 0));
}

static void dirs(const char *top)
{
	char name[128];

	CHECK_EQ(mkdir(at(top, "a"), 0755), 0);
	CHECK_EQ(mkdir(at(top, "a/b"), 0750), 0);
	CHECK_EQ(mkdir(at(top, "a/b/c"), 0755), 0);
	CHECK_EQ(mkdir(at(top, "a/b/c/d"), 0700), 0);
	CHECK_EQ(mkdir(at(top, "a/b/c/d/e"), 0755), 0);
	put(at(top, "a/b/c/d/e/deep.txt"), 0, 33, 300, O_EXCL);
	/* 233 names, 33 of them unlinked again: holes in the directory's blocks */
	CHECK_EQ(mkdir(at(top, "many"), 0755), 0);
	for (int i = 0; i < 233; i++) {
		snprintf(name, sizeof(name), "many/a-name-of-some-length-%03d", i);
		put(at(top, name), 0, (size_t)(i % 5) * 100, 400 + i, O_EXCL);
	}
	for (int i = 3; i < 233; i += 7) {
		snprintf(name, sizeof(name), "many/a-name-of-some-length-%03d", i);
		CHECK_EQ(unlink(at(top, name)), 0);
	}
	for (int i = 0; i < 233; i += 37) {
		snprintf(name, sizeof(name), "many/a-name-of-some-length-%03d", i);
		if (i % 7 != 3)
			CHECK(same(at(top, name), 0, (size_t)(i % 5) * 100, 400 + i));
	}
	/* a directory of files made and taken away again, then a directory left empty */
	CHECK_EQ(mkdir(at(top, "gone"), 0755), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "gone/file-%d", i);
		put(at(top, name), 0, 2000, 500 + i, O_EXCL);
	}
	CHECK_ERR(rmdir(at(top, "gone")), ENOTEMPTY);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "gone/file-%d", i);
		CHECK_EQ(unlink(at(top, name)), 0);
	}
	CHECK_EQ(rmdir(at(top, "gone")), 0);
	CHECK_EQ(mkdir(at(top, "empty-dir"), 0755), 0);
}

static void links_fifo(const char *top)
{
	char target[256];

	CHECK_EQ(symlink("a/b/c/d/e/deep.txt", at(top, "fast-link")), 0);
	CHECK_EQ(symlink(LONG_TARGET, at(top, "slow-link")), 0);
	CHECK_EQ(symlink("nowhere", at(top, "a/dangling")), 0);
	CHECK_EQ(readlink(at(top, "slow-link"), target, sizeof(target)), strlen(LONG_TARGET));
	CHECK(same(at(top, "slow-link"), 0, 33, 300)); /* followed to deep.txt */
	CHECK_EQ(mkfifo(at(top, "fifo"), 0640), 0);
}

static void renames(const char *top)
{
	put(at(top, "old-a"), 0, 3000, 600, O_EXCL);
	put(at(top, "old-b"), 0, 5000, 601, O_EXCL);
	CHECK_EQ(rename(at(top, "old-a"), at(top, "old-b")), 0); /* over an existing file */
	CHECK_ERR(access(at(top, "old-a"), F_OK), ENOENT);
	CHECK(same(at(top, "old-b"), 0, 3000, 600));
	CHECK_EQ(mkdir(at(top, "moving"), 0755), 0);
	CHECK_EQ(mkdir(at(top, "moving/sub"), 0755), 0);
	put(at(top, "moving/sub/inside"), 0, 1500, 602, O_EXCL);
	/* a directory to another parent: its ".." changes, the link counts of both parents */
	CHECK_EQ(rename(at(top, "moving"), at(top, "a/b/moved")), 0);
	CHECK(same(at(top, "a/b/moved/sub/inside"), 0, 1500, 602));
	CHECK_EQ(rename(at(top, "a/b/moved/sub/inside"), at(top, "files/renamed")), 0);
	CHECK_EQ(mkdir(at(top, "victim"), 0755), 0);
	CHECK_EQ(rename(at(top, "a/b/moved/sub"), at(top, "victim")), 0); /* over an empty dir */
}

static void truncates(const char *top)
{
	const char *p;
	int fd;

	/* down: the indirect and double indirect blocks are freed, the tail kept */
	p = at(top, "trunc-down");
	put(p, 0, 300 * KIB, 700, O_EXCL);
	CHECK_EQ(truncate(p, 5000), 0);
	/* up: a hole after the old end, which must read as zeros */
	p = at(top, "trunc-up");
	put(p, 0, 1000, 701, O_EXCL);
	CHECK_EQ(truncate(p, 100000), 0);
	CHECK(same(p, 0, 1000, 701) && same(p, 1000, 99000, 0));
	/* down into the middle of a block, then up: the block's old tail reads as zeros */
	p = at(top, "trunc-downup");
	put(p, 0, 70 * KIB, 702, O_EXCL);
	fd = open(p, O_RDWR);
	CHECK_EQ(ftruncate(fd, 100), 0);
	CHECK_EQ(ftruncate(fd, 20000), 0);
	close(fd);
	CHECK(same(p, 0, 100, 702) && same(p, 100, 19900, 0));
}

static void attrs_append(const char *top)
{
	char line[64];
	long total = 0;
	int fd;

	put(at(top, "owned"), 0, 2048, 800, O_EXCL);
	put(at(top, "private"), 0, 10, 801, O_EXCL);
	if (geteuid() == 0) {
		/* the high halves of uid and gid, then the set-user-ID bit chown would drop */
		CHECK_EQ(chown(at(top, "owned"), 70000, 80000), 0);
		CHECK_EQ(chown(at(top, "private"), 1000, 1000), 0);
		CHECK_EQ(lchown(at(top, "fast-link"), 1234, 5678), 0);
	} else {
		fprintf(stderr, "fs-tree: not root: the owners stay the caller's\n");
	}
	CHECK_EQ(chmod(at(top, "owned"), 04750), 0);
	CHECK_EQ(chmod(at(top, "private"), 0600), 0);
	CHECK_EQ(chmod(at(top, "a/b/c"), 01777), 0);
	fd = open(at(top, "append"), O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
	CHECK(fd >= 0);
	for (int i = 0; i < 300; i++) {
		int n = snprintf(line, sizeof(line), "line %d of the appended file\n", i);

		lseek(fd, 0, SEEK_SET); /* O_APPEND writes at the end all the same */
		CHECK_EQ(write(fd, line, (size_t)n), n);
		total += n;
	}
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), total);
	close(fd);
}

/* path relative to the top, for the times and the manifest */
static const char *rel(const char *top, const char *path)
{
	size_t n = strlen(top);

	return path[n] ? path + n + 1 : ".";
}

/* Every name under path (itself last) gets times from its relative name: fixed ones, the same
 * on every kernel; a directory's after its entries', whose changes would move them. */
static void fix_times(const char *top, const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[4096];
	const char *r = rel(top, path);
	time_t t = (time_t)(1000000000 + fnv(FNV_START, (const void *)r, strlen(r)) % 500000000);
	struct timespec ts[2] = { { t + 17, 0 }, { t, 0 } };

	CHECK_EQ(lstat(path, &st), 0);
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) /* one inode, several names: one time */
		ts[0].tv_sec = (ts[1].tv_sec = 1100000000) + 17;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				fix_times(top, sub);
			}
		closedir(d);
	}
	CHECK_EQ(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

/* everything under path, path itself too */
static void remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[4096];

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		CHECK_EQ(unlink(path), 0);
		return;
	}
	if ((d = opendir(path))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				remove_tree(sub);
			}
		closedir(d);
	}
	CHECK_EQ(rmdir(path), 0);
}

/* The separable part: stores through a MAP_SHARED mapping of a file with a hole and a partial
 * last page, msync(MS_SYNC), then read() must give what was stored. */
static void mapped(const char *top)
{
	char path[4096];
	int fd;
	size_t len = 3 * 4096 + 1808; /* the last page partial */
	unsigned char *m;

	snprintf(path, sizeof(path), "%s/mapped", top);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	pattern(data, 4096, 900);
	CHECK_EQ(write(fd, data, 4096), 4096);
	CHECK_EQ(ftruncate(fd, (off_t)len), 0); /* a hole: the stores must allocate its blocks */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(m != MAP_FAILED))
		return;
	pattern(data, len, 901);
	memcpy(m + 100, data, len - 100);
	CHECK_EQ(msync(m, len, MS_SYNC), 0);
	CHECK_EQ(munmap(m, len), 0);
	CHECK_EQ(close(fd), 0);
	CHECK(same(path, 100, len - 100, 901));
	pattern(data, 100, 900);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, back, 100, 0) == 100 && !memcmp(back, data, 100));
	close(fd);
}

struct line {
	char text[512];
};
static struct line *lines;
static int nlines, cap;

static void manifest_walk(const char *top, const char *path)
{
	struct stat st;
	char kind = '?', size[32] = "-", sum[20] = "-", target[300] = "-", sub[4096];
	DIR *d;
	struct dirent *e;

	if (!CHECK(lstat(path, &st) == 0))
		return;
	if (S_ISREG(st.st_mode)) {
		uint32_t h = 0;
		int fd = open(path, O_RDONLY);
		long n;

		kind = 'f';
		CHECK(fd >= 0);
		while (fd >= 0 && (n = read(fd, back, sizeof(back))) > 0)
			h = utest_crc32(h, back, (size_t)n);
		close(fd);
		snprintf(sum, sizeof(sum), "%08x", h);
		snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	} else if (S_ISLNK(st.st_mode)) {
		long n = readlink(path, target, sizeof(target) - 1);

		kind = 'l';
		target[n > 0 ? n : 0] = '\0';
		snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	} else if (S_ISFIFO(st.st_mode)) {
		kind = 'p';
		snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	} else if (S_ISDIR(st.st_mode)) {
		kind = 'd'; /* its size is the file system's business */
	}
	if (nlines == cap) {
		cap = cap ? 2 * cap : 256;
		lines = realloc(lines, (size_t)cap * sizeof(*lines));
	}
	snprintf(lines[nlines++].text, sizeof(lines->text), "%s %c %04o %u %u %lu %s %lld %s %s",
		 rel(top, path), kind, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
		 (unsigned)st.st_gid, (unsigned long)st.st_nlink, size, (long long)st.st_mtime,
		 sum, target);
	if (kind == 'd' && (d = opendir(path))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				manifest_walk(top, sub);
			}
		closedir(d);
	}
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

int main(int argc, char **argv)
{
	const char *top = argc == 3 ? argv[2] : NULL;

	if (!top || (strcmp(argv[1], "build") && strcmp(argv[1], "mmap") &&
		     strcmp(argv[1], "manifest"))) {
		fprintf(stderr, "usage: fs-tree build|mmap|manifest DIR\n");
		return 2;
	}
	umask(022);
	if (!strcmp(argv[1], "manifest")) {
		manifest_walk(top, top);
		qsort(lines, (size_t)nlines, sizeof(*lines), by_text);
		for (int i = 0; i < nlines; i++)
			printf("%s\n", lines[i].text);
		return utest_fails ? 1 : 0;
	}
	if (!strcmp(argv[1], "build")) {
		remove_tree(top);
		CHECK_EQ(mkdir(top, 0755), 0);
		sizes(top);
		sparse(top);
		dirs(top);
		links_fifo(top);
		renames(top);
		truncates(top);
		attrs_append(top);
	} else {
		mapped(top);
	}
	fix_times(top, top);
	return utest_done();
}
