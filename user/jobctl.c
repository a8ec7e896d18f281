/* jobctl: stopped tasks and their parent's view: SIGSTOP/SIGTSTP stop a child (WUNTRACED status,
 * SIGCHLD CLD_STOPPED), SIGCONT resumes it (WCONTINUED, CLD_CONTINUED) even blocked or caught,
 * a stopped child does not run, SA_NOCLDSTOP, kill(-pgrp), SIGKILL on a stopped child, and an
 * orphaned stopped group gets SIGHUP then SIGCONT (and ignores SIGTSTP afterwards). */
#define _GNU_SOURCE
#define UTEST_NAME "jobctl"
#include "utest.h"
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int tick[2]; /* children write here; the parent reads */

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	nanosleep(&ts, NULL);
}

/* One byte from fd within ms milliseconds, or -1. */
static int read_byte(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	unsigned char c;

	if (poll(&p, 1, ms) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

static void drain(int fd)
{
	while (read_byte(fd, 0) >= 0)
		;
}

/* The next SIGCHLD (blocked in the parent) within ms: its si_code, and pid/status checked. */
static int next_sigchld(pid_t pid, int status, int ms)
{
	sigset_t set;
	siginfo_t si;
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigtimedwait(&set, &si, &ts) != SIGCHLD)
		return -1;
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_status, status);
	CHECK_EQ(si.si_uid, getuid());
	return si.si_code;
}

static void drain_sigchld(void)
{
	struct timespec ts = {0, 20000000};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	while (sigtimedwait(&set, NULL, &ts) == SIGCHLD)
		;
}

static void on_cont(int sig)
{
	(void)sig;
	if (write(tick[1], "C", 1) != 1)
		_exit(9);
}

static void on_hup(int sig)
{
	(void)sig;
	if (write(tick[1], "H", 1) != 1)
		_exit(9);
}

/* A child in a group of its own (pgid: 0 for a new one) that writes 't' every 5 ms. */
static pid_t ticker(pid_t pgid, int block_cont, int catch_cont)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t set;

		setpgid(0, pgid);
		if (catch_cont)
			signal(SIGCONT, on_cont);
		sigemptyset(&set);
		sigaddset(&set, SIGCONT);
		sigprocmask(block_cont ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
		for (;;) {
			if (write(tick[1], "t", 1) != 1)
				_exit(8);
			nap_ms(5);
		}
	}
	setpgid(pid, pgid ? pgid : pid);
	return pid;
}

/* Stop pid with sig and see it everywhere; it must not run while stopped. */
static void stop_and_see(pid_t pid, int sig, int notify)
{
	int st = 0;

	CHECK_EQ(kill(pid, sig), 0);
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid);
	CHECK(WIFSTOPPED(st));
	CHECK_EQ(WSTOPSIG(st), sig);
	CHECK_EQ(st, 0x7f | sig << 8);
	CHECK_EQ(next_sigchld(pid, sig, notify ? 2000 : 100), notify ? CLD_STOPPED : -1);
	CHECK_EQ(waitpid(pid, &st, WUNTRACED | WNOHANG), 0); /* reported once */
	drain(tick[0]);
	CHECK_EQ(read_byte(tick[0], 100), -1); /* it does not run */
}

static void cont_and_see(pid_t pid, int notify)
{
	int st = 0;

	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(next_sigchld(pid, SIGCONT, notify ? 2000 : 100), notify ? CLD_CONTINUED : -1);
	CHECK_EQ(waitpid(pid, &st, WCONTINUED), pid);
	CHECK(WIFCONTINUED(st));
	CHECK_EQ(st, 0xffff);
	CHECK_EQ(waitpid(pid, &st, WCONTINUED | WNOHANG), 0);
	CHECK(read_byte(tick[0], 2000) >= 0); /* it runs again */
}

static void kill_and_reap(pid_t pid)
{
	int st = 0;

	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK_EQ(next_sigchld(pid, SIGKILL, 2000), CLD_KILLED);
}

/* Orphaned group: A (a session of its own) has B in another group; B stops; A exits. */
static void orphaned_group(void)
{
	pid_t a = fork(), b;
	int st = 0;

	if (a == 0) {
		setsid();
		b = fork();
		if (b == 0) {
			setpgid(0, 0);
			signal(SIGHUP, on_hup);
			raise(SIGSTOP);
			if (write(tick[1], "c", 1) != 1)
				_exit(8);
			raise(SIGTSTP); /* the group is orphaned now: not stopped */
			if (write(tick[1], "T", 1) != 1)
				_exit(8);
			_exit(0);
		}
		setpgid(b, b);
		if (waitpid(b, &st, WUNTRACED) != b || !WIFSTOPPED(st))
			_exit(1);
		_exit(0);
	}
	CHECK_EQ(waitpid(a, &st, 0), a);
	CHECK_EQ(st, 0);
	CHECK_EQ(next_sigchld(a, 0, 2000), CLD_EXITED);
	CHECK_EQ(read_byte(tick[0], 2000), 'H');
	CHECK_EQ(read_byte(tick[0], 2000), 'c');
	CHECK_EQ(read_byte(tick[0], 2000), 'T');
}

