/* Ending a task and collecting its status: do_exit frees what the task owns and leaves a
 * zombie; the parent's wait4 reads its status and frees the rest (its kernel stack). */
#include "drivers/tty/tty.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/futex/futex.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/process/pgrp.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/time/posix-timers.h"
#include "kernel/time/time.h"
#include "mm/memory.h"
#include "mm/mm_init.h"

/* p's parent is now parent; so is that of every thread of p's group, and each that asked
 * (PR_SET_PDEATHSIG) is sent its signal: the thread that was its parent is gone. */
static void reparent_thread(struct task_struct *p, struct task_struct *parent)
{
	struct task_struct *t;

	list_del(&p->sibling);
	list_add_tail(&p->sibling, &parent->children);
	for_each_thread(p, t) {
		t->parent = parent;
		if (t->pdeath_signal && t->state < EXIT_ZOMBIE)
			group_send_sig(t->pdeath_signal, t);
	}
}

/* Who inherits dying's children: another live thread of its group (the process goes on), else
 * pid 1 (the kernel's runner), which reaps whatever it is given. */
static struct task_struct *find_new_reaper(struct task_struct *dying)
{
	struct task_struct *t;

	for_each_thread(dying, t)
		if (t != dying && t->state < EXIT_ZOMBIE)
			return t;
	return find_task_by_pid(1);
}

/* Orphans are handed to the new reaper. A child in another group of the same session may
 * leave its group orphaned: kill_orphaned_pgrp. */
static void forget_children(struct task_struct *dying)
{
	struct task_struct *reaper = find_new_reaper(dying);
	struct list_head *pos, *n;
	bool zombie = false;

	if (!reaper || reaper == dying)
		panic("do_exit: pid 1 (%s) exited", dying->comm);
	list_for_each_safe(pos, n, &dying->children) {
		struct task_struct *c = list_entry(pos, struct task_struct, sibling);

		reparent_thread(c, reaper);
		zombie |= c->state == EXIT_ZOMBIE;
		if (reaper->tgid != dying->tgid)
			kill_orphaned_pgrp(c, dying);
	}
	if (zombie)
		wake_up(&reaper->signal->wait_chldexit);
}

/* Tasks that reaped themselves; freed by the next fork or wait, once off their own stack
 * (release_task waits for that). The list is the big kernel lock's. Interrupts stay on: a
 * task's stack is unmapped with a TLB shootdown, which needs them on. */
static LIST_HEAD(dead_tasks);

void reap_dead_tasks(void)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &dead_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, run_list);

		if (t == current)
			continue;
		list_del(&t->run_list);
		release_task(t);
	}
}

/* The exit signal (SIGCHLD unless clone chose another, or none) to the parent: how the child
 * ended, si_code CLD_EXITED, CLD_KILLED or CLD_DUMPED. Returns true if the child reaps itself:
 * the parent ignores SIGCHLD (then no signal is sent) or set SA_NOCLDWAIT. Either way a
 * waiting parent wakes. */
static bool do_notify_parent(struct task_struct *t, int status)
{
	struct task_struct *parent = t->parent;
	struct k_sigaction *ka = &parent->sighand->action[SIGCHLD - 1];
	int sig = t->exit_signal;
	struct ksiginfo info = { .signo = sig, .pid = t->pid, .uid = t->cred.uid };
	/* The boot task's children (kthread_run's threads) have no one to wait for them. */
	bool autoreap = (parent->mm && sig == SIGCHLD &&
			 (ka->sa_handler == SIG_IGN || (ka->sa_flags & SA_NOCLDWAIT))) ||
			parent == &init_task;

	if (status & 0x7f) {
		info.code = (status & 0x80) ? CLD_DUMPED : CLD_KILLED;
		info.status = status & 0x7f;
	} else {
		info.code = CLD_EXITED;
		info.status = (status >> 8) & 0xff;
	}
	if (sig > 0 && sig <= NSIG)
		group_send_sig_info(sig, &info, parent);
	wake_up(&parent->signal->wait_chldexit);
	return autoreap;
}

/* The process's status: the group exit's if there was one, else the leader's own exit. */
static int group_exit_status(const struct task_struct *leader)
{
	const struct signal_struct *sig = leader->signal;

	return (sig->flags & SIGNAL_GROUP_EXIT) ? sig->group_exit_code : leader->exit_code;
}

