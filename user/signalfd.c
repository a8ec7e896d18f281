/* signalfd: signalfd and signalfd4 as Linux answers them: the flags and bad arguments, blocked
 * signals read through the file as 128-byte struct signalfd_siginfo (kill's sender, sigqueue's
 * value, a child's end, several in one read, real-time ones in order), the set changed through
 * the file, poll and epoll, a read that sleeps until another process sends, one a handled
 * signal ends, and a child reading its own signals through the file it inherited. */
#define _GNU_SOURCE
#define UTEST_NAME "signalfd"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

static sigset_t set_of(int a, int b)
{
	sigset_t s;

	sigemptyset(&s);
	if (a)
		sigaddset(&s, a);
	if (b)
		sigaddset(&s, b);
	return s;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && p.revents == POLLIN;
}

static int pending(int sig)
{
	sigset_t s;

	sigpending(&s);
	return sigismember(&s, sig);
}

static void errors(void)
{
	sigset_t s = set_of(SIGUSR1, 0);
	int fd = signalfd(-1, &s, 0), ef = eventfd(0, 0);
	struct stat st, se;
	char link[64];

	if (!CHECK(fd >= 0 && ef >= 0))
		return;
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR);
	CHECK_EQ(fcntl(fd, F_GETFD), 0);
	int b = signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
	CHECK_EQ(fcntl(b, F_GETFL), O_RDWR | O_NONBLOCK);
	CHECK_EQ(fcntl(b, F_GETFD), FD_CLOEXEC);
	close(b);
	CHECK(fstat(fd, &st) == 0 && fstat(ef, &se) == 0);
	CHECK_EQ(st.st_ino, se.st_ino); /* the anonymous inode */
	CHECK_EQ(st.st_mode, 0600);
	CHECK(!strcmp(utest_fd_link(fd, link, sizeof(link)), "anon_inode:[signalfd]"));
	CHECK_ERR(signalfd(-1, &s, 1), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, &s, 4, 0), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, 8, 8, 0), EFAULT);
	CHECK_ERR(signalfd(ef, &s, 0), EINVAL);
	CHECK_ERR(signalfd(60, &s, 0), EBADF);
	CHECK_ERR(signalfd(-2, &s, 0), EBADF);
	CHECK_ERR(write(fd, &s, 8), EINVAL);
	close(fd);
	close(ef);
}

static void reads(void)
{
	sigset_t s = set_of(SIGUSR1, 0), all = set_of(SIGUSR1, SIGUSR2);
	struct signalfd_siginfo si[3];
	union sigval v;
	int fd;

	sigaddset(&all, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &all, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK);
	if (!CHECK(fd >= 0))
		return;
	CHECK_EQ(sizeof(si[0]), 128);
	CHECK_ERR(read(fd, si, sizeof(si[0])), EAGAIN);
	CHECK_ERR(read(fd, si, 127), EINVAL);
	CHECK(!readable(fd));
	kill(getpid(), SIGUSR1);
	CHECK(pending(SIGUSR1));
	CHECK(readable(fd));
	CHECK_EQ(read(fd, si, sizeof(si)), 128);
	CHECK_EQ(si[0].ssi_signo, SIGUSR1);
	CHECK_EQ(si[0].ssi_code, SI_USER);
	CHECK_EQ(si[0].ssi_pid, getpid());
	CHECK_EQ(si[0].ssi_uid, getuid());
	CHECK(!pending(SIGUSR1)); /* taken */
	CHECK(!readable(fd));

	/* not in the set: stays pending, until the set changes through the file */
	kill(getpid(), SIGUSR2);
	CHECK_ERR(read(fd, si, sizeof(si)), EAGAIN);
	CHECK(pending(SIGUSR2));
	CHECK_EQ(signalfd(fd, &all, 0), fd);
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR | O_NONBLOCK); /* the flags stay */
	CHECK_EQ(read(fd, si, sizeof(si)), 128);
	CHECK_EQ(si[0].ssi_signo, SIGUSR2);

	/* queued real-time signals: each with its value, in order, several in one read */
	v.sival_int = 42;
	CHECK_EQ(sigqueue(getpid(), SIGRTMIN, v), 0);
	v.sival_int = 43;
	CHECK_EQ(sigqueue(getpid(), SIGRTMIN, v), 0);
	raise(SIGUSR1);
	CHECK_EQ(read(fd, si, sizeof(si)), 3 * 128);
	CHECK_EQ(si[0].ssi_signo, SIGUSR1); /* the lowest first */
	CHECK_EQ(si[0].ssi_code, SI_TKILL);
	CHECK_EQ(si[0].ssi_pid, getpid());
	CHECK_EQ(si[1].ssi_signo, SIGRTMIN);
	CHECK_EQ(si[1].ssi_code, SI_QUEUE);
	CHECK_EQ(si[1].ssi_int, 42);
	CHECK_EQ(si[1].ssi_ptr, 42);
	CHECK_EQ(si[1].ssi_pid, getpid());
	CHECK_EQ(si[2].ssi_int, 43);
	CHECK_ERR(read(fd, si, sizeof(si)), EAGAIN);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A read sleeps until a child sends; epoll sees the signal; a handled signal ends a read. */
