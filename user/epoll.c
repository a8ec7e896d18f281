/* epoll: epoll_create, epoll_create1, epoll_ctl, epoll_wait and epoll_pwait as Linux answers
 * them: each error of epoll_ctl and epoll_wait, level- and edge-triggered and one-shot items on
 * eventfds and pipes, hang-ups, a closed file leaving its sets, the timeout, a sleep that ends
 * when another process writes, and a set inside another set. */
#define _GNU_SOURCE
#define UTEST_NAME "epoll"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

static int ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(ep, op, fd, &ev);
}

/* One epoll_wait with no sleep: how many, the first one's events and data. */
static int wait1(int ep, uint32_t *events, uint64_t *data)
{
	struct epoll_event ev[4] = { 0 };
	int n = epoll_wait(ep, ev, 4, 0);

	*events = ev[0].events;
	*data = ev[0].data.u64;
	return n;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void errors(const char *self)
{
	char path[64];

	int ep = epoll_create1(0), ep2 = epoll_create(1), ef = eventfd(0, 0);
	int file = open(self, O_RDONLY);
	struct epoll_event ev[2];
	struct stat se, sf;

	if (!CHECK(ep >= 0 && ep2 >= 0 && ef >= 0 && file >= 0))
		return;
	/* the raw call: musl's epoll_create checks no size */
	CHECK_ERR(syscall(SYS_epoll_create, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_create, -1), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_create, 1UL << 32), EINVAL); /* an int: 0 */
	CHECK_ERR(epoll_create1(1), EINVAL);
	CHECK_EQ(fcntl(ep, F_GETFD), 0);
	CHECK_EQ(fcntl(ep, F_GETFL), O_RDWR);
	int cl = epoll_create1(EPOLL_CLOEXEC);
	CHECK_EQ(fcntl(cl, F_GETFD), FD_CLOEXEC);
	close(cl);
	/* the anonymous inode eventfd's files have too */
	CHECK(fstat(ep, &se) == 0 && fstat(ef, &sf) == 0);
	CHECK_EQ(se.st_ino, sf.st_ino);
	CHECK_EQ(se.st_mode, 0600);

	CHECK_ERR(ctl(60, EPOLL_CTL_ADD, ef, EPOLLIN, 0), EBADF);
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, 60, EPOLLIN, 0), EBADF);
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, file, EPOLLIN, 0), EPERM); /* a regular file */
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, ep, EPOLLIN, 0), EINVAL);
	CHECK_ERR(ctl(ef, EPOLL_CTL_ADD, ep, EPOLLIN, 0), EINVAL); /* ef is no set */
	CHECK_ERR(ctl(ep, EPOLL_CTL_MOD, ef, EPOLLIN, 0), ENOENT);
	CHECK_ERR(ctl(ep, EPOLL_CTL_DEL, ef, EPOLLIN, 0), ENOENT);
	CHECK_ERR(ctl(ep, 7, ef, EPOLLIN, 0), EINVAL);
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, ef, (void *)8), EFAULT);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, ef, NULL), -1); /* DEL reads no event */
	CHECK_EQ(errno, ENOENT);
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, ep2, EPOLLIN | EPOLLEXCLUSIVE, 0), EINVAL);
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, ef, EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, 0), EINVAL);
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, ef, EPOLLIN, 0), 0);
	CHECK_ERR(ctl(ep, EPOLL_CTL_ADD, ef, EPOLLIN, 0), EEXIST);
	CHECK_ERR(ctl(ep, EPOLL_CTL_MOD, ef, EPOLLIN | EPOLLEXCLUSIVE, 0), EINVAL);
	CHECK_EQ(ctl(ep, EPOLL_CTL_MOD, ef, EPOLLOUT, 0), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_DEL, ef, 0, 0), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, ef, EPOLLIN | EPOLLEXCLUSIVE, 0), 0);
	CHECK_ERR(ctl(ep, EPOLL_CTL_MOD, ef, EPOLLIN, 0), EINVAL); /* exclusive: never modified */
	CHECK_EQ(ctl(ep, EPOLL_CTL_DEL, ef, 0, 0), 0);
	/* a set inside a set inside the first: a loop */
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, ep2, EPOLLIN, 0), 0);
	CHECK_ERR(ctl(ep2, EPOLL_CTL_ADD, ep, EPOLLIN, 0), ELOOP);

	CHECK_ERR(epoll_wait(ep, ev, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, -1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, 0xffff800000000000UL, 2, 0), EFAULT); /* kernel's */
	CHECK_EQ(syscall(SYS_epoll_wait, ep, 8, 2, 0), 0); /* a bad user address: nothing ready */
	CHECK_ERR(epoll_wait(60, ev, 2, 0), EBADF);
	CHECK_ERR(epoll_wait(ef, ev, 2, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_pwait, ep, ev, 2, 0, &se, 7), EINVAL);
	CHECK_EQ(lseek(ep, 0, SEEK_CUR), 0);
	CHECK(!strcmp(utest_fd_link(ep, path, sizeof(path)), "anon_inode:[eventpoll]"));
	close(ep);
	close(ep2);
	close(ef);
	close(file);
}

