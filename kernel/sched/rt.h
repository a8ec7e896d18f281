/* Real-time scheduling (kernel/sched/rt.c, Linux's kernel/sched/rt.c): SCHED_FIFO and SCHED_RR
 * tasks ahead of all others on the run queue by priority, their preemption of lower tasks,
 * SCHED_RR's time slice, and the real-time bandwidth limit (sched_rt_runtime_us). */
#ifndef KERNEL_SCHED_RT_H
#define KERNEL_SCHED_RT_H

#include "kernel/locking/spinlock.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

#define MAX_RT_PRIO 100
#define RR_TIMESLICE (100 * HZ / 1000) /* SCHED_RR's quantum, Linux's 100 ms, in ticks */

static inline bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* /proc/sys/kernel/sched_rt_period_us and sched_rt_runtime_us (-1: no limit): real-time tasks
 * run at most runtime of every period on each CPU. */
extern int sysctl_sched_rt_period, sysctl_sched_rt_runtime;
/* May the two become these values? (Linux's sched_rt_global_validate) */
bool sched_rt_bandwidth_valid(int period, int runtime);

/* The run queue of kernel/sched/sched.c, which rt.c keeps in order. */
extern spinlock_t rq_lock;
extern struct list_head run_queue;
void rq_unlock_kick(uint64_t flags);
void resched_cpu(int cpu); /* with rq_lock held: cpu calls schedule() soon */

/* With rq_lock held: queue the real-time task t at the tail of its priority (a wake-up, a
 * yield, a used-up SCHED_RR slice) or at its head (preempted); then, if t is queued, make a
 * CPU running a lower task switch to it. */
void enqueue_task_rt(struct task_struct *t, bool head);
void check_preempt_rt(struct task_struct *t);
/* schedule() puts back prev, a real-time task still runnable: at the tail of its priority if it
 * yielded or used up its SCHED_RR slice, else at the head. */
void put_prev_task_rt(struct task_struct *prev, bool yield);
/* sched_setscheduler's change, checked already: p's place in the queue follows it, and a CPU
 * whose task is now lower than a queued one switches. */
void sched_setscheduler_task(struct task_struct *p, int policy, unsigned int prio,
			     bool reset_on_fork);
/* The tick of a CPU running the real-time task t: its bandwidth and SCHED_RR's slice. */
void task_tick_rt(struct percpu *p, struct task_struct *t);
/* Real-time tasks wait for the period's end (the bandwidth is used up): the boot CPU's tick
 * ends their wait. Read without the lock. */
extern bool rt_throttled;
void rt_period_timer(void);

#endif
