/* Scheduling policies as the sched_* calls see them (Linux's kernel/sched/syscalls.c): each
 * thread's policy, real-time priority and reset-on-fork flag, set and read with Linux's checks
 * and errors. kernel/sched/rt.c runs SCHED_FIFO and SCHED_RR; the other policies share one
 * round robin (docs/processes.md). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/process/cred.h"
#include "kernel/process/resource.h"
#include "kernel/sched/rt.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"

#define SCHED_DEADLINE 6
#define SCHED_EXT 7 /* a BPF scheduler's: none is ever loaded here, so not settable */
#define SCHED_RESET_ON_FORK 0x40000000
#define SETPARAM_POLICY (-1) /* sched_setparam: the policy stays */
#define CAP_SYS_NICE 23

static bool valid_policy(int policy)
{
	return policy == SCHED_NORMAL || policy == SCHED_BATCH || policy == SCHED_IDLE ||
	       rt_policy(policy) || policy == SCHED_DEADLINE;
}

void sched_fork_policy(struct task_struct *t, const struct task_struct *parent)
{
	t->policy = parent->policy;
	t->rt_priority = parent->rt_priority;
	t->sched_reset_on_fork = false; /* used up by this fork */
	t->rt_slice = RR_TIMESLICE;
	if (parent->sched_reset_on_fork && rt_policy(t->policy)) {
		t->policy = SCHED_NORMAL;
		t->rt_priority = 0;
	}
}

/* pid_t pid: 0 the caller, else any thread; NULL if there is none */
static struct task_struct *find_process_by_pid(int pid)
{
	return pid ? find_task_by_pid(pid) : current;
}

static uint64_t task_rlimit(const struct task_struct *p, int resource)
{
	return p->signal->rlim[resource].rlim_cur;
}

/* Linux's user_check_sched_setscheduler: what an unprivileged caller may not do, unless it
 * has CAP_SYS_NICE. faultline has no nice values (every thread is nice 0), so the nice
 * checks reduce to RLIMIT_NICE against nice 0's 20. */
static int user_check(struct task_struct *p, int policy, unsigned int prio, bool reset_on_fork)
{
	bool nice_ok = 20 <= task_rlimit(p, RLIMIT_NICE);

	if (rt_policy(policy)) {
		uint64_t rlim_rtprio = task_rlimit(p, RLIMIT_RTPRIO);

		if (policy != p->policy && !rlim_rtprio)
			goto req_priv; /* no real-time policy at all */
		if (prio > p->rt_priority && prio > rlim_rtprio)
			goto req_priv; /* no higher priority */
	}
	if (policy == SCHED_DEADLINE)
		goto req_priv;
	if (p->policy == SCHED_IDLE && policy != SCHED_IDLE && !nice_ok)
		goto req_priv; /* SCHED_IDLE is nice 20: leaving it is raising one's priority */
	if (current->cred.euid != p->cred.euid && current->cred.euid != p->cred.uid)
		goto req_priv; /* another user's thread */
	if (p->sched_reset_on_fork && !reset_on_fork)
		goto req_priv;
	return 0;
req_priv:
	return capable(CAP_SYS_NICE) ? 0 : -EPERM;
}

/* Linux's __sched_setscheduler for a caller from user space, in its order of checks */
static long setscheduler(struct task_struct *p, int policy, int sched_priority)
{
	unsigned int prio = (unsigned int)sched_priority; /* sched_attr's u32: -1 is too high */
	bool reset_on_fork;
	int err;

	if (policy == SETPARAM_POLICY) {
		policy = p->policy;
		reset_on_fork = p->sched_reset_on_fork;
	} else {
		reset_on_fork = policy & SCHED_RESET_ON_FORK;
		policy &= ~SCHED_RESET_ON_FORK;
		if (!valid_policy(policy))
			return -EINVAL;
	}
	if (prio > MAX_RT_PRIO - 1)
		return -EINVAL;
	/* SCHED_DEADLINE needs sched_setattr's runtime and deadline: never valid here */
	if (policy == SCHED_DEADLINE || rt_policy(policy) != (prio != 0))
		return -EINVAL;
	err = user_check(p, policy, prio, reset_on_fork);
	if (err)
		return err;
	sched_setscheduler_task(p, policy, rt_policy(policy) ? prio : 0, reset_on_fork);
	return 0;
}

