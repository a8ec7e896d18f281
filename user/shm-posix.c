/* shm-posix: POSIX shared memory (shm_open, ftruncate, mmap, shm_unlink) on the tmpfs at
 * /dev/shm: sizes, sharing with a child through the name and through the mapping, SIGBUS past
 * the end, read/write agreeing with the mapping, and the errors. Checked against Linux. */
#define _GNU_SOURCE
#define UTEST_NAME "shm-posix"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define PG	    4096
#define NAME	    "/fl-shm-posix-test"
#define TMPFS_MAGIC 0x01021994

static sigjmp_buf env;

static void on_sigbus(int sig)
{
	siglongjmp(env, sig);
}

/* Read p[0]: its value, or -SIGBUS if the read raised SIGBUS. */
static int probe(volatile unsigned char *p)
{
	int sig = sigsetjmp(env, 1);

	if (sig)
		return -sig;
	return p[0];
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile unsigned char *p;
	struct statfs sfs;
	struct stat st;
	char buf[8];
	int fd, fd2, status;

	sigaction(SIGBUS, &sa, NULL);
	CHECK_EQ(statfs("/dev/shm", &sfs), 0);
	CHECK_EQ(sfs.f_type, TMPFS_MAGIC);
	CHECK_EQ(stat("/dev/shm", &st), 0);
	CHECK_EQ(st.st_mode & 07777, 01777);

	shm_unlink(NAME);
	fd = shm_open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC); /* shm_open always sets it */
	CHECK_ERR(shm_open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_size, 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(ftruncate(fd, 3 * PG), 0);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_size, 3 * PG);

	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return utest_done();
	CHECK_EQ(probe(p + 2 * PG), 0);	      /* new pages are zeroes */
	CHECK_EQ(probe(p + 3 * PG), -SIGBUS); /* past the end of the object */
	p[PG] = 'x';
	CHECK_EQ(pread(fd, buf, 1, PG), 1);
	CHECK_EQ(buf[0], 'x');
	CHECK_EQ(pwrite(fd, "y", 1, 2 * PG + 5), 1);
	CHECK_EQ(p[2 * PG + 5], 'y');

	/* A child opens the same name and writes through its own mapping. */
	if (fork() == 0) {
		int cfd = shm_open(NAME, O_RDWR, 0);
		volatile unsigned char *c =
			cfd < 0 ? MAP_FAILED
				: mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);

		if (c == MAP_FAILED || c[PG] != 'x')
			_exit(1);
		c[0] = 'c';
		_exit(0);
	}
	CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(p[0], 'c');

	/* Shrinking: the cut pages are gone from the mapping, growing brings zeroes back. */
	CHECK_EQ(ftruncate(fd, PG), 0);
	CHECK_EQ(probe(p + PG), -SIGBUS);
	CHECK_EQ(ftruncate(fd, 3 * PG), 0);
	CHECK_EQ(probe(p + PG), 0);
	CHECK_EQ(p[0], 'c');

	/* Unlinked: the name goes, the object lives while mapped or open. */
	CHECK_EQ(shm_unlink(NAME), 0);
	CHECK_ERR(shm_unlink(NAME), ENOENT);
	CHECK_ERR(shm_open(NAME, O_RDWR, 0), ENOENT);
	CHECK_EQ(p[0], 'c');
	close(fd);
	CHECK_EQ(p[2 * PG + 5], 0); /* cut by the shrink, zeroes since */
	p[2 * PG] = 1;
	munmap((void *)p, 4 * PG);

	/* The errors. */
	CHECK_ERR(shm_open("/fl-no-such-shm", O_RDONLY, 0), ENOENT);
	CHECK_ERR(shm_open("/a/b", O_RDWR | O_CREAT, 0600), EINVAL); /* musl: no '/' inside */
	fd = shm_open(NAME, O_RDONLY | O_CREAT, 0400);
	CHECK(fd >= 0);
	CHECK_ERR(ftruncate(fd, PG), EINVAL); /* not open for writing */
	CHECK(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EACCES);
	close(fd);
	/* A link there is not followed (musl opens with O_NOFOLLOW). */
	CHECK_EQ(symlink("/dev/null", "/dev/shm/fl-shm-link"), 0);
	CHECK_ERR(shm_open("/fl-shm-link", O_RDWR, 0), ELOOP);
	CHECK_EQ(unlink("/dev/shm/fl-shm-link"), 0);
	CHECK_EQ(shm_unlink(NAME), 0);

	/* Two descriptors opened separately on one object see one size. */
	fd = shm_open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	fd2 = shm_open(NAME, O_RDWR, 0);
	CHECK(fd >= 0 && fd2 >= 0);
	CHECK_EQ(write(fd, "abc", 3), 3);
	CHECK_EQ(read(fd2, buf, 8), 3);
	CHECK_EQ(memcmp(buf, "abc", 3), 0);
	close(fd);
	close(fd2);
	CHECK_EQ(shm_unlink(NAME), 0);
	return utest_done();
}
