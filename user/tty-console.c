/* tty-console: /dev/console as a terminal: Linux's default termios, settings that round-trip,
 * the window size and SIGWINCH, becoming the controlling terminal (TIOCSCTTY; /dev/tty then
 * opens), the foreground group (TIOCSPGRP's EPERM and ESRCH), a background group's read and
 * TOSTOP write (SIGTTIN, SIGTTOU, EIO when ignored), raw reads with nothing typed, O_NONBLOCK
 * and poll, a waiting read restarted by SA_RESTART. Faultline only (tests/ring3-faultline.txt):
 * natively the console is the host's. */
#define UTEST_NAME "tty-console"
#include "utest.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
	got = sig;
}

static void defaults(int fd)
{
	struct termios t;

	if (!CHECK(tcgetattr(fd, &t) == 0))
		return;
	CHECK_EQ(t.c_iflag, ICRNL | IXON);
	CHECK_EQ(t.c_oflag, OPOST | ONLCR);
	CHECK_EQ(t.c_lflag, ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN);
	CHECK_EQ(t.c_cflag & CSIZE, CS8);
	CHECK_EQ(t.c_cc[VINTR], 3);
	CHECK_EQ(t.c_cc[VQUIT], 034);
	CHECK_EQ(t.c_cc[VERASE], 0177);
	CHECK_EQ(t.c_cc[VKILL], 025);
	CHECK_EQ(t.c_cc[VEOF], 4);
	CHECK_EQ(t.c_cc[VMIN], 1);
	CHECK_EQ(t.c_cc[VSUSP], 032);
	CHECK_EQ(t.c_cc[VWERASE], 027);
	CHECK(isatty(fd));
}

/* Raw reads with nothing typed: MIN 0 TIME 0 returns 0 at once, TIME 2 after 0.2 s; a
 * nonblocking read EAGAIN; poll says writable, not readable. */
