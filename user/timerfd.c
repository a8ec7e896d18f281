/* timerfd: timerfd_create, timerfd_settime and timerfd_gettime as Linux answers them: the
 * flags and clocks, each EINVAL, one-shot and interval timers, relative and TFD_TIMER_ABSTIME
 * (CLOCK_MONOTONIC, and CLOCK_REALTIME in the past, which counts the intervals it missed), the
 * count read returns, the old setting, poll and epoll, and a read a signal ends. */
#define _GNU_SOURCE
#define UTEST_NAME "timerfd"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define MS 1000000L

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static int arm(int fd, int flags, time_t s, long ns, time_t is, long ins)
{
	struct itimerspec t = { .it_interval = { is, ins }, .it_value = { s, ns } };

	return timerfd_settime(fd, flags, &t, NULL);
}

/* The count read once, or ~0 (a failure, with errno) */
static uint64_t get(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : ~0ULL;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && p.revents == POLLIN;
}

static void errors(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0), ef = eventfd(0, 0);
	struct itimerspec cur = { { 1, 1 }, { 1, 1 } };
	struct stat st, se;
	uint32_t small;
	char link[64];

	if (!CHECK(fd >= 0 && ef >= 0))
		return;
	CHECK_ERR(timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL);
	CHECK_ERR(timerfd_create(42, 0), EINVAL);
	CHECK_ERR(timerfd_create(CLOCK_MONOTONIC, 1), EINVAL);
	int b = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	CHECK_EQ(fcntl(b, F_GETFL), O_RDWR | O_NONBLOCK);
	CHECK_EQ(fcntl(b, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDWR);
	close(b);
	CHECK(fstat(fd, &st) == 0 && fstat(ef, &se) == 0);
	CHECK_EQ(st.st_ino, se.st_ino); /* the anonymous inode */
	CHECK_EQ(st.st_mode, 0600);
	CHECK(!strcmp(utest_fd_link(fd, link, sizeof(link)), "anon_inode:[timerfd]"));

	CHECK_EQ(timerfd_gettime(fd, &cur), 0);
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
	CHECK(cur.it_interval.tv_sec == 0 && cur.it_interval.tv_nsec == 0);
	CHECK_ERR(arm(fd, 4, 1, 0, 0, 0), EINVAL);
	CHECK_ERR(arm(fd, 0, 1, 1000000000, 0, 0), EINVAL);
	CHECK_ERR(arm(fd, 0, -1, 0, 0, 0), EINVAL);
	CHECK_ERR(arm(fd, 0, 1, 0, 0, -1), EINVAL);
	CHECK_ERR(arm(60, 0, 1, 0, 0, 0), EBADF);
	CHECK_ERR(arm(ef, 0, 1, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_timerfd_settime, fd, 0, 8, 0), EFAULT);
	CHECK_ERR(timerfd_gettime(ef, &cur), EINVAL);
	CHECK_ERR(timerfd_gettime(60, &cur), EBADF);
	CHECK_ERR(syscall(SYS_timerfd_gettime, fd, 8), EFAULT);
	CHECK_ERR(read(fd, &small, sizeof(small)), EINVAL);
	CHECK_ERR(write(fd, &cur, 8), EINVAL);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CHECK_ERR(get(fd), EAGAIN);
	CHECK(!readable(fd));
	close(fd);
	close(ef);
}

static void timers(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec cur, old;
	struct timespec t0, now;
	uint64_t n;
	long ms;

	if (!CHECK(fd >= 0))
		return;
	/* once, 50 ms from now */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(arm(fd, 0, 0, 50 * MS, 0, 0), 0);
	CHECK_EQ(timerfd_gettime(fd, &cur), 0);
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 &&
	      cur.it_value.tv_nsec <= 50 * MS);
	CHECK_EQ(cur.it_interval.tv_nsec, 0);
	CHECK(!readable(fd));
	CHECK_EQ(get(fd), 1);
	CHECK(ms_since(&t0) >= 50);
	CHECK_EQ(timerfd_gettime(fd, &cur), 0);
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0); /* spent */

	/* every 20 ms: the count is the expirations since the last read */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(arm(fd, 0, 0, 20 * MS, 0, 20 * MS), 0);
	usleep(110000);
	CHECK(readable(fd));
	n = get(fd);
	ms = ms_since(&t0);
	CHECK(n >= 5 && (long)n <= ms / 20);
	CHECK_EQ(timerfd_gettime(fd, &cur), 0);
	CHECK_EQ(cur.it_interval.tv_nsec, 20 * MS);
	CHECK(cur.it_value.tv_nsec > 0 && cur.it_value.tv_nsec <= 20 * MS);
	/* a new setting: the old one back, and the count starts again */
	CHECK_EQ(arm(fd, 0, 10, 0, 0, 0), 0);
	CHECK(!readable(fd));
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	CHECK_EQ(timerfd_settime(fd, 0, &off, &old), 0);
	CHECK(old.it_value.tv_sec == 9 || (old.it_value.tv_sec == 10 && !old.it_value.tv_nsec));
	CHECK_EQ(old.it_interval.tv_sec, 0);
	CHECK_EQ(timerfd_gettime(fd, &cur), 0);
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0); /* disarmed */

	/* at a time of CLOCK_MONOTONIC */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	now = t0;
	now.tv_nsec += 30 * MS;
	if (now.tv_nsec >= 1000000000L) {
		now.tv_sec++;
		now.tv_nsec -= 1000000000L;
	}
	struct itimerspec abs = { { 0, 0 }, now };
	CHECK_EQ(timerfd_settime(fd, TFD_TIMER_ABSTIME, &abs, NULL), 0);
	CHECK_EQ(get(fd), 1);
	CHECK(ms_since(&t0) >= 30);
	close(fd);

	/* CLOCK_REALTIME, 10.5 s ago, every second: 11 expirations at once */
	fd = timerfd_create(CLOCK_REALTIME, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	now.tv_sec -= 10;
	if (now.tv_nsec >= 500 * MS) {
		now.tv_nsec -= 500 * MS;
	} else {
		now.tv_nsec += 500 * MS;
		now.tv_sec--;
	}
	abs = (struct itimerspec){ { 1, 0 }, now };
	CHECK_EQ(timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &abs, NULL), 0);
	CHECK_EQ(get(fd), 11);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* epoll wakes for a timer; a signal ends a read of one that is not armed. */
static void waits(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd = timerfd_create(CLOCK_MONOTONIC, 0), ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 77 };
	struct timespec t0;

	if (!CHECK(fd >= 0 && ep >= 0))
		return;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(arm(fd, 0, 0, 40 * MS, 0, 0), 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 5000), 1);
	CHECK(ms_since(&t0) >= 40);
	CHECK_EQ(ev.data.u64, 77);
	CHECK_EQ(get(fd), 1);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	CHECK_ERR(get(fd), EINTR);
	close(ep);
	close(fd);
}

int main(void)
{
	errors();
	timers();
	waits();
	return utest_done();
}
