/* prctl: PR_SET_PDEATHSIG and PR_SET_TIMERSLACK as Linux answers them. A grandchild that asked
 * for SIGUSR1 at its parent's death gets it when that parent exits (and a fork's child does not
 * inherit the request); a signal number past the last is EINVAL. The timer slack is set, read
 * back and reset to the default by 0; a fork's child starts with its parent's current slack as
 * both its slack and its default. */
#define _GNU_SOURCE
#define UTEST_NAME "prctl"
#include "utest.h"
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int report[2]; /* the grandchild's pipe to the test */

static void on_usr1(int sig)
{
	char c = 'S';

	(void)sig;
	_exit(write(report[1], &c, 1) == 1 ? 0 : 3); /* reported: nothing left to wait for */
}

static void pdeathsig(void)
{
	int got = -1, ready[2];
	pid_t middle;
	char c = 0;

	CHECK_EQ(prctl(PR_GET_PDEATHSIG, &got), 0);
	CHECK_EQ(got, 0);
	CHECK_ERR(prctl(PR_SET_PDEATHSIG, 65), EINVAL);
	CHECK(pipe(report) == 0 && pipe(ready) == 0);
	middle = fork();
	if (middle == 0) {
		pid_t grandchild = fork();

		if (grandchild == 0) {
			struct sigaction sa = { .sa_handler = on_usr1 };
			int inherited = -1;
			pid_t probe;

			sigaction(SIGUSR1, &sa, NULL);
			if (prctl(PR_SET_PDEATHSIG, SIGUSR1) != 0 ||
			    prctl(PR_GET_PDEATHSIG, &got) != 0 || got != SIGUSR1)
				_exit(4);
			probe = fork(); /* its own child does not inherit the request */
			if (probe == 0)
				_exit(prctl(PR_GET_PDEATHSIG, &inherited) == 0 && inherited == 0
					      ? 0 : 5);
			if (waitpid(probe, &got, 0) != probe || !WIFEXITED(got) ||
			    WEXITSTATUS(got) != 0)
				_exit(6);
			c = 'R';
			if (write(ready[1], &c, 1) != 1)
				_exit(7);
			for (int i = 0; i < 500; i++) /* up to 5 s for the signal */
				usleep(10000);
			_exit(0);
		}
		/* the middle process exits once the grandchild is ready: its death is the event */
		close(report[0]), close(report[1]), close(ready[1]);
		_exit(read(ready[0], &c, 1) == 1 && c == 'R' ? 0 : 8);
	}
	/* (only the grandchild keeps report's write end: if no signal comes, the read ends when
	 * it exits) */
	close(report[1]), close(ready[0]), close(ready[1]);
	CHECK(middle > 0);
	CHECK_EQ(waitpid(middle, &got, 0), middle);
	CHECK(WIFEXITED(got) && WEXITSTATUS(got) == 0); /* the grandchild was ready */
	CHECK(read(report[0], &c, 1) == 1 && c == 'S'); /* SIGUSR1 came */
	close(report[0]);
}

static void timerslack(void)
{
	long dflt = prctl(PR_GET_TIMERSLACK);
	pid_t pid;
	int st;

	CHECK(dflt > 0);
	CHECK_EQ(prctl(PR_SET_TIMERSLACK, 123456UL), 0);
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), 123456);
	pid = fork();
	if (pid == 0) /* 0 sets the child back to its default: its parent's value at the fork */
		_exit(prctl(PR_GET_TIMERSLACK) == 123456 && prctl(PR_SET_TIMERSLACK, 0UL) == 0 &&
		      prctl(PR_GET_TIMERSLACK) == 123456 ? 0 : 1);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(prctl(PR_SET_TIMERSLACK, 0UL), 0);
	CHECK_EQ(prctl(PR_GET_TIMERSLACK), dflt);
}

int main(void)
{
	pdeathsig();
	timerslack();
	return utest_done();
}
