/* waitid: every idtype (P_ALL, P_PID, P_PGID with 0 for the caller's group, P_PIDFD), every
 * option (WEXITED, WSTOPPED, WCONTINUED, WNOHANG, WNOWAIT), the siginfo it fills, its rusage,
 * and its errors; and wait4's group forms, option checks and INT_MIN. */
#define _GNU_SOURCE
#define UTEST_NAME "waitid"
#include "utest.h"
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* The raw call: glibc and musl differ in what they pass for rusage. */
static long xwaitid(long which, long id, siginfo_t *si, long options, struct rusage *ru)
{
	return syscall(SYS_waitid, which, id, si, options, ru);
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	nanosleep(&ts, NULL);
}

/* A child that sleeps (in a new group when own_group), or exits with code at once. */
static pid_t child(int code, int own_group)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		if (code >= 0) {
			char *p = malloc(1 << 20);

			for (int i = 0; p && i < (1 << 20); i += 4096)
				p[i] = 1; /* some page faults for its rusage */
			_exit(code);
		}
		for (;;)
			pause();
	}
	if (own_group)
		setpgid(pid, pid);
	return pid;
}

static void check_info(const siginfo_t *si, pid_t pid, int code, int status)
{
	CHECK_EQ(si->si_signo, SIGCHLD);
	CHECK_EQ(si->si_errno, 0);
	CHECK_EQ(si->si_code, code);
	CHECK_EQ(si->si_pid, pid);
	CHECK_EQ(si->si_uid, getuid());
	CHECK_EQ(si->si_status, status);
}

static void errors(void)
{
	siginfo_t si;
	int fds[2];

	CHECK_ERR(xwaitid(P_ALL, 0, &si, 0, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WNOHANG | WNOWAIT, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WEXITED | 0x10, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WEXITED | 0x100000, NULL), EINVAL);
	CHECK_ERR(xwaitid(4, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(-1, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_PID, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_PID, -5, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_PGID, -1, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_PIDFD, -1, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(xwaitid(P_PIDFD, 1000, &si, WEXITED, NULL), EBADF); /* not open */
	CHECK_EQ(pipe(fds), 0);
	CHECK_ERR(xwaitid(P_PIDFD, fds[0], &si, WEXITED, NULL), EBADF); /* not a pidfd */
	close(fds[0]);
	close(fds[1]);
	/* no children at all */
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WEXITED, NULL), ECHILD);
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WEXITED | WNOHANG, NULL), ECHILD);
	CHECK_ERR(xwaitid(P_PID, getpid(), &si, WEXITED, NULL), ECHILD);
	CHECK_ERR(xwaitid(P_PGID, 0, &si, WEXITED, NULL), ECHILD);
	/* wait4's own checks */
	CHECK_ERR(wait4(-1, NULL, WNOWAIT, NULL), EINVAL);
	CHECK_ERR(wait4(-1, NULL, WEXITED, NULL), EINVAL);
	CHECK_ERR(wait4(-1, NULL, 0x10, NULL), EINVAL);
	CHECK_ERR(wait4(INT_MIN, NULL, 0, NULL), ESRCH);
	CHECK_ERR(wait4(-1, NULL, WNOHANG, NULL), ECHILD);
	CHECK_ERR(wait4(0, NULL, 0, NULL), ECHILD);
}

