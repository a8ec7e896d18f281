/* pipe-direct: pipe2's O_DIRECT, Linux 3.4's packet mode: each write a packet (one longer than
 * PIPE_BUF split into PIPE_BUF-sized ones), a read takes at most one and drops what of it does
 * not fit, a packet takes a whole slot of the pipe's 16, the write end alone shows O_DIRECT,
 * F_SETFL turns the mode on and off; a write of nothing succeeds on a broken pipe. */
#define _GNU_SOURCE
#define UTEST_NAME "pipe-direct"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "utest.h"

static char big[10000], got[65536];

static void packets(void)
{
	int p[2], q[2], n = -1;

	if (!CHECK(pipe2(p, O_DIRECT) == 0))
		return;
	CHECK(!(fcntl(p[0], F_GETFL) & O_DIRECT)); /* (Linux's read end is opened without it) */
	CHECK(fcntl(p[1], F_GETFL) & O_DIRECT);
	CHECK_EQ(write(p[1], "abc", 3), 3);
	CHECK_EQ(write(p[1], "defgh", 5), 5);
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 8);
	CHECK_EQ(read(p[0], got, sizeof(got)), 3); /* one packet a read */
	CHECK(memcmp(got, "abc", 3) == 0);
	CHECK_EQ(read(p[0], got, 0), 0);          /* a read of nothing leaves the packet whole */
	CHECK_EQ(read(p[0], got, 2), 2);          /* its rest is dropped */
	CHECK(memcmp(got, "de", 2) == 0);
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 0);
	CHECK_EQ(write(p[1], "", 0), 0); /* no empty packet */
	CHECK_EQ(write(p[1], "xy", 2), 2);
	CHECK_EQ(read(p[0], got, sizeof(got)), 2);
	CHECK(memcmp(got, "xy", 2) == 0);
	/* longer than PIPE_BUF: packets of PIPE_BUF bytes and the rest, in order */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	CHECK_EQ(write(p[1], big, sizeof(big)), sizeof(big));
	CHECK_EQ(read(p[0], got, sizeof(got)), 4096);
	CHECK(memcmp(got, big, 4096) == 0);
	CHECK_EQ(read(p[0], got, sizeof(got)), 4096);
	CHECK(memcmp(got, big + 4096, 4096) == 0);
	CHECK_EQ(read(p[0], got, sizeof(got)), 10000 - 8192);
	CHECK(memcmp(got, big + 8192, 10000 - 8192) == 0);
	close(p[1]);
	CHECK_EQ(read(p[0], got, sizeof(got)), 0);
	close(p[0]);

	/* positive control: a plain pipe joins the same writes */
	if (!CHECK(pipe(q) == 0))
		return;
	CHECK_EQ(write(q[1], "abc", 3), 3);
	CHECK_EQ(write(q[1], "defgh", 5), 5);
	CHECK_EQ(read(q[0], got, sizeof(got)), 8);
	CHECK(memcmp(got, "abcdefgh", 8) == 0);
	close(q[0]);
	close(q[1]);
}

/* Sixteen one-byte packets fill a pipe of 64 KiB; sixteen plain bytes do not. */
static void slots(void)
{
	int p[2], q[2], k = 0;
	struct pollfd pfd;

	if (!CHECK(pipe2(p, O_DIRECT | O_NONBLOCK) == 0))
		return;
	while (k < 100 && write(p[1], "z", 1) == 1)
		k++;
	CHECK_EQ(k, 16);
	CHECK_ERR(write(p[1], "z", 1), EAGAIN);
	pfd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	CHECK(poll(&pfd, 1, 0) == 0);
	CHECK_EQ(read(p[0], got, 10), 1);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT)); /* a slot is free */
	CHECK_EQ(write(p[1], "z", 1), 1);
	close(p[0]);
	close(p[1]);

	if (!CHECK(pipe2(q, O_NONBLOCK) == 0))
		return;
	for (k = 0; k < 100 && write(q[1], "z", 1) == 1;)
		k++;
	CHECK_EQ(k, 100);
	close(q[0]);
	close(q[1]);
}

/* F_SETFL's O_DIRECT: the mode of the writer's later writes. */
static void setfl(void)
{
	int p[2];

	if (!CHECK(pipe2(p, O_NONBLOCK) == 0))
		return;
	CHECK(!(fcntl(p[1], F_GETFL) & O_DIRECT));
	CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK | O_DIRECT) == 0);
	CHECK(fcntl(p[1], F_GETFL) & O_DIRECT);
	CHECK_EQ(write(p[1], "PQRS", 4), 4);
	CHECK_EQ(write(p[1], "TU", 2), 2);
	CHECK_EQ(read(p[0], got, 2), 2);
	CHECK(memcmp(got, "PQ", 2) == 0);
	CHECK_EQ(read(p[0], got, sizeof(got)), 2);
	CHECK(memcmp(got, "TU", 2) == 0);
	CHECK_ERR(read(p[0], got, 1), EAGAIN);
	CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
	CHECK(!(fcntl(p[1], F_GETFL) & O_DIRECT));
	CHECK_EQ(write(p[1], "ab", 2), 2);
	CHECK_EQ(write(p[1], "cd", 2), 2);
	CHECK_EQ(read(p[0], got, sizeof(got)), 4);
	CHECK(memcmp(got, "abcd", 4) == 0);
	close(p[0]);
	close(p[1]);
}

/* A write of nothing succeeds even with no reader left (Linux's pipe_write asks for readers
 * only when there is something to write), in either mode. */
static void null_write(void)
{
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	if (!CHECK(pipe2(p, O_DIRECT) == 0))
		return;
	close(p[0]);
	CHECK_EQ(write(p[1], "", 0), 0);
	CHECK(fcntl(p[1], F_SETFL, 0) == 0);
	CHECK_EQ(write(p[1], "", 0), 0);
	CHECK_ERR(write(p[1], "x", 1), EPIPE); /* control */
	close(p[1]);
}

int main(void)
{
	packets();
	slots();
	setfl();
	null_write();
	return utest_done();
}
