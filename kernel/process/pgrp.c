/* Process groups and sessions: setpgid, setsid and their getters with Linux's rules and errors,
 * and sending a signal to a whole group. A group is named by its leader's pid and lives as long
 * as any task carries its id; there is no object for it (Linux 2.6.23 had struct pid). */
#include "kernel/errno.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"

/* A process that takes signals: a user process (named once, by its leader), with a live
 * thread (a dead one's zombie is skipped as Linux skips it; a leader that exited alone is
 * not: its group lives on). */
static bool signalable(const struct task_struct *t)
{
	return t->pid != 0 && thread_group_leader(t) && t->signal->live &&
	       (t->mm || t->state == EXIT_ZOMBIE);
}

long kill_pgrp_info(int sig, const struct ksiginfo *info, int pgrp)
{
	struct task_struct *t;
	long err = -ESRCH;
	bool sent = false;

	if (pgrp <= 0)
		return -ESRCH;
	list_for_each_entry(t, &all_tasks, tasks) {
		if (t->pgrp != pgrp || !signalable(t))
			continue;
		err = check_kill_permission(sig, info, t);
		if (err)
			continue;
		sent = true;
		if (sig)
			group_send_sig_info(sig, info, t);
	}
	return sent ? 0 : err; /* one member is enough; else the last refusal */
}

long kill_pgrp(int pgrp, int sig)
{
	struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };

	return kill_pgrp_info(sig, &info, pgrp);
}

long kill_all_info(int sig, const struct ksiginfo *info)
{
	struct task_struct *t;
	bool found = false;

	/* Linux's answer: 0 when there was anyone, even if every one refused (-EPERM). */
	list_for_each_entry(t, &all_tasks, tasks) {
		if (t->pid == 1 || t == current || !signalable(t))
			continue;
		found = true;
		if (sig && !check_kill_permission(sig, info, t))
			group_send_sig_info(sig, info, t);
	}
	return found ? 0 : -ESRCH;
}

bool pgrp_in_session(int pgrp, int sid)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->pgrp == pgrp && t->session == sid && t->state != EXIT_ZOMBIE)
			return true;
	return false;
}

bool will_become_orphaned_pgrp(int pgrp, struct task_struct *ignored)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks) {
		struct task_struct *p = t->parent;

		if (t->pgrp != pgrp || t == ignored || t->pid == 0 || t->state >= EXIT_ZOMBIE)
			continue;
		if (p && p->pid != 1 && p->pgrp != pgrp && p->session == t->session)
			return false;
	}
	return true;
}

static bool has_stopped_jobs(int pgrp)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->pgrp == pgrp && t->state == TASK_STOPPED)
			return true;
	return false;
}

void kill_orphaned_pgrp(struct task_struct *t, struct task_struct *parent)
{
	struct task_struct *ignored = parent ? NULL : t;

	if (!parent)
		parent = t->parent;
	if (parent->pgrp != t->pgrp && parent->session == t->session &&
	    will_become_orphaned_pgrp(t->pgrp, ignored) && has_stopped_jobs(t->pgrp)) {
		kill_pgrp(t->pgrp, SIGHUP);
		kill_pgrp(t->pgrp, SIGCONT);
	}
}

/* Some live task's group is named pid: pid leads a group. */
static bool is_pgrp_id(int pid)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->pgrp == pid && t->state != EXIT_ZOMBIE)
			return true;
	return false;
}

/* setpgid(2): pid 0 is the caller, pgid 0 is pid. The target is the caller or a child of it
 * in the caller's session that has not exec'd; it may not lead a session; the group joined
 * must be a new one named after the target or one that exists in the same session. */
long sys_setpgid(int64_t pid, int64_t pgid)
{
	struct task_struct *t, *w;

	if (pgid < 0)
		return -EINVAL;
	if (pid < 0 || pid > INT32_MAX || pgid > INT32_MAX)
		return -ESRCH;
	t = pid ? find_task_by_pid((int)pid) : current->group_leader;
	if (!t || (t->tgid != current->tgid && t->parent->tgid != current->tgid) || !t->mm)
		return -ESRCH;
	if (!thread_group_leader(t))
		return -EINVAL; /* a process is named by its pid, not by a thread's */
	if (t->tgid != current->tgid) {
		if (t->session != current->session)
			return -EPERM;
		if (t->did_exec)
			return -EACCES;
	}
	if (t->session == t->pid)
		return -EPERM; /* a session leader stays its group's leader */
	if (!pgid)
		pgid = t->pid;
	if (pgid != t->pid && !pgrp_in_session((int)pgid, current->session))
		return -EPERM;
	for_each_thread(t, w) /* the process's group: every thread's */
		w->pgrp = (int)pgid;
	return 0;
}

/* getpgid(2) and getsid(2): of the caller (pid 0) or of any live process. */
static struct task_struct *task_or_current(int64_t pid)
{
	if (pid == 0)
		return current;
	if (pid < 0 || pid > INT32_MAX)
		return NULL;
	return find_task_by_pid((int)pid);
}

long sys_getpgid(int64_t pid)
{
	struct task_struct *t = task_or_current(pid);

	return t && t->pid ? t->pgrp : -ESRCH;
}

long sys_getpgrp(void)
{
	return current->pgrp;
}

long sys_getsid(int64_t pid)
{
	struct task_struct *t = task_or_current(pid);

	return t && t->pid ? t->session : -ESRCH;
}

/* setsid(2): a new session and group, both named by the caller, with no controlling terminal.
 * A group leader cannot (its group's members would be left in another session). */
long sys_setsid(void)
{
	struct task_struct *t;

	if (is_pgrp_id(current->tgid))
		return -EPERM;
	for_each_thread(current, t) { /* named by the process's pid, from any of its threads */
		t->session = current->tgid;
		t->pgrp = current->tgid;
		t->tty = NULL;
	}
	return current->tgid;
}