static void waits(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigset_t s = set_of(SIGUSR1, 0);
	struct signalfd_siginfo si;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 9 };
	int fd = signalfd(-1, &s, 0), ep = epoll_create1(0), status;
	pid_t pid, parent = getpid();

	if (!CHECK(fd >= 0 && ep >= 0))
		return;
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(kill(parent, SIGUSR1) == 0 ? 0 : 1);
	}
	CHECK_EQ(read(fd, &si, sizeof(si)), 128);
	CHECK_EQ(si.ssi_signo, SIGUSR1);
	CHECK_EQ(si.ssi_pid, pid);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);

	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(kill(parent, SIGUSR1) == 0 ? 0 : 1);
	}
	CHECK_EQ(epoll_wait(ep, &ev, 1, 5000), 1);
	CHECK_EQ(ev.data.u64, 9);
	CHECK_EQ(read(fd, &si, sizeof(si)), 128);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);

	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: EINTR */
	utest_alarm_ms(100);
	CHECK_ERR(read(fd, &si, sizeof(si)), EINTR);
	close(ep);
	close(fd);
}

/* A child watches the parent's signalfd from a set they share, and exits: the wait queue it
 * hooked (its own signal handlers') is gone, and the set never hears of a signal again. */
static void orphan(void)
{
	sigset_t s = set_of(SIGUSR1, 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 3 };
	int fd = signalfd(-1, &s, SFD_NONBLOCK), ep = epoll_create1(0), status;
	struct signalfd_siginfo si;
	pid_t pid;

	if (!CHECK(fd >= 0 && ep >= 0))
		return;
	pid = fork();
	if (pid == 0)
		_exit(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : 1);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	kill(getpid(), SIGUSR1);
	CHECK(readable(fd));
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0); /* deaf */
	CHECK_EQ(read(fd, &si, sizeof(si)), 128);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL), 0); /* still in the set */
	close(ep);
	close(fd);
}

/* A child's end as SIGCHLD read through the file; a child reads its own signals through the
 * file it inherited. */
static void children(void)
{
	sigset_t s = set_of(SIGCHLD, SIGUSR2);
	struct signalfd_siginfo si;
	int fd, status;
	pid_t pid;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, 0);
	if (!CHECK(fd >= 0))
		return;
	pid = fork();
	if (pid == 0)
		_exit(7);
	CHECK_EQ(read(fd, &si, sizeof(si)), 128);
	CHECK_EQ(si.ssi_signo, SIGCHLD);
	CHECK_EQ(si.ssi_code, CLD_EXITED);
	CHECK_EQ(si.ssi_pid, pid);
	CHECK_EQ(si.ssi_uid, getuid());
	CHECK_EQ(si.ssi_status, 7);
	CHECK(waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 7);

	pid = fork();
	if (pid == 0) {
		kill(getpid(), SIGUSR2);
		_exit(read(fd, &si, sizeof(si)) == 128 && si.ssi_signo == SIGUSR2 &&
		      si.ssi_pid == (uint32_t)getpid() ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CHECK_EQ(read(fd, &si, sizeof(si)), 128); /* the second child's SIGCHLD */
	CHECK_EQ(si.ssi_signo, SIGCHLD);
	CHECK_EQ(si.ssi_pid, pid);
	CHECK_ERR(read(fd, &si, sizeof(si)), EAGAIN);
	CHECK(!pending(SIGUSR2)); /* the parent had none */
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	close(fd);
}

int main(void)
{
	errors();
	reads();
	waits();
	orphan();
	children();
	return utest_done();
}
