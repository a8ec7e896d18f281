/* tty-errors: what is not a terminal says so: the terminal ioctls give ENOTTY on a pipe, a
 * regular file and /dev/null, and /dev/tty gives ENXIO to a process without a controlling
 * terminal (a child that made a new session). Runs the same natively. */
#define UTEST_NAME "tty-errors"
#include "utest.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Every terminal request refused with ENOTTY on fd. */
static void not_a_tty(int fd)
{
	struct termios t;
	struct winsize ws;
	pid_t pg = getpgrp();
	int n;

	CHECK(!isatty(fd));
	CHECK_ERR(ioctl(fd, TCGETS, &t), ENOTTY);
	CHECK_ERR(ioctl(fd, TCSETS, &t), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCGWINSZ, &ws), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCGPGRP, &n), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCSPGRP, &pg), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCGSID, &n), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 0), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCNOTTY), ENOTTY);
	CHECK_ERR(tcgetpgrp(fd), ENOTTY);
	CHECK_ERR(tcflush(fd, TCIFLUSH), ENOTTY);
}

int main(void)
{
	int p[2], fd, st;
	pid_t c;

	if (CHECK(pipe(p) == 0)) {
		not_a_tty(p[0]);
		not_a_tty(p[1]);
		close(p[0]);
		close(p[1]);
	}
	fd = open("/tmp/tty-errors.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (CHECK(fd >= 0)) {
		not_a_tty(fd);
		close(fd);
		unlink("/tmp/tty-errors.file");
	}
	fd = open("/dev/null", O_RDWR);
	if (CHECK(fd >= 0)) {
		not_a_tty(fd);
		close(fd);
	}
	/* a new session has no controlling terminal: /dev/tty is no one's */
	c = fork();
	if (c == 0) {
		if (setsid() < 0)
			_exit(2);
		errno = 0;
		fd = open("/dev/tty", O_RDWR);
		_exit(fd < 0 && errno == ENXIO ? 0 : 1);
	}
	CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return utest_done();
}
