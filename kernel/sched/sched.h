/* Tasks and the scheduler: struct task_struct (Linux's name), the round-robin run queue that
 * every CPU takes its tasks from, and the calls that block and wake tasks. The kernel itself is
 * not preempted (as Linux without CONFIG_PREEMPT): a task switches only in schedule(). */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "kernel/arch/percpu.h"
#include "kernel/arch/trap.h"
#include "kernel/lib/list.h"
#include "kernel/process/cred.h"
#include "kernel/process/resource.h"
#include "kernel/sched/completion.h"
#include "kernel/sched/wait.h"
#include "kernel/signal/signal.h"

#define KSTACK_SIZE 16384   /* below each stack one unmapped guard page catches overflow */
#define TASK_COMM_LEN 16
#define TIME_SLICE_TICKS 5 /* 50 ms at 100 Hz */
/* task_struct.flags. PF_MEMALLOC: the task is reclaiming (kswapd, or an allocation's own
 * reclaim); its allocations take the reserve below pages_min and never reclaim again. */
#define PF_MEMALLOC 0x800

/* The scheduling policies, Linux's numbers (kernel/sched/sched_policy.c) */
#define SCHED_NORMAL 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5

/* state: what the task is doing now. The run queue holds exactly the TASK_RUNNING tasks
 * other than current and the idle task. */
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1   /* asleep; a wake_up or a fatal signal wakes it */
#define TASK_UNINTERRUPTIBLE 2 /* asleep; only its wake_up wakes it */
#define TASK_STOPPED 4         /* stopped by a signal; only SIGCONT or SIGKILL wakes it */
#define EXIT_ZOMBIE 16         /* exited; the parent has not collected the status yet */
#define EXIT_DEAD 32           /* exited and reaped by itself (SIGCHLD ignored): being freed */

struct mm_struct;
struct files_struct;
struct fs_struct;
struct tty_struct;

/* What a switch saves of the CPU beyond the callee-saved registers on the kernel stack. */
struct thread_struct {
	uint64_t rsp;     /* kernel %rsp while switched out */
	uint64_t fs_base; /* user TLS pointer (arch_prctl ARCH_SET_FS) */
	uint8_t fxsave[512] __attribute__((aligned(16))); /* x87/SSE registers (fxsave layout) */
};

struct task_struct {
	int pid;                  /* the thread id (gettid); getpid is tgid */
	int tgid;                 /* the thread group's id: its leader's pid */
	struct task_struct *group_leader; /* the thread whose pid is tgid */
	struct list_head thread_group;    /* the other threads of its group */
	uint64_t clear_child_tid; /* CLONE_CHILD_CLEARTID, set_tid_address: 0 and a wake at exit */
	struct completion *vfork_done; /* CLONE_VFORK: the parent waits here (mm_release) */
	uint64_t robust_list; /* set_robust_list's head in user memory (futex_robust.c) */
	int state;
	unsigned int flags;       /* PF_MEMALLOC */
	char comm[TASK_COMM_LEN]; /* program name, for messages */
	struct mm_struct *mm;     /* NULL for kernel threads: they use the kernel's tables */
	struct files_struct *files;
	struct fs_struct *fs;     /* the working directory; NULL for kernel threads (the root) */
	void *stack;              /* lowest address of its kernel stack */
	struct thread_struct thread;

