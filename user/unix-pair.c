/* unix-pair: socketpair(AF_UNIX) as Linux has it: stream bytes glued, datagram and seqpacket
 * boundaries kept (MSG_TRUNC), MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT and SOCK_NONBLOCK's EAGAIN,
 * shutdown and close (end of file, ECONNRESET, EPIPE with SIGPIPE unless MSG_NOSIGNAL,
 * ECONNREFUSED for a datagram), poll's events, the default buffer sizes, a writer blocked until
 * another process reads, a signal's EINTR or restart, EFAULT, fstat's S_IFSOCK, epoll,
 * /proc/self/fd's socket:[INODE], and the errors of families, types and protocols. */
#define _GNU_SOURCE
#define UTEST_NAME "unix-pair"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

static int sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static short events(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLRDHUP };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

static int getint(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &len) == 0 && len == sizeof(v) ? v : -1;
}

static void stream_basics(void)
{
	int sv[2], n = -1, ep;
	char buf[64], path[64], want[64];
	struct epoll_event ev;
	struct stat st;

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK(fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0777);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	n = (int)readlink(path, buf, sizeof(buf) - 1);
	CHECK(n > 0 && (buf[n] = '\0', strcmp(buf, want) == 0));
	ep = epoll_create1(0);
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], &(struct epoll_event){ .events = EPOLLIN }) == 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	CHECK_EQ(fcntl(sv[0], F_GETFL) & O_ACCMODE, O_RDWR);
	CHECK_EQ(getint(sv[0], SO_TYPE), SOCK_STREAM);
	CHECK_EQ(getint(sv[0], SO_SNDBUF), 212992);
	CHECK_EQ(getint(sv[0], SO_RCVBUF), 212992);
	CHECK_EQ(getint(sv[0], SO_ERROR), 0);
	CHECK_EQ(events(sv[0]), POLLOUT);
	CHECK_EQ(write(sv[0], "hello, ", 7), 7);
	CHECK_EQ(send(sv[0], "socket", 6, 0), 6);
	CHECK_EQ(events(sv[1]), POLLIN | POLLOUT);
	CHECK(epoll_wait(ep, &ev, 1, 0) == 1 && ev.events == EPOLLIN);
	close(ep);
	CHECK(ioctl(sv[1], FIONREAD, &n) == 0 && n == 13);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), MSG_PEEK), 13); /* two writes glued */
	CHECK(memcmp(buf, "hello, socket", 13) == 0);
	CHECK_EQ(read(sv[1], buf, 5), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 8);
	CHECK(memcmp(buf, ", socket", 8) == 0);
	CHECK_ERR(recv(sv[1], buf, 1, MSG_DONTWAIT), EAGAIN);
	CHECK_EQ(write(sv[1], "back", 4), 4); /* both ways */
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 4);
	CHECK_ERR(lseek(sv[0], 0, SEEK_SET), ESPIPE);
	CHECK_ERR(listen(sv[0], 1), EINVAL); /* connected already */
	close(sv[0]);
	close(sv[1]);
}

/* A peer that shuts down or closes: end of file, EPIPE and SIGPIPE, ECONNRESET. */
static void stream_ends(void)
{
	int sv[2];
	char buf[16];

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_EQ(write(sv[0], "last", 4), 4);
	CHECK_EQ(shutdown(sv[0], SHUT_WR), 0);
	CHECK_EQ(events(sv[1]), POLLIN | POLLOUT | POLLRDHUP);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 4);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 0); /* end of file, and again */
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 0);
	sigpipes = 0;
	CHECK_ERR(write(sv[0], "x", 1), EPIPE);
	CHECK_EQ(sigpipes, 1);
	CHECK_ERR(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	CHECK_EQ(sigpipes, 1);
	CHECK_EQ(write(sv[1], "still", 5), 5); /* the other way is open */
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 5);
	CHECK_ERR(shutdown(sv[0], 3), EINVAL);
	close(sv[0]);
	CHECK_EQ(events(sv[1]), POLLIN | POLLOUT | POLLHUP | POLLRDHUP);
	CHECK_ERR(write(sv[1], "x", 1), EPIPE);
	CHECK_EQ(sigpipes, 2);
	close(sv[1]);

	/* Closing with bytes unread resets the peer's connection, once. */
	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_EQ(write(sv[1], "unread", 6), 6);
	close(sv[0]);
	CHECK_EQ(getint(sv[1], SO_ERROR), ECONNRESET);
	CHECK_EQ(getint(sv[1], SO_ERROR), 0); /* reading it cleared it */
	close(sv[1]);
	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_EQ(write(sv[1], "unread", 6), 6);
	close(sv[0]);
	CHECK_EQ(events(sv[1]) & POLLERR, POLLERR);
	CHECK_ERR(read(sv[1], buf, sizeof(buf)), ECONNRESET);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 0);
	close(sv[1]);
}

