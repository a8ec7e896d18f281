/* Ending a task and collecting its status: do_exit frees what the task owns and leaves a
 * zombie; the parent's wait4 reads its status and frees the rest (its kernel stack). */
#include "drivers/tty/tty.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/panic.h"
#include "kernel/pgrp.h"
#include "kernel/printk.h"
#include "kernel/rusage.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "kernel/x86.h"
#include "mm/memory.h"
#include "mm/mm_init.h"

/* Orphans are handed to pid 1 (the kernel's runner), which reaps whatever it is given. A child
 * in another group of the same session may leave its group orphaned: kill_orphaned_pgrp. */
static void forget_children(struct task_struct *dying)
{
	struct task_struct *reaper = find_task_by_pid(1);
	struct list_head *pos, *n;
	bool zombie = false;

	if (!reaper || reaper == dying)
		panic("do_exit: pid 1 (%s) exited", dying->comm);
	list_for_each_safe(pos, n, &dying->children) {
		struct task_struct *c = list_entry(pos, struct task_struct, sibling);

		list_del(&c->sibling);
		list_add_tail(&c->sibling, &reaper->children);
		c->parent = reaper;
		zombie |= c->state == EXIT_ZOMBIE;
		kill_orphaned_pgrp(c, dying);
	}
	if (zombie)
		wake_up(&reaper->wait_chldexit);
}

/* Tasks that reaped themselves; freed by the next fork or wait, once off their own stack. */
static LIST_HEAD(dead_tasks);

void reap_dead_tasks(void)
{
	struct list_head *pos, *n;
	uint64_t flags = local_irq_save();

	list_for_each_safe(pos, n, &dead_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, run_list);

		if (t == current)
			continue;
		list_del(&t->run_list);
		release_task(t);
	}
	local_irq_restore(flags);
}

/* SIGCHLD to the parent: how the child ended, si_code CLD_EXITED, CLD_KILLED or CLD_DUMPED.
 * Returns true if the child reaps itself: the parent ignores SIGCHLD (then no signal is
 * sent) or set SA_NOCLDWAIT. Either way a waiting parent wakes. */
static bool do_notify_parent(struct task_struct *t, int status)
{
	struct task_struct *parent = t->parent;
	struct k_sigaction *ka = &parent->sigaction[SIGCHLD - 1];
	struct ksiginfo info = { .signo = SIGCHLD, .pid = t->pid, .uid = t->cred.uid };
	bool autoreap = parent->mm && (ka->sa_handler == SIG_IGN || (ka->sa_flags & SA_NOCLDWAIT));

	if (status & 0x7f) {
		info.code = (status & 0x80) ? CLD_DUMPED : CLD_KILLED;
		info.status = status & 0x7f;
	} else {
		info.code = CLD_EXITED;
		info.status = (status >> 8) & 0xff;
	}
	group_send_sig_info(SIGCHLD, &info, parent);
	wake_up(&parent->wait_chldexit);
	return autoreap;
}

void __noreturn do_exit(int status)
{
	struct task_struct *t = current;
	struct mm_struct *mm = t->mm;

	if (t->pid == 0)
		panic("do_exit: the idle task tried to exit");
	/* Off the dying tables before freeing them; the kernel half is the same everywhere. */
	leave_mm(smp_processor_id());
	acct_update_maxrss(t);
	t->mm = NULL;
	mmput(mm);
	put_files(t->files);
	t->files = NULL;
	put_fs_struct(t->fs);
	t->fs = NULL;
	sigqueue_flush(t, ~0UL);
	forget_children(t);
	if (t->session == t->pid)
		disassociate_ctty(true); /* a session leader's terminal is no one's */
	kill_orphaned_pgrp(t, NULL);
	itimer_exit(t);

	local_irq_disable();
	t->exit_code = status;
	t->state = EXIT_ZOMBIE;
	if (do_notify_parent(t, status)) {
		t->state = EXIT_DEAD;
		list_del(&t->sibling);
		list_del(&t->tasks);
		list_add_tail(&t->run_list, &dead_tasks);
	}
	schedule();
	panic("do_exit: a zombie (pid %d) was scheduled", t->pid);
}

