/* Job control: a task stops on SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU (their default action) and
 * sleeps in TASK_STOPPED, off the run queue, until SIGCONT or SIGKILL; its parent hears of each
 * change by SIGCHLD (CLD_STOPPED, CLD_CONTINUED) and wait (WUNTRACED, WCONTINUED). */
#include "kernel/arch/x86.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"

void do_notify_parent_cldstop(struct task_struct *t, int why)
{
	struct task_struct *parent = t->group_leader->parent;
	struct k_sigaction *ka = &parent->sighand->action[SIGCHLD - 1];
	struct ksiginfo info = { .signo = SIGCHLD, .code = why, .pid = t->tgid };

	info.status = why == CLD_CONTINUED ? SIGCONT : t->signal->stop_report;
	if (!(ka->sa_flags & SA_NOCLDSTOP))
		group_send_sig_info(SIGCHLD, &info, parent);
	wake_up(&parent->signal->wait_chldexit); /* wait4 hears of it even without the signal */
}

/* Sending a stop signal cancels a pending SIGCONT; sending SIGCONT cancels pending stop
 * signals and resumes t's stopped threads, whether SIGCONT is blocked, ignored or caught (it
 * is then queued as any signal, and a handler runs). SIGKILL wakes them to die. Either ends
 * a group stop still under way. */
void jobctl_prepare_signal(int sig, struct task_struct *t)
{
	struct task_struct *w;
	bool resumed = false;
	uint64_t flags = local_irq_save();

	if (sigmask(sig) & SIG_STOP_MASK) {
		t->signal->shared_pending &= ~sigmask(SIGCONT);
		for_each_thread(t, w)
			w->pending &= ~sigmask(SIGCONT);
	} else if (sig == SIGCONT || sig == SIGKILL) {
		if (sig == SIGCONT) {
			t->signal->shared_pending &= ~SIG_STOP_MASK;
			for_each_thread(t, w)
				w->pending &= ~SIG_STOP_MASK;
		}
		t->signal->group_stop_count = 0;
		for_each_thread(t, w) {
			w->sigstate.group_stop_pending = false;
			if (w->state != TASK_STOPPED)
				continue;
			w->state = TASK_RUNNING;
			wake_up_process(w);
			resumed = true;
		}
		if (resumed && sig == SIGCONT) {
			t->signal->stop_report = 0;
			t->signal->cont_report = true;
			do_notify_parent_cldstop(t, CLD_CONTINUED);
		}
	}
	local_irq_restore(flags);
}

/* current stops for its group's stop; the last thread to stop completes it: the parent
 * hears of it (wait's WUNTRACED, CLD_STOPPED). Returns when SIGCONT or SIGKILL wakes it. */
void do_group_stop_self(void)
{
	struct signal_struct *sig = current->signal;
	uint64_t flags = local_irq_save();

	current->sigstate.group_stop_pending = false;
	current->state = TASK_STOPPED;
	if (--sig->group_stop_count <= 0) {
		sig->group_stop_count = 0;
		sig->stop_report = sig->group_stop_sig;
		sig->cont_report = false;
		do_notify_parent_cldstop(current, CLD_STOPPED);
	}
	schedule(); /* back when SIGCONT or SIGKILL made us TASK_RUNNING */
	local_irq_restore(flags);
}

void do_signal_stop(int sig)
{
	struct signal_struct *ss = current->signal;
	struct task_struct *t;
	uint64_t flags;

	/* A group no one outside can continue is not stopped by the terminal's signals. */
	if (sig != SIGSTOP && will_become_orphaned_pgrp(current->pgrp, NULL))
		return;
	/* Every thread of the process stops (Linux's group stop): each other live one is asked
	 * to and woken to do it on its way back to ring 3. */
	flags = local_irq_save();
	ss->group_stop_sig = sig;
	ss->group_stop_count = 1; /* current */
	for_each_thread(current, t) {
		if (t == current || t->state >= EXIT_ZOMBIE || t->state == TASK_STOPPED ||
		    t->sigstate.group_stop_pending)
			continue;
		t->sigstate.group_stop_pending = true;
		ss->group_stop_count++;
		if (t->state == TASK_INTERRUPTIBLE)
			wake_up_process(t);
	}
	local_irq_restore(flags);
	do_group_stop_self();
}
