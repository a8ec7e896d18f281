/* Real-time scheduling, Linux's SCHED_FIFO and SCHED_RR: their tasks head the one run queue,
 * highest priority first and in arrival order within a priority, a higher one preempts a lower
 * one at once, and their bandwidth is limited so that a spinning one cannot keep a CPU. */
#include "kernel/arch/smp.h"
#include "kernel/lib/string.h"
#include "kernel/sched/rt.h"

#define USEC_PER_TICK (1000000 / HZ)

/* Linux's defaults: 0.95 s of every second. */
int sysctl_sched_rt_period = 1000000;
int sysctl_sched_rt_runtime = 950000;

/*
 * The bandwidth, per CPU as Linux's: each CPU's real-time run time in the current period.
 * When one CPU's reaches the runtime, every real-time task waits on rt_throttled_queue (still
 * on_rq) until the period ends, so that pick_next_task, which takes the queue's first task a
 * CPU may run, needs no test of its own. (Linux throttles that CPU's queue alone; with one
 * queue for all CPUs the others' real-time tasks wait too.)
 */
static uint64_t rt_time[NR_CPUS];
static uint64_t rt_period_end; /* jiffies */
static LIST_HEAD(rt_throttled_queue);
bool rt_throttled;

bool sched_rt_bandwidth_valid(int period, int runtime)
{
	return period > 0 && (runtime == -1 || (runtime >= 0 && runtime <= period));
}

void enqueue_task_rt(struct task_struct *t, bool head)
{
	struct list_head *queue = rt_throttled ? &rt_throttled_queue : &run_queue, *pos;

	/* Past the higher priorities, and past its own unless it goes to the head (a task of
	 * any other policy has rt_priority 0 and ends the walk). */
	list_for_each(pos, queue) {
		const struct task_struct *q = list_entry(pos, struct task_struct, run_list);

		if (q->rt_priority < t->rt_priority || (head && q->rt_priority == t->rt_priority))
			break;
	}
	list_add_tail(&t->run_list, pos);
	t->on_rq = true;
}

/* A CPU t may run on whose task is lower than t (the idle task lowest of all, then the other
 * policies, then the lower real-time priorities) switches: the lowest such one, not counting
 * those already about to call schedule(). */
void check_preempt_rt(struct task_struct *t)
{
	int low = (int)t->rt_priority, target = -1;

	if (rt_throttled)
		return;
	for (uint64_t m = t->cpus_allowed & cpu_online_mask; m; m &= m - 1) {
		int cpu = __builtin_ctzll(m), rank;
		const struct percpu *p = &cpu_data[cpu];

		if (p->need_resched)
			continue;
		rank = p->current_task == p->idle ? -1 : (int)p->current_task->rt_priority;
		if (rank < low) {
			low = rank;
			target = cpu;
		}
	}
	if (target >= 0)
		resched_cpu(target);
}

/* Every queued real-time task waits; every CPU running one switches. */
static void rt_throttle(void)
{
	struct list_head *pos, *n;

	rt_throttled = true;
	list_for_each_safe(pos, n, &run_queue) {
		if (!list_entry(pos, struct task_struct, run_list)->rt_priority)
			break;
		list_del(pos);
		list_add_tail(pos, &rt_throttled_queue);
	}
	for (uint64_t m = cpu_online_mask; m; m &= m - 1) {
		int cpu = __builtin_ctzll(m);

		if (cpu_data[cpu].current_task->rt_priority)
			resched_cpu(cpu);
	}
}

/* A new period: every CPU's run time starts again; waiting tasks go back ahead of the rest. */
static void rt_new_period(void)
{
	uint64_t period = (uint64_t)READ_ONCE(sysctl_sched_rt_period) / USEC_PER_TICK;
	struct task_struct *t;

	rt_period_end = jiffies + (period ? period : 1);
	memset(rt_time, 0, sizeof(rt_time));
	if (!rt_throttled)
		return;
	rt_throttled = false;
	list_splice_init(&rt_throttled_queue, &run_queue);
	list_for_each_entry(t, &run_queue, run_list) {
		if (!t->rt_priority)
			break;
		check_preempt_rt(t);
	}
}

void rt_period_timer(void)
{
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	if (rt_throttled && jiffies >= rt_period_end)
		rt_new_period();
	rq_unlock_kick(flags);
}

void task_tick_rt(struct percpu *p, struct task_struct *t)
{
	int runtime = READ_ONCE(sysctl_sched_rt_runtime);
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	if (jiffies >= rt_period_end)
		rt_new_period();
	rt_time[p->cpu] += USEC_PER_TICK;
	if (runtime >= 0 && rt_time[p->cpu] >= (uint64_t)runtime && !rt_throttled)
		rt_throttle();
	/* SCHED_RR: at the end of its slice, to the tail of its priority (schedule() puts it
	 * there); a SCHED_FIFO task runs on. */
	if (t->policy == SCHED_RR && --t->rt_slice <= 0)
		p->need_resched = true;
	rq_unlock_kick(flags);
}

void put_prev_task_rt(struct task_struct *prev, bool yield)
{
	bool expired = prev->rt_slice <= 0;

	if (expired)
		prev->rt_slice = RR_TIMESLICE;
	/* A preempted task stays at the head of its priority, to go on first (POSIX) */
	enqueue_task_rt(prev, !yield && !expired);
}

void sched_setscheduler_task(struct task_struct *p, int policy, unsigned int prio,
			     bool reset_on_fork)
{
	unsigned int old = p->rt_priority;
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	p->sched_reset_on_fork = reset_on_fork;
	/* The same policy and priority again change nothing: not even the place in the queue. */
	if (policy == p->policy && prio == old)
		goto out;
	if (policy == SCHED_RR && p->policy != SCHED_RR)
		p->rt_slice = RR_TIMESLICE;
	p->policy = policy;
	p->rt_priority = prio;
	p->wake_preempt = !p->mm || prio;
	if (p->on_rq) {
		/* Raised: to the tail of its new priority; lowered: to the head (sched(7)). */
		list_del(&p->run_list);
		if (prio) {
			enqueue_task_rt(p, prio < old);
			check_preempt_rt(p);
		} else {
			list_add_tail(&p->run_list, &run_queue);
		}
	} else if (p->on_cpu && prio < old) {
		resched_cpu(p->cpu); /* a queued task may now be above it */
	}
out:
	rq_unlock_kick(flags);
}
