/* The scheduler: round robin over one run queue shared by every CPU (real-time tasks ahead:
 * kernel/sched/rt.c), a time slice counted down by each CPU's timer, and the context switch
 * (address space, kernel stack, TLS base, FPU registers, then the stack). */
#include "kernel/arch/segment.h"
#include "kernel/arch/smp.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/loadavg.h"
#include "kernel/sched/rt.h"
#include "kernel/sched/sched.h"
#include "kernel/syscall.h"
#include "kernel/time/posix-timers.h"
#include "kernel/time/time.h"
#include "mm/mm_init.h"
#include "mm/mm_types.h"
#include "mm/tlbflush.h"

static struct signal_struct init_signals = { .count = 1, .live = 1 };
static struct sighand_struct init_sighand = {
	.count = 1, .signalfd_wqh = __WAIT_QUEUE_HEAD_INITIALIZER(init_sighand.signalfd_wqh)
};
/* pid 0: the boot CPU's idle task, which kmain becomes (Linux's init_task). */
struct task_struct init_task = {
	.pid = 0,
	.state = TASK_RUNNING,
	.comm = "idle",
	.group_leader = &init_task,
	.thread_group = { &init_task.thread_group, &init_task.thread_group },
	.signal = &init_signals,
	.sighand = &init_sighand,
	.on_cpu = true,
	.cpus_allowed = ~0UL,
	.lock_depth = -1,
	.timer_slack_ns = 50000, /* Linux's default: 50 us */
	.default_timer_slack_ns = 50000,
};

/*
 * The run queue's lock (2.6.23's rq->lock) guards run_queue, sleepers, every task's on_rq,
 * on_cpu, cpu, run_list and timer fields, and each CPU's current_task. Taken irqsave: the
 * timer interrupt wakes sleepers. It is held across the context switch and released by the
 * task switched to (below schedule(), or schedule_tail for a task's first run), so no CPU can
 * take a task off the queue while another is still saving its registers.
 *
 * One queue for every CPU, as xv6's and unlike 2.6.23's per-CPU ones: a woken task goes to
 * whichever CPU is free first, with no balancing to write or to explain; the lock is taken
 * once per switch and per wake-up, which at a few CPUs is not where time goes (docs/smp.md).
 */
DEFINE_SPINLOCK(rq_lock);
LIST_HEAD(run_queue); /* real-time tasks first, by priority (rt.c), then the others */
static LIST_HEAD(sleepers); /* tasks in schedule_timeout(), in no particular order */
/* No sleeper's deadline is before this (it may be earlier than the real first one: a sleeper
 * woken early leaves it as it was). Written under rq_lock; run_timers reads it without, so
 * that a tick with nothing due does not take the lock the other CPUs are switching under. */
static uint64_t next_timeout = UINT64_MAX;
LIST_HEAD(all_tasks);

static uint8_t fpu_init_state[512] __attribute__((aligned(16)));

void sched_init(void)
{
	rlimit_init_task(&init_task);
	INIT_LIST_HEAD(&init_task.children);
	INIT_LIST_HEAD(&init_task.sibling);
	INIT_LIST_HEAD(&init_task.run_list);
	INIT_LIST_HEAD(&init_task.timer_list);
	init_waitqueue_head(&init_signals.wait_chldexit);
	spin_lock_init(&init_signals.cpu_timer_lock);
	INIT_LIST_HEAD(&init_signals.shared_queue);
	INIT_LIST_HEAD(&init_task.sigstate.queue);
	list_add_tail(&init_task.tasks, &all_tasks);
	/* The state a new program's x87/SSE registers start in: fninit, MXCSR 0x1f80. */
	asm volatile("fninit; fxsave %0" : "=m"(fpu_init_state));
	memcpy(init_task.thread.fxsave, fpu_init_state, sizeof(fpu_init_state));
}

void fpu_init_task(struct task_struct *t)
{
	memcpy(t->thread.fxsave, fpu_init_state, sizeof(fpu_init_state));
}

