/* Signals as Linux x86-64 numbers and delivers them: the actions rt_sigaction records, the
 * information a pending signal carries, and the per-task state (kernel/signal/signal.c generates,
 * kernel/signal/deliver.c dequeues and acts, kernel/arch/signal_frame.c builds the handler's
 * frame, kernel/time/itimer.c sends SIGALRM). */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "kernel/compiler.h"
#include "kernel/lib/list.h"
#include "kernel/process/resource.h"
#include "kernel/sched/wait.h"

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGSYS 31
#define SIGRTMIN 32
#define SIGRTMAX 64
#define NSIG 64

#define SIG_DFL 0
#define SIG_IGN 1
#define sigmask(sig) (1UL << ((sig) - 1))

/* sa_flags */
#define SA_NOCLDSTOP 0x00000001
#define SA_NOCLDWAIT 0x00000002
#define SA_SIGINFO 0x00000004
#define SA_RESTORER 0x04000000
#define SA_ONSTACK 0x08000000
#define SA_RESTART 0x10000000
#define SA_NODEFER 0x40000000
#define SA_RESETHAND 0x80000000

/* si_code: who sent it, or why the kernel did */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_QUEUE (-1)
#define SI_TIMER (-2)
#define SI_TKILL (-6)
#define ILL_ILLOPN 2
#define FPE_INTDIV 1
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRERR 2
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_DUMPED 3
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/* sigaltstack */
#define SS_ONSTACK 1
#define SS_DISABLE 2
#define MINSIGSTKSZ 2048

/* What a system call returns to say "a signal came; restart me or give -EINTR" (the decision
 * is do_signal's, by the handler's SA_RESTART). They never reach user space. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

struct task_struct;
struct pt_regs;
struct signal_struct;
struct core_state;

/* Linux's struct sigaction as rt_sigaction passes it on x86-64. */
struct k_sigaction {
	uint64_t sa_handler;
	uint64_t sa_flags;
	uint64_t sa_restorer;
	uint64_t sa_mask;
};

/* stack_t as user space passes it (sigaltstack, a frame's uc_stack). */
struct user_stack_t {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};

/* What one pending signal carries: the fields of siginfo_t faultline fills, and for a fault
 * the trap number, error code and address that the handler's sigcontext reports. */
struct ksiginfo {
	int signo, code;
	int pid, status;  /* sender (kill, SIGCHLD); the child's exit code or signal (SIGCHLD) */
	uint32_t uid;     /* the sender's real uid (kill, SIGCHLD; rt_sigqueueinfo passes it) */
	uint64_t value;   /* si_value of sigqueue / rt_sigqueueinfo */
	uint64_t addr;    /* faulting address (SIGSEGV, SIGBUS) or instruction (SIGILL, SIGFPE) */
	uint64_t trapno, err;
};

/* Linux's restart_block, as far as nanosleep needs it: what restart_syscall continues. */
struct restart_block {
	long (*fn)(struct restart_block *rb);
	uint64_t expires; /* jiffies */
	uint64_t urem;    /* where the time left goes */
	/* futex: the wait a signal interrupted, continued to the same deadline
	 * (kernel/futex/futex.c) */
	uint64_t futex_uaddr;
	uint32_t futex_val, futex_bitset;
	int futex_flags;
};

/* One queued instance of a real-time signal (kernel/signal/sigqueue.c), on task_sigstate.queue. */
struct sigqueue {
	struct list_head list;
	struct ksiginfo info;
};

/* A task's own signal state beyond its pending and blocked sets: what Linux keeps per
 * thread. What the thread group shares is in struct signal_struct. */
struct task_sigstate {
	/* Linux's two pending sets: the thread's (task->pending: tkill, faults, the kernel's
	 * own) and the process's (signal_struct's shared_pending: kill, groups, SIGCHLD,
	 * SIGALRM). The thread's are taken first; a standard signal pending in one set is not
	 * queued again in that set. */
	struct ksiginfo info[SIGRTMIN - 1]; /* the siginfo of each pending standard signal */
	struct list_head queue;       /* real-time signals, each send its own entry, oldest first */
	int nr_queued;
	uint64_t saved_sigmask;       /* rt_sigsuspend's mask, back in place after the handler */
	bool restore_sigmask;
	uint64_t sas_ss_sp, sas_ss_size; /* sigaltstack; size 0: none */
	struct restart_block restart_block;
	bool group_stop_pending; /* its group is stopping: stop (Linux's JOBCTL_STOP_PENDING) */
};

