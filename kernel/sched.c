/* The scheduler: round robin over one run queue, a time slice counted down by the timer, and
 * the context switch (address space, kernel stack, TLS base, FPU registers, then the stack). */
#include "kernel/errno.h"
#include "kernel/loadavg.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/segment.h"
#include "kernel/string.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "mm/mm_init.h"
#include "mm/mm_types.h"
#include "mm/tlbflush.h"

static struct signal_struct init_signals = { .count = 1, .live = 1 };
static struct sighand_struct init_sighand = { .count = 1 };
/* pid 0: the boot CPU's idle task, which kmain becomes (Linux's init_task). */
struct task_struct init_task = {
	.pid = 0,
	.state = TASK_RUNNING,
	.comm = "idle",
	.group_leader = &init_task,
	.thread_group = { &init_task.thread_group, &init_task.thread_group },
	.signal = &init_signals,
	.sighand = &init_sighand,
};
bool need_resched;

/* The run queue's lock (2.6.23's rq->lock; one queue until each CPU has its own) guards
 * run_queue, sleepers and every task's on_rq, run_list and timer fields. Taken irqsave: the
 * timer interrupt wakes sleepers. It is held across the context switch and released by the
 * task switched to (below schedule(), or schedule_tail for a task's first run). */
static DEFINE_SPINLOCK(rq_lock);
static LIST_HEAD(run_queue);
static LIST_HEAD(sleepers); /* tasks in schedule_timeout(), in no particular order */
LIST_HEAD(all_tasks);
uint64_t idle_ticks; /* timer ticks that found the CPU idle (/proc/uptime) */

static uint8_t fpu_init_state[512] __attribute__((aligned(16)));

void sched_init(void)
{
	cred_init_root(&init_task.cred);
	rlimit_init_task(&init_task);
	INIT_LIST_HEAD(&init_task.children);
	INIT_LIST_HEAD(&init_task.sibling);
	INIT_LIST_HEAD(&init_task.run_list);
	INIT_LIST_HEAD(&init_task.timer_list);
	init_waitqueue_head(&init_signals.wait_chldexit);
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

/* wake_up_process with rq_lock held. */
static void try_to_wake_up(struct task_struct *t)
{
	if (t->state == TASK_INTERRUPTIBLE || t->state == TASK_UNINTERRUPTIBLE)
		t->state = TASK_RUNNING;
	if (t->state == TASK_RUNNING && !t->on_rq && t != current && t != &init_task) {
		list_add_tail(&t->run_list, &run_queue);
		t->on_rq = true;
	}
}

void wake_up_process(struct task_struct *t)
{
	uint64_t flags;

	spin_lock_irqsave(&rq_lock, flags);
	try_to_wake_up(t);
	spin_unlock_irqrestore(&rq_lock, flags);
}

/* Switch everything that belongs to a task to next's. Interrupts are off. */
static void context_switch(struct task_struct *prev, struct task_struct *next)
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
#ifdef CONFIG_LOCKDEBUG
	rq_lock.owner = next; /* next releases rq_lock: its held-lock record goes with it */
	lockdep_switch_handover(&rq_lock.dep_map, &prev->lockdep, &next->lockdep);
#endif
	switch_to_asm(&prev->thread.rsp, next->thread.rsp);
}

void schedule(void)
{
	struct task_struct *prev = current, *next = &init_task;
	uint64_t flags;

	lockdep_check_sleep();
	spin_lock_irqsave(&rq_lock, flags);
	need_resched = false;
	if (prev->state == TASK_RUNNING && prev != &init_task && !prev->on_rq) {
		list_add_tail(&prev->run_list, &run_queue);
		prev->on_rq = true;
	}
	if (!list_empty(&run_queue)) {
		next = list_first_entry(&run_queue, struct task_struct, run_list);
		list_del(&next->run_list);
		next->on_rq = false;
	}
	next->time_slice = TIME_SLICE_TICKS;
	if (next != prev) {
		if (prev->state == TASK_RUNNING)
			prev->nivcsw++;
		else
			prev->nvcsw++;
		context_switch(prev, next);
	}
	spin_unlock_irqrestore(&rq_lock, flags);
}

/* A new task's first instructions (kernel/switch.S): release the run queue's lock that the
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

/* The CPU's totals of user and system ticks (kernel/rusage.c charges them). */
uint64_t cpu_user_ticks, cpu_system_ticks;

void scheduler_tick(void)
{
	struct list_head *pos, *n;

	itimer_tick();
	spin_lock(&rq_lock); /* (the timer interrupt: interrupts are off) */
	list_for_each_safe(pos, n, &sleepers) {
		struct task_struct *t = list_entry(pos, struct task_struct, timer_list);

		if (jiffies >= t->timeout) {
			list_del(&t->timer_list);
			t->timer_on = false;
			try_to_wake_up(t);
		}
	}
	spin_unlock(&rq_lock);
	calc_global_load();
	if (current == &init_task) {
		idle_ticks++;
		need_resched = !list_empty(&run_queue);
	} else if (--current->time_slice <= 0) {
		need_resched = true;
	}
}

void exit_to_user_mode(struct pt_regs *regs)
{
	lockdep_check_user_return(); /* mmap_sem above all: never held in ring 3 */
	for (;;) {
		/* One signal at a time: a frame that cannot be built queues a SIGSEGV. */
		while (signal_pending(current))
			do_signal(regs);
		if (!need_resched)
			return;
		schedule();
	}
}

/* The idle task runs when nothing else can: halt until an interrupt makes a task runnable. */
void __noreturn cpu_idle(void)
{
	for (;;) {
		local_irq_disable();
		if (list_empty(&run_queue))
			asm volatile("sti; hlt" ::: "memory"); /* sti's shadow: no wake-up is lost */
		else
			schedule();
		local_irq_enable();
	}
}