static long do_sched_setscheduler(int64_t pid, int policy, uint64_t uparam)
{
	struct task_struct *p;
	int prio;

	if (!uparam || (int)pid < 0)
		return -EINVAL;
	if (copy_from_user(&prio, uparam, sizeof(prio)))
		return -EFAULT;
	p = find_process_by_pid((int)pid);
	if (!p)
		return -ESRCH;
	return setscheduler(p, policy, prio);
}

long sys_sched_setscheduler(int64_t pid, int64_t policy, uint64_t uparam)
{
	if ((int)policy < 0)
		return -EINVAL;
	return do_sched_setscheduler(pid, (int)policy, uparam);
}

long sys_sched_setparam(int64_t pid, uint64_t uparam)
{
	return do_sched_setscheduler(pid, SETPARAM_POLICY, uparam);
}

long sys_sched_getscheduler(int64_t pid)
{
	struct task_struct *p;

	if ((int)pid < 0)
		return -EINVAL;
	p = find_process_by_pid((int)pid);
	if (!p)
		return -ESRCH;
	return p->policy | (p->sched_reset_on_fork ? SCHED_RESET_ON_FORK : 0);
}

/* Only the 4 bytes of struct sched_param are written; pid is a pid_t (the low 32 bits).
 * Linux's order of errors: EINVAL, ESRCH, EFAULT. */
long sys_sched_getparam(int64_t pid, uint64_t uparam)
{
	struct task_struct *p;
	int prio;

	if (!uparam || (int)pid < 0)
		return -EINVAL;
	p = find_process_by_pid((int)pid);
	if (!p)
		return -ESRCH;
	prio = rt_policy(p->policy) ? (int)p->rt_priority : 0;
	return copy_to_user(uparam, &prio, sizeof(prio)) ? -EFAULT : 0;
}

/* The priorities a policy takes: 1-99 for the real-time ones, only 0 for the others (as
 * sched_ext's, whose scheduler faultline never has); -EINVAL for no policy. */
static long priority_bound(int policy, bool max)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return max ? MAX_RT_PRIO - 1 : 1;
	case SCHED_NORMAL:
	case SCHED_BATCH:
	case SCHED_IDLE:
	case SCHED_DEADLINE:
	case SCHED_EXT:
		return 0;
	}
	return -EINVAL;
}

long sys_sched_get_priority_max(int64_t policy)
{
	return priority_bound((int)policy, true);
}

long sys_sched_get_priority_min(int64_t policy)
{
	return priority_bound((int)policy, false);
}

/* The quantum the policy would get: none for SCHED_FIFO, Linux's 100 ms for SCHED_RR, and
 * for the others faultline's own time slice (the one every thread gets here). */
long sys_sched_rr_get_interval(int64_t pid, uint64_t uinterval)
{
	struct task_struct *p;
	struct timespec64 ts;
	uint64_t slice;

	if ((int)pid < 0)
		return -EINVAL;
	p = find_process_by_pid((int)pid);
	if (!p)
		return -ESRCH;
	slice = p->policy == SCHED_FIFO ? 0 : p->policy == SCHED_RR ? RR_TIMESLICE :
		TIME_SLICE_TICKS;
	ts.tv_sec = (int64_t)(slice / HZ);
	ts.tv_nsec = (long)(slice % HZ) * (1000000000L / HZ);
	return copy_to_user(uinterval, &ts, sizeof(ts)) ? -EFAULT : 0;
}
