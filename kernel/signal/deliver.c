/* Taking signals (Linux's get_signal and handle_signal): at each return to ring 3 the next
 * pending signal is dequeued and acted on (its handler run, or its default action), and an
 * interrupted system call restarted or failed; and the calls that set what a task takes and
 * when: sigaction, sigprocmask, sigpending, pause, sigsuspend and sigtimedwait. */
#include "kernel/arch/trap.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/internal.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/posix-timers.h"
#include "kernel/time/time.h"

#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))
/* Signals a fault raises: taken before any other pending one, as Linux does, so that the
 * handler sees the fault at the instruction that caused it. */
#define SYNCHRONOUS_MASK                                                                           \
	(sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) |                 \
	 sigmask(SIGFPE) | sigmask(SIGSYS))
#define SYS_restart_syscall 219

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
int dequeue_signal(uint64_t mask, struct ksiginfo *info)
{
	uint64_t flags = local_irq_save();
	int sig = dequeue_from(mask, false, info);

	if (!sig)
		sig = dequeue_from(mask, true, info);
	local_irq_restore(flags);
	if (unlikely(sig && info->code == SI_TIMER)) /* a periodic timer goes on */
		return posix_timer_deliver(sig, info);
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
		if (sig_kernel_coredump(sig))
			do_coredump(info); /* the group's exit code is then sig, 0x80 if dumped */
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
