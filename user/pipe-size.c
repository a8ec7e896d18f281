/* pipe-size: fcntl's F_GETPIPE_SZ and F_SETPIPE_SZ: a new pipe's 64 KiB, a size rounded up to a
 * power-of-two number of pages, the bytes kept across a change, EBUSY below what the pipe
 * holds, EINVAL past 2 GiB, EBADF on a file that is not a pipe, EPERM past
 * /proc/sys/fs/pipe-max-size (1 MiB) without CAP_SYS_RESOURCE (root may), that file's
 * rounding. */
#define _GNU_SOURCE
#define UTEST_NAME "pipe-size"
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define MAXSZ "/proc/sys/fs/pipe-max-size"

static unsigned char buf[70000], got[70000];

static unsigned char pattern(long i)
{
	return (unsigned char)(i * 13 + i / 4093);
}

/* n bytes of the pattern from *at into fd (all of them: a blocking pipe with room) */
static long put(int fd, long *at, long n)
{
	for (long i = 0; i < n; i++)
		buf[i] = pattern(*at + i);
	*at += n;
	return write(fd, buf, (size_t)n);
}

/* n bytes from fd, the pattern's from *at on */
static int take(int fd, long *at, long n)
{
	long r = read(fd, got, (size_t)n);
	int ok = r == n;

	for (long i = 0; ok && i < n; i++)
		ok = got[i] == pattern(*at + i);
	*at += n;
	return ok;
}

static void sizes(void)
{
	int p[2], n = -1;
	long w = 0, r = 0;

	if (!CHECK(pipe(p) == 0))
		return;
	CHECK_EQ(fcntl(p[0], F_GETPIPE_SZ), 65536);
	CHECK_EQ(fcntl(p[1], F_GETPIPE_SZ), 65536);
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 0), 4096); /* at least a page */
	CHECK_EQ(fcntl(p[0], F_GETPIPE_SZ), 4096);    /* the pipe's, either end */
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 5000), 8192);
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 65537), 131072);
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 1048576), 1048576);
	CHECK_ERR(syscall(SYS_fcntl, p[1], F_SETPIPE_SZ, 0x80000001L), EINVAL);
	CHECK_EQ(fcntl(p[1], F_GETPIPE_SZ), 1048576); /* unchanged by the failure */
	/* the bytes stay across changes, also where the ring had wrapped */
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 65536), 65536);
	CHECK_EQ(put(p[1], &w, 60000), 60000);
	CHECK(take(p[0], &r, 50000));
	CHECK_EQ(put(p[1], &w, 30000), 30000); /* past the ring's end */
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 131072), 131072);
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 40000);
	CHECK_EQ(put(p[1], &w, 60000), 60000); /* room a 64 KiB pipe lacked */
	CHECK(take(p[0], &r, 70000));
	CHECK(take(p[0], &r, 30000));
	/* shrinking: not below the pages the bytes take */
	CHECK_EQ(put(p[1], &w, 3 * 4096), 3 * 4096);
	CHECK_ERR(fcntl(p[1], F_SETPIPE_SZ, 8192), EBUSY);
	CHECK_EQ(fcntl(p[1], F_GETPIPE_SZ), 131072);
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 16384), 16384); /* control: room for them */
	CHECK(take(p[0], &r, 3 * 4096));
	/* the capacity is what a write finds room for */
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
	CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
	CHECK_EQ(put(p[1], &w, 8192), 4096);
	CHECK_ERR(write(p[1], "x", 1), EAGAIN);
	close(p[0]);
	close(p[1]);
}

static void not_pipes(void)
{
	int fd = open("/dev/null", O_RDWR), p[2];

	CHECK_ERR(fcntl(fd, F_GETPIPE_SZ), EBADF);
	CHECK_ERR(fcntl(fd, F_SETPIPE_SZ, 4096), EBADF);
	CHECK_ERR(fcntl(-1, F_GETPIPE_SZ), EBADF);
	close(fd);
	if (CHECK(pipe(p) == 0)) { /* control */
		CHECK_EQ(fcntl(p[0], F_GETPIPE_SZ), 65536);
		close(p[0]);
		close(p[1]);
	}
}

/* Whether this process has CAP_SYS_RESOURCE (bit 24 of /proc/self/status's CapEff): root in a
 * container may lack it. */
static int has_sys_resource(void)
{
	static char st[16384];
	char *l = utest_slurp("/proc/self/status", st, sizeof(st)) > 0 ? strstr(st, "CapEff:") : 0;

	return l && (strtoull(l + 7, NULL, 16) >> 24 & 1);
}

/* A child as nobody: past pipe-max-size EPERM, up to it allowed; root (with CAP_SYS_RESOURCE)
 * past it too. */
static void limits(void)
{
	int p[2], st = -1;
	pid_t pid;

	CHECK_EQ(utest_sysctl(MAXSZ), 1048576);
	if (!CHECK(pipe(p) == 0))
		return;
	pid = fork();
	if (pid == 0) {
		int ok = setuid(65534) == 0;

		errno = 0;
		ok = ok && fcntl(p[1], F_SETPIPE_SZ, 2097152) == -1 && errno == EPERM;
		ok = ok && fcntl(p[1], F_SETPIPE_SZ, 1048576) == 1048576;
		/* shrinking is always allowed */
		ok = ok && fcntl(p[1], F_SETPIPE_SZ, 4096) == 4096;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(fcntl(p[1], F_GETPIPE_SZ), 4096); /* the child's changes: one pipe */
	if (has_sys_resource())
		CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 2097152), 2097152);
	else
		CHECK_ERR(fcntl(p[1], F_SETPIPE_SZ, 2097152), EPERM);
	close(p[0]);
	close(p[1]);
	/* the file rounds as F_SETPIPE_SZ does */
	CHECK_EQ(utest_sysctl_write(MAXSZ, "5000"), 0);
	CHECK_EQ(utest_sysctl(MAXSZ), 8192);
	CHECK_EQ(utest_sysctl_write(MAXSZ, "-1"), EINVAL);
	CHECK_EQ(utest_sysctl_write(MAXSZ, "1048576"), 0);
	CHECK_EQ(utest_sysctl(MAXSZ), 1048576);
}

int main(void)
{
	sizes();
	not_pipes();
	limits();
	return utest_done();
}