/* t (a whole process: a leader whose threads are gone) is a zombie; tell its parent, and if
 * the parent does not want the status, t reaps itself. Interrupts are off. */
static void exit_notify_group(struct task_struct *t)
{
	t->exit_code = group_exit_status(t);
	if (!do_notify_parent(t, t->exit_code))
		return;
	t->state = EXIT_DEAD;
	list_del(&t->sibling);
	list_del(&t->tasks);
	detach_pid(t);
	list_add_tail(&t->run_list, &dead_tasks);
}

/* What wait4 and getrusage of the process see of a thread after it is gone. */
void account_thread_exit(struct task_struct *t)
{
	struct signal_struct *sig = t->signal;
	struct task_struct *leader = t->group_leader;

	sig->utime += t->utime;
	sig->stime += t->stime;
	sig->min_flt += t->min_flt;
	sig->maj_flt += t->maj_flt;
	sig->nvcsw += t->nvcsw;
	sig->nivcsw += t->nivcsw;
	leader->maxrss = MAX(leader->maxrss, t->maxrss);
}

/* Send SIGKILL to every thread of p's group but p; returns how many (Linux's
 * zap_other_threads). A stopped or sleeping thread is woken to die. */
int zap_other_threads(struct task_struct *p)
{
	struct task_struct *t;
	int n = 0;

	for_each_thread(p, t) {
		if (t == p || t->state >= EXIT_ZOMBIE)
			continue;
		n++;
		t->pending |= sigmask(SIGKILL);
		t->sigstate.group_stop_pending = false;
		if (t->state == TASK_INTERRUPTIBLE || t->state == TASK_STOPPED) {
			t->state = TASK_RUNNING;
			wake_up_process(t);
		}
	}
	return n;
}

void __noreturn do_group_exit(int status)
{
	struct signal_struct *sig = current->signal;

	if (signal_group_exit(sig)) {
		status = sig->group_exit_code;
	} else if (!thread_group_empty(current)) {
		sig->flags = SIGNAL_GROUP_EXIT;
		sig->group_exit_code = status;
		zap_other_threads(current);
	}
	do_exit(status);
}

void __noreturn do_exit(int status)
{
	struct task_struct *t = current;
	struct mm_struct *mm = t->mm;
	struct signal_struct *sig = t->signal;
	struct task_struct *leader = t->group_leader;
	bool group_dead;

	if (t->pid == 0)
		panic("do_exit: the idle task tried to exit");
	group_dead = --sig->live == 0;
	if (t->sigstate.group_stop_pending) {
		/* a group stop under way does not wait for a thread that is gone */
		t->sigstate.group_stop_pending = false;
		if (--sig->group_stop_count == 0 && !group_dead) {
			sig->stop_report = sig->group_stop_sig;
			sig->cont_report = false;
			do_notify_parent_cldstop(leader, CLD_STOPPED);
		}
	}
	if (group_dead && !(sig->flags & SIGNAL_GROUP_EXIT)) {
		/* The last thread's status is the process's, as today's Linux reports it
		 * (synchronize_group_exit), whatever the leader exited with. */
		sig->flags = SIGNAL_GROUP_EXIT;
		sig->group_exit_code = status;
	}
	mm_release(t, mm);
	if (unlikely(sig->core_state) && mm)
		coredump_exit_mm(sig); /* stopped, its registers kept, while its group dumps core */
	/* Off the dying tables before freeing them; the kernel half is the same everywhere. */
	leave_mm(smp_processor_id());
	acct_update_maxrss(t);
	t->mm = NULL;
	sched_mm_changed(t);
	mmput(mm);
	put_files(t->files);
	t->files = NULL;
	put_fs_struct(t->fs);
	t->fs = NULL;
	sigqueue_flush(t, ~0UL);
	forget_children(t);
	if (group_dead) {
		if (leader->session == leader->pid)
			disassociate_ctty(true); /* a session leader's terminal is no one's */
		kill_orphaned_pgrp(t, NULL); /* t: of the leader's group, parent and session */
		itimer_exit(leader);
		exit_itimers(leader->signal);
	}

	local_irq_disable();
	t->exit_code = status;
	if (thread_group_leader(t)) {
		/* The process is reported when its last thread is gone (Linux's
		 * delay_group_leader): until then the leader waits as a zombie. */
		t->state = EXIT_ZOMBIE;
		if (thread_group_empty(t))
			exit_notify_group(t);
	} else {
		account_thread_exit(t);
		list_del(&t->thread_group);
		t->state = EXIT_DEAD; /* a thread reaps itself */
		list_del(&t->tasks);
		detach_pid(t);
		list_add_tail(&t->run_list, &dead_tasks);
		if (leader->state == EXIT_ZOMBIE && thread_group_empty(leader))
			exit_notify_group(leader);
	}
	if (sig->group_exit_task)
		wake_up_process(sig->group_exit_task); /* exec's de_thread counts the dead */
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
	/* A "clone" child announces its end with another signal than SIGCHLD, or none: only
	 * __WCLONE waits for those, only its absence for the others; __WALL for both. */
	if (wo->options & __WALL)
		return true;
	return (c->exit_signal != SIGCHLD) == !!(wo->options & __WCLONE);
}

