/* Sending signals (Linux's kernel/signal.c, its first half): to a thread or to a whole process,
 * from kill, tkill and tgkill, from a fault (force_sig_fault, user_exception) or from the
 * kernel; the pending sets, and the wake-up of a thread that will take the signal. */
#include "kernel/arch/trap.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/internal.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"

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
	/* A signalfd's reader or poller may wait for it, blocked as it is (Linux's
	 * signalfd_notify). */
	if (waitqueue_active(&t->sighand->signalfd_wqh))
		wake_up(&t->sighand->signalfd_wqh);
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
