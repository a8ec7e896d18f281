/* Real-time signals (SIGRTMIN..SIGRTMAX): each send is its own queued entry with its own
 * siginfo, taken oldest first; and rt_sigqueueinfo / rt_tgsigqueueinfo, which send one with
 * the siginfo the caller wrote (musl's sigqueue). Standard signals never come here. */
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

/* Queue a copy of info for t. -EAGAIN when t already holds its RLIMIT_SIGPENDING of entries
 * (counted per task, where Linux counts per user) or memory is short. Interrupts may be on
 * or off. */
/* The queue a signal sent to t goes on: the thread's own, or its process's. */
static struct list_head *queue_of(struct task_struct *t, bool shared, int **nr)
{
	*nr = shared ? &t->signal->nr_queued : &t->sigstate.nr_queued;
	return shared ? &t->signal->shared_queue : &t->sigstate.queue;
}

int sigqueue_add(struct task_struct *t, const struct ksiginfo *info, bool shared)
{
	struct sigqueue *q;
	uint64_t flags;
	int *nr;
	struct list_head *queue = queue_of(t, shared, &nr);

	if ((uint64_t)*nr >= t->signal->rlim[RLIMIT_SIGPENDING].rlim_cur)
		return -EAGAIN;
	q = kmalloc(sizeof(*q));
	if (!q)
		return -EAGAIN;
	q->info = *info;
	flags = local_irq_save();
	list_add_tail(&q->list, queue);
	(*nr)++;
	local_irq_restore(flags);
	return 0;
}

bool sigqueue_has(struct task_struct *t, int sig, bool shared)
{
	struct sigqueue *q;
	int *nr;

	list_for_each_entry(q, queue_of(t, shared, &nr), list)
		if (q->info.signo == sig)
			return true;
	return false;
}

/* The caller holds interrupts off and clears sig's pending bit when this is the last. */
bool sigqueue_take(int sig, bool shared, struct ksiginfo *info)
{
	struct sigqueue *q;
	int *nr;

	list_for_each_entry(q, queue_of(current, shared, &nr), list) {
		if (q->info.signo != sig)
			continue;
		*info = q->info;
		list_del(&q->list);
		(*nr)--;
		kfree(q);
		return true;
	}
	return false;
}

/* Drop the entries of mask from one queue, its count in *nr. */
static void flush_queue(struct list_head *queue, int *nr, uint64_t mask)
{
	struct list_head *pos, *n;
	uint64_t flags = local_irq_save();

	list_for_each_safe(pos, n, queue) {
		struct sigqueue *q = list_entry(pos, struct sigqueue, list);

		if (!(mask & sigmask(q->info.signo)))
			continue;
		list_del(&q->list);
		(*nr)--;
		kfree(q);
	}
	local_irq_restore(flags);
}

void sigqueue_flush(struct task_struct *t, uint64_t mask)
{
	flush_queue(&t->sigstate.queue, &t->sigstate.nr_queued, mask);
}

void sigqueue_flush_shared(struct signal_struct *sig)
{
	flush_queue(&sig->shared_queue, &sig->nr_queued, ~0UL);
}

/* The fields of a user siginfo_t that faultline keeps: si_code, and the _rt member's si_pid,
 * si_uid and si_value. */
static int siginfo_from_user(struct ksiginfo *info, uint64_t uinfo)
{
	uint8_t buf[128];
	int32_t w[2];

	if (copy_from_user(buf, uinfo, sizeof(buf)))
		return -EFAULT;
	*info = (struct ksiginfo){ 0 };
	__builtin_memcpy(w, buf + 8, sizeof(int32_t));
	info->code = w[0];
	__builtin_memcpy(w, buf + 16, sizeof(w));
	info->pid = w[0];
	info->uid = w[1];
	__builtin_memcpy(&info->value, buf + 24, sizeof(info->value));
	return 0;
}

/* Send sig with info to t, kill's way: -ESRCH if there is no such process, -EINVAL for a
 * bad signal, -EPERM for a kernel thread; signal 0 only checks. */
static long queue_to(struct task_struct *t, int64_t sig, struct ksiginfo *info, bool shared)
{
	if (!t || t->pid == 0)
		return -ESRCH;
	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	if (!t->mm && t->state != EXIT_ZOMBIE)
		return -EPERM;
	if (check_kill_permission((int)sig, info, t))
		return -EPERM; /* the same rule as kill's (the forged si_code is negative) */
	if (!sig)
		return 0;
	info->signo = (int)sig;
	return shared ? group_send_sig_info((int)sig, info, t) : send_sig_info((int)sig, info, t);
}

/* A caller may forge any siginfo for itself; for another process only negative si_code
 * values other than SI_TKILL (those the kernel never makes for kill), as Linux rules. */
static bool may_forge(int64_t target, const struct ksiginfo *info)
{
	return target == current->pid || (info->code < 0 && info->code != SI_TKILL);
}

long sys_rt_sigqueueinfo(int64_t pid, int64_t sig, uint64_t uinfo)
{
	struct ksiginfo info;
	long err = siginfo_from_user(&info, uinfo);

	if (err)
		return err;
	if (!may_forge(pid, &info))
		return -EPERM;
	if (pid <= 0 || pid > INT32_MAX)
		return -ESRCH;
	return queue_to(find_task_by_pid((int)pid), sig, &info, true);
}

long sys_rt_tgsigqueueinfo(int64_t tgid, int64_t tid, int64_t sig, uint64_t uinfo)
{
	struct task_struct *t;
	struct ksiginfo info;
	long err = siginfo_from_user(&info, uinfo);

	if (err)
		return err;
	if (tid <= 0 || tgid <= 0)
		return -EINVAL;
	if (!may_forge(tid, &info))
		return -EPERM;
	if (tid > INT32_MAX || tgid > INT32_MAX)
		return -ESRCH;
	t = find_task_by_pid((int)tid);
	if (t && (t->tgid != tgid || t->state >= EXIT_ZOMBIE))
		return -ESRCH; /* not a live thread of that group */
	return queue_to(t, sig, &info, false);
}
