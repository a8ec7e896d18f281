/* kill: SIGKILL and SIGTERM (default action) end a spinning child and wait4 reports the signal;
 * kill(pid, 0) probes a live child and gives ESRCH once it is reaped; a bad signal number gives
 * EINVAL; and a kill wakes a child sleeping in nanosleep promptly. */
#define UTEST_NAME "kill"
#include "utest.h"
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long mono_ms(void)
{
	struct timespec ts = {0, 0};

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static pid_t child_spinning(void)
{
	volatile unsigned long n;
	pid_t pid = fork();

	if (pid == 0) {
		for (n = 0;; n++)
			;
	}
	CHECK(pid > 0);
	return pid;
}

static pid_t child_sleeping(void)
{
	struct timespec ts = {20, 0};
	pid_t pid = fork();

	if (pid == 0) {
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(1); /* only if the sleep ended without the kill */
	}
	CHECK(pid > 0);
	return pid;
}

/* kill pid with sig; it must die of sig, and be reaped within a second */
static void kill_and_reap(pid_t pid, int sig)
{
	long long t0 = mono_ms();
	int st = -1;

	CHECK_EQ(kill(pid, sig), 0);
	CHECK_EQ(wait4(pid, &st, 0, NULL), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), sig);
	CHECK(!WIFEXITED(st));
	CHECK(mono_ms() - t0 < 1000);
}

int main(void)
{
	struct timespec settle = {0, 50000000}; /* long enough for a child to reach nanosleep */
	pid_t p;
	int st;

	fflush(stdout);
	p = child_spinning();
	CHECK_EQ(kill(p, 0), 0); /* alive */
	CHECK_EQ(wait4(p, &st, WNOHANG, NULL), 0);
	kill_and_reap(p, SIGKILL);
	CHECK_ERR(kill(p, 0), ESRCH); /* reaped: gone */
	CHECK_ERR(kill(p, SIGKILL), ESRCH);

	p = child_spinning();
	kill_and_reap(p, SIGTERM);

	/* a bad signal number is refused whatever the target */
	CHECK_ERR(kill(getpid(), 1000), EINVAL);
	CHECK_ERR(kill(getpid(), -1), EINVAL);
	CHECK_ERR(kill(getpid(), 65), EINVAL);
	CHECK_EQ(kill(getpid(), 0), 0);

	/* a kill must wake a sleeper rather than wait for its 20 s sleep to end */
	p = child_sleeping();
	nanosleep(&settle, NULL);
	CHECK_EQ(kill(p, 0), 0);
	kill_and_reap(p, SIGKILL);
	p = child_sleeping();
	nanosleep(&settle, NULL);
	kill_and_reap(p, SIGTERM);

	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD);
	return utest_done();
}
