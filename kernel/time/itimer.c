/* The interval timers of setitimer(): ITIMER_REAL (also alarm()), a SIGALRM when the time is
 * up, and the two that count CPU time, ITIMER_VIRTUAL (user time: SIGVTALRM) and ITIMER_PROF
 * (user and system time: SIGPROF); each again every interval if there is one. Counted in timer
 * ticks (HZ): a real timer is checked by the boot CPU's tick (only while one is armed), which
 * has the events thread send the signal; the CPU ones are counted by each CPU's tick charged to
 * its running task, and their signals sent as that task returns to ring 3. */
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/lib/list.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "kernel/workqueue.h"

#define ITIMER_REAL 0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF 2
#define USEC_PER_TICK (1000000 / HZ)

extern struct list_head all_tasks; /* kernel/sched/sched.c */
static int nr_armed;
static volatile uint64_t next_expiry = ~0UL; /* no armed ITIMER_REAL is due before this */

/* In the events thread (the task list and signals are the big kernel lock's): send the
 * SIGALRMs that are due, rearm the periodic ones. */
static void itimer_real_work(struct work_struct *work)
{
	struct list_head *pos;
	uint64_t next = ~0UL;

	(void)work;
	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);
		struct signal_struct *ss = t->signal;

		if (!thread_group_leader(t) || !ss->it_real_armed)
			continue;
		if (jiffies >= ss->it_real_expires) {
			if (ss->it_real_incr) {
				ss->it_real_expires += ss->it_real_incr;
			} else {
				ss->it_real_armed = false;
				nr_armed--;
			}
			group_send_sig(SIGALRM, t);
		}
		if (ss->it_real_armed && ss->it_real_expires < next)
			next = ss->it_real_expires;
	}
	next_expiry = next;
}

static DECLARE_WORK(itimer_work, itimer_real_work);

/* The boot CPU's tick: when a real timer is due, the events thread sends its signal. */
void itimer_tick(void)
{
	if (nr_armed && jiffies >= next_expiry)
		schedule_work(&itimer_work);
}

void itimer_cpu_tick(bool user)
{
	static const int sigs[2] = { SIGVTALRM, SIGPROF };
	struct signal_struct *ss = current->signal;

	/* In the tick's interrupt: interrupts are off, and another CPU's tick may be counting
	 * down the same group's timers (a thread of it runs there). */
	spin_lock(&ss->cpu_timer_lock);
	for (int i = user ? 0 : 1; i < 2; i++) {
		if (!ss->it_cpu_value[i] || --ss->it_cpu_value[i])
			continue;
		ss->it_cpu_value[i] = ss->it_cpu_incr[i];
		/* Sent on the way back to ring 3, which need_resched sends through its slow
		 * path (a switch there costs only when a timer fires). */
		__atomic_fetch_or(&current->cpu_timer_sigs, sigmask(sigs[i]), __ATOMIC_RELAXED);
		set_need_resched();
	}
	spin_unlock(&ss->cpu_timer_lock);
}

void itimer_send_cpu_signals(void)
{
	uint64_t sigs = __atomic_exchange_n(&current->cpu_timer_sigs, 0, __ATOMIC_RELAXED);

	if (sigs & sigmask(SIGVTALRM))
		group_send_sig(SIGVTALRM, current);
	if (sigs & sigmask(SIGPROF))
		group_send_sig(SIGPROF, current);
}

/* Arm (ticks > 0) or disarm (0) current's timer; the ticks it had left, 0 if none. The
 * ITIMER_REAL fields and the armed count are big-kernel-lock data: system calls and the
 * events thread hold it; the tick only reads nr_armed and next_expiry, and a stale value
 * there costs at most one tick's delay. */
