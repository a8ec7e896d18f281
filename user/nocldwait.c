/* nocldwait: children that reap themselves. With SIGCHLD set to SIG_IGN no SIGCHLD comes and
 * no zombie stays; wait blocks until every child is gone, then fails with ECHILD. With
 * SA_NOCLDWAIT and a handler the handler runs but the children still reap themselves. */
#define _GNU_SOURCE
#define UTEST_NAME "nocldwait"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int got, got_code, got_pid;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	got_code = si->si_code;
	got_pid = si->si_pid;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t child_after_ms(long ms, int code)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

		nanosleep(&ts, NULL);
		_exit(code);
	}
	return pid;
}

int main(void)
{
	struct sigaction sa = {0};
	pid_t pid, p2;
	double t0;
	int st;

	fflush(stdout);
	alarm(30); /* a hang fails the test instead of the whole suite */
	/* SIG_IGN: wait sleeps until both children are gone, then ECHILD */
	CHECK(signal(SIGCHLD, SIG_IGN) != SIG_ERR);
	pid = child_after_ms(100, 1);
	p2 = child_after_ms(200, 2);
	CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);
	t0 = now();
	CHECK_ERR(wait(&st), ECHILD);
	CHECK(now() - t0 >= 0.15);
	CHECK_ERR(waitpid(pid, &st, WNOHANG), ECHILD);
	CHECK_ERR(waitpid(p2, &st, WNOHANG), ECHILD);
	CHECK_ERR(kill(pid, 0), ESRCH); /* no zombie left */

	/* back to SIG_DFL: a zombie again */
	CHECK(signal(SIGCHLD, SIG_DFL) != SIG_ERR);
	pid = child_after_ms(0, 3);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 3 << 8);

	/* SA_NOCLDWAIT with a handler: SIGCHLD comes (CLD_EXITED), no zombie */
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO | SA_NOCLDWAIT;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	pid = child_after_ms(50, 4);
	t0 = now();
	while (waitpid(-1, &st, 0) != -1 || errno == EINTR)
		;
	CHECK_EQ(errno, ECHILD);
	CHECK(now() - t0 >= 0.03);
	CHECK_EQ(got, 1);
	CHECK_EQ(got_code, CLD_EXITED);
	CHECK_EQ(got_pid, pid);
	CHECK_ERR(kill(pid, 0), ESRCH);

	/* SA_NOCLDWAIT without a handler (SIG_DFL): no zombie either */
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDWAIT;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	pid = child_after_ms(0, 5);
	CHECK_ERR(waitpid(pid, &st, 0), ECHILD);

	/* stopping is still reported to WUNTRACED under SIG_IGN */
	CHECK(signal(SIGCHLD, SIG_IGN) != SIG_ERR);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	CHECK_EQ(kill(pid, SIGSTOP), 0);
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid);
	CHECK(WIFSTOPPED(st));
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_ERR(waitpid(pid, &st, 0), ECHILD);
	return utest_done();
}