static void triggers(void)
{
	int ep = epoll_create1(0), lt = eventfd(1, 0), et = eventfd(1, 0), os = eventfd(1, 0);
	uint64_t one = 1, data;
	struct epoll_event ev[4];
	uint32_t events;

	if (!CHECK(ep >= 0 && lt >= 0 && et >= 0 && os >= 0))
		return;
	CHECK_EQ(wait1(ep, &events, &data), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, lt, EPOLLIN, 11), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(events, EPOLLIN);
	CHECK_EQ(data, 11);
	CHECK_EQ(wait1(ep, &events, &data), 1); /* level-triggered: still ready */
	CHECK_EQ(read(lt, &one, 8), 8);
	CHECK_EQ(wait1(ep, &events, &data), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_MOD, lt, EPOLLIN | EPOLLOUT, 12), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(events, EPOLLOUT);
	CHECK_EQ(data, 12);
	CHECK_EQ(ctl(ep, EPOLL_CTL_DEL, lt, 0, 0), 0);

	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, et, EPOLLIN | EPOLLET, 21), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(data, 21);
	CHECK_EQ(wait1(ep, &events, &data), 0); /* edge-triggered: once per change */
	CHECK_EQ(write(et, &one, 8), 8);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(events, EPOLLIN);
	CHECK_EQ(wait1(ep, &events, &data), 0);

	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, os, EPOLLIN | EPOLLONESHOT, 31), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_DEL, et, 0, 0), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(data, 31);
	CHECK_EQ(write(os, &one, 8), 8);
	CHECK_EQ(wait1(ep, &events, &data), 0); /* one shot, spent */
	CHECK_EQ(ctl(ep, EPOLL_CTL_MOD, os, EPOLLIN | EPOLLONESHOT, 32), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(data, 32);

	/* two ready, room for one at a time */
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, lt, EPOLLOUT, 41), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_MOD, os, EPOLLIN, 42), 0);
	CHECK_EQ(epoll_wait(ep, ev, 1, 0), 1);
	CHECK_EQ(epoll_wait(ep, ev + 1, 1, 0), 1);
	CHECK(ev[0].data.u64 != ev[1].data.u64);
	CHECK(ev[0].data.u64 + ev[1].data.u64 == 83);
	CHECK_EQ(epoll_wait(ep, ev, 4, 0), 2);
	close(ep);
	close(lt);
	close(et);
	close(os);
}

/* More ready files than one look hands out: each reported once per wait, as many as asked. */
static void many(void)
{
	struct epoll_event ev[48];
	int ep = epoll_create1(0), fd[40], i;
	uint64_t seen = 0;

	if (!CHECK(ep >= 0))
		return;
	for (i = 0; i < 40; i++) {
		fd[i] = eventfd(1, 0);
		CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, fd[i], EPOLLIN | EPOLLET, (uint64_t)i), 0);
	}
	CHECK_EQ(epoll_wait(ep, ev, 35, 0), 35);
	for (i = 0; i < 35; i++)
		seen |= 1ULL << (ev[i].data.u64 & 63);
	CHECK_EQ(__builtin_popcountll(seen), 35); /* 35 different ones */
	CHECK_EQ(epoll_wait(ep, ev, 48, 0), 5); /* edge-triggered: the other five */
	for (i = 0; i < 5; i++)
		seen |= 1ULL << (ev[i].data.u64 & 63);
	CHECK_EQ(seen, (1ULL << 40) - 1);
	CHECK_EQ(epoll_wait(ep, ev, 48, 0), 0);
	for (i = 0; i < 40; i++)
		CHECK_EQ(ctl(ep, EPOLL_CTL_MOD, fd[i], EPOLLIN, (uint64_t)i), 0);
	CHECK_EQ(epoll_wait(ep, ev, 48, 0), 40);
	CHECK_EQ(epoll_wait(ep, ev, 48, 0), 40); /* level-triggered: all again */
	for (i = 0; i < 40; i++)
		close(fd[i]);
	CHECK_EQ(epoll_wait(ep, ev, 48, 0), 0);
	close(ep);
}

