/* eventfd: eventfd and eventfd2 as Linux answers them: the flags, the counter read and written
 * 8 bytes at a time (semaphore mode one at a time), its 0xfffffffffffffffe limit, EAGAIN, the
 * bad sizes and values, poll, a read and a write that sleep until another process acts, and the
 * anonymous inode every such file shares (fstat). */
#define _GNU_SOURCE
#define UTEST_NAME "eventfd"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define MAXCOUNT 0xfffffffffffffffeULL

static unsigned int revents(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	return poll(&p, 1, 0) < 0 ? 0xffff : (unsigned int)p.revents;
}

static long put(int fd, uint64_t v)
{
	return write(fd, &v, sizeof(v));
}

/* The counter read once: its value, or ~0 (a failure, with errno) */
static uint64_t get(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : ~0ULL;
}

/* Does /proc/self/fd list fd? */
static int fd_listed(int fd)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)))
		found |= e->d_type == DT_LNK && atoi(e->d_name) == fd;
	if (d)
		closedir(d);
	return found;
}

static void flags(void)
{
	char link[64];

	int a = eventfd(0, 0), b = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), c;
	struct stat sa, sb;

	if (!CHECK(a >= 0 && b >= 0))
		return;
	CHECK_EQ(fcntl(a, F_GETFL), O_RDWR);
	CHECK_EQ(fcntl(b, F_GETFL), O_RDWR | O_NONBLOCK);
	CHECK_EQ(fcntl(a, F_GETFD), 0);
	CHECK_EQ(fcntl(b, F_GETFD), FD_CLOEXEC);
	/* one anonymous inode under both: mode 0600 and no file type */
	CHECK(fstat(a, &sa) == 0 && fstat(b, &sb) == 0);
	CHECK_EQ(sa.st_mode, 0600);
	CHECK_EQ(sa.st_ino, sb.st_ino);
	CHECK_EQ(sa.st_dev, sb.st_dev);
	CHECK_EQ(sa.st_size, 0);
	CHECK_EQ(sa.st_nlink, 1);
	CHECK(!strcmp(utest_fd_link(a, link, sizeof(link)), "anon_inode:[eventfd]"));
	CHECK(fd_listed(a) && fd_listed(b));
	CHECK_ERR(readlink("/proc/self/fd/63", link, sizeof(link)), ENOENT);
	CHECK_ERR(syscall(SYS_eventfd2, 0, 0x10), EINVAL);
	CHECK_ERR(syscall(SYS_eventfd2, 0, O_RDWR), EINVAL);
	c = (int)syscall(SYS_eventfd2, 1UL << 32 | 3, 1UL << 32); /* ints: 3 and 0 */
	CHECK_EQ(get(c), 3);
	close(c);
	CHECK_EQ(lseek(a, 5, SEEK_SET), 0); /* Linux's noop_llseek: nothing moves */
	CHECK_EQ(lseek(a, 0, SEEK_END), 0);
	CHECK_EQ(put(a, 2), 8);
	CHECK_ERR(pread(a, &sb.st_ino, 8, 0), ESPIPE);
	CHECK_EQ(get(a), 2);
	CHECK_ERR(pwrite(a, &sb.st_ino, 8, 0), ESPIPE);
	CHECK_ERR(ioctl(a, FIONREAD, &sa), ENOTTY);
	CHECK_ERR(fsync(a), EINVAL);
	close(a);
	close(b);
	a = (int)syscall(SYS_eventfd, 7); /* the old call: no flags */
	CHECK_EQ(get(a), 7);
	close(a);
}

static void counter(void)
{
	int fd = eventfd(5, EFD_NONBLOCK);
	uint32_t small = 1;
	uint64_t big[2] = { 1, 1 };

	if (!CHECK(fd >= 0))
		return;
	CHECK_EQ(revents(fd), POLLIN | POLLOUT);
	CHECK_ERR(read(fd, &small, sizeof(small)), EINVAL);
	CHECK_ERR(write(fd, &small, sizeof(small)), EINVAL);
	CHECK_EQ(read(fd, big, sizeof(big)), 8); /* more room is fine: 8 bytes */
	CHECK_EQ(big[0], 5);
	CHECK_EQ(big[1], 1);
	CHECK_EQ(revents(fd), POLLOUT);
	CHECK_ERR(get(fd), EAGAIN);
	CHECK_EQ(put(fd, 3), 8);
	CHECK_EQ(put(fd, 4), 8);
	CHECK_EQ(put(fd, 0), 8);
	CHECK_EQ(get(fd), 7);
	CHECK_ERR(put(fd, ~0ULL), EINVAL);
	CHECK_EQ(put(fd, MAXCOUNT), 8);
	CHECK_EQ(revents(fd), POLLIN); /* full: not writable */
	CHECK_ERR(put(fd, 1), EAGAIN);
	CHECK_EQ(put(fd, 0), 8);
	CHECK_EQ(get(fd), MAXCOUNT);
	CHECK_EQ(put(fd, MAXCOUNT - 1), 8);
	CHECK_EQ(revents(fd), POLLIN | POLLOUT);
	CHECK_EQ(put(fd, 1), 8);
	CHECK_ERR(syscall(SYS_write, fd, 8, 8), EFAULT);
	CHECK_EQ(get(fd), MAXCOUNT);
	close(fd);

	fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
	CHECK_EQ(get(fd), 1);
	CHECK_EQ(get(fd), 1);
	CHECK_EQ(put(fd, 2), 8);
	CHECK_EQ(get(fd), 1);
	CHECK_EQ(get(fd), 1);
	CHECK_EQ(get(fd), 1);
	CHECK_ERR(get(fd), EAGAIN);
	close(fd);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A read sleeps until a child writes, a write until a child reads; a signal ends a sleep. */
static void sleeps(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART: EINTR */
	int fd = eventfd(0, 0), status;
	struct timespec t0;
	pid_t pid;

	if (!CHECK(fd >= 0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(put(fd, 9) == 8 ? 0 : 1);
	}
	CHECK_EQ(get(fd), 9);
	CHECK(ms_since(&t0) >= 40);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);

	CHECK_EQ(put(fd, 2), 8);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(get(fd) == 2 ? 0 : 1);
	}
	CHECK_EQ(put(fd, MAXCOUNT - 1), 8); /* waits for room: the child's read */
	CHECK(ms_since(&t0) >= 40);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	CHECK_EQ(get(fd), MAXCOUNT - 1);

	sigaction(SIGALRM, &sa, NULL);
	utest_alarm_ms(100);
	CHECK_ERR(get(fd), EINTR);
	CHECK_EQ(alarms, 1);

	/* with SA_RESTART the read goes on after the handler, and gets the child's count */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	pid = fork();
	if (pid == 0) {
		usleep(150000);
		_exit(put(fd, 4) == 8 ? 0 : 1);
	}
	setitimer(ITIMER_REAL, &(struct itimerval){ .it_value = { 0, 50000 } }, NULL);
	CHECK_EQ(get(fd), 4);
	CHECK_EQ(alarms, 2);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	close(fd);
}

int main(void)
{
	flags();
	counter();
	sleeps();
	return utest_done();
}
