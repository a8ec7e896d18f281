/* Signals: generation (kill, tkill, faults, the kernel), the pending and blocked sets, and
 * the decision at each return to ring 3 (Linux's get_signal and handle_signal): run the
 * handler, act by default, and restart or fail an interrupted system call. */
#include "kernel/errno.h"
#include "kernel/process/pgrp.h"
#include "kernel/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/signal/signal.h"
#include "kernel/lib/string.h"
#include "kernel/time/time.h"
#include "kernel/arch/trap.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"

#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))
/* Signals a fault raises: taken before any other pending one, as Linux does, so that the
 * handler sees the fault at the instruction that caused it. */
#define SYNCHRONOUS_MASK                                                                           \
	(sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) |                 \
	 sigmask(SIGFPE) | sigmask(SIGSYS))
#define SYS_restart_syscall 219

const char *signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",   [SIGQUIT] = "SIGQUIT",
		[SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
		[SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",   [SIGKILL] = "SIGKILL",
		[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
		[SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT", [SIGSTOP] = "SIGSTOP",
		[SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU",
		[SIGURG] = "SIGURG",   [SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM",
		[SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH", [SIGSYS] = "SIGSYS",
	};

	if (sig > 0 && sig < (int)ARRAY_SIZE(names) && names[sig])
		return names[sig];
	return "an unknown signal";
}

/* Default action "ignore". (SIGCONT's own work, resuming, is done when it is sent.) */
static bool sig_kernel_ignore(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

/* Dropped at once when sent: ignored and not blocked (a blocked signal stays pending, since
 * the action may change before it is unblocked). */
static bool sig_ignored(struct task_struct *t, int sig)
{
	uint64_t handler = t->sighand->action[sig - 1].sa_handler;

	if (sig == SIGKILL)
		return false;
	if (t->blocked & sigmask(sig))
		return false;
	return handler == SIG_IGN || (handler == SIG_DFL && sig_kernel_ignore(sig));
}

/* The pending set of t a signal goes to: the thread's or the process's. */
static uint64_t *pending_set(struct task_struct *t, bool shared)
{
	return shared ? &t->signal->shared_pending : &t->pending;
}

/* The siginfo kept for pending standard signal sig of that set. */
static struct ksiginfo *pending_info(struct task_struct *t, bool shared, int sig)
{
	return shared ? &t->signal->shared_info[sig - 1] : &t->sigstate.info[sig - 1];
}

/* Would t act on sig now: alive, a user thread, not blocking it (Linux's wants_signal)? */
static bool wants_signal(int sig, const struct task_struct *t)
{
	return t->state < EXIT_ZOMBIE && t->mm && !(t->blocked & sigmask(sig));
}

/* A process-directed signal is pending: wake a thread of the group that will take it, t
 * itself if it can (Linux's complete_signal); if every thread blocks it, it waits in the
 * shared set for the first to unblock it. */
static void complete_signal(int sig, struct task_struct *t)
{
	struct task_struct *w;

	if (!wants_signal(sig, t)) {
		for_each_thread(t, w)
			if (wants_signal(sig, w))
				break;
		if (!w)
			return;
		t = w;
	}
	if (t->state == TASK_INTERRUPTIBLE)
		wake_up_process(t);
	else
		kick_process(t); /* running in ring 3 on another CPU: enter the kernel now */
}

static int send_signal(int sig, const struct ksiginfo *info, struct task_struct *t, bool shared)
{
	uint64_t flags, *pending = pending_set(t, shared);
	int err = 0;

	/* A process's signal reaches it while any of its threads lives (a leader that called
	 * pthread_exit is a zombie, its group is not); a kernel thread takes none. */
	if (shared ? !t->signal->live : t->state >= EXIT_ZOMBIE)
		return 0;
	if (!t->mm && t->state < EXIT_ZOMBIE)
		return 0;
	if (sig == SIGCONT || sig == SIGKILL || (sigmask(sig) & SIG_STOP_MASK))
		jobctl_prepare_signal(sig, t);
	if (sig_ignored(t, sig))
		return 0;
	flags = local_irq_save();
	if (sig >= SIGRTMIN) {
		/* Each real-time send is queued. A full queue refuses sigqueue (EAGAIN); kill's
		 * signal still goes pending, without its siginfo, as Linux does. */
		struct ksiginfo q = *info;

		q.signo = sig;
		err = sigqueue_add(t, &q, shared);
		if (err && info->code == SI_USER)
			err = 0;
		if (!err)
			*pending |= sigmask(sig);
	} else if (!(*pending & sigmask(sig))) {
		/* A standard signal pending in this set is not queued again: the first siginfo
		 * stays. */
		*pending |= sigmask(sig);
		*pending_info(t, shared, sig) = *info;
		pending_info(t, shared, sig)->signo = sig;
	}
	if (shared)
		complete_signal(sig, t);
	else if (t->state == TASK_INTERRUPTIBLE && signal_pending(t))
		wake_up_process(t);
	else if (signal_pending(t))
		kick_process(t);
	local_irq_restore(flags);
	return err;
}

int send_sig_info(int sig, const struct ksiginfo *info, struct task_struct *t)
{
	return send_signal(sig, info, t, false);
}

int group_send_sig_info(int sig, const struct ksiginfo *info, struct task_struct *t)
{
	return send_signal(sig, info, t, true);
}

void group_send_sig(int sig, struct task_struct *t)
{
	struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };

	group_send_sig_info(sig, &info, t);
}

void send_sig(int sig, struct task_struct *t)
{
	struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };

	send_sig_info(sig, &info, t);
}

void force_sig_info(const struct ksiginfo *info)
{
	struct k_sigaction *ka = &current->sighand->action[info->signo - 1];
	bool blocked = current->blocked & sigmask(info->signo);

	if (blocked || ka->sa_handler == SIG_IGN) {
		ka->sa_handler = SIG_DFL;
		current->blocked &= ~sigmask(info->signo);
	}
	send_sig_info(info->signo, info, current);
}

/* The trap that raised it is in the task's pt_regs: its vector and error code go into the
 * handler's sigcontext (trapno, err), the address into cr2 for a page fault. */
void force_sig_fault(int sig, int code, uint64_t addr)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct ksiginfo info = { .signo = sig, .code = code, .addr = addr };

	info.trapno = regs->vector;
	info.err = regs->error_code;
	force_sig_info(&info);
}

void force_sig(int sig)
{
	struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };

	force_sig_info(&info);
}

bool unhandled_signal(int sig)
{
	uint64_t handler = current->sighand->action[sig - 1].sa_handler;

	return handler == SIG_DFL || handler == SIG_IGN || (current->blocked & sigmask(sig));
}

/* Take the first signal of mask off one pending set (faults first, then the lowest). */
static int dequeue_from(uint64_t mask, bool shared, struct ksiginfo *info)
{
	uint64_t *pending = pending_set(current, shared);
	uint64_t ready = *pending & mask;
	int sig;

	if (!ready)
		return 0;
	if (ready & SYNCHRONOUS_MASK)
		ready &= SYNCHRONOUS_MASK;
	sig = __builtin_ctzll(ready) + 1;
	if (sig < SIGRTMIN) {
		*pending &= ~sigmask(sig);
		*info = *pending_info(current, shared, sig);
	} else {
		/* Not queued (the queue was full for kill): the siginfo is lost. */
		if (!sigqueue_take(sig, shared, info))
			*info = (struct ksiginfo){ .signo = sig, .code = SI_USER };
		if (!sigqueue_has(current, sig, shared))
			*pending &= ~sigmask(sig);
	}
	return sig;
}

/* The thread's own signals first, then the process's, as Linux's dequeue_signal. */
static int dequeue_signal(uint64_t mask, struct ksiginfo *info)
{
	uint64_t flags = local_irq_save();
	int sig = dequeue_from(mask, false, info);

	if (!sig)
		sig = dequeue_from(mask, true, info);
	local_irq_restore(flags);
	return sig;
}

/* The next signal with a handler to run (its action in *ka), or 0. A default action that
 * ends the process ends it here. */
static int get_signal(struct k_sigaction *ka, struct ksiginfo *info)
{
	for (;;) {
		int sig;
		struct k_sigaction *action;

		if (current->sigstate.group_stop_pending &&
		    !(current->pending & sigmask(SIGKILL))) {
			do_group_stop_self();
			continue;
		}
		sig = dequeue_signal(~current->blocked, info);
		if (!sig)
			return 0;
		if (signal_group_exit(current->signal))
			do_group_exit(0); /* the group's exit code, whatever woke us */
		action = &current->sighand->action[sig - 1];
		if (action->sa_handler == SIG_IGN)
			continue;
		if (action->sa_handler != SIG_DFL) {
			*ka = *action;
			if (ka->sa_flags & SA_RESETHAND)
				action->sa_handler = SIG_DFL;
			return sig;
		}
		if (sig_kernel_ignore(sig))
			continue;
		if (sigmask(sig) & SIG_STOP_MASK) {
			do_signal_stop(sig);
			continue;
		}
		do_group_exit(sig);
	}
}

/* A system call's entry leaves its number where a trap's error code goes (Linux's orig_ax);
 * rt_sigreturn makes it -1, so that the registers it restores are never "restarted". */
static bool in_syscall(const struct pt_regs *regs)
{
	return regs->vector == (uint64_t)-1 && (int64_t)regs->error_code >= 0;
}

/* syscall is two bytes: back over it, with the number in %rax again, and it runs anew. */
static void restart_syscall_at(struct pt_regs *regs, uint64_t nr)
{
	regs->rax = nr;
	regs->rip -= 2;
}

/* A handler is about to run: -EINTR, or the same call again after the handler. */
static void syscall_restart_for_handler(struct pt_regs *regs, const struct k_sigaction *ka)
{
	switch ((int64_t)regs->rax) {
	case -ERESTART_RESTARTBLOCK:
	case -ERESTARTNOHAND:
		regs->rax = (uint64_t)-EINTR;
		break;
	case -ERESTARTSYS:
		if (!(ka->sa_flags & SA_RESTART)) {
			regs->rax = (uint64_t)-EINTR;
			break;
		}
		/* fall through */
	case -ERESTARTNOINTR:
		restart_syscall_at(regs, regs->error_code);
		break;
	}
}

static void handle_signal(int sig, const struct k_sigaction *ka, const struct ksiginfo *info,
			  struct pt_regs *regs)
{
	struct task_sigstate *ss = &current->sigstate;
	uint64_t oldmask = ss->restore_sigmask ? ss->saved_sigmask : current->blocked;

	if (!setup_rt_frame(sig, ka, info, oldmask, regs)) {
		/* No room for the frame: the process dies of SIGSEGV (Linux's force_sigsegv). */
		if (sig == SIGSEGV)
			current->sighand->action[SIGSEGV - 1].sa_handler = SIG_DFL;
		printk("signal: pid %d (%s): cannot build the frame for signal %d below rsp "
		       "%016lx: SIGSEGV\n", current->pid, current->comm, sig, regs->rsp);
		force_sig(SIGSEGV);
		return;
	}
	/* The handler runs under the mask in force now (rt_sigsuspend's, if it was waiting),
	 * the frame holds the one to go back to. */
	ss->restore_sigmask = false;
	current->blocked |= ka->sa_mask;
	if (!(ka->sa_flags & SA_NODEFER))
		current->blocked |= sigmask(sig);
	current->blocked &= ~UNBLOCKABLE;
}

void do_signal(struct pt_regs *regs)
{
	struct k_sigaction ka;
	struct ksiginfo info;
	int sig = get_signal(&ka, &info);

	if (sig) {
		if (in_syscall(regs))
			syscall_restart_for_handler(regs, &ka);
		handle_signal(sig, &ka, &info, regs);
		return;
	}
	/* No handler ran: every interrupted call runs again. */
	if (in_syscall(regs)) {
		switch ((int64_t)regs->rax) {
		case -ERESTARTNOHAND:
		case -ERESTARTSYS:
		case -ERESTARTNOINTR:
			restart_syscall_at(regs, regs->error_code);
			break;
		case -ERESTART_RESTARTBLOCK:
			restart_syscall_at(regs, SYS_restart_syscall);
			break;
		}
	}
	if (current->sigstate.restore_sigmask) {
		current->sigstate.restore_sigmask = false;
		current->blocked = current->sigstate.saved_sigmask;
	}
}

/* restart_syscall: continue the call a signal interrupted (nanosleep's remaining time). */
long sys_restart_syscall(void)
{
	struct restart_block *rb = &current->sigstate.restart_block;

	return rb->fn ? rb->fn(rb) : -EINTR;
}

void signals_exec(struct task_struct *t)
{
	struct k_sigaction *action = t->sighand->action;

	for (int i = 0; i < NSIG; i++) /* handlers are gone with the old program; SIG_IGN stays */
		if (action[i].sa_handler != SIG_IGN)
			action[i] = (struct k_sigaction){ 0 };
	t->sigstate.sas_ss_sp = t->sigstate.sas_ss_size = 0;
}

void signals_fork(struct task_struct *child, struct task_struct *parent)
{
	child->blocked = parent->blocked; /* pending signals and timers stay with the parent */
	child->sigstate.sas_ss_sp = parent->sigstate.sas_ss_sp;
	child->sigstate.sas_ss_size = parent->sigstate.sas_ss_size;
}

long sys_rt_sigaction(int64_t sig, uint64_t uact, uint64_t uoact, uint64_t sigsetsize)
{
	struct k_sigaction act, *k;
	uint64_t flags;

	if (sig < 1 || sig > NSIG || sigsetsize != 8)
		return -EINVAL;
	k = &current->sighand->action[sig - 1];
	if (uact && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	if (uact && copy_from_user(&act, uact, sizeof(act)))
		return -EFAULT;
	if (uoact && copy_to_user(uoact, k, sizeof(*k)))
		return -EFAULT;
	if (!uact)
		return 0;
	act.sa_mask &= ~UNBLOCKABLE;
	*k = act;
	/* Ignoring a signal discards it if pending (POSIX), blocked or not. */
	if (act.sa_handler == SIG_IGN || (act.sa_handler == SIG_DFL && sig_kernel_ignore(sig))) {
		struct task_struct *t;

		flags = local_irq_save();
		current->signal->shared_pending &= ~sigmask(sig);
		for_each_thread(current, t)
			t->pending &= ~sigmask(sig);
		local_irq_restore(flags);
		if (sig >= SIGRTMIN) {
			for_each_thread(current, t)
				sigqueue_flush(t, sigmask(sig));
			sigqueue_flush_shared(current->signal);
		}
	}
	return 0;
}

long sys_rt_sigprocmask(int64_t how, uint64_t uset, uint64_t uoset, uint64_t sigsetsize)
{
	uint64_t set, old = current->blocked;

	if (sigsetsize != 8)
		return -EINVAL;
	if (uset) {
		if (copy_from_user(&set, uset, sizeof(set)))
			return -EFAULT;
		if (how == 0) /* SIG_BLOCK */
			current->blocked |= set;
		else if (how == 1) /* SIG_UNBLOCK */
			current->blocked &= ~set;
		else if (how == 2) /* SIG_SETMASK */
			current->blocked = set;
		else
			return -EINVAL;
		current->blocked &= ~UNBLOCKABLE;
	}
	if (uoset && copy_to_user(uoset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* The signals pending while blocked. */
long sys_rt_sigpending(uint64_t uset, uint64_t sigsetsize)
{
	uint64_t set = (current->pending | current->signal->shared_pending) & current->blocked;

	if (sigsetsize > 8)
		return -EINVAL;
	return copy_to_user(uset, &set, sigsetsize);
}

/* Sleep until a signal is pending that the task acts on. */
static void sleep_for_signal(void)
{
	for (;;) {
		current->state = TASK_INTERRUPTIBLE;
		if (signal_pending(current))
			break;
		schedule();
	}
	current->state = TASK_RUNNING;
}

long sys_pause(void)
{
	sleep_for_signal();
	return -ERESTARTNOHAND;
}

/* Wait with mask in place; the old mask comes back after the handler has run (do_signal
 * saves it in the frame), so the handler itself still runs under mask. */
long sys_rt_sigsuspend(uint64_t uset, uint64_t sigsetsize)
{
	uint64_t mask;

	if (sigsetsize != 8)
		return -EINVAL;
	if (copy_from_user(&mask, uset, sizeof(mask)))
		return -EFAULT;
	current->sigstate.saved_sigmask = current->blocked;
	current->blocked = mask & ~UNBLOCKABLE;
	sleep_for_signal();
	current->sigstate.restore_sigmask = true;
	return -ERESTARTNOHAND;
}

/* Take one of the signals in set without running its handler; sleep for up to *uts for one
 * (the signals of set are unblocked meanwhile, so that their arrival wakes the task). */
long sys_rt_sigtimedwait(uint64_t uset, uint64_t uinfo, uint64_t uts, uint64_t sigsetsize)
{
	uint8_t buf[128];
	struct ksiginfo info;
	uint64_t set, saved, ticks = UINT64_MAX / 2, left = 1;
	int64_t ts[2];
	int sig;

	if (sigsetsize != 8)
		return -EINVAL;
	if (copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	set &= ~UNBLOCKABLE;
	if (uts) {
		if (copy_from_user(ts, uts, sizeof(ts)))
			return -EFAULT;
		if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
			return -EINVAL;
		ticks = (uint64_t)ts[0] * HZ + ((uint64_t)ts[1] + 10000000 - 1) / 10000000;
	}
	sig = dequeue_signal(set, &info);
	if (!sig && ticks) {
		saved = current->blocked;
		current->blocked &= ~set;
		current->state = TASK_INTERRUPTIBLE;
		if (signal_pending(current))
			current->state = TASK_RUNNING;
		else
			left = schedule_timeout(ticks);
		current->blocked = saved;
		sig = dequeue_signal(set, &info);
	}
	if (!sig)
		return (uts && !left) || !ticks ? -EAGAIN : -EINTR;
	if (uinfo) {
		siginfo_to_user(buf, &info);
		if (copy_to_user(uinfo, buf, sizeof(buf)))
			return -EFAULT;
	}
	return sig;
}

int check_kill_permission(int sig, const struct ksiginfo *info, struct task_struct *t)
{
	if (info->code > 0 || t == current || kill_ok_by_cred(t))
		return 0;
	if (sig == SIGCONT && t->session == current->session)
		return 0; /* job control: a shell may continue its jobs, whoever runs them */
	return -EPERM;
}

/* kill, tkill and tgkill share this: signal 0 only checks that t exists and may be sent to. */
static long kill_task(struct task_struct *t, int64_t sig, int code)
{
	struct ksiginfo info = { .signo = (int)sig, .code = code, .pid = current->tgid,
				 .uid = current->cred.uid };
	long err;

	if (!t || t->pid == 0 || (code == SI_TKILL && t->state >= EXIT_ZOMBIE))
		return -ESRCH; /* an exited thread is gone for tkill, its process is not for kill */
	if (!t->mm && t->state != EXIT_ZOMBIE)
		return -EPERM; /* kernel threads take no signals */
	err = check_kill_permission((int)sig, &info, t);
	if (err || !sig)
		return err;
	return code == SI_USER ? group_send_sig_info((int)sig, &info, t)
			       : send_sig_info((int)sig, &info, t);
}

/* kill(2): pid > 0 one process, 0 the caller's group, -1 everyone but init and the caller,
 * < -1 the group -pid. Both are C ints: as in Linux, the registers' upper halves are not
 * looked at (glibc's kill leaves them as they were: -3 can arrive as 0xfffffffd). */
long sys_kill(int64_t upid, int64_t usig)
{
	int pid = (int)upid, sig = (int)usig;
	struct ksiginfo info = { .signo = sig, .code = SI_USER, .pid = current->tgid,
				 .uid = current->cred.uid };

	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	if (pid > 0)
		return kill_task(find_task_by_pid(pid), sig, SI_USER);
	if (pid == 0)
		return kill_pgrp_info(sig, &info, current->pgrp);
	if (pid == -1)
		return kill_all_info(sig, &info);
	if (pid == INT32_MIN) /* -INT_MIN names no group */
		return -ESRCH;
	return kill_pgrp_info(sig, &info, -pid);
}

/* tkill(tid, sig): to one thread, whatever its group (raise and pthread_kill use it). */
long sys_tkill(int64_t tid, int64_t sig)
{
	if (sig < 0 || sig > NSIG || (int)tid <= 0)
		return -EINVAL;
	return kill_task(find_task_by_pid((int)tid), sig, SI_TKILL);
}

/* tgkill(tgid, tid, sig): to thread tid, if it is of group tgid (else ESRCH: the thread id
 * may have been reused by another process). */
long sys_tgkill(int64_t tgid, int64_t tid, int64_t sig)
{
	struct task_struct *t;

	if (sig < 0 || sig > NSIG || (int)tid <= 0 || (int)tgid <= 0)
		return -EINVAL;
	t = find_task_by_pid((int)tid);
	if (t && t->tgid != (int)tgid)
		t = NULL;
	return kill_task(t, sig, SI_TKILL);
}

void user_exception(struct pt_regs *regs)
{
	int sig = SIGSEGV, code = SI_KERNEL;
	uint64_t addr = 0;

	switch (regs->vector) {
	case X86_TRAP_DE:
		sig = SIGFPE, code = FPE_INTDIV, addr = regs->rip;
		break;
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		sig = SIGFPE, code = 0, addr = regs->rip;
		break;
	case X86_TRAP_UD:
		sig = SIGILL, code = ILL_ILLOPN, addr = regs->rip;
		break;
	case X86_TRAP_BP: /* int3: Linux sends it as SI_KERNEL, rip past the int3 */
		sig = SIGTRAP;
		break;
	case X86_TRAP_DB:
		sig = SIGTRAP, code = 2; /* TRAP_TRACE */
		break;
	case X86_TRAP_AC:
		sig = SIGBUS, code = 1; /* BUS_ADRALN */
		break;
	}
	if (unhandled_signal(sig))
		printk("trap: pid %d (%s): %s at rip %016lx, error 0x%lx: %s\n", current->pid,
		       current->comm, trap_name(regs->vector), regs->rip, regs->error_code,
		       signal_name(sig));
	force_sig_fault(sig, code, addr);
}