/*
 * The RESCHEDULE IPIs a CPU decided on while holding rq_lock, sent once it has let the lock
 * go (rq_unlock_kick). Under QEMU's TCG an IPI is an emulated APIC write that waits for
 * QEMU's global lock, a long wait when the host is busy: sent with rq_lock held, it made
 * every other CPU spin that long, and a host that then preempts the spinners turned each wait
 * into a host time slice (docs/smp.md, "Waking an idle CPU").
 */
static uint64_t rq_kick[NR_CPUS];

void rq_unlock_kick(uint64_t flags)
{
	int this = smp_processor_id();
	uint64_t m = rq_kick[this];

	rq_kick[this] = 0;
	spin_unlock_irqrestore(&rq_lock, flags);
	for (; m; m &= m - 1)
		smp_send_reschedule(__builtin_ctzll(m));
}

void resched_cpu(int cpu)
{
	int this = smp_processor_id();

	cpu_data[cpu].need_resched = true;
	if (cpu != this)
		rq_kick[this] |= 1UL << cpu;
}

/* An idle CPU that t may run on is told to look at the queue (this one, if idle, too): its
 * IPI is queued in rq_kick. With rq_lock held. Returns false when every such CPU is busy. */
static bool resched_idle_cpu(struct task_struct *t)
{
	int this = smp_processor_id();

	/* Only the allowed online CPUs: a walk of all NR_CPUS slots on every wake-up is felt in
	 * every pipe round trip (docs/bench.md, "Design choices, measured"). */
	for (uint64_t m = t->cpus_allowed & cpu_online_mask; m; m &= m - 1) {
		int cpu = __builtin_ctzll(m);
		struct percpu *p = &cpu_data[cpu];

		if (p->current_task != p->idle || p->need_resched)
			continue;
		p->need_resched = true;
		if (cpu != this)
			rq_kick[this] |= 1UL << cpu;
		return true;
	}
	return false;
}

/* wake_up_process with rq_lock held. A task still on a CPU (it is about to sleep, or being
 * switched out) is only marked runnable: its own schedule() sees the state and keeps it. */
static void try_to_wake_up(struct task_struct *t)
{
	if (t->state == TASK_INTERRUPTIBLE || t->state == TASK_UNINTERRUPTIBLE)
		t->state = TASK_RUNNING;
	if (t->state != TASK_RUNNING || t->on_rq || t->on_cpu)
		return;
	if (unlikely(t->wake_preempt)) {
		if (t->rt_priority) { /* ahead of lower tasks, and on a CPU at once */
			enqueue_task_rt(t, false);
			check_preempt_rt(t);
			return;
		}
		/* A kernel thread (the events worker, the runner) preempts ring 3 here at its
		 * next return, rather than a time slice later, when no CPU is free for it. */
		list_add_tail(&t->run_list, &run_queue);
		t->on_rq = true;
		if (!resched_idle_cpu(t))
			set_need_resched();
		return;
	}
	list_add_tail(&t->run_list, &run_queue);
	t->on_rq = true;
	resched_idle_cpu(t);
}

void sched_mm_changed(struct task_struct *t)
{
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	t->wake_preempt = !t->mm || t->rt_priority;
	spin_unlock_irqrestore(&rq_lock, flags);
}

void wake_up_process(struct task_struct *t)
{
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	try_to_wake_up(t);
	rq_unlock_kick(flags);
}

void kick_process(struct task_struct *t)
{
	int cpu = READ_ONCE(t->cpu);

	if (READ_ONCE(t->on_cpu) && cpu != smp_processor_id())
		smp_send_reschedule(cpu);
}

void wait_task_inactive(struct task_struct *t)
{
	uint64_t flags;
	bool running;

	for (;;) {
		spin_lock_irqsave(&rq_lock, flags);
		running = t->on_cpu;
		spin_unlock_irqrestore(&rq_lock, flags);
		if (!running)
			return;
		cpu_relax();
	}
}

