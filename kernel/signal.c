/* Signals, as far as faultline has them: every signal takes its default action (there are no
 * handlers), so a fault or kill() ends the process and its parent's wait4 sees the signal. */
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"

const char *signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",   [SIGQUIT] = "SIGQUIT",
		[SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
		[SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",   [SIGKILL] = "SIGKILL",
		[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
	};

	if (sig > 0 && sig < (int)ARRAY_SIZE(names) && names[sig])
		return names[sig];
	return "an unknown signal";
}

/* Signals whose default action is to do nothing, or to stop (there is no job control). */
static bool sig_ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGSTOP || sig == SIGTSTP ||
	       sig == SIGTTIN || sig == SIGTTOU || sig == SIGURG || sig == SIGWINCH;
}

/* Mark sig pending for t, unless t ignores it; wake t if it sleeps and may act on it. */
void send_sig(int sig, struct task_struct *t)
{
	uint64_t handler = t->sigaction[sig - 1].sa_handler;

	if (t->state == EXIT_ZOMBIE || sig_ignored_by_default(sig))
		return;
	if (sig != SIGKILL && handler == SIG_IGN)
		return;
	t->pending |= sigmask(sig);
	if (t->state == TASK_INTERRUPTIBLE && signal_pending(t))
		wake_up_process(t);
}

void do_signal(void)
{
	uint64_t ready = current->pending & ~current->blocked;
	int sig = __builtin_ctzll(ready) + 1;

	if (current->sigaction[sig - 1].sa_handler != SIG_DFL)
		printk("signal: pid %d (%s): %s has a handler, but faultline runs no handlers: "
		       "default action\n", current->pid, current->comm, signal_name(sig));
	do_exit(sig);
}

/* rt_sigaction records the action (so it can be read back) and honours SIG_IGN. */
long sys_rt_sigaction(int64_t sig, uint64_t uact, uint64_t uoact, uint64_t sigsetsize)
{
	struct k_sigaction act, *k;

	if (sig < 1 || sig > NSIG || sigsetsize != 8)
		return -EINVAL;
	k = &current->sigaction[sig - 1];
	if (uoact && copy_to_user(uoact, k, sizeof(*k)))
		return -EFAULT;
	if (!uact)
		return 0;
	if (sig == SIGKILL || sig == SIGSTOP)
		return -EINVAL;
	if (copy_from_user(&act, uact, sizeof(act)))
		return -EFAULT;
	*k = act;
	if (act.sa_handler == SIG_IGN)
		current->pending &= ~sigmask(sig);
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
		current->blocked &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	}
	if (uoset && copy_to_user(uoset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* kill(pid, sig) for one pid > 0; signal 0 only checks that the process exists. */
long sys_kill(int64_t pid, int64_t sig)
{
	struct task_struct *t;

	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL; /* process groups and "everyone" do not exist here */
	t = find_task_by_pid((int)pid);
	if (!t || t->pid == 0)
		return -ESRCH;
	if (!t->mm && t->state != EXIT_ZOMBIE)
		return -EPERM; /* kernel threads take no signals */
	if (sig)
		send_sig((int)sig, t);
	return 0;
}

/* The current process dies of sig now; the line before says why. */
void __noreturn force_sig(int sig)
{
	do_exit(sig);
}

void user_exception(struct pt_regs *regs)
{
	int sig = SIGSEGV;

	switch (regs->vector) {
	case X86_TRAP_DE:
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		sig = SIGFPE;
		break;
	case X86_TRAP_UD:
		sig = SIGILL;
		break;
	case X86_TRAP_BP:
	case X86_TRAP_DB:
		sig = SIGTRAP;
		break;
	case X86_TRAP_AC:
		sig = SIGBUS;
		break;
	}
	printk("trap: pid %d (%s): %s at rip %016lx, error 0x%lx: %s\n", current->pid,
	       current->comm, trap_name(regs->vector), regs->rip, regs->error_code,
	       signal_name(sig));
	force_sig(sig);
}
