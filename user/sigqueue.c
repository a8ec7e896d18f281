/* sigqueue: real-time signals queue (each send its own siginfo, lowest number first, then in
 * the order sent), standard ones coalesce; sigqueue's si_value and si_code; kill queues RT
 * signals too; rt_sigqueueinfo and rt_tgsigqueueinfo's errors; ignoring drops the queue. */
#define _GNU_SOURCE
#define UTEST_NAME "sigqueue"
#include "utest.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct timespec zero = {0, 0};
static int order[16], values[16], norder;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (norder < 16) {
		order[norder] = sig;
		values[norder++] = si->si_value.sival_int;
	}
}

/* Take the next signal of set without waiting; check its number, code and value. */
static void take(const sigset_t *set, int sig, int code, int value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	CHECK_EQ(sigtimedwait(set, &si, &zero), sig);
	CHECK_EQ(si.si_signo, sig);
	CHECK_EQ(si.si_code, code);
	CHECK_EQ(si.si_pid, getpid());
	CHECK_EQ(si.si_uid, getuid());
	if (code == SI_QUEUE)
		CHECK_EQ(si.si_value.sival_int, value);
}

static long qinfo(long pid, long sig, int code)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = (int)sig;
	si.si_code = code;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = 77;
	return syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

static long tgqinfo(long tgid, long tid, long sig, int code)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = (int)sig;
	si.si_code = code;
	si.si_pid = getpid();
	si.si_value.sival_int = 78;
	return syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &si);
}