static uint64_t itimer_set(uint64_t ticks, uint64_t incr, uint64_t *old_incr)
{
	struct signal_struct *ss = current->signal;
	uint64_t left = 0;

	if (ss->it_real_armed) {
		left = ss->it_real_expires > jiffies ? ss->it_real_expires - jiffies : 1;
		nr_armed--;
	}
	if (old_incr)
		*old_incr = ss->it_real_incr;
	ss->it_real_armed = ticks > 0;
	ss->it_real_expires = jiffies + ticks;
	ss->it_real_incr = ticks ? incr : 0;
	if (ticks) {
		nr_armed++;
		if (ss->it_real_expires < next_expiry)
			next_expiry = ss->it_real_expires;
	}
	return left;
}

void itimer_exit(struct task_struct *t)
{
	if (t->signal->it_real_armed) {
		t->signal->it_real_armed = false;
		nr_armed--;
	}
}

/* Round up: a timer never fires early. */
static uint64_t timeval_to_ticks(const int64_t tv[2])
{
	return (uint64_t)tv[0] * HZ + ((uint64_t)tv[1] + USEC_PER_TICK - 1) / USEC_PER_TICK;
}

static void ticks_to_timeval(uint64_t ticks, int64_t tv[2])
{
	tv[0] = (int64_t)(ticks / HZ);
	tv[1] = (int64_t)(ticks % HZ) * USEC_PER_TICK;
}

/* alarm(seconds): the seconds left of the previous alarm (rounded, at least 1 if any). */
long sys_alarm(uint64_t seconds)
{
	uint64_t left = itimer_set((seconds & 0xffffffff) * HZ, 0, NULL);

	return (long)((left + HZ / 2) / HZ) + (left && left < HZ / 2);
}

long sys_getitimer(int64_t which, uint64_t uvalue)
{
	struct signal_struct *ss = current->signal;
	int64_t v[4] = { 0 }; /* it_interval, it_value: timevals */
	uint64_t flags;

	if (which == ITIMER_VIRTUAL || which == ITIMER_PROF) {
		spin_lock_irqsave(&ss->cpu_timer_lock, flags);
		ticks_to_timeval(ss->it_cpu_incr[which - 1], v);
		ticks_to_timeval(ss->it_cpu_value[which - 1], v + 2);
		spin_unlock_irqrestore(&ss->cpu_timer_lock, flags);
		return copy_to_user(uvalue, v, sizeof(v));
	}
	if (which != ITIMER_REAL)
		return -EINVAL;
	ticks_to_timeval(ss->it_real_incr, v);
	if (ss->it_real_armed)
		ticks_to_timeval(ss->it_real_expires > jiffies ? ss->it_real_expires - jiffies : 1,
				 v + 2);
	return copy_to_user(uvalue, v, sizeof(v));
}

long sys_setitimer(int64_t which, uint64_t unew, uint64_t uold)
{
	int64_t nv[4] = { 0 }, ov[4] = { 0 };
	uint64_t left, old_incr;

	if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF)
		return -EINVAL;
	if (unew && copy_from_user(nv, unew, sizeof(nv)))
		return -EFAULT;
	if (nv[0] < 0 || nv[1] < 0 || nv[1] >= 1000000 || nv[2] < 0 || nv[3] < 0 ||
	    nv[3] >= 1000000)
		return -EINVAL;
	if (which != ITIMER_REAL) {
		struct signal_struct *ss = current->signal;
		uint64_t flags;

		spin_lock_irqsave(&ss->cpu_timer_lock, flags);
		left = ss->it_cpu_value[which - 1];
		old_incr = ss->it_cpu_incr[which - 1];
		/* One tick more, as Linux adds: the tick being counted is already under way. */
		ss->it_cpu_value[which - 1] = timeval_to_ticks(nv + 2) + (nv[2] || nv[3]);
		ss->it_cpu_incr[which - 1] = ss->it_cpu_value[which - 1] ? timeval_to_ticks(nv) : 0;
		spin_unlock_irqrestore(&ss->cpu_timer_lock, flags);
	} else {
		left = itimer_set(timeval_to_ticks(nv + 2), timeval_to_ticks(nv), &old_incr);
	}
	ticks_to_timeval(old_incr, ov);
	ticks_to_timeval(left, ov + 2);
	if (uold && copy_to_user(uold, ov, sizeof(ov)))
		return -EFAULT;
	return 0;
}
