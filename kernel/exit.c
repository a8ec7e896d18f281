/* Ending a task and collecting its status: do_exit frees what the task owns and leaves a
 * zombie; the parent's wait4 reads its status and frees the rest (its kernel stack). */
#include "drivers/tty/tty.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/x86.h"
#include "mm/memory.h"
#include "mm/mm_init.h"

/* Orphans are handed to pid 1 (the kernel's runner), which reaps whatever it is given. */
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
	}
	if (zombie)
		wake_up(&reaper->wait_chldexit);
}

/* SIGCHLD to the parent: how the child ended (it is ignored unless the parent catches it). */
static void notify_parent(struct task_struct *t, int status)
{
	struct ksiginfo info = { .signo = SIGCHLD, .pid = t->pid };

	info.code = (status & 0x7f) ? CLD_KILLED : CLD_EXITED;
	info.status = (status & 0x7f) ? (status & 0x7f) : (status >> 8) & 0xff;
	send_sig_info(SIGCHLD, &info, t->parent);
}

void __noreturn do_exit(int status)
{
	struct task_struct *t = current;
	struct mm_struct *mm = t->mm;

	if (t->pid == 0)
		panic("do_exit: the idle task tried to exit");
	/* Off the dying tables before freeing them; the kernel half is the same everywhere. */
	write_cr3(__pa(kernel_pgd));
	t->mm = NULL;
	mmput(mm);
	put_files(t->files);
	t->files = NULL;
	put_fs_struct(t->fs);
	t->fs = NULL;
	forget_children(t);
	if (t->session == t->pid)
		disassociate_ctty(); /* a session leader's terminal is no one's */
	itimer_exit(t);

	local_irq_disable();
	notify_parent(t, status);
	t->exit_code = status;
	t->state = EXIT_ZOMBIE;
	wake_up(&t->parent->wait_chldexit);
	schedule();
	panic("do_exit: a zombie (pid %d) was scheduled", t->pid);
}

/* Find a zombie child matching pid (-1: any); *any says whether pid matches a child at all. */
static struct task_struct *find_zombie(int pid, bool *any)
{
	struct list_head *pos;

	*any = false;
	list_for_each(pos, &current->children) {
		struct task_struct *c = list_entry(pos, struct task_struct, sibling);

		if (pid != -1 && c->pid != pid)
			continue;
		*any = true;
		if (c->state == EXIT_ZOMBIE)
			return c;
	}
	return NULL;
}

/* Linux's struct rusage (144 bytes) as words: two timevals, four words, then ru_minflt at word 8 and
 * ru_majflt at word 9. Only the fault counts are measured. */
static long rusage_to_user(uint64_t urusage, unsigned long min_flt, unsigned long maj_flt)
{
	uint64_t ru[18] = { 0 };

	ru[8] = min_flt;
	ru[9] = maj_flt;
	return copy_to_user(urusage, ru, sizeof(ru));
}

long sys_getrusage(int64_t who, uint64_t urusage)
{
	if (who == 0) /* RUSAGE_SELF */
		return rusage_to_user(urusage, current->min_flt, current->maj_flt);
	if (who == -1) /* RUSAGE_CHILDREN */
		return rusage_to_user(urusage, current->cmin_flt, current->cmaj_flt);
	return -EINVAL;
}

/* The fault counts of the child do_wait4 reaped last: sys_wait4 reads them right after the
 * call returns (one CPU, nothing runs in between). */
static struct rusage_counts {
	unsigned long min_flt, maj_flt;
} last_reaped;

long do_wait4(int pid, int *status, int options)
{
	struct wait_queue_entry w;
	struct task_struct *z;
	long ret;
	bool any;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&current->wait_chldexit, &w, TASK_INTERRUPTIBLE);
		z = find_zombie(pid, &any);
		if (z || !any || (options & WNOHANG) || signal_pending(current))
			break;
		schedule();
	}
	finish_wait(&current->wait_chldexit, &w);
	if (z) {
		ret = z->pid;
		*status = z->exit_code;
		last_reaped.min_flt = z->min_flt + z->cmin_flt;
		last_reaped.maj_flt = z->maj_flt + z->cmaj_flt;
		current->cmin_flt += last_reaped.min_flt;
		current->cmaj_flt += last_reaped.maj_flt;
		release_task(z);
		return ret;
	}
	if (!any)
		return -ECHILD;
	return (options & WNOHANG) ? 0 : -ERESTARTSYS;
}

/* wait4(pid, status, options, rusage): pid > 0 or -1 (process groups do not exist here). */
long sys_wait4(int64_t pid, uint64_t ustatus, uint64_t options, uint64_t urusage)
{
	int status = 0;
	long ret;

	if (options & ~(uint64_t)(WNOHANG | 0x40000000 /* __WALL */ | 0x80000000 /* __WCLONE */))
		return -EINVAL;
	if (pid == 0 || pid < -1)
		pid = -1; /* one process group: "any child in my group" is any child */
	if (ustatus && !access_ok(ustatus, sizeof(int)))
		return -EFAULT;
	ret = do_wait4((int)pid, &status, (int)options);
	if (ret > 0 && ustatus && copy_to_user(ustatus, &status, sizeof(status)))
		return -EFAULT;
	if (ret > 0 && urusage &&
	    rusage_to_user(urusage, last_reaped.min_flt, last_reaped.maj_flt))
		return -EFAULT;
	return ret;
}
