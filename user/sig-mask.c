/* sig-mask: the blocked and pending sets. A blocked signal waits and a standard one does not
 * queue; SIGKILL and SIGSTOP cannot be blocked; kill, tkill and tgkill say who sent it;
 * rt_sigsuspend and pause wait for a handler to run (with the suspend mask in force inside
 * it, the old one back after); rt_sigtimedwait takes a signal without its handler; ignoring a
 * pending signal discards it; SIGKILL ends a child that blocks everything. */
#define _GNU_SOURCE
#define UTEST_NAME "sig-mask"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int hits, last_code, last_pid, usr2_blocked_inside;

static void on_sig(int sig, siginfo_t *si, void *ctx)
{
	sigset_t now;

	(void)ctx;
	hits++;
	last_code = si->si_code;
	last_pid = si->si_pid;
	sigprocmask(SIG_BLOCK, NULL, &now);
	usr2_blocked_inside = sigismember(&now, SIGUSR2) && sigismember(&now, sig);
}

static void catch_sig(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void block(int how, int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(how, &s, NULL);
}

/* a child that sends sig to its parent after ms milliseconds */
static pid_t send_later(int sig, long ms)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		struct timespec ts = { 0, ms * 1000000 };

		nanosleep(&ts, NULL);
		kill(parent, sig);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
	sigset_t set, old;
	siginfo_t si;
	struct timespec ts = { 0, 50000000 };
	pid_t pid;
	int st;

	catch_sig(SIGUSR1);
	catch_sig(SIGUSR2);

	/* blocked: pending, not delivered, delivered once at the unblock */
	block(SIG_BLOCK, SIGUSR1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	CHECK_EQ(hits, 0);
	CHECK_EQ(sigpending(&set), 0);
	CHECK(sigismember(&set, SIGUSR1));
	CHECK(!sigismember(&set, SIGUSR2));
	block(SIG_UNBLOCK, SIGUSR1);
	CHECK_EQ(hits, 1);
	CHECK_EQ(last_code, SI_TKILL); /* raise uses tkill */
	CHECK_EQ(sigpending(&set), 0);
	CHECK(!sigismember(&set, SIGUSR1));
	/* the same with kill (Linux keeps a thread's and a process's pending sets apart, so
	 * tkill and kill are not mixed here) */
	hits = 0;
	block(SIG_BLOCK, SIGUSR1);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	CHECK_EQ(hits, 0);
	block(SIG_UNBLOCK, SIGUSR1);
	CHECK_EQ(hits, 1);

	/* kill says SI_USER and the sender; tgkill SI_TKILL */
	kill(getpid(), SIGUSR1);
	CHECK_EQ(hits, 2);
	CHECK_EQ(last_code, SI_USER);
	CHECK_EQ(last_pid, getpid());
	CHECK_EQ(syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1), 0);
	CHECK_EQ(hits, 3);
	CHECK_EQ(last_code, SI_TKILL);
	CHECK_ERR(syscall(SYS_tgkill, getpid() + 100000, getpid(), SIGUSR1), ESRCH);
	CHECK_ERR(syscall(SYS_tkill, 0, SIGUSR1), EINVAL);
	CHECK_ERR(syscall(SYS_tkill, getpid(), 65), EINVAL);
	CHECK_EQ(syscall(SYS_tkill, getpid(), 0), 0);

	/* SIGKILL and SIGSTOP stay out of the mask */
	sigfillset(&set);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &set, &old), 0);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &old, &set), 0);
	CHECK(!sigismember(&set, SIGKILL) && !sigismember(&set, SIGSTOP));
	CHECK(sigismember(&set, SIGUSR1) && sigismember(&set, SIGTERM));
	CHECK_ERR(syscall(SYS_rt_sigprocmask, 7, &set, NULL, 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigpending, &set, 16), EINVAL);

	/* ignoring a pending signal discards it */
	block(SIG_BLOCK, SIGUSR1);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_IGN);
	CHECK_EQ(sigpending(&set), 0);
	CHECK(!sigismember(&set, SIGUSR1));
	block(SIG_UNBLOCK, SIGUSR1);
	catch_sig(SIGUSR1);

	/* rt_sigsuspend: wait with USR1 unblocked; the handler runs under the suspend mask plus
	 * USR1; the old mask (USR1 blocked) is back after */
	hits = 0;
	block(SIG_BLOCK, SIGUSR1);
	pid = send_later(SIGUSR1, 50);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK_ERR(sigsuspend(&set), EINTR);
	CHECK_EQ(hits, 1);
	CHECK(usr2_blocked_inside);
	sigprocmask(SIG_BLOCK, NULL, &set);
	CHECK(sigismember(&set, SIGUSR1) && !sigismember(&set, SIGUSR2));
	block(SIG_UNBLOCK, SIGUSR1);
	reap(pid);

	/* pause */
	hits = 0;
	pid = send_later(SIGUSR2, 50);
	CHECK_ERR(pause(), EINTR);
	CHECK_EQ(hits, 1);
	reap(pid);

	/* rt_sigtimedwait: takes a blocked signal without its handler; times out with EAGAIN */
	hits = 0;
	block(SIG_BLOCK, SIGUSR2);
	raise(SIGUSR2);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK_EQ(sigtimedwait(&set, &si, &ts), SIGUSR2);
	CHECK_EQ(si.si_signo, SIGUSR2);
	CHECK_EQ(si.si_code, SI_TKILL);
	CHECK_ERR(sigtimedwait(&set, &si, &ts), EAGAIN);
	pid = send_later(SIGUSR2, 30);
	CHECK_EQ(sigwaitinfo(&set, &si), SIGUSR2);
	CHECK_EQ(si.si_code, SI_USER);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(hits, 0);
	reap(pid);
	block(SIG_UNBLOCK, SIGUSR2);

	/* a child blocking and ignoring all it can still dies of SIGKILL, and of nothing else */
	pid = fork();
	if (pid == 0) {
		sigfillset(&set);
		sigprocmask(SIG_SETMASK, &set, NULL);
		for (int s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_IGN);
		for (;;)
			pause();
	}
	nanosleep(&ts, NULL);
	CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(kill(pid, SIGUSR1), 0);
	CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	return utest_done();
}
