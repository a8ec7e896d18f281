/* vector-io: readv, writev, preadv, pwritev, preadv2 and pwritev2 as Linux answers them: the
 * segments filled and emptied in order, the file position moved or not, RWF_* flags, a pipe's
 * readv taking what is there, partial transfers at a bad segment, and the errors. */
#define _GNU_SOURCE
#define UTEST_NAME "vector-io"
#include "utest.h"
#include "filetest.h"
#include <sys/syscall.h>
#include <signal.h>
#include <sys/uio.h>

#ifndef SYS_preadv2
#define SYS_preadv2 327
#define SYS_pwritev2 328
#endif
#define RWF_HIPRI_ 0x01
#define RWF_DSYNC_ 0x02
#define RWF_APPEND_ 0x10
#define RWF_NOWAIT_ 0x08
#define RWF_NOAPPEND_ 0x20
#define RWF_NOSIGNAL_ 0x100
#define RWF_UNKNOWN 0x80000000L /* no such flag */
#define KERNEL_ADDR 0xffff800000000000UL

/* raw calls: the offset in one register (x86-64), the high half 0 */
static long rv(int fd, const struct iovec *iov, long cnt)
{
	return syscall(SYS_readv, fd, iov, cnt);
}

static long wv(int fd, const struct iovec *iov, long cnt)
{
	return syscall(SYS_writev, fd, iov, cnt);
}

static long prv(int fd, const struct iovec *iov, long cnt, long off)
{
	return syscall(SYS_preadv, fd, iov, cnt, off, 0L);
}

static long pwv(int fd, const struct iovec *iov, long cnt, long off)
{
	return syscall(SYS_pwritev, fd, iov, cnt, off, 0L);
}

static long prv2(int fd, const struct iovec *iov, long cnt, long off, long flags)
{
	return syscall(SYS_preadv2, fd, iov, cnt, off, 0L, flags);
}

static long pwv2(int fd, const struct iovec *iov, long cnt, long off, long flags)
{
	return syscall(SYS_pwritev2, fd, iov, cnt, off, 0L, flags);
}

static long pos(int fd)
{
	return lseek(fd, 0, SEEK_CUR);
}

/* writev gathers, readv scatters, both at the file position, which moves */
static void gather_scatter(int fd)
{
	char a[4] = "abc", b[8] = "defgh", c[3], d[10];
	struct iovec w[3] = { { a, 3 }, { NULL, 0 }, { b, 5 } };
	struct iovec r[2] = { { c, 3 }, { d, 10 } };

	CHECK_EQ(wv(fd, w, 3), 8);
	CHECK_EQ(pos(fd), 8);
	CHECK_EQ(lseek(fd, 1, SEEK_SET), 1);
	memset(d, 0, sizeof(d));
	CHECK_EQ(rv(fd, r, 2), 7); /* short: the end of the file */
	CHECK(memcmp(c, "bcd", 3) == 0 && strcmp(d, "efgh") == 0);
	CHECK_EQ(pos(fd), 8);
	CHECK_EQ(rv(fd, r, 2), 0); /* at the end */
	CHECK_EQ(rv(fd, r, 0), 0);
	CHECK_EQ(wv(fd, w, 0), 0);
}

/* preadv and pwritev at an offset, the position left alone */
static void at_offset(int fd)
{
	char x[2] = "XY", y[6] = "", z[2];
	struct iovec w[2] = { { x, 2 }, { x, 1 } };
	struct iovec r[2] = { { z, 2 }, { y, 5 } };

	CHECK_EQ(lseek(fd, 2, SEEK_SET), 2);
	CHECK_EQ(pwv(fd, w, 2, 4), 3); /* abcdXYXh */
	CHECK_EQ(pos(fd), 2);
	CHECK_EQ(prv(fd, r, 2, 3), 5);
	CHECK(memcmp(z, "dX", 2) == 0 && strcmp(y, "YXh") == 0);
	CHECK_EQ(pos(fd), 2);
	CHECK_EQ(pwv(fd, w, 1, 10), 2); /* past the end: a hole of 2 */
	CHECK_EQ(lseek(fd, 0, SEEK_END), 12);
	CHECK_EQ(prv(fd, r, 2, 100), 0);
}