/* Datagrams and records keep their boundaries; a short buffer loses the rest (MSG_TRUNC). */
static void records(int type)
{
	int sv[2];
	char buf[16];
	struct iovec iov = { buf, 4 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!CHECK(socketpair(AF_UNIX, type, 0, sv) == 0))
		return;
	CHECK_EQ(getint(sv[0], SO_TYPE), type);
	CHECK_EQ(send(sv[0], "first", 5, 0), 5);
	CHECK_EQ(send(sv[0], "second", 6, 0), 6);
	CHECK_EQ(send(sv[0], "", 0, 0), 0);
	CHECK(ioctl(sv[1], FIONREAD, &(int){ 0 }) == 0);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), MSG_PEEK), 5);
	CHECK_EQ(recvmsg(sv[1], &msg, 0), 4);
	CHECK_EQ(msg.msg_flags, MSG_TRUNC);
	CHECK_EQ(recv(sv[1], buf, 2, MSG_TRUNC), 6); /* the datagram's length */
	CHECK(memcmp(buf, "se", 2) == 0);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0); /* the empty one */
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	CHECK_ERR(send(sv[0], buf, 300000, 0), EMSGSIZE);
	close(sv[0]);
	if (type == SOCK_SEQPACKET) { /* a connection: end of file, then EPIPE */
		CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0);
		CHECK_EQ(events(sv[1]), POLLIN | POLLOUT | POLLHUP | POLLRDHUP);
		sigpipes = 0;
		CHECK_ERR(send(sv[1], "x", 1, 0), EPIPE);
	} else { /* no connection: the peer is refused once, then there is none */
		CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
		CHECK_ERR(send(sv[1], "x", 1, 0), ECONNREFUSED);
		CHECK_ERR(send(sv[1], "x", 1, 0), ENOTCONN);
	}
	close(sv[1]);
}

/* shutdown of a record socket: its own sends are EPIPE with no SIGPIPE; a datagram socket's
 * peer is not told, a seqpacket's reads end of file. */
static void records_shutdown(int type)
{
	int sv[2];
	char c;

	if (!CHECK(socketpair(AF_UNIX, type, 0, sv) == 0))
		return;
	CHECK_EQ(shutdown(sv[0], SHUT_WR), 0);
	sigpipes = 0;
	CHECK_ERR(send(sv[0], "x", 1, 0), EPIPE);
	CHECK_EQ(sigpipes, 0);
	if (type == SOCK_DGRAM)
		CHECK_ERR(recv(sv[1], &c, 1, MSG_DONTWAIT), EAGAIN);
	else
		CHECK_EQ(recv(sv[1], &c, 1, MSG_DONTWAIT), 0);
	CHECK_EQ(send(sv[1], "y", 1, 0), 1); /* the other way */
	CHECK_EQ(recv(sv[0], &c, 1, 0), 1);
	CHECK_EQ(shutdown(sv[1], SHUT_RD), 0);
	if (type == SOCK_DGRAM) {
		CHECK_EQ(send(sv[1], "x", 1, MSG_DONTWAIT), 1); /* sv[0] still reads */
		CHECK_ERR(recv(sv[1], &c, 1, MSG_DONTWAIT), EAGAIN);
	}
	close(sv[0]);
	close(sv[1]);
	if (type != SOCK_DGRAM || !CHECK(socketpair(AF_UNIX, type, 0, sv) == 0))
		return;
	CHECK_EQ(shutdown(sv[1], SHUT_RD), 0);
	CHECK_ERR(send(sv[0], "x", 1, 0), EPIPE); /* the reader will read no more */
	CHECK_EQ(sigpipes, 0);
	close(sv[0]);
	close(sv[1]);
}