/* Report c's change: the status word, the siginfo and the usage; WNOWAIT leaves it to be
 * reported again. A zombie is reaped. */
static int wait_report(struct wait_opts *wo, struct task_struct *c, int code, int status)
{
	bool keep = wo->options & WNOWAIT;
	int pid = c->pid;
	struct signal_struct *sig = c->signal;

	wo->info = (struct ksiginfo){ .signo = SIGCHLD, .code = code, .pid = pid,
				      .uid = c->cred.uid };
	wo->ru = (struct rusage_acct){ c->utime + sig->cutime + sig->utime,
				       c->stime + sig->cstime + sig->stime,
				       c->min_flt + sig->cmin_flt + sig->min_flt,
				       c->maj_flt + sig->cmaj_flt + sig->maj_flt,
				       c->nvcsw + sig->cnvcsw + sig->nvcsw,
				       c->nivcsw + sig->cnivcsw + sig->nivcsw,
				       MAX(c->maxrss, sig->cmaxrss) };
	if (code == CLD_STOPPED) {
		wo->info.status = sig->stop_report;
		wo->status = (sig->stop_report << 8) | 0x7f;
		if (!keep)
			sig->stop_report = 0;
	} else if (code == CLD_CONTINUED) {
		wo->info.status = SIGCONT;
		wo->status = 0xffff;
		if (!keep)
			sig->cont_report = false;
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

/* One look at the children of thread p: a pid reported, 0 if some child may yet report,
 * -ECHILD if none can. A zombie counts only for WEXITED, as in Linux; a leader whose other
 * threads still run is no zombie yet for its parent. */
static int wait_scan_thread(struct wait_opts *wo, struct task_struct *p)
{
	struct task_struct *c;
	int ret = -ECHILD;

	list_for_each_entry(c, &p->children, sibling) {
		if (!eligible_child(wo, c))
			continue;
		if (c->state == EXIT_ZOMBIE && thread_group_empty(c)) {
			if (wo->options & WEXITED)
				return wait_report(wo, c, CLD_EXITED, c->exit_code);
			continue;
		}
		ret = 0;
		if ((wo->options & WUNTRACED) && c->signal->stop_report)
			return wait_report(wo, c, CLD_STOPPED, 0);
		if ((wo->options & WCONTINUED) && c->signal->cont_report)
			return wait_report(wo, c, CLD_CONTINUED, 0);
	}
	return ret;
}

/* The children of every thread of the caller's group are its children (Linux's do_wait),
 * unless __WNOTHREAD asks for the caller's own. */
static int wait_scan(struct wait_opts *wo)
{
	struct task_struct *t;
	int ret = -ECHILD;

	if (wo->options & __WNOTHREAD)
		return wait_scan_thread(wo, current);
	for_each_thread(current, t) {
		int r = wait_scan_thread(wo, t);

		if (r > 0)
			return r;
		if (!r)
			ret = 0;
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
		prepare_to_wait(&current->signal->wait_chldexit, &w, TASK_INTERRUPTIBLE);
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
	finish_wait(&current->signal->wait_chldexit, &w);
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