/* preadv2/pwritev2: -1 is the file position, flags as Linux takes them */
static void v2(int fd)
{
	char buf[4], k[1] = "K", e[1] = "E";
	struct iovec r = { buf, 4 }, wk = { k, 1 }, we = { e, 1 };

	CHECK_EQ(lseek(fd, 1, SEEK_SET), 1);
	CHECK_EQ(prv2(fd, &r, 1, -1, 0), 4);
	CHECK(memcmp(buf, "bcdX", 4) == 0);
	CHECK_EQ(pos(fd), 5);
	CHECK_EQ(prv2(fd, &r, 1, 0, RWF_HIPRI_ | RWF_NOSIGNAL_), 4); /* accepted, hints */
	CHECK(memcmp(buf, "abcd", 4) == 0);
	CHECK_EQ(pos(fd), 5);
	CHECK_EQ(pwv2(fd, &wk, 1, -1, RWF_DSYNC_), 1); /* at 5: abcdXKXh */
	CHECK_EQ(pos(fd), 6);
	CHECK_EQ(pwv2(fd, &we, 1, 0, RWF_APPEND_), 1); /* at the end, not at 0 */
	CHECK_EQ(pos(fd), 6);
	CHECK_EQ(lseek(fd, 0, SEEK_END), 13);
	CHECK_EQ(prv2(fd, &r, 1, 9, 0), 4);
	CHECK(memcmp(buf, "\0XYE", 4) == 0);
	CHECK_EQ(prv2(fd, &r, 1, 4, 0), 4);
	CHECK(memcmp(buf, "XKXh", 4) == 0);
	CHECK_ERR(prv2(fd, &r, 1, 0, RWF_UNKNOWN), EOPNOTSUPP);
	CHECK_ERR(pwv2(fd, &wk, 1, 0, RWF_UNKNOWN), EOPNOTSUPP);
	CHECK_ERR(prv2(fd, &r, 1, -1, RWF_UNKNOWN), EOPNOTSUPP);
	/* nothing to move: the flags are not looked at */
	CHECK_EQ(prv2(fd, &r, 0, 0, RWF_UNKNOWN), 0);
	CHECK_ERR(prv2(fd, &r, 1, -2, 0), EINVAL);
	CHECK_ERR(pwv2(fd, &wk, 1, -2, 0), EINVAL);
}

/* O_APPEND: RWF_NOAPPEND writes at the offset given */
static void noappend(const char *path)
{
	int fd = open(path, O_RDWR | O_APPEND);
	char n[1] = "N", buf[1];
	struct iovec w = { n, 1 }, r = { buf, 1 };

	CHECK(fd >= 0);
	CHECK_EQ(pwv2(fd, &w, 1, 0, RWF_NOAPPEND_), 1);
	CHECK_EQ(prv2(fd, &r, 1, 0, 0), 1);
	CHECK_EQ(buf[0], 'N');
	CHECK_EQ(lseek(fd, 0, SEEK_END), 13);
	CHECK_EQ(pwv2(fd, &w, 1, 0, 0), 1); /* O_APPEND: at the end */
	CHECK_EQ(lseek(fd, 0, SEEK_END), 14);
	close(fd);
}