/* What a non-blocking writer gets in before EAGAIN, in writes of n bytes: Linux's charge for
 * each buffer (its truesize) against sndbuf decides it. */
static long capacity(int type, size_t n)
{
	static char buf[65536];
	long total = 0, r;
	int sv[2];

	if (socketpair(AF_UNIX, type | SOCK_NONBLOCK, 0, sv) != 0)
		return -1;
	while ((r = write(sv[0], buf, n)) > 0)
		total += r;
	close(sv[0]);
	close(sv[1]);
	return r < 0 && errno == EAGAIN ? total : -1;
}

/* A writer fills the buffer and sleeps until a reader in another process empties it. */
static void blocking_writer(void)
{
	enum { TOTAL = 4 << 20 };
	static unsigned char chunk[65536];
	unsigned long got = 0, sum = 0, want = 0;
	int sv[2], status, filled = 0;
	pid_t pid;

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0))
		return;
	CHECK(fcntl(sv[0], F_GETFL) & O_NONBLOCK);
	while (write(sv[0], chunk, sizeof(chunk)) > 0)
		filled++;
	CHECK(errno == EAGAIN && filled > 0 && filled < 64); /* full: some, not all of it */
	CHECK_EQ(events(sv[0]) & POLLOUT, 0);
	while (read(sv[1], chunk, sizeof(chunk)) > 0)
		;
	CHECK_EQ(events(sv[0]) & POLLOUT, POLLOUT);
	CHECK_EQ(capacity(SOCK_STREAM, 1), 278);
	CHECK_EQ(capacity(SOCK_STREAM, 4096), 180224);
	CHECK_EQ(capacity(SOCK_STREAM, 65536), 233152);
	CHECK_EQ(capacity(SOCK_DGRAM, 1000), 93000);
	CHECK_EQ(capacity(SOCK_DGRAM, 4096), 106496);
	fcntl(sv[0], F_SETFL, 0);
	fcntl(sv[1], F_SETFL, 0);
	pid = fork();
	if (pid == 0) {
		for (unsigned long i = 0; i < TOTAL; i += sizeof(chunk)) {
			for (unsigned j = 0; j < sizeof(chunk); j++)
				chunk[j] = (unsigned char)((i + j) * 7);
			if (write(sv[0], chunk, sizeof(chunk)) != sizeof(chunk))
				_exit(1);
		}
		_exit(0);
	}
	close(sv[0]);
	for (unsigned long i = 0; i < TOTAL; i++)
		want += (unsigned char)(i * 7) * (i % 251 + 1);
	for (long n; (n = read(sv[1], chunk, sizeof(chunk))) > 0; got += n)
		for (long j = 0; j < n; j++)
			sum += chunk[j] * ((got + j) % 251 + 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK_EQ(got, TOTAL);
	CHECK_EQ(sum, want);
	close(sv[1]);
}

/* MSG_WAITALL waits for all it asked, across writes; a peek shows what is there. */
static void waitall(void)
{
	int sv[2], status;
	char buf[8];
	pid_t pid;

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_EQ(write(sv[0], "ab", 2), 2);
	pid = fork();
	if (pid == 0) {
		usleep(100000);
		_exit(write(sv[0], "cd", 2) != 2);
	}
	CHECK_EQ(recv(sv[1], buf, 4, MSG_PEEK | MSG_WAITALL | MSG_DONTWAIT), 2);
	CHECK_EQ(recv(sv[1], buf, 4, MSG_WAITALL), 4);
	CHECK(memcmp(buf, "abcd", 4) == 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	close(sv[0]);
	CHECK_EQ(recv(sv[1], buf, 4, MSG_WAITALL), 0);
	close(sv[1]);
}

static int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A signal ends a blocked recv with EINTR, or restarts it under SA_RESTART. */
static void interrupted(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 20000 } };
	int sv[2], status;
	char c;
	pid_t pid;

	if (!CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0))
		return;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(recv(sv[0], &c, 1, 0), EINTR);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
	pid = fork();
	if (pid == 0) {
		usleep(200000);
		_exit(write(sv[1], "r", 1) != 1);
	}
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_EQ(recv(sv[0], &c, 1, 0), 1);
	CHECK_EQ(alarms, 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	signal(SIGALRM, SIG_DFL);
	close(sv[0]);
	close(sv[1]);
}

