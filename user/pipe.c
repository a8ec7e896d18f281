/* pipe: pipe and pipe2 as Linux has them: bytes in order, end of file once the last writer
 * closes, EPIPE and SIGPIPE once the last reader has, O_NONBLOCK's EAGAIN at both ends, a
 * capacity of 64 KiB, writes of at most PIPE_BUF bytes never interleaved, and a reader asleep
 * until a writer in another process writes; a long stream through the ring's wrap intact. */
#define _GNU_SOURCE
#define UTEST_NAME "pipe"
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

static void basics(void)
{
	int p[2], n = -1;
	char buf[64];
	struct stat st;

	if (!CHECK(pipe(p) == 0))
		return;
	CHECK(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_EQ(write(p[1], "hello, ", 7), 7);
	CHECK_EQ(write(p[1], "pipe", 4), 4);
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 11);
	CHECK_EQ(read(p[0], buf, 5), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 6);
	CHECK(memcmp(buf, ", pipe", 6) == 0);
	CHECK_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE);
	CHECK_ERR(pread(p[0], buf, 1, 0), ESPIPE);
	CHECK_ERR(write(p[0], "x", 1), EBADF); /* the read end */
	CHECK_ERR(read(p[1], buf, 1), EBADF);  /* the write end */
	CHECK_EQ(fcntl(p[0], F_GETFL) & O_ACCMODE, O_RDONLY);
	CHECK_EQ(fcntl(p[1], F_GETFL) & O_ACCMODE, O_WRONLY);
	CHECK_EQ(read(p[0], buf, 0), 0);
	close(p[1]);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 0); /* no writer: end of file */
	close(p[0]);
	CHECK_ERR(syscall(SYS_pipe, 8L), EFAULT);
}

static void flags(void)
{
	int p[2];
	char c;

	CHECK_ERR(syscall(SYS_pipe2, p, O_APPEND), EINVAL);
	if (!CHECK(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0))
		return;
	CHECK_EQ(fcntl(p[0], F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(p[1], F_GETFD), FD_CLOEXEC);
	CHECK(fcntl(p[0], F_GETFL) & O_NONBLOCK);
	CHECK_ERR(read(p[0], &c, 1), EAGAIN); /* empty, a writer left */
	close(p[0]);
	close(p[1]);
}

/* 64 KiB fit (16 writes of a page), the 17th is EAGAIN; a big write takes what fits. */
static void capacity(void)
{
	static char page[4096], big[100000];
	int p[2], writes = 0;
	long r;

	if (!CHECK(pipe2(p, O_NONBLOCK) == 0))
		return;
	while (writes < 100 && write(p[1], page, sizeof(page)) == (long)sizeof(page))
		writes++;
	CHECK_EQ(writes, 16);
	CHECK_ERR(write(p[1], page, 1), EAGAIN);
	CHECK_EQ(read(p[0], page, 100), 100);
	CHECK_ERR(write(p[1], page, 200), EAGAIN); /* atomic: all 200 or nothing */
	CHECK_EQ(read(p[0], page, sizeof(page) - 100), sizeof(page) - 100);
	r = write(p[1], big, sizeof(big)); /* more than PIPE_BUF: partial */
	CHECK_EQ(r, 4096);
	close(p[0]);
	close(p[1]);
}

static void broken(void)
{
	int p[2], status;
	pid_t pid;

	if (!CHECK(pipe(p) == 0))
		return;
	close(p[0]);
	pid = fork();
	if (pid == 0) {
		(void)write(p[1], "x", 1); /* SIGPIPE's default action ends the process */
		_exit(7);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGPIPE);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERR(write(p[1], "x", 1), EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

/* A reader sleeps in read until another process writes; writers of PIPE_BUF-sized records
 * are never interleaved inside a record. */
static void between_processes(void)
{
	enum { WRITERS = 3, RECORDS = 40 };
	static char rec[PIPE_BUF];
	int p[2], counts[WRITERS] = { 0 }, status, bad = 0;
	long total = 0, r;

	if (!CHECK(pipe(p) == 0))
		return;
	for (int w = 0; w < WRITERS; w++) {
		if (fork() == 0) {
			close(p[0]);
			memset(rec, 'a' + w, sizeof(rec));
			for (int i = 0; i < RECORDS; i++)
				if (write(p[1], rec, sizeof(rec)) != (long)sizeof(rec))
					_exit(1);
			_exit(0);
		}
	}
	close(p[1]);
	for (;;) {
		size_t got = 0;

		while (got < sizeof(rec) && (r = read(p[0], rec + got, sizeof(rec) - got)) > 0)
			got += (size_t)r;
		if (got == 0)
			break;
		total += (long)got;
		for (size_t i = 1; i < got; i++)
			bad += rec[i] != rec[0];
		if (rec[0] >= 'a' && rec[0] < 'a' + WRITERS)
			counts[rec[0] - 'a']++;
	}
	for (int w = 0; w < WRITERS; w++) {
		CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
		CHECK_EQ(counts[w], RECORDS);
	}
	CHECK_EQ(total, (long)WRITERS * RECORDS * PIPE_BUF);
	CHECK_EQ(bad, 0);
	close(p[0]);
}

/* A stream of bytes through the ring's end many times, at offsets no page or record size
 * lines up with (writes of 1000 bytes, reads of 777): every byte arrives, in order. */
static void wrap(void)
{
	enum { TOTAL = 300000, WCHUNK = 1000, RCHUNK = 777 };
	static unsigned char out[WCHUNK], in[RCHUNK];
	long got = 0, bad = -1, r;
	int p[2], status;

	if (!CHECK(pipe(p) == 0))
		return;
	if (fork() == 0) {
		close(p[0]);
		for (long off = 0; off < TOTAL; off += WCHUNK) {
			for (int i = 0; i < WCHUNK; i++)
				out[i] = (unsigned char)((off + i) % 251);
			if (write(p[1], out, WCHUNK) != WCHUNK)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], in, RCHUNK)) > 0) {
		for (long i = 0; i < r && bad < 0; i++)
			if (in[i] != (unsigned char)((got + i) % 251))
				bad = got + i;
		got += r;
	}
	CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(got, TOTAL);
	CHECK_EQ(bad, -1); /* the offset of the first wrong byte */
	close(p[0]);
}

int main(void)
{
	basics();
	flags();
	capacity();
	broken();
	between_processes();
	wrap();
	return utest_done();
}
