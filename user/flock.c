/* flock: flock(2)'s whole-file locks as Linux answers them: owned by the open file
 * description (dup and fork share them, another open conflicts), shared and exclusive,
 * LOCK_NB's EWOULDBLOCK, a conversion that drops the old lock first, waiting until the holder
 * lets go, EINTR by a signal, release on the last close only, no meeting with fcntl's locks,
 * and the errors (EINVAL before EBADF). */
#define _GNU_SOURCE
#define UTEST_NAME "flock"
#include "utest.h"
#include "filetest.h"
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>

static char path[64];

static int op(int fd, int how)
{
	return (int)syscall(SYS_flock, fd, how);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* a child's exit status: fn run on a fresh open of the file */
static int child_open(int (*fn)(int fd))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(open(path, O_RDWR)));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int try_ex(int fd)
{
	return op(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno == EWOULDBLOCK ? 1 : 2;
}

static int posix_lock(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return fcntl(fd, F_SETLK, &l) == 0 ? 0 : 1;
}

static void shared_exclusive(void)
{
	int a = open(path, O_RDWR), b = open(path, O_RDONLY), c = open(path, O_WRONLY), d;

	CHECK(a >= 0 && b >= 0 && c >= 0);
	CHECK_EQ(op(a, LOCK_EX), 0);
	CHECK_ERR(op(b, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	CHECK_ERR(op(b, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	d = dup(a);
	CHECK_EQ(op(d, LOCK_EX | LOCK_NB), 0); /* the same open file: its own lock */
	CHECK_EQ(op(a, LOCK_EX), 0);           /* held already: nothing to do */
	CHECK_EQ(child_open(try_ex), 1);       /* another process's open */
	CHECK_EQ(child_open(posix_lock), 0);   /* fcntl's locks are another world */
	CHECK_EQ(op(d, LOCK_UN), 0);           /* any descriptor of it unlocks */
	CHECK_EQ(op(b, LOCK_EX | LOCK_NB), 0); /* a write lock on a read-only open */
	CHECK_EQ(op(b, LOCK_UN), 0);
	CHECK_EQ(op(b, LOCK_UN), 0); /* none held: fine */
	CHECK_EQ(op(a, LOCK_SH), 0);
	CHECK_EQ(op(b, LOCK_SH | LOCK_NB), 0);
	CHECK_ERR(op(c, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	/* a conversion drops the old lock first: failed, it is gone all the same */
	CHECK_ERR(op(a, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	CHECK_EQ(op(b, LOCK_UN), 0);
	CHECK_EQ(op(c, LOCK_EX | LOCK_NB), 0); /* so a's shared lock is not there */
	CHECK_EQ(op(c, LOCK_SH), 0); /* and this one converts at once: no one else */
	CHECK_EQ(op(b, LOCK_SH | LOCK_NB), 0);
	close(a);
	close(b);
	close(c);
	close(d);
}

/* the lock goes with the last reference to the open file, not with a close */
static void last_close(void)
{
	int a = open(path, O_RDWR), p[2], status;
	pid_t pid;
	char ch;

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(op(a, LOCK_EX), 0);
	pid = fork();
	if (pid == 0) { /* shares a's open file, and its lock */
		close(p[1]);
		_exit(read(p[0], &ch, 1) == 0 ? 0 : 1);
	}
	close(p[0]);
	close(a);
	CHECK_EQ(child_open(try_ex), 1); /* the child still holds it */
	close(p[1]);                     /* the child exits */
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK_EQ(child_open(try_ex), 0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* LOCK_EX without LOCK_NB waits for the holder; a signal without SA_RESTART ends it */
static void waiting(void)
{
	int a = open(path, O_RDWR), p[2], status;
	struct sigaction sa = { .sa_handler = on_alarm };
	long waited = 0;
	pid_t pid;
	char ch = 0;

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(op(a, LOCK_EX), 0);
	pid = fork();
	if (pid == 0) {
		int b = open(path, O_RDWR), r;
		long t0;

		close(p[0]);
		sigaction(SIGALRM, &sa, NULL);
		utest_alarm_ms(100);
		errno = 0;
		r = op(b, LOCK_EX); /* the parent never lets go of this one */
		ch = r == -1 && errno == EINTR ? 'i' : 'x';
		if (write(p[1], &ch, 1) != 1)
			_exit(3);
		t0 = now_ms();
		r = op(b, LOCK_EX); /* the parent lets go after 100 ms */
		waited = now_ms() - t0;
		_exit(r == 0 && waited >= 50 ? 0 : 1);
	}
	close(p[1]);
	CHECK_EQ(read(p[0], &ch, 1), 1);
	CHECK_EQ(ch, 'i');
	usleep(100000);
	CHECK_EQ(op(a, LOCK_UN), 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	close(p[0]);
	close(a);
}

static void errors(void)
{
	int p[2];

	CHECK_ERR(op(0, 0), EINVAL);
	CHECK_ERR(op(0, LOCK_SH | LOCK_EX), EINVAL);
	CHECK_ERR(op(0, LOCK_NB), EINVAL);
	CHECK_ERR(op(0, 16), EINVAL);
	CHECK_ERR(op(-1, 0), EINVAL); /* the operation before the descriptor */
	CHECK_ERR(op(-1, LOCK_SH), EBADF);
	CHECK_ERR(op(99, LOCK_UN), EBADF);
	/* any file: a pipe too */
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(op(p[0], LOCK_EX | LOCK_NB), 0);
	CHECK_ERR(op(p[1], LOCK_EX | LOCK_NB), EWOULDBLOCK); /* the other end: the same inode */
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	int fd;

	if (tmp_setup())
		return 1;
	tmp_path(path, sizeof(path), "flock");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	close(fd);
	shared_exclusive();
	last_close();
	waiting();
	errors();
	unlink(path);
	tmp_cleanup();
	return utest_done();
}
