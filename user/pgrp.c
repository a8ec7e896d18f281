/* pgrp: process groups and sessions as Linux has them: setpgid/getpgid/getpgrp/setsid/getsid
 * with their errors, and kill() to a group, to the caller's group and to a missing group. */
#define UTEST_NAME "pgrp"
#include "utest.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child that waits in its own group (made by both sides, as shells do) until killed. */
static pid_t child_in_own_group(void)
{
	pid_t c = fork();

	if (c == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(c, c);
	return c;
}

int main(int argc, char **argv)
{
	pid_t me = getpid(), c, c2;
	int st;

	if (argc > 1) { /* re-executed below: wait to be killed */
		for (;;)
			pause();
	}
	CHECK_EQ(getpgrp(), getpgid(0));
	CHECK_EQ(getpgid(me), getpgid(0));
	CHECK_EQ(getsid(me), getsid(0));
	CHECK_ERR(getpgid(0x7ffffff0), ESRCH);
	CHECK_ERR(getsid(0x7ffffff0), ESRCH);
	CHECK_ERR(setpgid(0, -1), EINVAL);
	CHECK_ERR(setpgid(0x7ffffff0, 0), ESRCH);
	CHECK_ERR(setpgid(1, 0), ESRCH); /* not a child of ours */

	c = child_in_own_group();
	CHECK_EQ(getpgid(c), c);
	CHECK_EQ(getsid(c), getsid(0));
	c2 = fork();
	if (c2 == 0) {
		for (;;)
			pause();
	}
	CHECK_EQ(setpgid(c2, c), 0); /* into the first child's group */
	CHECK_EQ(getpgid(c2), c);
	CHECK_ERR(setpgid(c2, 0x7ffffff0), EPERM); /* no such group in the session */
	CHECK_EQ(kill(-c, 0), 0);
	CHECK_EQ(kill(-c, SIGTERM), 0); /* both children */
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK_EQ(waitpid(c2, &st, 0), c2);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK_ERR(kill(-c, 0), ESRCH); /* the group is gone */
	CHECK_ERR(kill(-0x7ffffff0, 0), ESRCH);
	CHECK_EQ(kill(0, 0), 0); /* our own group exists */

	/* A process that leads no group may start a session; then it leads both. */
	c = fork();
	if (c == 0) {
		pid_t s = setsid();

		if (s != getpid() || getsid(0) != s || getpgrp() != s)
			_exit(1);
		if (setsid() != -1 || errno != EPERM)
			_exit(2);
		if (setpgid(0, 0) != -1 || errno != EPERM)
			_exit(3); /* a session leader cannot change group */
		_exit(0);
	}
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFEXITED(st) && WEXITSTATUS(st))
		fprintf(stderr, "pgrp: setsid child step %d failed\n", WEXITSTATUS(st));

	/* A group leader cannot start a session. */
	c = fork();
	if (c == 0) {
		setpgid(0, 0);
		_exit(setsid() == -1 && errno == EPERM ? 0 : 1);
	}
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* A child that has exec'd can no longer be moved (EACCES). */
	c = fork();
	if (c == 0) {
		execl(argv[0], argv[0], "wait", (char *)0);
		_exit(9);
	}
	usleep(200000);
	CHECK_ERR(setpgid(c, c), EACCES);
	kill(c, SIGKILL);
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	return utest_done();
}
