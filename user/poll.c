/* poll: poll, ppoll, select and pselect on pipes and /dev/null as Linux answers them: what is
 * ready at once, POLLNVAL, POLLHUP and POLLERR when an end is gone, the bad arguments, a
 * sleep that ends when another process writes or when the time is up, and a blocked signal
 * that ppoll's and pselect's mask lets in. */
#define _GNU_SOURCE
#define UTEST_NAME "poll"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void poll_pipe(void)
{
	struct pollfd fds[4];
	struct timespec t0;
	int p[2], null = open("/dev/null", O_RDWR);
	char c;

	if (!CHECK(pipe(p) == 0 && null >= 0))
		return;
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	fds[2] = (struct pollfd){ .fd = -1, .events = POLLIN, .revents = 0x7 };
	fds[3] = (struct pollfd){ .fd = 60, .events = POLLIN }; /* not open */
	CHECK_EQ(poll(fds, 4, 0), 2);
	CHECK_EQ(fds[0].revents, 0);
	CHECK_EQ(fds[1].revents, POLLOUT);
	CHECK_EQ(fds[2].revents, 0); /* a negative fd is skipped, its revents cleared */
	CHECK_EQ(fds[3].revents, POLLNVAL);
	CHECK_EQ(poll(fds, 1, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(poll(fds, 1, 30), 0); /* the time runs out */
	CHECK(ms_since(&t0) >= 25);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(poll(fds, 1, -1), 1);
	CHECK_EQ(fds[0].revents, POLLIN);
	fds[0].events = POLLOUT; /* not asked: not reported, but for errors and hang-ups */
	CHECK_EQ(poll(fds, 1, 0), 0);
	fds[0].events = POLLIN;
	close(p[1]);
	CHECK_EQ(poll(fds, 1, 0), 1);
	CHECK_EQ(fds[0].revents, POLLIN | POLLHUP);
	CHECK_EQ(read(p[0], &c, 1), 1);
	CHECK_EQ(poll(fds, 1, 0), 1);
	CHECK_EQ(fds[0].revents, POLLHUP);
	close(p[0]);

	if (!CHECK(pipe(p) == 0))
		return;
	close(p[0]);
	fds[1].fd = p[1];
	CHECK_EQ(poll(&fds[1], 1, 0), 1);
	CHECK_EQ(fds[1].revents, POLLOUT | POLLERR);
	close(p[1]);
	fds[0] = (struct pollfd){ .fd = null, .events = POLLIN | POLLOUT };
	CHECK_EQ(poll(fds, 1, 0), 1); /* no poll operation: always ready */
	CHECK_EQ(fds[0].revents, POLLIN | POLLOUT);
	close(null);
	CHECK_ERR(poll((struct pollfd *)8, 1, 0), EFAULT);
}

/* poll(-1) sleeps until a child writes, long after the call began. */
static void poll_wakes(void)
{
	struct pollfd fd;
	struct timespec t0;
	int p[2], status;
	pid_t pid;

	if (!CHECK(pipe(p) == 0))
		return;
	pid = fork();
	if (pid == 0) {
		nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
		_exit(write(p[1], "y", 1) == 1 ? 0 : 1);
	}
	fd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(poll(&fd, 1, -1), 1);
	CHECK(ms_since(&t0) >= 40);
	CHECK_EQ(fd.revents, POLLIN);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p[0]);
	close(p[1]);
}

static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

/* A blocked signal that the call's mask unblocks ends it, and its handler runs before the old
 * mask is back (which would block it again). */
static void masked_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct pollfd fd = { .fd = -1 };
	sigset_t usr1, none;

	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&none);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	kill(getpid(), SIGUSR1);
	CHECK_ERR(ppoll(&fd, 1, NULL, &none), EINTR);
	CHECK_EQ(handled, 1);
	kill(getpid(), SIGUSR1);
	CHECK_ERR(pselect(0, NULL, NULL, NULL, NULL, &none), EINTR);
	CHECK_EQ(handled, 2);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

static void ppoll_args(void)
{
	struct pollfd fd;
	int p[2];
	sigset_t none;

	if (!CHECK(pipe(p) == 0))
		return;
	sigemptyset(&none);
	fd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	CHECK_EQ(ppoll(&fd, 1, NULL, &none), 1);
	CHECK_ERR(syscall(SYS_ppoll, &fd, 1, NULL, &none, 4), EINVAL); /* sigsetsize */
	CHECK_ERR(ppoll(&fd, 1, &(struct timespec){ 0, 1000000000 }, NULL), EINVAL);
	fd.fd = p[0];
	fd.events = POLLIN;
	CHECK_EQ(ppoll(&fd, 1, &(struct timespec){ 0, 0 }, NULL), 0);
	close(p[0]);
	close(p[1]);
}

static void select_pipe(void)
{
	fd_set r, w;
	struct timeval tv = { 0, 0 };
	int p[2];

	if (!CHECK(pipe(p) == 0))
		return;
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	CHECK_EQ(select(p[1] + 1, &r, &w, NULL, &tv), 1);
	CHECK(!FD_ISSET(p[0], &r) && FD_ISSET(p[1], &w));
	CHECK_EQ(write(p[1], "z", 1), 1);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	CHECK_EQ(select(p[1] + 1, &r, &w, NULL, NULL), 2);
	CHECK(FD_ISSET(p[0], &r) && FD_ISSET(p[1], &w));
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	tv = (struct timeval){ 0, 0 };
	CHECK_EQ(pselect(p[0] + 1, &r, NULL, NULL, &(struct timespec){ 0, 0 }, NULL), 1);
	FD_ZERO(&r);
	FD_SET(50, &r); /* not open */
	CHECK_ERR(select(51, &r, NULL, NULL, &tv), EBADF);
	CHECK_ERR(select(-1, NULL, NULL, NULL, &tv), EINVAL);
	CHECK_ERR(pselect(-1, NULL, NULL, NULL, &(struct timespec){ 0, 0 }, NULL), EINVAL);
	/* nfds is an int: a negative one with the register's upper half clear is still negative,
	 * and the upper half of a positive one is not looked at (the control: p[0] is readable) */
	CHECK_ERR(syscall(SYS_select, 0xffffffffUL, NULL, NULL, NULL, &tv), EINVAL);
	CHECK_ERR(syscall(SYS_pselect6, 0x80000000UL, NULL, NULL, NULL,
			  &(struct timespec){ 0, 0 }, NULL), EINVAL);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK_EQ(syscall(SYS_select, 0x100000000UL + (unsigned)p[0] + 1, &r, NULL, NULL, &tv), 1);
	CHECK(FD_ISSET(p[0], &r));
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK_EQ(syscall(SYS_pselect6, 0xffffffff00000000UL + (unsigned)p[0] + 1, &r, NULL, NULL,
			 &(struct timespec){ 0, 0 }, NULL), 1);
	tv = (struct timeval){ 0, -1 };
	CHECK_ERR(select(1, NULL, NULL, NULL, &tv), EINVAL);
	tv = (struct timeval){ -1, 0 };
	CHECK_ERR(select(1, NULL, NULL, NULL, &tv), EINVAL);
	tv = (struct timeval){ 0, 20000 };
	CHECK_EQ(select(0, NULL, NULL, NULL, &tv), 0); /* a sleep of 20 ms */
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	poll_pipe();
	poll_wakes();
	ppoll_args();
	masked_signal();
	select_pipe();
	return utest_done();
}