	struct task_struct *parent;
	int pgrp;                  /* process group id (kernel/process/pgrp.c) */
	int session;               /* session id: the pid of the session's leader */
	struct tty_struct *tty;    /* controlling terminal of the session, or NULL */
	bool did_exec;             /* has called execve since fork (setpgid's EACCES) */
	int pdeath_signal;         /* prctl(PR_SET_PDEATHSIG): sent when its parent thread exits */
	/* prctl(PR_SET_TIMERSLACK): how late its timers may fire, in ns (faultline's fire on the
	 * tick: kept and reported only), and what 0 sets it back to; a new task starts with both
	 * at its creator's current slack */
	uint64_t timer_slack_ns, default_timer_slack_ns;
	struct list_head children; /* its children, linked through their sibling */
	struct list_head sibling;
	struct list_head tasks;    /* every task, for kill() and the /proc listing */
	struct list_head pid_chain; /* its pid's hash chain, while on tasks (pid.c) */
	struct list_head run_list; /* on the run queue when on_rq */
	bool on_rq;
	bool on_cpu;               /* running on some CPU, or being switched out (under rq_lock) */
	int cpu;                   /* the CPU it runs or last ran on */
	uint64_t cpus_allowed;     /* the CPUs it may run on (sched_setaffinity), bit per CPU */
	int policy;                /* SCHED_* (sched_policy.c; rt.c runs FIFO and RR) */
	unsigned int rt_priority;  /* 1-99 under SCHED_FIFO and SCHED_RR, else 0 */
	int rt_slice;              /* SCHED_RR's ticks left (kernel/sched/rt.c) */
	/* Its wake-up looks for a CPU to preempt: a kernel thread's (the runner, the events
	 * worker: ring 3 waits for them) or a real-time task's; !mm || rt_priority, one test on
	 * every wake-up. Changed under rq_lock once the task is running (sched_mm_changed). */
	bool wake_preempt;
	bool sched_reset_on_fork;  /* SCHED_RESET_ON_FORK: its children start SCHED_NORMAL */
	unsigned int personality;  /* personality(2)'s PER_* and flags (kernel/process/) */
	int lock_depth;            /* big kernel lock holds beyond the first; -1: not held */
	uint64_t cpu_timer_sigs;   /* ITIMER_VIRTUAL/PROF signals due, sent on return to ring 3 */
	struct list_head timer_list; /* on the sleepers' list while timeout is set */
	uint64_t timeout;            /* jiffies at which schedule_timeout() wakes it */
	bool timer_on;

	int exit_code;     /* wait status, as wait4 reports it: (code << 8) or the signal */
	int exit_signal;   /* sent to the parent at exit (clone's CSIGNAL); -1 for a thread */
	uint64_t pending;  /* signals sent to this thread and not yet acted on: bit (sig - 1) */
	uint64_t blocked;  /* rt_sigprocmask: signals held back (never SIGKILL) */
	struct task_sigstate sigstate;      /* siginfo, sigaltstack (kernel/signal/signal.h) */
	struct signal_struct *signal;       /* the group's shared state (kernel/signal/signal.h) */
	struct sighand_struct *sighand;     /* the signals' actions, maybe shared */
	int time_slice;    /* ticks left before the timer asks for a switch */
	unsigned long min_flt, maj_flt; /* page faults without and with I/O (getrusage) */
	unsigned long nvcsw, nivcsw;    /* voluntary and preempted context switches */
	struct task_cred cred; /* uid, euid, ..., groups, capabilities (kernel/process/cred.h) */
	uint64_t utime, stime;          /* timer ticks charged in user mode, in the kernel */
	unsigned long maxrss;           /* peak resident pages */
	uint64_t start_time;            /* jiffies when it was made (/proc/PID/stat) */
	/* the locks it holds, in the LOCKDEBUG=1 build only (kernel/locking/lockdep.h) */
	struct task_lockdep lockdep;
};

extern struct task_struct init_task; /* pid 0, the boot CPU's idle task */
extern struct list_head all_tasks; /* every task, by tasks */
int last_pid(void);                /* kernel/process/pid.c: the pid given to the newest task */
/* kernel/process/fork.c: the most tasks at once (/proc/sys/kernel/threads-max), and how many
 * there are (idle tasks aside); fork refuses one more with EAGAIN. */
extern int max_threads, nr_threads;