static void pipes(void)
{
	int ep = epoll_create1(0), p[2], q[2], status;
	struct epoll_event ev[2];
	struct timespec t0;
	uint64_t data;
	uint32_t events;
	char link[64], want[64];
	struct stat st;
	pid_t pid;

	if (!CHECK(ep >= 0 && pipe(p) == 0 && pipe(q) == 0))
		return;
	CHECK(fstat(p[0], &st) == 0);
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)st.st_ino);
	CHECK(!strcmp(utest_fd_link(p[0], link, sizeof(link)), want));
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 1), 0);
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLOUT, 2), 0);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(events, EPOLLOUT);
	CHECK_EQ(data, 2);
	CHECK_EQ(ctl(ep, EPOLL_CTL_DEL, p[1], 0, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(epoll_wait(ep, ev, 2, 30), 0); /* the time runs out */
	CHECK(ms_since(&t0) >= 25);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	CHECK_EQ(epoll_wait(ep, ev, 2, -1), 1); /* sleeps until the child writes */
	CHECK(ms_since(&t0) >= 40);
	CHECK_EQ(ev[0].events, EPOLLIN);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	close(p[1]);
	CHECK_EQ(wait1(ep, &events, &data), 1);
	CHECK_EQ(events, EPOLLIN | EPOLLHUP); /* hang-ups are reported unasked */
	/* the last close of a watched file takes it out of the set */
	CHECK_EQ(ctl(ep, EPOLL_CTL_ADD, q[0], EPOLLIN, 3), 0);
	CHECK_EQ(write(q[1], "y", 1), 1);
	close(p[0]);
	close(q[0]);
	CHECK_EQ(wait1(ep, &events, &data), 0);
	CHECK_ERR(ctl(ep, EPOLL_CTL_DEL, q[0], 0, 0), EBADF);
	close(q[1]);
	close(ep);
}

static volatile int handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
}

/* epoll_pwait2's timespec, and epoll_pwait's mask: a blocked signal it unblocks ends it. */
static void pwaits(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int ep = epoll_create1(0), ef = eventfd(0, 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 1 };
	struct timespec ts = { 0, 30 * 1000000L }, t0, bad[2] = { { 0, 1000000000L }, { -1, 0 } };
	sigset_t usr1, none;

	if (!CHECK(ep >= 0 && ef >= 0))
		return;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, ef, &ev), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 8), 0);
	CHECK(ms_since(&t0) >= 30);
	CHECK_ERR(syscall(SYS_epoll_pwait2, ep, &ev, 1, &bad[0], NULL, 8), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_pwait2, ep, &ev, 1, &bad[1], NULL, 8), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_pwait2, ep, &ev, 1, 8, NULL, 8), EFAULT);
	CHECK_EQ(eventfd_write(ef, 1), 0);
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, &ev, 1, NULL, NULL, 8), 1); /* no timeout */

	CHECK_EQ(eventfd_read(ef, &(eventfd_t){ 0 }), 0);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	kill(getpid(), SIGUSR1);
	handled = 0;
	CHECK_ERR(epoll_pwait(ep, &ev, 1, -1, &none), EINTR);
	CHECK_EQ(handled, 1);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	close(ep);
	close(ef);
}

/* A set inside another: readable when an item of it is; a signal ends a wait. */
static void nested(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int outer = epoll_create1(0), inner = epoll_create1(0), ef = eventfd(0, 0);
	struct pollfd pf = { .fd = inner, .events = POLLIN };
	struct epoll_event ev[2];
	uint64_t one = 1, data;
	uint32_t events;

	if (!CHECK(outer >= 0 && inner >= 0 && ef >= 0))
		return;
	CHECK_EQ(ctl(inner, EPOLL_CTL_ADD, ef, EPOLLIN, 5), 0);
	CHECK_EQ(ctl(outer, EPOLL_CTL_ADD, inner, EPOLLIN, 6), 0);
	CHECK_EQ(poll(&pf, 1, 0), 0);
	CHECK_EQ(wait1(outer, &events, &data), 0);
	CHECK_EQ(write(ef, &one, 8), 8);
	CHECK_EQ(poll(&pf, 1, 0), 1);
	CHECK_EQ(pf.revents, POLLIN);
	CHECK_EQ(wait1(outer, &events, &data), 1);
	CHECK_EQ(events, EPOLLIN);
	CHECK_EQ(data, 6);
	CHECK_EQ(wait1(inner, &events, &data), 1);
	CHECK_EQ(data, 5);
	CHECK_EQ(read(ef, &one, 8), 8);
	CHECK_EQ(wait1(outer, &events, &data), 0);

	sigaction(SIGALRM, &sa, NULL);
	utest_alarm_ms(100);
	CHECK_ERR(epoll_wait(outer, ev, 2, -1), EINTR);
	close(outer);
	close(inner);
	close(ef);
}

int main(int argc, char **argv)
{
	(void)argc;
	errors(argv[0]);
	triggers();
	many();
	pipes();
	nested();
	pwaits();
	return utest_done();
}