/* the iovec's errors, in Linux's order */
static void errors(int fd, const char *path)
{
	static struct iovec many[1025];
	char buf[8], *none;
	struct iovec iov[2] = { { buf, 4 }, { buf + 4, 4 } };
	int ro = open(path, O_RDONLY), p[2];

	for (int i = 0; i < 1025; i++)
		many[i] = (struct iovec){ buf, 0 };
	CHECK_EQ(prv(fd, many, 1024, 0), 0); /* UIO_MAXIOV is allowed */
	CHECK_ERR(prv(fd, many, 1025, 0), EINVAL);
	CHECK_ERR(wv(fd, many, 1025), EINVAL);
	CHECK_ERR(rv(fd, (struct iovec *)8, 1), EFAULT);
	iov[1].iov_len = (size_t)-1;
	CHECK_ERR(prv(fd, iov, 2, 0), EINVAL);
	iov[1] = (struct iovec){ (void *)KERNEL_ADDR, 4 };
	CHECK_ERR(prv(fd, iov, 2, 0), EFAULT);
	CHECK_ERR(prv(fd, iov, 2, -1), EINVAL); /* the offset first */
	CHECK_ERR(pwv(fd, iov, 2, -5), EINVAL);
	CHECK_ERR(prv(-1, iov, 1, -1), EINVAL);
	CHECK_ERR(prv(-1, iov, 1, 0), EBADF);
	CHECK_ERR(rv(99, iov, 1), EBADF);
	CHECK_ERR(wv(ro, iov, 1), EBADF);
	CHECK_ERR(wv(ro, many, 1025), EBADF); /* the mode before the iovec */
	CHECK_ERR(pwv(ro, iov, 1, 0), EBADF);
	/* a segment that faults: what came before it */
	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(none != MAP_FAILED);
	iov[1] = (struct iovec){ none, 4 };
	CHECK_EQ(prv(fd, iov, 2, 0), 4);
	CHECK_EQ(pwv(fd, iov, 2, 0), 4);
	iov[0] = (struct iovec){ none, 4 };
	CHECK_ERR(prv(fd, iov, 1, 0), EFAULT);
	CHECK_ERR(pwv(fd, iov, 1, 0), EFAULT);
	munmap(none, 4096);
	/* pipes: no offset (ESPIPE), but -1 with preadv2 is the pipe's stream */
	CHECK_EQ(pipe(p), 0);
	iov[0] = (struct iovec){ buf, 4 };
	iov[1] = (struct iovec){ buf + 4, 4 };
	CHECK_ERR(prv(p[0], iov, 2, 0), ESPIPE);
	CHECK_ERR(pwv(p[1], iov, 2, 0), ESPIPE);
	CHECK_ERR(prv2(p[0], iov, 2, 0, 0), ESPIPE);
	CHECK_EQ(write(p[1], "12345", 5), 5);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(prv2(p[0], iov, 2, -1, 0), 5); /* what is there, without waiting for more */
	CHECK(memcmp(buf, "12345", 5) == 0);
	CHECK_EQ(pwv2(p[1], iov, 2, -1, 0), 8);
	CHECK_EQ(rv(p[0], iov, 1), 4);
	CHECK_EQ(rv(p[0], iov, 2), 4);
	close(p[1]);
	CHECK_EQ(rv(p[0], iov, 2), 0);
	close(p[0]);
	close(ro);
}

/* a pipe's RWF_NOWAIT (EAGAIN, not a sleep) and RWF_NOSIGNAL (EPIPE without SIGPIPE) */
static void pipe_flags(void)
{
	char buf[4] = "abc";
	struct iovec iov = { buf, 4 };
	sigset_t pipe_set, pending;
	int p[2];

	CHECK_EQ(pipe(p), 0);
	CHECK_ERR(prv2(p[0], &iov, 1, -1, RWF_NOWAIT_), EAGAIN);
	CHECK_EQ(pwv2(p[1], &iov, 1, -1, RWF_NOWAIT_), 4);
	CHECK_EQ(prv2(p[0], &iov, 1, -1, RWF_NOWAIT_), 4);
	CHECK_EQ(fcntl(p[0], F_GETFL) & O_NONBLOCK, 0); /* for the call alone */
	CHECK_EQ(prv2(p[0], &iov, 0, -1, RWF_NOWAIT_), 0);
	close(p[0]);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	CHECK_ERR(pwv2(p[1], &iov, 1, -1, RWF_NOSIGNAL_), EPIPE);
	sigpending(&pending);
	CHECK(!sigismember(&pending, SIGPIPE));
	CHECK_ERR(pwv2(p[1], &iov, 1, -1, 0), EPIPE); /* the control: this one signals */
	sigpending(&pending);
	CHECK(sigismember(&pending, SIGPIPE));
	signal(SIGPIPE, SIG_IGN); /* the pending one goes */
	sigprocmask(SIG_UNBLOCK, &pipe_set, NULL);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

int main(void)
{
	char path[64];
	int fd;

	if (tmp_setup())
		return 1;
	tmp_path(path, sizeof(path), "vector-io");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	gather_scatter(fd);
	at_offset(fd);
	v2(fd);
	noappend(path);
	errors(fd, path);
	pipe_flags();
	close(fd);
	unlink(path);
	tmp_cleanup();
	return utest_done();
}