/* This CPU should call schedule() before it returns to ring 3 (or in its idle loop). */
static inline bool need_resched(void)
{
	bool r;

	/* One %gs-relative load: it is on every return to ring 3 (make bench). */
	asm volatile("movb %%gs:%c1, %0" : "=q"(r)
		     : "i"(__builtin_offsetof(struct percpu, need_resched)));
	return r;
}
static inline void set_need_resched(void)
{
	__atomic_store_n(&this_cpu_ptr()->need_resched, true, __ATOMIC_RELAXED);
}

void sched_init(void);  /* the boot thread becomes the idle task (pid 0) */
void schedule(void);    /* give the CPU to the next runnable task */
void sched_yield(void); /* the same, current going behind the tasks of its priority */
/* t's mm changed (exec, exit): its wake_preempt follows. */
void sched_mm_changed(struct task_struct *t);
void schedule_tail(void); /* a new task's first step: release the run queue lock */
void wake_up_process(struct task_struct *t);
/* Sleep for up to ticks timer ticks in state (set by the caller); returns the ticks left. */
uint64_t schedule_timeout(uint64_t ticks);
/* Each CPU's timer tick: the running task's time slice (and idle time). */
void scheduler_tick(void);
/* The boot CPU's tick also wakes the sleepers whose timeout has come and keeps the load. */
void run_timers(void);
/* Wait until t has left its CPU for good (it is exiting): its stack may then be freed. */
void wait_task_inactive(struct task_struct *t);
/* Let t run only on the CPUs of mask (non-empty, online ones); current moves at once if its
 * CPU is not among them. */
void set_cpus_allowed(struct task_struct *t, uint64_t mask);
/* Make t notice a new signal soon: a CPU running it in ring 3 gets an interrupt. */
void kick_process(struct task_struct *t);
/* Send the CPU-time itimer signals the tick recorded (kernel/time/itimer.c); BKL held. */
void itimer_send_cpu_signals(void);
void __noreturn cpu_idle(void);
/* A signal is waiting that t acts on when it next returns to ring 3. */
static inline bool signal_pending(const struct task_struct *t)
{
	return ((t->pending | t->signal->shared_pending) & ~t->blocked) ||
	       t->sigstate.group_stop_pending;
}
/* A signal that will end t: a sleep that only such a signal may end ends (TASK_KILLABLE's test,
 * in a TASK_INTERRUPTIBLE sleep that goes back to sleep on any other). While its group dumps
 * core only a SIGKILL is: the dumper's writes must not end early. */
static inline bool fatal_signal_pending(const struct task_struct *t)
{
	return ((t->pending | t->signal->shared_pending) & sigmask(SIGKILL)) ||
	       (signal_group_exit(t->signal) && !t->signal->core_state);
}
static inline bool thread_group_leader(const struct task_struct *t)
{
	return t->group_leader == t;
}
static inline bool thread_group_empty(const struct task_struct *t)
{
	return list_empty(&t->thread_group);
}
/* The next thread of t's group, round the ring (t itself when it is alone). */
static inline struct task_struct *next_thread(const struct task_struct *t)
{
	return list_entry(t->thread_group.next, struct task_struct, thread_group);
}
/* Every thread of the group of g (g included): for (t = g; ...; t = next_thread(t) != g). */
#define for_each_thread(g, t) \
	for (t = (g); t; t = next_thread(t) == (g) ? NULL : next_thread(t))
/* Before returning to ring 3: deliver pending signals, or switch if the time is up. */
void exit_to_user_mode(struct pt_regs *regs);
/* The test for that work, inline in the paths back to ring 3: a call would cost its frame and
 * return on every fault and system call with nothing to do (docs/bench.md, "Design choices,
 * measured"). The LOCKDEBUG build checks that no lock goes to ring 3 with the task. */
static inline void exit_to_user_mode_prepare(struct pt_regs *regs)
{
	lockdep_check_user_return();
	if (signal_pending(current) || need_resched())
		exit_to_user_mode(regs);
}