void set_cpus_allowed(struct task_struct *t, uint64_t mask)
{
	bool move = t == current && !(mask & (1UL << smp_processor_id()));
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	t->cpus_allowed = mask;
	/* Off a CPU it may no longer use: schedule() queues it (it is running) and picks
	 * another, and an idle allowed CPU is told to look. A task running elsewhere moves at
	 * its next schedule(). */
	if (move)
		resched_idle_cpu(t);
	rq_unlock_kick(flags);
	if (move)
		schedule();
}

/* Switch everything that belongs to a task to next's. Interrupts are off, rq_lock held. */
static inline __attribute__((always_inline)) void context_switch(struct task_struct *prev,
								  struct task_struct *next, int cpu)
{
	uint64_t top = (uint64_t)next->stack + KSTACK_SIZE;

	if (next->mm)
		switch_mm(next->mm);
	else
		enter_lazy_tlb(); /* a kernel thread or idle: keep prev's tables, no CR3 write */
	tss_set_rsp0(top);
	this_cpu_ptr()->kernel_rsp = top;
	prev->thread.fs_base = rdmsr(MSR_FS_BASE);
	wrmsr(MSR_FS_BASE, next->thread.fs_base);
	asm volatile("fxsave %0" : "=m"(prev->thread.fxsave));
	asm volatile("fxrstor %0" ::"m"(next->thread.fxsave));
	this_cpu_ptr()->current_task = next;
	next->on_cpu = true;
	next->cpu = cpu;
	prev->on_cpu = false; /* (seen only under rq_lock, which next releases after the switch) */
#ifdef CONFIG_LOCKDEBUG
	rq_lock.owner = next; /* next releases rq_lock: its held-lock record goes with it */
	lockdep_switch_handover(&rq_lock.dep_map, &prev->lockdep, &next->lockdep);
#endif
	switch_to_asm(&prev->thread.rsp, next->thread.rsp);
}

/* The first queued task allowed on cpu, taken off the queue; else cpu's idle task. */
static inline __attribute__((always_inline)) struct task_struct *pick_next_task(int cpu)
{
	struct task_struct *t;

	list_for_each_entry(t, &run_queue, run_list) {
		if (!(t->cpus_allowed & (1UL << cpu)))
			continue;
		list_del(&t->run_list);
		t->on_rq = false;
		return t;
	}
	return cpu_data[cpu].idle;
}

/* schedule(), or with yield sched_yield(): a real-time task then goes behind the others of its
 * priority rather than staying at their head. Inlined in both, as are the switch and the pick:
 * a call more in every switch is felt in the pipe round trip (docs/bench.md). */
static inline __attribute__((always_inline)) void __schedule(bool yield)
{
	struct task_struct *prev = current, *next;
	uint64_t flags;
	int cpu;

	lockdep_check_sleep();
	release_kernel_lock(prev);
	spin_lock_irqsave(&rq_lock, flags);
	cpu = smp_processor_id();
	cpu_data[cpu].need_resched = false;
	if (prev->state == TASK_RUNNING && prev != cpu_data[cpu].idle && !prev->on_rq) {
		if (unlikely(prev->rt_priority)) {
			put_prev_task_rt(prev, yield);
		} else {
			list_add_tail(&prev->run_list, &run_queue);
			prev->on_rq = true;
		}
	}
	next = pick_next_task(cpu);
	next->time_slice = TIME_SLICE_TICKS;
	if (next != prev) {
		if (prev->state == TASK_RUNNING)
			prev->nivcsw++;
		else
			prev->nvcsw++;
		context_switch(prev, next, cpu);
		/* (back in prev, maybe on another CPU: cpu is stale from here on) */
	}
	spin_unlock_irqrestore(&rq_lock, flags);
	reacquire_kernel_lock(prev);
}

void schedule(void)
{
	__schedule(false);
}

void sched_yield(void)
{
	__schedule(true);
}

/* A new task's first instructions (kernel/arch/switch.S): release the run queue's lock that the
 * task which switched to it took. Interrupts stay off. */
