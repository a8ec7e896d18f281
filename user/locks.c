/* locks: POSIX record locks through fcntl (F_GETLK, F_SETLK, F_SETLKW) between two processes,
 * as Linux answers them: conflicts, splits and merges, release on close of any descriptor of
 * the file and at exit, blocking, deadlock detection, signals, the argument errors, and the
 * open file description (F_OFD_*) locks. */
#define _GNU_SOURCE
#define UTEST_NAME "locks"
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define DAT "/tmp/locks.dat"

static int lk(int fd, int cmd, int type, off_t start, off_t len)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &l);
}

/* F_GETLK for [start, start + len) as a write lock: the conflicting lock in *l. */
static int getlk(int fd, off_t start, off_t len, struct flock *l)
{
	*l = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start,
			     .l_len = len };
	return fcntl(fd, F_GETLK, l);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run fn(fd) in a child; its exit status (0 when every check there held). */
static int in_child(int fd, int (*fn)(int fd))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(fd));
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static pid_t parent;

static int child_sees_100(int fd)
{
	struct flock l;
	int bad = 0;

	bad |= getlk(fd, 50, 10, &l) != 0 || l.l_type != F_WRLCK || l.l_pid != parent ||
	       l.l_start != 0 || l.l_len != 100 || l.l_whence != SEEK_SET;
	bad |= (lk(fd, F_SETLK, F_RDLCK, 0, 10) != -1 || errno != EAGAIN) << 1;
	bad |= (lk(fd, F_SETLK, F_WRLCK, 100, 10) != 0) << 2;
	bad |= (getlk(fd, 200, 1, &l) != 0 || l.l_type != F_UNLCK || l.l_start != 200) << 3;
	return bad;
}

static int child_sees_split(int fd)
{
	struct flock l;
	int bad = 0;

	bad |= getlk(fd, 45, 1, &l) != 0 || l.l_type != F_UNLCK;
	bad |= (getlk(fd, 30, 1, &l) != 0 || l.l_start != 10 || l.l_len != 30) << 1;
	bad |= (getlk(fd, 70, 1, &l) != 0 || l.l_start != 60 || l.l_len != 40) << 2;
	bad |= (getlk(fd, 0, 0, &l) != 0 || l.l_type != F_RDLCK || l.l_len != 10) << 3;
	bad |= (lk(fd, F_SETLK, F_RDLCK, 0, 10) != 0) << 4;
	bad |= (lk(fd, F_SETLK, F_WRLCK, 5, 1) != -1 || errno != EAGAIN) << 5;
	return bad;
}

static int child_locks_all(int fd)
{
	return lk(fd, F_SETLK, F_WRLCK, 0, 0) != 0;
}

static void ranges(int fd)
{
	int fd2;

	parent = getpid();
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 100), 0);
	CHECK_EQ(in_child(fd, child_sees_100), 0);
	/* Unlocking the middle splits the lock; a read lock over the start converts it. */
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 40, 20), 0);
	CHECK_EQ(lk(fd, F_SETLK, F_RDLCK, 0, 10), 0);
	CHECK_EQ(in_child(fd, child_sees_split), 0);
	/* Closing any descriptor of the file drops the process's locks on it. */
	fd2 = open(DAT, O_RDONLY);
	CHECK(fd2 >= 0);
	CHECK(in_child(fd, child_locks_all) != 0);
	close(fd2);
	CHECK_EQ(in_child(fd, child_locks_all), 0);
}