/* What one wait asks (Linux's struct wait_opts) and what it found. */
struct wait_opts {
	int type;    /* P_ALL, P_PID or P_PGID */
	int id;      /* the pid or the group */
	int options; /* WEXITED, WUNTRACED, WCONTINUED, WNOHANG, WNOWAIT, __WCLONE, __WALL */
	int status;  /* found: the wait4 status word */
	uint64_t deadline;   /* jiffies at which to give up as WNOHANG would; 0: never */
	struct ksiginfo info;   /* found: waitid's siginfo */
	struct rusage_acct ru;  /* found: the child's usage and its reaped children's */
};
#define P_ALL 0
#define P_PID 1
#define P_PGID 2
#define P_PIDFD 3

static bool eligible_child(const struct wait_opts *wo, const struct task_struct *c)
{
	if (wo->type == P_PID && c->pid != wo->id)
		return false;
	if (wo->type == P_PGID && c->pgrp != wo->id)
		return false;
	/* Every child here announces its end with SIGCHLD: none is a "clone" child. */
	return !(wo->options & __WCLONE) || (wo->options & __WALL);
}

/* Report c's change: the status word, the siginfo and the usage; WNOWAIT leaves it to be
 * reported again. A zombie is reaped. */
static int wait_report(struct wait_opts *wo, struct task_struct *c, int code, int status)
{
	bool keep = wo->options & WNOWAIT;
	int pid = c->pid;

	wo->info = (struct ksiginfo){ .signo = SIGCHLD, .code = code, .pid = pid,
				      .uid = c->cred.uid };
	wo->ru = (struct rusage_acct){ c->utime + c->cutime, c->stime + c->cstime,
				       c->min_flt + c->cmin_flt, c->maj_flt + c->cmaj_flt,
				       c->nvcsw + c->cnvcsw, c->nivcsw + c->cnivcsw,
				       MAX(c->maxrss, c->cmaxrss) };
	if (code == CLD_STOPPED) {
		wo->info.status = c->sigstate.stop_report;
		wo->status = (c->sigstate.stop_report << 8) | 0x7f;
		if (!keep)
			c->sigstate.stop_report = 0;
	} else if (code == CLD_CONTINUED) {
		wo->info.status = SIGCONT;
		wo->status = 0xffff;
		if (!keep)
			c->sigstate.cont_report = false;
	} else {
		wo->status = status;
		wo->info.status = (status & 0x7f) ? (status & 0x7f) : (status >> 8) & 0xff;
		wo->info.code = !(status & 0x7f) ? CLD_EXITED : (status & 0x80) ? CLD_DUMPED
									  : CLD_KILLED;
		if (!keep) {
			acct_reap(current, c, &wo->ru); /* the parent's children's totals */
			release_task(c);
		}
	}
	return pid;
}

/* One look at the children: a pid reported, 0 if some child may yet report, -ECHILD if none
 * can. A zombie counts only for WEXITED, as in Linux. */
static int wait_scan(struct wait_opts *wo)
{
	struct task_struct *c;
	int ret = -ECHILD;

	list_for_each_entry(c, &current->children, sibling) {
		if (!eligible_child(wo, c))
			continue;
		if (c->state == EXIT_ZOMBIE) {
			if (wo->options & WEXITED)
				return wait_report(wo, c, CLD_EXITED, c->exit_code);
			continue;
		}
		ret = 0;
		if ((wo->options & WUNTRACED) && c->sigstate.stop_report)
			return wait_report(wo, c, CLD_STOPPED, 0);
		if ((wo->options & WCONTINUED) && c->sigstate.cont_report)
			return wait_report(wo, c, CLD_CONTINUED, 0);
	}
	return ret;
}

/* Linux's do_wait: a pid, 0 (WNOHANG, nothing yet, or the deadline passed), -ECHILD, or
 * -ERESTARTSYS. */