int main(void)
{
	int r0 = SIGRTMIN, r1 = SIGRTMIN + 1, r2 = SIGRTMIN + 2, r3 = SIGRTMIN + 3;
	sigset_t set, pend;
	union sigval v;
	struct sigaction sa;
	pid_t me = getpid(), pid;
	int st;

	fflush(stdout);
	alarm(30); /* a hang fails the test instead of the whole suite */
	sigemptyset(&set);
	sigaddset(&set, r0);
	sigaddset(&set, r1);
	sigaddset(&set, r2);
	sigaddset(&set, r3);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMAX);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);

	/* queued in order, lowest number first; the standard signal first of all */
	v.sival_int = 10;
	CHECK_EQ(sigqueue(me, r1, v), 0);
	v.sival_int = 20;
	CHECK_EQ(sigqueue(me, r0, v), 0);
	v.sival_int = 21;
	CHECK_EQ(sigqueue(me, r0, v), 0);
	v.sival_int = 11;
	CHECK_EQ(sigqueue(me, r1, v), 0);
	v.sival_int = 99;
	CHECK_EQ(sigqueue(me, SIGRTMAX, v), 0);
	v.sival_int = 30;
	CHECK_EQ(sigqueue(me, SIGUSR1, v), 0);
	v.sival_int = 31;
	CHECK_EQ(sigqueue(me, SIGUSR1, v), 0); /* coalesced: the first stays */
	CHECK_EQ(kill(me, SIGUSR2), 0);
	CHECK_EQ(kill(me, SIGUSR2), 0);
	CHECK_EQ(sigpending(&pend), 0);
	CHECK(sigismember(&pend, r0) && sigismember(&pend, r1) && sigismember(&pend, SIGRTMAX));
	CHECK(sigismember(&pend, SIGUSR1) && sigismember(&pend, SIGUSR2));
	CHECK(!sigismember(&pend, r2));
	take(&set, SIGUSR1, SI_QUEUE, 30);
	take(&set, SIGUSR2, SI_USER, 0);
	take(&set, r0, SI_QUEUE, 20);
	CHECK_EQ(sigpending(&pend), 0);
	CHECK(sigismember(&pend, r0)); /* one more queued */
	take(&set, r0, SI_QUEUE, 21);
	CHECK_EQ(sigpending(&pend), 0);
	CHECK(!sigismember(&pend, r0));
	take(&set, r1, SI_QUEUE, 10);
	take(&set, r1, SI_QUEUE, 11);
	take(&set, SIGRTMAX, SI_QUEUE, 99);
	CHECK_ERR(sigtimedwait(&set, NULL, &zero), EAGAIN);

	/* kill and tkill queue real-time signals too; what was sent to the thread (tkill) is
	 * taken before what was sent to the process (kill) */
	CHECK_EQ(kill(me, r2), 0);
	CHECK_EQ(kill(me, r2), 0);
	CHECK_EQ(syscall(SYS_tkill, me, r2), 0);
	take(&set, r2, SI_TKILL, 0);
	take(&set, r2, SI_USER, 0);
	take(&set, r2, SI_USER, 0);
	CHECK_ERR(sigtimedwait(&set, NULL, &zero), EAGAIN);
	/* a standard signal coalesces within each set, not across them */
	CHECK_EQ(kill(me, SIGUSR2), 0);
	CHECK_EQ(kill(me, SIGUSR2), 0);
	CHECK_EQ(syscall(SYS_tkill, me, SIGUSR2), 0);
	CHECK_EQ(syscall(SYS_tkill, me, SIGUSR2), 0);
	CHECK_EQ(kill(me, r0), 0);
	CHECK_EQ(syscall(SYS_tkill, me, r1), 0);
	take(&set, SIGUSR2, SI_TKILL, 0);
	take(&set, r1, SI_TKILL, 0); /* the thread's set first, even above a lower signal */
	take(&set, SIGUSR2, SI_USER, 0);
	take(&set, r0, SI_USER, 0);
	CHECK_ERR(sigtimedwait(&set, NULL, &zero), EAGAIN);

	/* rt_sigqueueinfo to itself: any si_code; rt_tgsigqueueinfo likewise */
	CHECK_EQ(qinfo(me, r3, SI_USER), 0);
	CHECK_EQ(qinfo(me, r3, SI_TKILL), 0);
	CHECK_EQ(tgqinfo(me, me, r3, SI_QUEUE), 0);
	take(&set, r3, SI_QUEUE, 78); /* rt_tgsigqueueinfo: to the thread */
	take(&set, r3, SI_USER, 0);
	take(&set, r3, SI_TKILL, 0);

	/* ignoring a real-time signal drops all its queued instances */
	CHECK_EQ(qinfo(me, r3, SI_QUEUE), 0);
	CHECK_EQ(qinfo(me, r3, SI_QUEUE), 0);
	CHECK(signal(r3, SIG_IGN) != SIG_ERR);
	CHECK(signal(r3, SIG_DFL) != SIG_ERR);
	CHECK_EQ(sigpending(&pend), 0);
	CHECK(!sigismember(&pend, r3));
	CHECK_ERR(sigtimedwait(&set, NULL, &zero), EAGAIN);

	/* handlers run lowest number first, each queued instance once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	sigaction(r0, &sa, NULL);
	sigaction(r1, &sa, NULL);
	v.sival_int = 1, sigqueue(me, r1, v);
	v.sival_int = 2, sigqueue(me, r0, v);
	v.sival_int = 3, sigqueue(me, r1, v);
	v.sival_int = 4, sigqueue(me, r0, v);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
	CHECK_EQ(norder, 4);
	CHECK(order[0] == r0 && values[0] == 2 && order[1] == r0 && values[1] == 4);
	CHECK(order[2] == r1 && values[2] == 1 && order[3] == r1 && values[3] == 3);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);

	/* errors: another process takes only negative codes other than SI_TKILL */
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	CHECK_ERR(qinfo(pid, 0, SI_USER), EPERM);
	CHECK_ERR(qinfo(pid, 0, SI_TKILL), EPERM);
	CHECK_ERR(qinfo(pid, 0, SI_KERNEL), EPERM);
	CHECK_ERR(qinfo(pid, 0, 1), EPERM);
	CHECK_EQ(qinfo(pid, 0, SI_QUEUE), 0);
	CHECK_EQ(qinfo(pid, 0, -60), 0);
	CHECK_ERR(qinfo(pid, 65, SI_QUEUE), EINVAL);
	CHECK_ERR(qinfo(pid, -1, SI_QUEUE), EINVAL);
	CHECK_ERR(qinfo(0x3ffffff0, 0, SI_QUEUE), ESRCH);
	CHECK_ERR(qinfo(0x3ffffff0, 65, SI_QUEUE), ESRCH);
	CHECK_ERR(qinfo(0, 0, SI_QUEUE), ESRCH);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, pid, 0, (void *)8), EFAULT);
	CHECK_ERR(tgqinfo(pid, 0, 0, SI_QUEUE), EINVAL);
	CHECK_ERR(tgqinfo(0, pid, 0, SI_QUEUE), EINVAL);
	CHECK_ERR(tgqinfo(-1, pid, 0, SI_QUEUE), EINVAL);
	CHECK_ERR(tgqinfo(pid, pid, 0, SI_USER), EPERM);
	CHECK_ERR(tgqinfo(pid, pid, 0, SI_TKILL), EPERM);
	CHECK_EQ(tgqinfo(pid, pid, 0, SI_QUEUE), 0);
	CHECK_ERR(tgqinfo(me, pid, 0, SI_QUEUE), ESRCH);
	CHECK_ERR(tgqinfo(pid, pid, 65, SI_QUEUE), EINVAL);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, pid, pid, 0, (void *)8), EFAULT);
	v.sival_int = 5;
	CHECK_EQ(sigqueue(pid, SIGTERM, v), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK_ERR(sigqueue(pid, SIGTERM, v), ESRCH);
	return utest_done();
}
