/* sched-policy: the scheduling policy calls as Linux answers them: sched_setscheduler,
 * sched_getscheduler, sched_setparam, sched_getparam, sched_get_priority_min/max and
 * sched_rr_get_interval for SCHED_OTHER, FIFO, RR, BATCH and IDLE, SCHED_RESET_ON_FORK across
 * fork, what a user who is not root may not do (EPERM), and EINVAL, ESRCH, EFAULT in Linux's
 * order. Run as root. By number: musl's sched_setscheduler() is ENOSYS. */
#define _GNU_SOURCE
#define UTEST_NAME "sched-policy"
#include "utest.h"
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define OTHER 0
#define FIFO 1
#define RR 2
#define BATCH 3
#define IDLE 5
#define DEADLINE 6
#define RESET_ON_FORK 0x40000000
#define NOBODY 65534

static long setsched(long pid, long policy, int prio)
{
	return syscall(SYS_sched_setscheduler, pid, policy, &prio);
}

static long getsched(long pid)
{
	return syscall(SYS_sched_getscheduler, pid);
}

static long setparam(long pid, int prio)
{
	return syscall(SYS_sched_setparam, pid, &prio);
}

/* the priority sched_getparam reports, or -1000 - errno */
static long getparam(long pid)
{
	int prio = -1;

	return syscall(SYS_sched_getparam, pid, &prio) ? -1000 - errno : prio;
}

