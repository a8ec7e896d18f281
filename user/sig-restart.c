/* sig-restart: interrupted system calls as Linux decides them, and the timers that interrupt
 * them. wait4 interrupted by a handler gives EINTR, or completes when the handler has
 * SA_RESTART; nanosleep gives EINTR and the time left either way; setitimer(ITIMER_REAL) and
 * alarm send SIGALRM (si_code SI_KERNEL), once or every interval, and getitimer and alarm
 * report the time left; SIGCHLD tells the parent how a child ended. */
#define _GNU_SOURCE
#define UTEST_NAME "sig-restart"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int alarms, alrm_code, chld_code, chld_status, chld_pid, chlds;

static void on_alrm(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	alarms++;
	alrm_code = si->si_code;
}

static void on_chld(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	chlds++;
	chld_code = si->si_code;
	chld_status = si->si_status;
	chld_pid = si->si_pid;
}

static void catch_sig(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigaction(sig, &sa, NULL);
}

static void arm(long usec, long interval_usec)
{
	struct itimerval it = { { 0, interval_usec }, { 0, usec } };

	CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static pid_t child_sleeping(long ms, int code)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts))
			;
		_exit(code);
	}
	return pid;
}

int main(void)
{
	struct timespec ts = { 2, 0 }, rem = { 0, 0 };
	struct itimerval it;
	sigset_t set;
	pid_t pid;
	int st = 0;

	/* wait4 and a handler without SA_RESTART: EINTR */
	catch_sig(SIGALRM, on_alrm, 0);
	pid = child_sleeping(300, 0);
	arm(50000, 0);
	CHECK_ERR(waitpid(pid, &st, 0), EINTR);
	CHECK_EQ(alarms, 1);
	CHECK_EQ(alrm_code, SI_KERNEL);
	/* with SA_RESTART: the call goes on and reaps the child */
	catch_sig(SIGALRM, on_alrm, SA_RESTART);
	arm(50000, 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(alarms, 2);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* nanosleep: EINTR and the time left, SA_RESTART or not */
	arm(50000, 0);
	CHECK_ERR(nanosleep(&ts, &rem), EINTR);
	CHECK_EQ(alarms, 3);
	CHECK(rem.tv_sec >= 1 && rem.tv_sec <= 2);
	arm(50000, 0);
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, &rem), EINTR);
	CHECK_EQ(alarms, 4);
	CHECK(rem.tv_sec >= 1 && rem.tv_sec <= 2);

	/* getitimer and a periodic timer: three SIGALRMs, 20 ms apart */
	arm(20000, 20000);
	CHECK_EQ(getitimer(ITIMER_REAL, &it), 0);
	CHECK_EQ(it.it_interval.tv_usec, 20000);
	CHECK(it.it_value.tv_sec == 0 && it.it_value.tv_usec > 0 && it.it_value.tv_usec <= 20000);
	alarms = 0;
	sigemptyset(&set);
	while (alarms < 3)
		sigsuspend(&set);
	arm(0, 0);
	CHECK_EQ(getitimer(ITIMER_REAL, &it), 0);
	CHECK(it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0);
	CHECK_ERR(setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 1000000 } }, NULL),
		  EINVAL);

	/* alarm: the seconds left of the previous one */
	CHECK_EQ(alarm(5), 0);
	CHECK_EQ(alarm(3), 5);
	CHECK_EQ(alarm(0), 3);
	CHECK_EQ(alarm(0), 0);

	/* SIGCHLD: exit code, or the signal that killed */
	catch_sig(SIGCHLD, on_chld, SA_RESTART);
	pid = child_sleeping(10, 7);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(chlds, 1);
	CHECK_EQ(chld_code, CLD_EXITED);
	CHECK_EQ(chld_status, 7);
	CHECK_EQ(chld_pid, pid);
	pid = child_sleeping(5000, 0);
	kill(pid, SIGKILL);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(chlds, 2);
	CHECK_EQ(chld_code, CLD_KILLED);
	CHECK_EQ(chld_status, SIGKILL);
	return utest_done();
}