/* Hold a write lock on byte 0, tell the parent, hold it 200 ms, exit (releasing it). */
static void holder(int fd, int tell)
{
	lk(fd, F_SETLK, F_WRLCK, 0, 1);
	write(tell, "h", 1);
	usleep(200000);
	_exit(0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void blocking(int fd)
{
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int p[2], st;
	long t0;
	pid_t pid;
	char c;

	CHECK_EQ(pipe(p), 0);
	pid = fork();
	if (pid == 0)
		holder(fd, p[1]);
	read(p[0], &c, 1);
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, 0, 1), EAGAIN);
	/* A signal (no SA_RESTART) ends the wait with EINTR. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(lk(fd, F_SETLKW, F_WRLCK, 0, 1), EINTR);
	/* Otherwise F_SETLKW waits for the holder's exit. */
	t0 = now_ms();
	CHECK_EQ(lk(fd, F_SETLKW, F_WRLCK, 0, 1), 0);
	CHECK(now_ms() - t0 >= 20);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 0, 0), 0);

	/* Deadlock: the child holds byte 1 and waits for byte 0, which the parent holds; the
	 * parent's wait for byte 1 would close the cycle. */
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 1), 0);
	pid = fork();
	if (pid == 0) {
		lk(fd, F_SETLK, F_WRLCK, 1, 1);
		write(p[1], "c", 1);
		_exit(lk(fd, F_SETLKW, F_WRLCK, 0, 1) != 0);
	}
	read(p[0], &c, 1);
	usleep(100000); /* the child is asleep in F_SETLKW by now */
	CHECK_ERR(lk(fd, F_SETLKW, F_WRLCK, 1, 1), EDEADLK);
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 0, 1), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	close(p[0]);
	close(p[1]);
}

static int child_sees_neg(int fd)
{
	struct flock l;

	return getlk(fd, 2, 100, &l) != 0 || l.l_type != F_WRLCK || l.l_start != 5 ||
	       l.l_len != 5;
}

static void errors(int fd)
{
	int ro = open(DAT, O_RDONLY), wo = open(DAT, O_WRONLY);
	struct flock l = { .l_type = F_WRLCK, .l_whence = 7 };

	CHECK_ERR(lk(ro, F_SETLK, F_WRLCK, 0, 1), EBADF);
	CHECK_ERR(lk(wo, F_SETLK, F_RDLCK, 0, 1), EBADF);
	CHECK_EQ(lk(ro, F_SETLK, F_UNLCK, 0, 1), 0);
	CHECK_EQ(lk(ro, F_SETLK, F_RDLCK, 0, 1), 0);
	CHECK_ERR(lk(fd, F_SETLK, 5, 0, 1), EINVAL);
	CHECK_ERR(fcntl(fd, F_SETLK, &l), EINVAL);
	CHECK_ERR(lk(fd, F_GETLK, F_UNLCK, 0, 1), EINVAL);
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, 2, -5), EINVAL); /* would start before 0 */
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, -1, 1), EINVAL);
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, 0x7fffffffffffffffL, 2), EOVERFLOW);
	CHECK_ERR(lk(9999, F_SETLK, F_WRLCK, 0, 1), EBADF);
	/* A negative length locks the bytes before l_start. */
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 10, -5), 0);
	CHECK_EQ(in_child(fd, child_sees_neg), 0);
	close(ro);
	close(wo);
}

/* Open file description locks belong to the open file: two opens in one process conflict,
 * closing a duplicate keeps them, closing the last descriptor drops them. */
static void ofd(void)
{
	int a = open(DAT, O_RDWR), b = open(DAT, O_RDWR), c;
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };

	CHECK_EQ(fcntl(a, F_OFD_SETLK, &l), 0);
	CHECK_ERR(fcntl(b, F_OFD_SETLK, &l), EAGAIN);
	CHECK_ERR(lk(b, F_SETLK, F_RDLCK, 5, 1), EAGAIN); /* a POSIX lock of the same process */
	l.l_start = 5;
	CHECK_EQ(fcntl(b, F_OFD_GETLK, &l), 0);
	CHECK_EQ(l.l_type, F_WRLCK);
	CHECK_EQ(l.l_pid, -1);
	CHECK_EQ(l.l_start, 0);
	l = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1, .l_pid = 1 };
	CHECK_ERR(fcntl(b, F_OFD_SETLK, &l), EINVAL); /* l_pid must be 0 */
	CHECK_ERR(fcntl(b, F_OFD_GETLK, &l), EINVAL);
	c = dup(a);
	close(c);
	l.l_pid = 0;
	CHECK_ERR(fcntl(b, F_OFD_SETLK, &l), EAGAIN); /* still held through a */
	close(a);
	CHECK_EQ(fcntl(b, F_OFD_SETLK, &l), 0);
	close(b);
}

int main(void)
{
	int fd = open(DAT, O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	ranges(fd);
	blocking(fd);
	errors(fd);
	close(fd);
	ofd();
	unlink(DAT);
	return utest_done();
}