/* sched_rr_get_interval in ns, or -1 */
static long long interval(long pid)
{
	struct timespec ts;

	if (syscall(SYS_sched_rr_get_interval, pid, &ts))
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* what a child's fn returns is its exit status, checked by the caller */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void priorities(void)
{
	int min[] = { [OTHER] = 0, [FIFO] = 1, [RR] = 1, [BATCH] = 0, [IDLE] = 0, [DEADLINE] = 0 };
	int max[] = { [OTHER] = 0, [FIFO] = 99, [RR] = 99, [BATCH] = 0, [IDLE] = 0,
		      [DEADLINE] = 0 };
	int policies[] = { OTHER, FIFO, RR, BATCH, IDLE, DEADLINE };

	for (unsigned i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		CHECK_EQ(syscall(SYS_sched_get_priority_min, policies[i]), min[policies[i]]);
		CHECK_EQ(syscall(SYS_sched_get_priority_max, policies[i]), max[policies[i]]);
	}
	CHECK_ERR(syscall(SYS_sched_get_priority_min, 4), EINVAL);
	CHECK_ERR(syscall(SYS_sched_get_priority_max, 8), EINVAL);
	CHECK_EQ(syscall(SYS_sched_get_priority_max, 7), 0); /* SCHED_EXT */
	CHECK_ERR(syscall(SYS_sched_get_priority_max, -1), EINVAL);
}

static int child_reports_other(void)
{
	return getsched(0) == OTHER && getparam(0) == 0 ? 0 : 1;
}

static int child_reports_fifo10(void)
{
	return getsched(0) == FIFO && getparam(0) == 10 ? 0 : 1;
}

/* root: every policy, its priority, its quantum, and fork's inheritance */
static void as_root(void)
{
	CHECK_EQ(getsched(0), OTHER);
	CHECK_EQ(getparam(0), 0);
	CHECK_EQ(setsched(0, FIFO, 10), 0);
	CHECK_EQ(getsched(0), FIFO);
	CHECK_EQ(getsched(getpid()), FIFO);
	CHECK_EQ(getparam(0), 10);
	CHECK_EQ(interval(0), 0); /* FIFO has no quantum */
	CHECK_EQ(in_child(child_reports_fifo10), 0);
	CHECK_EQ(setparam(0, 20), 0);
	CHECK_EQ(getparam(0), 20);
	CHECK_ERR(setparam(0, 0), EINVAL); /* FIFO's priorities are 1-99 */
	CHECK_ERR(setparam(0, 100), EINVAL);
	CHECK_ERR(setsched(0, FIFO, -1), EINVAL);
	CHECK_EQ(getparam(0), 20);
	CHECK_EQ(setsched(0, RR, 5), 0);
	CHECK_EQ(getsched(0), RR);
	CHECK_EQ(interval(0), 100000000LL); /* Linux's RR_TIMESLICE */
	CHECK_EQ(setsched(0, FIFO | RESET_ON_FORK, 10), 0);
	CHECK_EQ(getsched(0), FIFO | RESET_ON_FORK);
	CHECK_EQ(in_child(child_reports_other), 0); /* the child starts over */
	CHECK_EQ(getsched(0), FIFO | RESET_ON_FORK);
	CHECK_EQ(setparam(0, 11), 0); /* keeps the policy and its flag */
	CHECK_EQ(getsched(0), FIFO | RESET_ON_FORK);
	CHECK_ERR(setsched(0, OTHER, 1), EINVAL); /* SCHED_OTHER's only priority is 0 */
	CHECK_EQ(setsched(0, BATCH, 0), 0);
	CHECK_EQ(getsched(0), BATCH);
	CHECK_EQ(getparam(0), 0);
	CHECK(interval(0) >= 0); /* the fair class's slice: each kernel its own */
	CHECK_EQ(setsched(0, IDLE, 0), 0);
	CHECK_EQ(getsched(0), IDLE);
	CHECK_EQ(setsched(0, OTHER, 0), 0); /* root may leave SCHED_IDLE */
	CHECK_EQ(getsched(0), OTHER);
	CHECK_EQ(in_child(child_reports_other), 0);
}

static void errors(void)
{
	pid_t gone = fork();
	int prio = 0;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0); /* reaped: no such thread now */
	CHECK_ERR(setsched(0, 4, 0), EINVAL);
	CHECK_ERR(setsched(0, 7, 0), EINVAL); /* SCHED_EXT: no BPF scheduler is loaded */
	CHECK_ERR(setsched(0, DEADLINE, 0), EINVAL); /* needs sched_setattr's parameters */
	CHECK_ERR(setsched(0, 100, 0), EINVAL);
	CHECK_ERR(setsched(0, -1, 0), EINVAL);
	CHECK_ERR(setsched(-1, OTHER, 0), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, OTHER, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, OTHER, (void *)8), EFAULT);
	CHECK_ERR(setsched(gone, OTHER, 0), ESRCH);
	CHECK_ERR(setsched(gone, 4, 0), ESRCH); /* the thread before the policy */
	CHECK_ERR(syscall(SYS_sched_setscheduler, gone, OTHER, (void *)8), EFAULT);
	CHECK_ERR(syscall(SYS_sched_setparam, 0, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setparam, -1, &prio), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setparam, gone, &prio), ESRCH);
	CHECK_ERR(getsched(-1), EINVAL);
	CHECK_ERR(getsched(gone), ESRCH);
	CHECK_EQ(getparam(gone), -1000 - ESRCH);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, -1, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, gone, NULL), ESRCH);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, 0, (void *)8), EFAULT);
	/* another process: its own policy */
	CHECK_EQ(getsched(getppid()), OTHER);
}

/* a user who is not root (no CAP_SYS_NICE, RLIMIT_RTPRIO and RLIMIT_NICE 0) */
static int as_nobody(void)
{
	int fails = 0;

	if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return 100;
	fails += setsched(0, FIFO, 1) != -1 || errno != EPERM;
	fails += setsched(0, RR, 1) != -1 || errno != EPERM;
	fails += setsched(0, BATCH, 0) != 0;
	fails += setsched(0, OTHER | RESET_ON_FORK, 0) != 0;
	fails += setsched(0, OTHER, 0) != -1 || errno != EPERM; /* may not drop the flag */
	fails += setsched(0, IDLE | RESET_ON_FORK, 0) != 0;
	fails += setsched(0, OTHER | RESET_ON_FORK, 0) != -1 || errno != EPERM; /* nice 20 */
	fails += getsched(0) != (IDLE | RESET_ON_FORK);
	fails += setsched(getppid(), BATCH, 0) != -1 || errno != EPERM; /* root's */
	fails += setsched(0, 4, 0) != -1 || errno != EINVAL; /* EINVAL before EPERM */
	return fails;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root\n", UTEST_NAME);
		return 1;
	}
	priorities();
	as_root();
	errors();
	CHECK_EQ(in_child(as_nobody), 0);
	return utest_done();
}
