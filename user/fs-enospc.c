/* fs-enospc: a full file system, as Linux's ext2 has it: a user other than root stops at the
 * reserved blocks, root goes on to the last block; write() returns a short count, then -1
 * ENOSPC; what was written reads back; deleting it gives every block and inode back.
 * usage: fs-enospc DIR   (as root, DIR on a small file system of its own, nearly empty) */
#define _GNU_SOURCE
#define UTEST_NAME "fs-enospc"
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "utest.h"

#define SMALL (16 << 20) /* the largest file system this fills */
#define MAX (SMALL + (1 << 20)) /* more than such a file system can hold */
#define SMALL_FILES 20000 /* more than such a file system has inodes */

static char buf[MAX], back[65536];
static char path[4096];

/* the byte at offset i of the files seed names */
static char byte(long i, unsigned seed)
{
	return (char)((i * 7 + seed * 13) >> 3);
}

/* One write() of len bytes to the new file DIR/name, more than there is room for: a short
 * count; then the rest, to the error, whose errno goes to *err: the bytes written, or -1 if
 * the first write was not short or a second one wrote anything. */
static long fill(const char *dir, const char *name, unsigned seed, long len, int *err)
{
	long total = 0, r;
	int fd, writes = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	*err = errno;
	if (fd < 0)
		return -1;
	len = len < MAX ? len : MAX;
	for (long i = 0; i < len; i++)
		buf[i] = byte(i, seed);
	while ((r = write(fd, buf + total, (size_t)(len - total))) > 0 && total + r < len) {
		total += r;
		writes++;
	}
	*err = r < 0 ? errno : 0;
	CHECK_EQ(close(fd), 0);
	printf("fs-enospc: %s: write(%ld) -> %ld, then %s\n", name, len, total,
	       r < 0 ? strerror(*err) : "a full count");
	return writes == 1 && r < 0 ? total : -1;
}

/* DIR/name holds its size's bytes of seed's pattern */
static int intact(const char *dir, const char *name, unsigned seed)
{
	long r, at = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	while (fd >= 0 && (r = read(fd, back, sizeof(back))) > 0)
		for (long i = 0; i < r; i++, at++)
			if (back[i] != byte(at, seed)) {
				close(fd);
				return 0;
			}
	close(fd);
	return at > 0;
}

/* Files DIR/PREFIX-N of 1024 bytes (one block) each until ENOSPC: how many were made */
static int fill_small(const char *dir, const char *prefix)
{
	int fd, n = 0, err;

	while (n < SMALL_FILES) {
		snprintf(path, sizeof(path), "%s/%s-%d", dir, prefix, n);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			CHECK_EQ(errno, ENOSPC); /* no inode left: ENOSPC too */
			return n;
		}
		n++;
		err = write(fd, buf, 1024) == 1024 ? 0 : errno;
		close(fd);
		if (err) {
			CHECK_EQ(err, ENOSPC);
			return n;
		}
	}
	CHECK(!"ENOSPC within SMALL_FILES files");
	return n;
}

/* Not root: ENOSPC where the free blocks reach the reserved ones; exits 10 + the number of
 * small files made */
static void user_fill(const char *dir)
{
	struct statfs st;
	long total;
	int err, n;

	if (setgid(1000) || setuid(1000) || statfs(dir, &st))
		_exit(3);
	total = fill(dir, "user", 1, ((long)st.f_bavail + 16) * (long)st.f_bsize, &err);
	CHECK(total > 0);
	CHECK_EQ(err, ENOSPC);
	n = fill_small(dir, "user");
	printf("fs-enospc: uid 1000: %d small files\n", n);
	fflush(stdout);
	_exit(utest_fails ? 4 : 10 + n);
}

/* A store through a MAP_SHARED mapping into a hole needs a block: on a full file system the
 * fault (page_mkwrite) cannot get one and the store is SIGBUS, not data lost at writeback. Said,
 * not checked: tests/boot/ext2-write.sh checks the line, apart from the rest. */