/* The actions of the signals (Linux's sighand_struct): shared by the tasks cloned with
 * CLONE_SIGHAND, copied by fork, replaced by a private copy at exec. */
struct sighand_struct {
	int count; /* tasks using it */
	struct k_sigaction action[NSIG]; /* rt_sigaction's record of each signal's action */
	/* Readers and pollers of a signalfd of these tasks: each signal sent to one wakes them
	 * (kernel/fs/signalfd.c). */
	struct wait_queue_head signalfd_wqh;
};

/* What a thread group shares (Linux's signal_struct): the process's pending signals, the
 * group's exit, job-control reports, the interval timers and the limits. One per process;
 * every thread of it points at it. */
struct signal_struct {
	int count; /* tasks pointing at it (threads, a zombie leader included) */
	int unknown_syscalls; /* calls of numbers with no system call (the first few reported) */
	int live;  /* threads not yet exited: 0 once the whole group is dead */
	uint64_t shared_pending;
	struct ksiginfo shared_info[SIGRTMIN - 1]; /* as task_sigstate.info, for shared_pending */
	struct list_head shared_queue; /* real-time signals sent to the process */
	int nr_queued;
	/* A fatal signal or exit_group ends every thread with group_exit_code; exec's de_thread
	 * (group_exit_task) ends every thread but the one that execs. */
	int flags;
	int group_exit_code;
	struct task_struct *group_exit_task;
	struct wait_queue_head wait_chldexit; /* wait4 of any of its threads sleeps here */
	/* Job control, what the parent's wait has yet to report: the signal that stopped the
	 * group (0: nothing), and that SIGCONT resumed it. */
	int stop_report;
	bool cont_report;
	int group_stop_sig;   /* the stop signal of a group stop under way */
	int group_stop_count; /* its threads yet to stop; the last reports the stop */
	uint64_t it_real_expires;     /* ITIMER_REAL: jiffies of the next SIGALRM, 0: disarmed */
	uint64_t it_real_incr;        /* its interval in ticks, 0: one-shot */
	bool it_real_armed;
	/* ITIMER_VIRTUAL [0] and ITIMER_PROF [1]: ticks of CPU time left before SIGVTALRM or
	 * SIGPROF (0: disarmed), and the interval reloaded then (kernel/time/itimer.c). The ticks
	 * of every CPU running one of the group's threads count them down, under cpu_timer_lock
	 * (an interrupt-safe spinlock: 2.6.23 uses siglock). */
	spinlock_t cpu_timer_lock;
	uint64_t it_cpu_value[2], it_cpu_incr[2];
	/* The usage of the group's threads that have exited (Linux's sig->utime...): the group's
	 * totals are these plus each live thread's own. */
	uint64_t utime, stime;
	unsigned long min_flt, maj_flt, nvcsw, nivcsw;
	/* The usage of the reaped children, with their own reaped children (getrusage's
	 * RUSAGE_CHILDREN, times), and their peak resident pages. */
	uint64_t cutime, cstime;
	unsigned long cmin_flt, cmaj_flt, cnvcsw, cnivcsw, cmaxrss;
	/* the process's resource limits (kernel/process/resource.c) */
	struct rlimit rlim[RLIM_NLIMITS];
	/* /proc/PID/oom_score_adj (mm/oom_kill.c) and the lowest value it may be set back to
	 * without CAP_SYS_RESOURCE; fork copies both, exec keeps them (Linux's). */
	short oom_score_adj, oom_score_adj_min;
	int posix_timer_id; /* the id the next timer_create gives (kernel/time/posix-timers.c) */
	/* A core dump under way (kernel/fs/coredump.c): the other threads stop in do_exit */
	struct core_state *core_state;
};
#define SIGNAL_GROUP_EXIT 1 /* group_exit_code is the status every thread exits with */

const char *signal_name(int sig);
/* Queue sig for t (kill, timers, the kernel); dropped if t ignores it. Stop signals and
 * SIGCONT act on t's stopped state at once, whatever its mask (kernel/signal/jobctl.c). 0, or
 * -EAGAIN when a real-time signal other than kill's finds t's queue full. */
int send_sig_info(int sig, const struct ksiginfo *info, struct task_struct *t);
/* The same to the process's set (kill, kill_pgrp, SIGCHLD, timers): Linux's
 * group_send_sig_info. */
