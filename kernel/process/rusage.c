/* getrusage, times and the tick accounting behind them (Linux's kernel/sys.c getrusage and
 * account_process_tick): each timer tick is charged to the task it interrupted, as user
 * time if it came from ring 3, else as system time; so times are multiples of 10 ms. */
#include "kernel/arch/trap.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "mm/mm_types.h"

#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD	1
#define USER_HZ		100 /* clock_t's unit for times(2), fixed by the ABI */

void account_process_tick(struct pt_regs *regs)
{
	struct percpu *p = this_cpu_ptr();

	if (current == p->idle)
		return; /* scheduler_tick counts it in this CPU's idle_ticks */
	if (regs->cs & 3) {
		current->utime++;
		p->user_ticks++;
	} else {
		current->stime++;
		p->system_ticks++;
	}
	itimer_cpu_tick(regs->cs & 3);
	acct_update_maxrss(current);
}

void acct_update_maxrss(struct task_struct *t)
{
	if (t->mm && t->mm->rss > t->maxrss)
		t->maxrss = t->mm->rss;
}

static void acct_self(struct task_struct *t, struct rusage_acct *u)
{
	acct_update_maxrss(t);
	*u = (struct rusage_acct){ t->utime, t->stime, t->min_flt, t->maj_flt,
				   t->nvcsw, t->nivcsw, t->maxrss };
}

void acct_group(struct task_struct *t, struct rusage_acct *u)
{
	struct signal_struct *sig = t->signal;
	struct task_struct *w;

	*u = (struct rusage_acct){ sig->utime, sig->stime, sig->min_flt, sig->maj_flt,
				   sig->nvcsw, sig->nivcsw, t->group_leader->maxrss };
	for_each_thread(t, w) {
		struct rusage_acct own;

		acct_self(w, &own);
		u->utime += own.utime;
		u->stime += own.stime;
		u->min_flt += own.min_flt;
		u->maj_flt += own.maj_flt;
		u->nvcsw += own.nvcsw;
		u->nivcsw += own.nivcsw;
		u->maxrss = MAX(u->maxrss, own.maxrss);
	}
}

static void acct_children(struct task_struct *t, struct rusage_acct *u)
{
	struct signal_struct *sig = t->signal;

	*u = (struct rusage_acct){ sig->cutime, sig->cstime, sig->cmin_flt, sig->cmaj_flt,
				   sig->cnvcsw, sig->cnivcsw, sig->cmaxrss };
}

void acct_reap(struct task_struct *parent, struct task_struct *child, struct rusage_acct *out)
{
	struct rusage_acct own, kids;

	acct_group(child, &own);
	acct_children(child, &kids);
	*out = (struct rusage_acct){ own.utime + kids.utime, own.stime + kids.stime,
				     own.min_flt + kids.min_flt, own.maj_flt + kids.maj_flt,
				     own.nvcsw + kids.nvcsw, own.nivcsw + kids.nivcsw,
				     MAX(own.maxrss, kids.maxrss) };
	parent->signal->cutime += out->utime;
	parent->signal->cstime += out->stime;
	parent->signal->cmin_flt += out->min_flt;
	parent->signal->cmaj_flt += out->maj_flt;
	parent->signal->cnvcsw += out->nvcsw;
	parent->signal->cnivcsw += out->nivcsw;
	parent->signal->cmaxrss = MAX(parent->signal->cmaxrss, out->maxrss);
}

/* Linux's struct rusage: ru_utime and ru_stime (timevals), ru_maxrss in KiB, then the
 * counters as longs; those faultline does not keep (ixrss, nswap, inblock, ...) are 0. */
long rusage_to_user(uint64_t urusage, const struct rusage_acct *u)
{
	uint64_t ru[18] = { 0 };

	ru[0] = u->utime / HZ;
	ru[1] = (u->utime % HZ) * (1000000 / HZ);
	ru[2] = u->stime / HZ;
	ru[3] = (u->stime % HZ) * (1000000 / HZ);
	ru[4] = u->maxrss * (PAGE_SIZE / 1024);
	ru[8] = u->min_flt;
	ru[9] = u->maj_flt;
	ru[16] = u->nvcsw;
	ru[17] = u->nivcsw;
	return copy_to_user(urusage, ru, sizeof(ru));
}

/* getrusage(who, usage): RUSAGE_SELF (every thread), RUSAGE_THREAD (the caller) or
 * RUSAGE_CHILDREN (the reaped ones, with their own reaped children); else -EINVAL. */
long sys_getrusage(int64_t who, uint64_t urusage)
{
	struct rusage_acct u;

	if (who == RUSAGE_SELF)
		acct_group(current, &u);
	else if (who == RUSAGE_THREAD)
		acct_self(current, &u);
	else if (who == RUSAGE_CHILDREN)
		acct_children(current, &u);
	else
		return -EINVAL;
	return rusage_to_user(urusage, &u);
}

/* times(buf): the four CPU times in clock ticks of USER_HZ (buf may be NULL); returns the
 * ticks since boot, which only differences make sense of, as on Linux. */
long sys_times(uint64_t ubuf)
{
	struct rusage_acct u;
	uint64_t tms[4];

	acct_group(current, &u);
	tms[0] = u.utime;
	tms[1] = u.stime;
	tms[2] = current->signal->cutime;
	tms[3] = current->signal->cstime;

	for (int i = 0; i < 4; i++)
		tms[i] = tms[i] * USER_HZ / HZ;
	if (ubuf && copy_to_user(ubuf, tms, sizeof(tms)))
		return -EFAULT;
	return (long)(jiffies * USER_HZ / HZ);
}