/* Task creation and lookup (kernel/process/fork.c). */
/* t lets go of mm, at exit or exec: its vfork parent resumes, its CLONE_CHILD_CLEARTID word is
 * cleared and woken. With the big kernel lock held, and mm still current's at exec. */
void mm_release(struct task_struct *t, struct mm_struct *mm);
void fork_init(void); /* the kernel-stack area's page table, before any address space */
void fpu_init_task(struct task_struct *t); /* fresh x87/SSE state (kernel/sched/sched.c) */
/* A kernel thread running fn(arg), current's child (the runner's programs start as these). */
struct task_struct *kernel_thread(int (*fn)(void *), void *arg, const char *name);
/* A kernel thread a driver keeps (a loop device's): the boot task's child, root, never a
 * process's, so no program waits for it or counts it among its orphans. */
struct task_struct *kthread_run(int (*fn)(void *), void *arg, const char *name);
struct kernel_clone_args;  /* kernel/process/clone.h */
long do_fork(struct pt_regs *regs, const struct kernel_clone_args *args);
/* An address space's lifetime (kernel/process/fork.c): a new empty one sharing the kernel half,
 * fork's copy (every VMA, private pages shared copy-on-write), and freeing one with all it
 * holds. */
struct mm_struct *mm_alloc(void);
struct mm_struct *dup_mm(struct mm_struct *old);
void mmput(struct mm_struct *mm);
/* The task with that pid among those on all_tasks (zombies included), or NULL: a hash of
 * chains by pid (kernel/process/pid.c, Linux's pid_hash). attach_pid and detach_pid put a task
 * on its chain and take it off, wherever it joins and leaves all_tasks. */
struct task_struct *find_task_by_pid(int pid);
void attach_pid(struct task_struct *t);
void detach_pid(struct task_struct *t);
/* kernel/sched/sched_policy.c: a new task t takes parent's policy (fork and clone) */
void sched_fork_policy(struct task_struct *t, const struct task_struct *parent);
void release_task(struct task_struct *t); /* free a reaped zombie */
/* The user registers of t: the struct pt_regs at the top of its kernel stack. */
struct pt_regs *task_pt_regs(struct task_struct *t);
void task_set_comm(struct task_struct *t, const char *path);

/* Exit and wait (kernel/process/exit.c). */
void __noreturn do_exit(int status);
/* End every thread of current's group with status (exit_group, a fatal signal). */
void __noreturn do_group_exit(int status);
/* Add thread t's usage to its group's totals, as it goes (kernel/process/exit.c). */
void account_thread_exit(struct task_struct *t);
/* Send SIGKILL to every other thread of current's group; returns how many
 * (kernel/process/exit.c). */
int zap_other_threads(struct task_struct *p);
long do_wait4(int pid, int *status, int options);
/* do_wait4 that gives up at jiffies deadline (0: never), returning 0 as WNOHANG does. */
long do_wait4_deadline(int pid, int *status, int options, uint64_t deadline);
void reap_dead_tasks(void); /* free the tasks that reaped themselves (EXIT_DEAD) */
#define WNOHANG 1
#define WUNTRACED 2 /* WSTOPPED */
#define WEXITED 4
#define WCONTINUED 8
#define WNOWAIT 0x01000000
#define __WNOTHREAD 0x20000000
#define __WALL 0x40000000
#define __WCLONE 0x80000000

/* Context switch (kernel/arch/switch.S): save callee-saved registers and %rsp in *prev_rsp, load
 * next_rsp, pop and return there. */
void switch_to_asm(uint64_t *prev_rsp, uint64_t next_rsp);
void ret_from_fork(void);         /* first return of a forked task: into ring 3 */
void ret_from_clone_settid(void); /* the same, storing its tid at the address in %r12 first */
void kernel_thread_start(void);   /* first return of a kernel thread: fn(arg), then exit */

#endif
