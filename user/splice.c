/* splice: splice, tee and vmsplice as Linux has them: a file's bytes into a pipe and a pipe's
 * into a file (at the file position or at an offset, which then moves instead), from pipe to
 * pipe, tee's copy that leaves the bytes in, vmsplice from user memory into a pipe and out of
 * one; SPLICE_F_NONBLOCK's EAGAIN, EOF, EPIPE, and the EBADF, EINVAL, ESPIPE, EFAULT cases. */
#define _GNU_SOURCE
#define UTEST_NAME "splice"
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "utest.h"

#define SRC "/tmp/splice-src"
#define DST "/tmp/splice-dst"

static char data[10000], got[20000];

static long pending(int fd)
{
	int n = -1;

	return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

static void file_pipe(void)
{
	int src = open(SRC, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int dst = open(DST, O_RDWR | O_CREAT | O_TRUNC, 0600), p[2];
	loff_t off;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 23 + i / 1000);
	if (!CHECK(src >= 0 && dst >= 0 && write(src, data, sizeof(data)) == sizeof(data)) ||
	    !CHECK(pipe(p) == 0))
		return;
	lseek(src, 0, SEEK_SET);
	/* file -> pipe at the file position, which moves */
	CHECK_EQ(splice(src, NULL, p[1], NULL, 6000, 0), 6000);
	CHECK_EQ(lseek(src, 0, SEEK_CUR), 6000);
	CHECK_EQ(pending(p[0]), 6000);
	CHECK_EQ(read(p[0], got, sizeof(got)), 6000);
	CHECK(memcmp(got, data, 6000) == 0);
	/* at an offset: the offset moves, the position does not */
	off = 3;
	CHECK_EQ(splice(src, &off, p[1], NULL, 4, 0), 4);
	CHECK_EQ(off, 7);
	CHECK_EQ(lseek(src, 0, SEEK_CUR), 6000);
	CHECK_EQ(read(p[0], got, sizeof(got)), 4);
	CHECK(memcmp(got, data + 3, 4) == 0);
	CHECK_EQ(splice(src, NULL, p[1], NULL, 100000, 0), 4000); /* to the end of the file */
	CHECK_EQ(splice(src, NULL, p[1], NULL, 100, 0), 0);      /* end of file */
	CHECK_EQ(read(p[0], got, sizeof(got)), 4000);
	CHECK(memcmp(got, data + 6000, 4000) == 0);
	/* pipe -> file, at an offset and at the position */
	CHECK_EQ(write(p[1], "hello", 5), 5);
	off = 100;
	CHECK_EQ(splice(p[0], NULL, dst, &off, 5, 0), 5);
	CHECK_EQ(off, 105);
	CHECK_EQ(lseek(dst, 0, SEEK_CUR), 0);
	CHECK(pread(dst, got, 10, 100) == 5 && memcmp(got, "hello", 5) == 0);
	CHECK_EQ(write(p[1], "world!", 6), 6);
	CHECK_EQ(splice(p[0], NULL, dst, NULL, 4, 0), 4); /* as much as asked */
	CHECK_EQ(lseek(dst, 0, SEEK_CUR), 4);
	CHECK(pread(dst, got, 4, 0) == 4 && memcmp(got, "worl", 4) == 0);
	CHECK_EQ(pending(p[0]), 2);
	CHECK_EQ(splice(p[0], NULL, dst, NULL, 100, 0), 2); /* what is there, no waiting */
	/* the offsets a pipe does not have, and pairs Linux refuses */
	off = 0;
	CHECK_ERR(splice(p[0], &off, dst, NULL, 1, 0), ESPIPE);
	CHECK_ERR(splice(src, NULL, p[1], &off, 1, 0), ESPIPE);
	CHECK_ERR(splice(src, NULL, dst, NULL, 1, 0), EINVAL); /* no pipe */
	CHECK_ERR(splice(p[0], NULL, p[1], NULL, 1, 0), EINVAL); /* one pipe both ways */
	CHECK_ERR(splice(src, NULL, p[1], NULL, 1, 0x10), EINVAL);
	CHECK_EQ(splice(-1, NULL, -1, NULL, 0, 0x10), 0); /* nothing to move: nothing checked */
	CHECK_ERR(splice(-1, NULL, p[1], NULL, 1, 0), EBADF);
	CHECK_ERR(splice(p[1], NULL, dst, NULL, 1, 0), EBADF); /* the write end read */
	CHECK_ERR(splice(src, NULL, p[0], NULL, 1, 0), EBADF);
	off = -1;
	CHECK_ERR(splice(src, &off, p[1], NULL, 1, 0), EINVAL);
	CHECK_ERR(splice(src, (loff_t *)8, p[1], NULL, 1, 0), EFAULT);
	close(dst);
	dst = open(DST, O_WRONLY | O_APPEND);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_ERR(splice(p[0], NULL, dst, NULL, 1, 0), EINVAL); /* O_APPEND */
	close(dst);
	dst = open("/dev/null", O_WRONLY); /* control: another file takes it */
	CHECK_EQ(splice(p[0], NULL, dst, NULL, 1, 0), 1);
	/* the pipe's end: SPLICE_F_NONBLOCK, no writer, no reader */
	CHECK_ERR(splice(p[0], NULL, dst, NULL, 1, SPLICE_F_NONBLOCK), EAGAIN);
	close(p[1]);
	CHECK_EQ(splice(p[0], NULL, dst, NULL, 1, 0), 0);
	close(p[0]);
	close(dst);
	if (CHECK(pipe(p) == 0)) {
		signal(SIGPIPE, SIG_IGN);
		close(p[0]);
		CHECK_ERR(splice(src, NULL, p[1], NULL, 1, 0), EPIPE);
		close(p[1]);
	}
	close(src);
	unlink(SRC);
	unlink(DST);
}

static void pipe_pipe(void)
{
	int a[2], b[2];

	if (!CHECK(pipe(a) == 0 && pipe(b) == 0))
		return;
	CHECK_EQ(write(a[1], "abcdef", 6), 6);
	CHECK_EQ(splice(a[0], NULL, b[1], NULL, 4, 0), 4);
	CHECK_EQ(pending(a[0]), 2);
	CHECK_EQ(read(b[0], got, sizeof(got)), 4);
	CHECK(memcmp(got, "abcd", 4) == 0);
	/* tee: a copy, the input left as it was */
	CHECK_EQ(tee(a[0], b[1], 100, 0), 2);
	CHECK_EQ(pending(a[0]), 2);
	CHECK_EQ(write(a[1], "gh", 2), 2);
	CHECK_EQ(tee(a[0], b[1], 3, 0), 3);
	CHECK_EQ(read(b[0], got, sizeof(got)), 5);
	CHECK(memcmp(got, "efefg", 5) == 0);
	CHECK_EQ(read(a[0], got, sizeof(got)), 4);
	CHECK(memcmp(got, "efgh", 4) == 0);
	CHECK_ERR(tee(a[0], a[1], 1, 0), EINVAL);
	CHECK_ERR(tee(a[0], b[1], 0, 0x10), EINVAL); /* tee asks the flags first */
	CHECK_EQ(tee(a[0], b[1], 0, 0), 0);
	CHECK_ERR(tee(a[1], b[1], 1, 0), EBADF);
	CHECK_ERR(tee(0x7fff, b[1], 1, 0), EBADF);
	CHECK_ERR(tee(a[0], b[1], 1, SPLICE_F_NONBLOCK), EAGAIN); /* empty */
	CHECK_ERR(splice(a[0], NULL, b[1], NULL, 1, SPLICE_F_NONBLOCK), EAGAIN);
	/* a full output pipe */
	CHECK_EQ(fcntl(b[1], F_SETPIPE_SZ, 4096), 4096);
	CHECK_EQ(write(b[1], data, 4096), 4096);
	CHECK_EQ(write(a[1], "ij", 2), 2);
	CHECK_ERR(splice(a[0], NULL, b[1], NULL, 1, SPLICE_F_NONBLOCK), EAGAIN);
	CHECK_ERR(tee(a[0], b[1], 1, SPLICE_F_NONBLOCK), EAGAIN);
	CHECK_EQ(read(b[0], got, sizeof(got)), 4096);
	CHECK_EQ(splice(a[0], NULL, b[1], NULL, 1, SPLICE_F_NONBLOCK), 1); /* control */
	CHECK(read(b[0], got, sizeof(got)) == 1 && got[0] == 'i');
	close(a[1]);
	CHECK_EQ(tee(a[0], b[1], 1, 0), 1);
	CHECK(read(b[0], got, sizeof(got)) == 1 && got[0] == 'j');
	CHECK_EQ(read(a[0], got, 1), 1);
	CHECK_EQ(tee(a[0], b[1], 1, 0), 0); /* empty, no writer */
	CHECK_EQ(splice(a[0], NULL, b[1], NULL, 1, 0), 0);
	close(a[0]);
	close(b[0]);
	close(b[1]);
}

static void vm(void)
{
	int p[2], fd = open("/dev/null", O_RDWR);
	char x[8] = "";
	struct iovec in[2] = { { "abc", 3 }, { "defg", 4 } }, out = { x, sizeof(x) };

	if (!CHECK(pipe(p) == 0))
		return;
	CHECK_EQ(vmsplice(p[1], in, 2, 0), 7);
	CHECK_EQ(read(p[0], got, sizeof(got)), 7);
	CHECK(memcmp(got, "abcdefg", 7) == 0);
	CHECK_EQ(write(p[1], "xyz", 3), 3);
	CHECK_EQ(vmsplice(p[0], &out, 1, 0), 3); /* the read end: out of the pipe */
	CHECK(memcmp(x, "xyz", 3) == 0);
	CHECK_EQ(pending(p[0]), 0);
	CHECK_ERR(vmsplice(p[0], &out, 1, SPLICE_F_NONBLOCK), EAGAIN);
	CHECK_EQ(vmsplice(p[1], in, 0, 0), 0);
	CHECK_ERR(vmsplice(p[1], in, 2, 0x10), EINVAL);
	CHECK_ERR(vmsplice(p[1], in, 1025, 0), EINVAL);
	CHECK_ERR(vmsplice(fd, in, 2, 0), EBADF); /* not a pipe */
	CHECK_ERR(vmsplice(-1, in, 2, 0), EBADF);
	CHECK_ERR(syscall(SYS_vmsplice, p[1], 8L, 1L, 0L), EFAULT); /* the iovec unreadable */
	in[0].iov_base = (void *)8;
	CHECK_ERR(vmsplice(p[1], in, 1, 0), EFAULT); /* a buffer unreadable */
	CHECK_EQ(pending(p[0]), 0);
	/* a full pipe */
	CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
	CHECK_EQ(write(p[1], data, 4096), 4096);
	CHECK_ERR(vmsplice(p[1], &in[1], 1, SPLICE_F_NONBLOCK), EAGAIN);
	CHECK_EQ(read(p[0], got, sizeof(got)), 4096);
	CHECK_EQ(vmsplice(p[1], &in[1], 1, SPLICE_F_NONBLOCK), 4); /* control: room now */
	close(p[1]);
	CHECK_EQ(read(p[0], got, sizeof(got)), 4);
	CHECK_EQ(vmsplice(p[0], &out, 1, 0), 0); /* no writer */
	close(p[0]);
	close(fd);
}

int main(void)
{
	file_pipe();
	pipe_pipe();
	vm();
	return utest_done();
}