static void raw_reads(int fd, const struct termios *saved)
{
	struct termios t = *saved;
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct timespec a, b;
	char c;
	int n = -1, fl;

	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	CHECK(tcsetattr(fd, TCSANOW, &t) == 0);
	CHECK_EQ(read(fd, &c, 1), 0);
	t.c_cc[VTIME] = 2;
	CHECK(tcsetattr(fd, TCSADRAIN, &t) == 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_EQ(read(fd, &c, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 150);
	CHECK(tcsetattr(fd, TCSAFLUSH, saved) == 0);
	fl = fcntl(fd, F_GETFL);
	CHECK(fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
	CHECK_ERR(read(fd, &c, 1), EAGAIN);
	CHECK(fcntl(fd, F_SETFL, fl) == 0);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLOUT);
	CHECK(ioctl(fd, FIONREAD, &n) == 0 && n == 0);
	CHECK(tcflush(fd, TCIOFLUSH) == 0);
	CHECK_ERR(tcflush(fd, 7), EINVAL);
	CHECK(tcdrain(fd) == 0);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A read waiting for a line: a SIGALRM whose handler has SA_RESTART restarts it, a SIGUSR1
 * whose handler has not ends it with EINTR (a child sends it 0.3 s later). */
static void restarted_read(int fd)
{
	struct sigaction restart = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct sigaction intr = { .sa_handler = on_sig };
	struct timespec a, b;
	char buf[16];
	pid_t c, parent = getpid();
	int st;

	sigaction(SIGALRM, &restart, NULL);
	sigaction(SIGUSR1, &intr, NULL);
	c = fork();
	if (c == 0) {
		usleep(300000);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	alarms = 0;
	got = 0;
	ualarm(50000, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_ERR(read(fd, buf, sizeof(buf)), EINTR);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK_EQ(alarms, 1);
	CHECK_EQ(got, SIGUSR1);
	CHECK((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 200);
	waitpid(c, &st, 0);
}

/* A child of ours in its own group, in the background of our terminal: fn runs there. */
static void in_background(int fd, void (*fn)(int fd))
{
	pid_t c = fork();
	int st;

	if (c == 0) {
		utest_fails = 0; /* the child reports its own checks only */
		setpgid(0, 0);
		fn(fd);
		_exit(utest_fails ? 1 : 0);
	}
	setpgid(c, c);
	CHECK(c > 0 && waitpid(c, &st, 0) == c);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "tty-console:   child status %#x\n", st);
}

static void background_read(int fd)
{
	struct sigaction sa = { .sa_handler = on_sig }; /* no SA_RESTART: EINTR */
	char c;

	CHECK(getpgrp() != tcgetpgrp(fd));
	sigaction(SIGTTIN, &sa, NULL);
	got = 0;
	CHECK_ERR(read(fd, &c, 1), EINTR);
	CHECK_EQ(got, SIGTTIN);
	signal(SIGTTIN, SIG_IGN);
	CHECK_ERR(read(fd, &c, 1), EIO);
	/* writes go through without TOSTOP; changing the settings is job control's too */
	CHECK_EQ(write(fd, "", 0), 0);
	sigaction(SIGTTOU, &sa, NULL);
	got = 0;
	struct termios t;
	tcgetattr(fd, &t);
	CHECK_ERR(tcsetattr(fd, TCSANOW, &t), EINTR);
	CHECK_EQ(got, SIGTTOU);
	signal(SIGTTOU, SIG_IGN); /* ignored: allowed */
	CHECK(tcsetattr(fd, TCSANOW, &t) == 0);
}

static void background_tostop_write(int fd)
{
	struct sigaction sa = { .sa_handler = on_sig };

	sigaction(SIGTTOU, &sa, NULL);
	got = 0;
	CHECK_ERR(write(fd, "x", 1), EINTR);
	CHECK_EQ(got, SIGTTOU);
}

static void controlling_tty(int fd)
{
	struct termios t, t2;
	struct winsize ws, ws2 = { .ws_row = 30, .ws_col = 100 };
	int n, tty, st;
	pid_t c;

	CHECK_EQ(getsid(0), getpid()); /* the runner's programs lead their own session */
	CHECK_ERR(open("/dev/tty", O_RDWR), ENXIO);
	CHECK_ERR(ioctl(fd, TIOCGPGRP, &n), ENOTTY); /* not ours yet */
	CHECK_ERR(tcgetsid(fd), ENOTTY);
	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0);
	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0); /* already ours: nothing to do */
	CHECK_EQ(tcgetpgrp(fd), getpgrp());
	CHECK_EQ(tcgetsid(fd), getsid(0));
	tty = open("/dev/tty", O_RDWR);
	if (CHECK(tty >= 0)) {
		memset(&t, 0, sizeof(t));
		memset(&t2, 0, sizeof(t2));
		CHECK(tcgetattr(tty, &t) == 0 && tcgetattr(fd, &t2) == 0);
		CHECK(!memcmp(&t, &t2, sizeof(t)));
		close(tty);
	}
	/* the window size; a change signals the foreground group */
	struct sigaction sa = { .sa_handler = on_sig };
	sigaction(SIGWINCH, &sa, NULL);
	CHECK(ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row == 25 && ws.ws_col == 80);
	got = 0;
	CHECK(ioctl(fd, TIOCSWINSZ, &ws) == 0);
	CHECK_EQ(got, 0); /* no change, no signal */
	CHECK(ioctl(fd, TIOCSWINSZ, &ws2) == 0);
	CHECK_EQ(got, SIGWINCH);
	CHECK(ioctl(fd, TIOCGWINSZ, &ws2) == 0 && ws2.ws_row == 30 && ws2.ws_col == 100);
	CHECK(ioctl(fd, TIOCSWINSZ, &ws) == 0);
	/* the foreground group: a group of this session, not of another */
	CHECK_ERR(tcsetpgrp(fd, 0x7ffffff0), ESRCH);
	CHECK_ERR(tcsetpgrp(fd, -1), EINVAL);
	c = fork();
	if (c == 0) {
		setsid();
		pause();
		_exit(0);
	}
	usleep(100000);
	CHECK_ERR(tcsetpgrp(fd, c), EPERM);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	in_background(fd, background_read);
	tcgetattr(fd, &t);
	t2 = t;
	t2.c_lflag |= TOSTOP;
	tcsetattr(fd, TCSANOW, &t2);
	in_background(fd, background_tostop_write);
	tcsetattr(fd, TCSANOW, &t);
	/* handing the terminal to a child's group and taking it back */
	c = fork();
	if (c == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(c, c);
	CHECK(tcsetpgrp(fd, c) == 0);
	CHECK_EQ(tcgetpgrp(fd), c);
	signal(SIGTTOU, SIG_IGN); /* now in the background: as a shell does */
	CHECK(tcsetpgrp(fd, getpgrp()) == 0);
	signal(SIGTTOU, SIG_DFL);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	/* giving it up: /dev/tty is no one's again; the leader's foreground group (its own) gets
	 * SIGHUP and SIGCONT */
	sigaction(SIGHUP, &sa, NULL);
	got = 0;
	CHECK(ioctl(fd, TIOCNOTTY) == 0);
	CHECK_EQ(got, SIGHUP);
	CHECK_ERR(open("/dev/tty", O_RDWR), ENXIO);
	CHECK_ERR(ioctl(fd, TIOCNOTTY), ENOTTY);
}

int main(void)
{
	struct termios saved, t;
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (!CHECK(fd >= 0))
		return utest_done();
	defaults(fd);
	tcgetattr(fd, &saved);
	t = saved;
	t.c_lflag &= ~(tcflag_t)ECHO;
	t.c_cc[VMIN] = 7;
	CHECK(tcsetattr(fd, TCSANOW, &t) == 0);
	CHECK(tcgetattr(fd, &t) == 0 && !(t.c_lflag & ECHO) && t.c_cc[VMIN] == 7);
	CHECK(tcsetattr(fd, TCSANOW, &saved) == 0);
	raw_reads(fd, &saved);
	restarted_read(fd);
	controlling_tty(fd);
	tcsetattr(fd, TCSANOW, &saved);
	return utest_done();
}