static void mapped_store(const char *dir)
{
	int fd, status;
	char *m;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/hole", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (!CHECK(fd >= 0) || !CHECK(ftruncate(fd, 8192) == 0))
		return;
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(m != MAP_FAILED))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		m[4096] = 'x';
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		printf("fs-enospc: a store through MAP_SHARED into a hole: %s\n",
		       WTERMSIG(status) == SIGBUS ? "SIGBUS" : "another signal");
	else
		printf("fs-enospc: a store through MAP_SHARED into a hole: no signal\n");
	munmap(m, 8192);
	close(fd);
}

int main(int argc, char **argv)
{
	struct statfs s0, s;
	const char *dir = argc == 2 ? argv[1] : NULL;
	int err, status, smalls, user_smalls = 0;
	long root_total;
	pid_t pid;

	if (!dir) {
		fprintf(stderr, "usage: fs-enospc DIR\n");
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fs-enospc: root's reserved blocks need root\n");
		return 2;
	}
	if (statfs(dir, &s0) || (long long)s0.f_blocks * s0.f_bsize > SMALL) {
		fprintf(stderr, "fs-enospc: %s: not a file system of %d MiB at most\n", dir,
			SMALL >> 20);
		return 2;
	}
	CHECK(s0.f_bfree > s0.f_bavail); /* the file system has reserved blocks */
	printf("fs-enospc: before: %ld blocks of %ld, %ld free, %ld available, %ld inodes free\n",
	       (long)s0.f_blocks, (long)s0.f_bsize, (long)s0.f_bfree, (long)s0.f_bavail,
	       (long)s0.f_ffree);
	CHECK_EQ(chmod(dir, 0777), 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		user_fill(dir);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (CHECK(WIFEXITED(status) && WEXITSTATUS(status) >= 10))
		user_smalls = WEXITSTATUS(status) - 10;
	CHECK_EQ(statfs(dir, &s), 0);
	printf("fs-enospc: uid 1000 full: %ld free, %ld available\n", (long)s.f_bfree,
	       (long)s.f_bavail);
	CHECK_EQ(s.f_bavail, 0);
	CHECK_EQ(s.f_bfree, s0.f_bfree - s0.f_bavail); /* the reserved blocks, all of them */
	/* Root: into the reserved blocks, a short write, then ENOSPC; what is left, a block here
	 * and there, to files of one block each. */
	root_total = fill(dir, "root", 2, ((long)s.f_bfree + 16) * (long)s.f_bsize, &err);
	CHECK(root_total > 0);
	CHECK_EQ(err, ENOSPC);
	smalls = fill_small(dir, "root");
	CHECK_EQ(statfs(dir, &s), 0);
	printf("fs-enospc: root full: %ld free, %ld available, %d small files\n",
	       (long)s.f_bfree, (long)s.f_bavail, smalls);
	CHECK_EQ(s.f_bfree, 0);
	CHECK_EQ(s.f_bavail, 0);
	/* Full, yet what needs no new block works: an overwrite; nothing written was lost. */
	snprintf(path, sizeof(path), "%s/root", dir);
	{
		int fd = open(path, O_WRONLY);

		CHECK_EQ(pwrite(fd, buf, 4096, 0), 4096);
		CHECK_EQ(fsync(fd), 0);
		close(fd);
	}
	CHECK(intact(dir, "user", 1));
	CHECK(intact(dir, "root", 2));
	mapped_store(dir);
	/* Deleted: every block and inode back. */
	snprintf(path, sizeof(path), "%s/hole", dir);
	CHECK_EQ(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/user", dir);
	CHECK_EQ(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/root", dir);
	CHECK_EQ(unlink(path), 0);
	for (int i = 0; i < smalls + user_smalls; i++) {
		snprintf(path, sizeof(path), "%s/%s-%d", dir, i < smalls ? "root" : "user",
			 i < smalls ? i : i - smalls);
		CHECK_EQ(unlink(path), 0);
	}
	CHECK_EQ(chmod(dir, 0755), 0);
	CHECK_EQ(statfs(dir, &s), 0);
	printf("fs-enospc: after: %ld free, %ld available, %ld inodes free\n", (long)s.f_bfree,
	       (long)s.f_bavail, (long)s.f_ffree);
	CHECK_EQ(s.f_bfree, s0.f_bfree);
	CHECK_EQ(s.f_bavail, s0.f_bavail);
	CHECK_EQ(s.f_ffree, s0.f_ffree);
	return utest_done();
}