static void exited(void)
{
	siginfo_t si;
	struct rusage ru;
	pid_t pid = child(-1, 0), p2;
	int st;

	/* running: WNOHANG finds nothing and zeroes the siginfo */
	memset(&si, 0xff, sizeof(si));
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED | WNOHANG, NULL), 0);
	CHECK_EQ(si.si_pid, 0);
	CHECK_EQ(si.si_signo, 0);
	CHECK_EQ(si.si_code, 0);
	CHECK_EQ(si.si_status, 0);
	CHECK_EQ(xwaitid(P_PID, pid, NULL, WEXITED | WNOHANG, NULL), 0);
	/* killed */
	CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED, NULL), 0);
	check_info(&si, pid, CLD_KILLED, SIGTERM);
	CHECK_ERR(xwaitid(P_PID, pid, &si, WEXITED | WNOHANG, NULL), ECHILD);

	/* exit 3: WNOWAIT leaves it; then it is reaped, with its rusage */
	pid = child(3, 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(xwaitid(P_ALL, 0, &si, WEXITED | WNOWAIT, NULL), 0);
	check_info(&si, pid, CLD_EXITED, 3);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED | WNOWAIT, NULL), 0);
	check_info(&si, pid, CLD_EXITED, 3);
	memset(&ru, 0, sizeof(ru));
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED, &ru), 0);
	check_info(&si, pid, CLD_EXITED, 3);
	CHECK(ru.ru_minflt >= 200);
	CHECK_ERR(xwaitid(P_PID, pid, &si, WEXITED, NULL), ECHILD);

	/* a zombie is not reported to WSTOPPED|WCONTINUED alone, and does not count */
	pid = child(4, 0);
	nap_ms(100);
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WSTOPPED | WCONTINUED | WNOHANG, NULL), ECHILD);
	CHECK_EQ(xwaitid(P_ALL, 0, NULL, WEXITED, NULL), 0); /* infop may be NULL */
	CHECK_ERR(xwaitid(P_ALL, 0, &si, WEXITED | WNOHANG, NULL), ECHILD);

	/* __WCLONE: only "clone" children, and a fork child is none; __WALL: all */
	pid = child(5, 0);
	CHECK_ERR(wait4(pid, &st, __WCLONE, NULL), ECHILD);
	CHECK_ERR(xwaitid(P_PID, pid, &si, WEXITED | __WCLONE, NULL), ECHILD);
	CHECK_EQ(wait4(pid, &st, __WALL | __WCLONE, NULL), pid);
	CHECK_EQ(st, 5 << 8);

	/* P_PGID and wait4's group forms */
	pid = child(-1, 1);
	p2 = child(-1, 0);
	CHECK_EQ(xwaitid(P_PGID, pid, &si, WEXITED | WNOHANG, NULL), 0);
	CHECK_EQ(xwaitid(P_PGID, 0, &si, WEXITED | WNOHANG, NULL), 0);
	CHECK_EQ(wait4(-pid, &st, WNOHANG, NULL), 0);
	kill(pid, SIGKILL);
	kill(p2, SIGKILL);
	nap_ms(100);
	CHECK_EQ(wait4(0, &st, 0, NULL), p2); /* p2 is in my group, pid is not */
	CHECK_ERR(wait4(0, &st, WNOHANG, NULL), ECHILD);
	CHECK_ERR(xwaitid(P_PGID, 0, &si, WEXITED | WNOHANG, NULL), ECHILD);
	CHECK_EQ(xwaitid(P_PGID, pid, &si, WEXITED, NULL), 0);
	check_info(&si, pid, CLD_KILLED, SIGKILL);
}

static void stopped(void)
{
	siginfo_t si;
	pid_t pid = child(-1, 1);
	int st;

	CHECK_EQ(kill(pid, SIGSTOP), 0);
	CHECK_EQ(xwaitid(P_PID, pid, &si, WSTOPPED, NULL), 0);
	check_info(&si, pid, CLD_STOPPED, SIGSTOP);
	CHECK_EQ(xwaitid(P_PID, pid, &si, WSTOPPED | WNOHANG, NULL), 0);
	CHECK_EQ(si.si_pid, 0);
	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(kill(pid, SIGTSTP), 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(xwaitid(P_PGID, pid, &si, WSTOPPED | WNOWAIT, NULL), 0);
	check_info(&si, pid, CLD_STOPPED, SIGTSTP);
	CHECK_EQ(wait4(pid, &st, WUNTRACED, NULL), pid); /* still there after WNOWAIT */
	CHECK_EQ(st, SIGTSTP << 8 | 0x7f);
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED | WNOHANG, NULL), 0);
	CHECK_EQ(si.si_pid, 0);

	CHECK_EQ(kill(pid, SIGCONT), 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(xwaitid(P_ALL, 0, &si, WCONTINUED | WNOWAIT, NULL), 0);
	check_info(&si, pid, CLD_CONTINUED, SIGCONT);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(xwaitid(P_ALL, 0, &si, WCONTINUED | WEXITED, NULL), 0);
	check_info(&si, pid, CLD_CONTINUED, SIGCONT);
	CHECK_EQ(xwaitid(P_ALL, 0, &si, WCONTINUED | WNOHANG, NULL), 0);
	CHECK_EQ(si.si_pid, 0);
	CHECK_EQ(wait4(pid, &st, WCONTINUED | WNOHANG, NULL), 0);

	/* SIGCONT clears an unreported stop; continued is reported instead */
	CHECK_EQ(kill(pid, SIGSTOP), 0);
	nap_ms(100);
	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(wait4(pid, &st, WUNTRACED | WNOHANG, NULL), 0);
	CHECK_EQ(wait4(pid, &st, WUNTRACED | WCONTINUED, NULL), pid);
	CHECK_EQ(st, 0xffff);

	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(xwaitid(P_PID, pid, &si, WEXITED, NULL), 0);
	check_info(&si, pid, CLD_KILLED, SIGKILL);
}

int main(void)
{
	fflush(stdout);
	alarm(30); /* a hang fails the test instead of the whole suite */
	errors();
	exited();
	stopped();
	return utest_done();
}
