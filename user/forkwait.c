/* forkwait: fork, exit statuses, wait4 for one pid, getppid in a child, death by SIGKILL and
 * SIGTERM, ECHILD once no children are left, and vfork. */
#define _GNU_SOURCE
#define UTEST_NAME "forkwait"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* wait4 for exactly this pid; returns its status (or -1 if wait4 failed) */
static int reap(pid_t pid)
{
	int st = -1;

	CHECK_EQ(wait4(pid, &st, 0, NULL), pid);
	return st;
}

static pid_t child_pausing(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	CHECK(pid > 0);
	return pid;
}

int main(void)
{
	static const int codes[] = {0, 1, 42, 255};
	pid_t self = getpid(), pid[4], p;
	int i, st;

	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(codes[i]);
		CHECK(pid[i] > 0);
	}
	for (i = 3; i >= 0; i--) { /* newest first: wait4 must pick the pid asked for */
		st = reap(pid[i]);
		CHECK(WIFEXITED(st));
		CHECK_EQ(WEXITSTATUS(st), codes[i]);
	}

	p = fork();
	if (p == 0)
		_exit(getppid() == self && getpid() != self ? 9 : 8);
	st = reap(p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);

	p = child_pausing();
	CHECK_EQ(wait4(p, &st, WNOHANG, NULL), 0); /* still running */
	CHECK_EQ(kill(p, SIGKILL), 0);
	st = reap(p);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);

	p = child_pausing();
	CHECK_EQ(kill(p, SIGTERM), 0);
	st = reap(p);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGTERM);

	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD);

	p = vfork();
	if (p == 0)
		_exit(3);
	CHECK(p > 0);
	st = reap(p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);

	return utest_done();
}