int group_send_sig_info(int sig, const struct ksiginfo *info, struct task_struct *t);
void group_send_sig(int sig, struct task_struct *t); /* with si_code SI_KERNEL */
void send_sig(int sig, struct task_struct *t); /* with si_code SI_KERNEL */
/* May current send sig to t? A signal from the kernel (si_code > 0) always; a user's
 * (kill, tkill) if its real or effective uid is t's real or saved uid, with CAP_KILL, or
 * SIGCONT within current's session. 0 or -EPERM. */
int check_kill_permission(int sig, const struct ksiginfo *info, struct task_struct *t);
/* A fault of the current task: sig is delivered even if blocked or ignored (then its action
 * becomes the default), as Linux's force_sig_info does; at the return to ring 3. */
void force_sig_info(const struct ksiginfo *info);
void force_sig_fault(int sig, int code, uint64_t addr);
void force_sig(int sig);
/* Would sig, sent to current now, end it by the default action (no handler runs)? */
bool unhandled_signal(int sig);
/* Take the next pending signal of mask off current (its thread's set first, then its
 * process's; faults first, then the lowest): its number and *info, or 0 if none is. */
int dequeue_signal(uint64_t mask, struct ksiginfo *info);
/* Deliver pending signals before regs returns to ring 3: run the handler, act by default, or
 * restart an interrupted system call. */
void do_signal(struct pt_regs *regs);
/* Any other exception from ring 3: the signal Linux sends for it. */
void user_exception(struct pt_regs *regs);
/* A fresh program: handlers gone (SIG_IGN stays), no alternate stack (exec); what a child
 * inherits (fork). */
void signals_exec(struct task_struct *t);
void signals_fork(struct task_struct *child, struct task_struct *parent);

/* kernel/arch/signal_frame.c: the handler's frame on the user stack, and its return. */
bool setup_rt_frame(int sig, const struct k_sigaction *ka, const struct ksiginfo *info,
		    uint64_t oldmask, struct pt_regs *regs);
bool on_sig_stack(uint64_t sp);
/* siginfo_t as user space sees it (128 bytes) */
void siginfo_to_user(uint8_t buf[128], const struct ksiginfo *info);
/* sigaltstack's change, for the system call and for rt_sigreturn (from the frame's uc_stack),
 * sp being the user stack pointer at the time. 0 or -errno. */
long do_sigaltstack(uint64_t ss_sp, int ss_flags, uint64_t ss_size, uint64_t sp);

/* kernel/signal/sigqueue.c: the real-time signals' queue. */
int sigqueue_add(struct task_struct *t, const struct ksiginfo *info, bool shared);
/* Take the oldest queued sig of current's set into *info; false if none was queued. */
bool sigqueue_take(int sig, bool shared, struct ksiginfo *info);
bool sigqueue_has(struct task_struct *t, int sig, bool shared);
void sigqueue_flush(struct task_struct *t, uint64_t mask); /* drop the entries of mask */
void sigqueue_flush_shared(struct signal_struct *sig);     /* drop the process's queue */
/* A user less; the last frees it (kernel/process/fork.c). */
void put_sighand(struct sighand_struct *sh);
/* A copy of old's actions (none: all default) for one user, or NULL when out of memory. */
struct sighand_struct *copy_sighand(const struct sighand_struct *old);
/* A group exit or exec's de_thread is ending the threads of the group. */
static inline bool signal_group_exit(const struct signal_struct *sig)
{
	return (sig->flags & SIGNAL_GROUP_EXIT) || sig->group_exit_task;
}

/* kernel/signal/jobctl.c: stop and continue. */
#define SIG_STOP_MASK (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))
/* What sending sig does to t's stop state before it is queued (Linux's prepare_signal). */
void jobctl_prepare_signal(int sig, struct task_struct *t);
/* current dequeued stop signal sig with its default action: stop (or drop it when its
 * group is orphaned); returns when SIGCONT or SIGKILL wakes it. */
void do_signal_stop(int sig);
void do_group_stop_self(void); /* current stops for its group's stop under way */
/* SIGCHLD to t's parent with CLD_STOPPED or CLD_CONTINUED, unless it set SA_NOCLDSTOP. */
void do_notify_parent_cldstop(struct task_struct *t, int why);

/* kernel/time/itimer.c */
void itimer_tick(void);        /* from the timer interrupt: send the SIGALRMs that are due */
void itimer_exit(struct task_struct *t);
/* From the timer tick charged to current (user: it was in ring 3): count down its
 * ITIMER_PROF, and its ITIMER_VIRTUAL when the tick was user time. */
void itimer_cpu_tick(bool user);

#endif