static long do_wait(struct wait_opts *wo)
{
	struct wait_queue_entry w;
	uint64_t now;
	long ret;

	init_wait(&w, current);
	for (;;) {
		reap_dead_tasks(); /* an exit woke us: maybe a child that reaped itself */
		prepare_to_wait(&current->wait_chldexit, &w, TASK_INTERRUPTIBLE);
		ret = wait_scan(wo);
		if (ret || (wo->options & WNOHANG))
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		now = jiffies;
		if (wo->deadline && now >= wo->deadline)
			break; /* time is up: answer as WNOHANG does */
		if (wo->deadline)
			schedule_timeout(wo->deadline - now);
		else
			schedule();
	}
	finish_wait(&current->wait_chldexit, &w);
	return ret;
}

long do_wait4_deadline(int pid, int *status, int options, uint64_t deadline)
{
	struct wait_opts wo = { .type = pid > 0 ? P_PID : P_ALL, .id = pid, .deadline = deadline };
	long ret;

	wo.options = options | WEXITED;
	ret = do_wait(&wo);
	if (ret > 0)
		*status = wo.status;
	return ret;
}

long do_wait4(int pid, int *status, int options)
{
	return do_wait4_deadline(pid, status, options, 0);
}

/* wait4(pid, status, options, rusage): pid > 0 that child, -1 any, 0 the caller's group,
 * < -1 the group -pid. */
long sys_wait4(int64_t upid, uint64_t ustatus, uint64_t options, uint64_t urusage)
{
	struct wait_opts wo = { .type = P_ALL };
	int pid = (int)upid;
	long ret;

	if ((uint32_t)options & ~(uint32_t)(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD |
					    __WCLONE | __WALL)) /* an int, as in Linux */
		return -EINVAL;
	if (pid == INT32_MIN) /* -INT_MIN names no group */
		return -ESRCH;
	if (pid > 0) {
		wo.type = P_PID, wo.id = pid;
	} else if (pid == 0) {
		wo.type = P_PGID, wo.id = current->pgrp;
	} else if (pid < -1) {
		wo.type = P_PGID, wo.id = -pid;
	}
	wo.options = (int)options | WEXITED;
	if (ustatus && !access_ok(ustatus, sizeof(int)))
		return -EFAULT;
	ret = do_wait(&wo);
	if (ret > 0 && ustatus && copy_to_user(ustatus, &wo.status, sizeof(wo.status)))
		return -EFAULT;
	if (ret > 0 && urusage && rusage_to_user(urusage, &wo.ru))
		return -EFAULT;
	return ret;
}

/* waitid(which, id, infop, options, rusage): P_ALL, P_PID id, P_PGID id (0: the caller's);
 * 0 and *infop filled (all zero when WNOHANG finds nothing). There are no pidfds: P_PIDFD's
 * fd is never one (EBADF). */
long sys_waitid(int64_t which, int64_t uid, uint64_t uinfo, int64_t options, uint64_t urusage)
{
	struct wait_opts wo = { .type = (int)which, .id = (int)uid };
	uint8_t buf[128];
	long ret;

	if ((uint32_t)options & ~(uint32_t)(WNOHANG | WNOWAIT | WEXITED | WUNTRACED | WCONTINUED |
					    __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WUNTRACED | WCONTINUED)))
		return -EINVAL;
	switch (which) {
	case P_ALL:
		break;
	case P_PID:
		if (wo.id <= 0)
			return -EINVAL;
		break;
	case P_PGID:
		if (wo.id < 0)
			return -EINVAL;
		if (!wo.id)
			wo.id = current->pgrp;
		break;
	case P_PIDFD:
		return wo.id < 0 ? -EINVAL : -EBADF;
	default:
		return -EINVAL;
	}
	wo.options = (int)options;
	ret = do_wait(&wo);
	if (ret < 0)
		return ret;
	if (ret > 0 && urusage && rusage_to_user(urusage, &wo.ru))
		return -EFAULT;
	if (!uinfo)
		return 0;
	memset(buf, 0, sizeof(buf));
	if (ret > 0) {
		wo.info.pid = (int)ret;
		siginfo_to_user(buf, &wo.info);
	}
	return copy_to_user(uinfo, buf, sizeof(buf)) ? -EFAULT : 0;
}