void schedule_tail(void)
{
	spin_unlock(&rq_lock);
}

uint64_t schedule_timeout(uint64_t ticks)
{
	uint64_t until = jiffies + ticks, flags;

	spin_lock_irqsave(&rq_lock, flags);
	current->timeout = until;
	current->timer_on = true;
	list_add_tail(&current->timer_list, &sleepers);
	if (until < next_timeout)
		WRITE_ONCE(next_timeout, until);
	spin_unlock(&rq_lock); /* (interrupts stay off until the task is back) */
	schedule();
	spin_lock(&rq_lock);
	if (current->timer_on) { /* woken early: by a signal or a wake_up */
		list_del(&current->timer_list);
		current->timer_on = false;
	}
	spin_unlock_irqrestore(&rq_lock, flags);
	return jiffies >= until ? 0 : until - jiffies;
}

void run_timers(void)
{
	struct list_head *pos, *n;
	uint64_t next = UINT64_MAX, flags;

	itimer_tick();
	posix_timer_tick();
	if (unlikely(READ_ONCE(rt_throttled)))
		rt_period_timer();
	if (jiffies < READ_ONCE(next_timeout))
		goto out;
	spin_lock_irqsave(&rq_lock, flags); /* (the timer interrupt: interrupts are off) */
	list_for_each_safe(pos, n, &sleepers) {
		struct task_struct *t = list_entry(pos, struct task_struct, timer_list);

		if (jiffies >= t->timeout) {
			list_del(&t->timer_list);
			t->timer_on = false;
			try_to_wake_up(t);
		} else if (t->timeout < next) {
			next = t->timeout;
		}
	}
	WRITE_ONCE(next_timeout, next);
	rq_unlock_kick(flags);
out:
	calc_global_load();
}

/* Is a queued task allowed on cpu? With rq_lock held. */
static bool runnable_on(int cpu)
{
	struct task_struct *t;

	list_for_each_entry(t, &run_queue, run_list)
		if (t->cpus_allowed & (1UL << cpu))
			return true;
	return false;
}

void scheduler_tick(void)
{
	struct percpu *p = this_cpu_ptr();
	struct task_struct *t = p->current_task;

	if (t == p->idle) {
		p->idle_ticks++;
		/* The lock only when the queue is not empty: idle CPUs would otherwise all take
		 * it every tick (a racy first look is fine: the next tick looks again). */
		if (list_empty(&run_queue))
			return;
		spin_lock(&rq_lock);
		if (runnable_on(p->cpu))
			p->need_resched = true;
		spin_unlock(&rq_lock);
	} else if (unlikely(t->rt_priority)) {
		task_tick_rt(p, t);
	} else if (--t->time_slice <= 0) {
		p->need_resched = true;
	}
}

/* Called by exit_to_user_mode_prepare (kernel/sched/sched.h) when there is work. */
void exit_to_user_mode(struct pt_regs *regs)
{
	while (signal_pending(current) || need_resched()) {
		/* The work runs with interrupts on, whatever brought the task in (an interrupt,
		 * an exception): an exit's TLB shootdown needs them, and ring 3 has them on. */
		local_irq_enable();
		if (current->cpu_timer_sigs || signal_pending(current)) {
			/* Signals are BKL data: taken here, whatever brought the task in. One
			 * signal at a time: a frame that cannot be built queues a SIGSEGV. */
			lock_kernel();
			itimer_send_cpu_signals();
			while (signal_pending(current))
				do_signal(regs);
			unlock_kernel();
		}
		if (need_resched())
			schedule();
	}
}

/* Each CPU's idle task runs when nothing else can: halt until an interrupt (a timer tick, a
 * wake-up's RESCHEDULE IPI) says a task is waiting for this CPU. */
void __noreturn cpu_idle(void)
{
	for (;;) {
		local_irq_disable();
		if (need_resched()) {
			schedule();
		} else {
			/* sti's shadow: no wake-up is lost */
			asm volatile("sti; hlt" ::: "memory");
		}
		local_irq_enable();
	}
}