/* Bad user pointers are EFAULT; a stream keeps bytes it could not copy out, a datagram is
 * lost with them. */
static void efault(void)
{
	void *bad = (void *)8;
	char buf[8];
	int sv[2], v;
	socklen_t len = sizeof(v);
	struct iovec iov = { bad, 4 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_ERR(send(sv[0], bad, 4, 0), EFAULT);
	CHECK_ERR(sendmsg(sv[0], &msg, 0), EFAULT);
	CHECK_ERR(syscall(SYS_sendmsg, sv[0], 8L, 0), EFAULT);
	CHECK_ERR(syscall(SYS_recvmsg, sv[0], 8L, MSG_DONTWAIT), EFAULT);
	CHECK_EQ(send(sv[0], "keep", 4, 0), 4);
	CHECK_ERR(recv(sv[1], bad, 4, 0), EFAULT);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), 4);
	CHECK_ERR(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, bad, &len), EFAULT);
	CHECK_ERR(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, (socklen_t *)bad), EFAULT);
	CHECK_ERR(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, bad, sizeof(v)), EFAULT);
	CHECK_ERR(getsockname(sv[0], bad, &len), EFAULT);
	CHECK_ERR(bind(sv[0], bad, 12), EFAULT);
	close(sv[0]);
	close(sv[1]);
	if (!CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0))
		return;
	CHECK_EQ(send(sv[0], "lost", 4, 0), 4);
	CHECK_ERR(recv(sv[1], bad, 4, 0), EFAULT);
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

static void options_and_errors(void)
{
	int sv[2], fd, v = 10000;

	CHECK_ERR(socket(-1, SOCK_STREAM, 0), EAFNOSUPPORT);
	CHECK_ERR(socket(46, SOCK_STREAM, 0), EAFNOSUPPORT);
	CHECK_ERR(socket(AF_UNIX, SOCK_STREAM, 2), EPROTONOSUPPORT);
	CHECK_ERR(socket(AF_UNIX, 4, 0), ESOCKTNOSUPPORT); /* SOCK_RDM */
	CHECK_ERR(socket(AF_UNIX, 11, 0), EINVAL);
	CHECK_ERR(socket(AF_UNIX, SOCK_STREAM | 0x100, 0), EINVAL);
	CHECK_ERR(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 8L), EFAULT);
	fd = socket(AF_UNIX, SOCK_STREAM, AF_UNIX);
	CHECK(fd >= 0);
	close(fd);
	fd = socket(AF_UNIX, SOCK_RAW, 0); /* a datagram socket */
	CHECK_EQ(getint(fd, SO_TYPE), SOCK_DGRAM);
	close(fd);
	CHECK_ERR(send(0x7000, "x", 1, 0), EBADF);
	fd = open("/", O_RDONLY);
	CHECK_ERR(send(fd, "x", 1, 0), ENOTSOCK);
	CHECK_ERR(shutdown(fd, SHUT_RD), ENOTSOCK);
	close(fd);
	if (!CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0))
		return;
	CHECK_EQ(fcntl(sv[1], F_GETFD), FD_CLOEXEC);
	CHECK_ERR(listen(sv[0], 1), EOPNOTSUPP);
	CHECK_ERR(accept(sv[0], NULL, NULL), EOPNOTSUPP);
	CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)), 0);
	CHECK_EQ(getint(sv[0], SO_SNDBUF), 20000); /* doubled, as Linux */
	CHECK_ERR(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, 2), EINVAL);
	CHECK_ERR(getsockopt(sv[0], SOL_SOCKET, 12345, &v, &(socklen_t){ 4 }), ENOPROTOOPT);
	CHECK_ERR(send(sv[0], &v, 30000, 0), EMSGSIZE); /* the smaller buffer's limit */
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	signal(SIGPIPE, on_sigpipe);
	stream_basics();
	stream_ends();
	records(SOCK_DGRAM);
	records(SOCK_SEQPACKET);
	records_shutdown(SOCK_DGRAM);
	records_shutdown(SOCK_SEQPACKET);
	blocking_writer();
	waitall();
	interrupted();
	efault();
	options_and_errors();
	return utest_done();
}