/* SIGCONT discards a pending (blocked) SIGTSTP. */
static void cont_discards_stop(void)
{
	int cue[2], st;
	pid_t pid;

	CHECK_EQ(pipe(cue), 0);
	pid = fork();
	if (pid == 0) {
		sigset_t set, pend;

		setpgid(0, 0);
		sigemptyset(&set);
		sigaddset(&set, SIGTSTP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		for (int i = 0; i < 2; i++) {
			if (write(tick[1], "r", 1) != 1 || read_byte(cue[0], 5000) < 0)
				_exit(8);
			sigpending(&pend);
			if (write(tick[1], sigismember(&pend, SIGTSTP) ? "1" : "0", 1) != 1)
				_exit(8);
		}
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		_exit(0);
	}
	setpgid(pid, pid);
	CHECK_EQ(read_byte(tick[0], 2000), 'r');
	CHECK_EQ(kill(pid, SIGTSTP), 0);
	CHECK_EQ(write(cue[1], "x", 1), 1);
	CHECK_EQ(read_byte(tick[0], 2000), '1');
	CHECK_EQ(read_byte(tick[0], 2000), 'r');
	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(write(cue[1], "x", 1), 1);
	CHECK_EQ(read_byte(tick[0], 2000), '0');
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid); /* exits, never stops */
	CHECK_EQ(st, 0);
	CHECK_EQ(next_sigchld(pid, 0, 2000), CLD_EXITED);
	close(cue[0]);
	close(cue[1]);
}

int main(void)
{
	struct sigaction sa = {0};
	sigset_t set;
	pid_t pid, p2;
	int st;

	fflush(stdout);
	alarm(30); /* a hang fails the test instead of the whole suite */
	CHECK_EQ(pipe(tick), 0);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/* SIGSTOP and SIGTSTP stop, SIGCONT resumes; the parent sees each */
	pid = ticker(0, 0, 0);
	CHECK(read_byte(tick[0], 2000) >= 0);
	stop_and_see(pid, SIGSTOP, 1);
	cont_and_see(pid, 1);
	stop_and_see(pid, SIGTSTP, 1);
	cont_and_see(pid, 1);
	/* SIGKILL ends a stopped task */
	stop_and_see(pid, SIGSTOP, 1);
	kill_and_reap(pid);

	/* SIGCONT resumes even when blocked; a handler for it runs */
	pid = ticker(0, 1, 0);
	CHECK(read_byte(tick[0], 2000) >= 0);
	stop_and_see(pid, SIGSTOP, 1);
	cont_and_see(pid, 1);
	kill_and_reap(pid);
	pid = ticker(0, 0, 1);
	CHECK(read_byte(tick[0], 2000) >= 0);
	stop_and_see(pid, SIGTTIN, 1);
	CHECK_EQ(kill(pid, SIGCONT), 0);
	for (st = 0; st < 1000 && read_byte(tick[0], 2000) == 't'; st++)
		;
	CHECK(st < 1000); /* the handler wrote 'C' */
	CHECK_EQ(next_sigchld(pid, SIGCONT, 2000), CLD_CONTINUED);
	kill_and_reap(pid);

	/* SA_NOCLDSTOP: no SIGCHLD for stop and continue; wait still sees them */
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDSTOP;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	pid = ticker(0, 0, 0);
	CHECK(read_byte(tick[0], 2000) >= 0);
	stop_and_see(pid, SIGTTOU, 0);
	cont_and_see(pid, 0);
	kill_and_reap(pid); /* the exit is still signalled */
	sa.sa_flags = 0;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);

	/* kill(-pgrp) stops, continues and kills a group of two */
	pid = ticker(0, 0, 0);
	p2 = ticker(pid, 0, 0);
	CHECK(read_byte(tick[0], 2000) >= 0);
	CHECK_EQ(kill(-pid, SIGSTOP), 0);
	for (int i = 0; i < 2; i++) {
		pid_t w = waitpid(-pid, &st, WUNTRACED);

		CHECK(w == pid || w == p2);
		CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	}
	CHECK_EQ(waitpid(-pid, &st, WUNTRACED | WNOHANG), 0);
	drain(tick[0]);
	CHECK_EQ(read_byte(tick[0], 100), -1);
	CHECK_EQ(kill(-pid, SIGCONT), 0);
	for (int i = 0; i < 2; i++)
		CHECK(waitpid(-pid, &st, WCONTINUED) > 0 && WIFCONTINUED(st));
	CHECK(read_byte(tick[0], 2000) >= 0);
	CHECK_EQ(kill(-pid, SIGKILL), 0);
	for (int i = 0; i < 2; i++)
		CHECK(waitpid(-pid, &st, 0) > 0 && WTERMSIG(st) == SIGKILL);
	CHECK_EQ(kill(-pid, 0), -1);
	drain_sigchld(); /* one or two (a pending SIGCHLD is not queued twice) */

	drain(tick[0]);
	cont_discards_stop();
	orphaned_group();
	return utest_done();
}
