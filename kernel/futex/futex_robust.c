/* Robust futexes, Linux's ABI: each thread names a list of the futex locks it holds
 * (set_robust_list); when it dies holding one, the kernel marks the lock FUTEX_OWNER_DIED and
 * wakes a waiter, whose pthread_mutex_lock then returns EOWNERDEAD instead of hanging. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/futex/futex.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"

#define FUTEX_WAITERS 0x80000000U
#define FUTEX_OWNER_DIED 0x40000000U
#define FUTEX_TID_MASK 0x3fffffffU
#define ROBUST_LIST_LIMIT 2048 /* a circular or endless list in user memory ends here */

/* The user's list head (struct robust_list_head): the first entry, the distance from an entry
 * to its futex word, and the entry being locked or unlocked right now, if any. The entries'
 * bit 0 marks a priority-inheritance futex (not built here: treated like the others). */
struct robust_list_head {
	uint64_t next;
	int64_t futex_offset;
	uint64_t list_op_pending;
};

long sys_set_robust_list(uint64_t head, uint64_t len)
{
	if (len != sizeof(struct robust_list_head))
		return -EINVAL;
	current->robust_list = head; /* not read until the thread dies: no check now */
	return 0;
}

/* ptrace's read access, which get_robust_list asks: the caller's real, effective and saved
 * ids all those of t (uid and gid), or CAP_SYS_PTRACE. */
static bool may_read_task(const struct task_struct *t)
{
	const struct task_cred *c = &current->cred, *tc = &t->cred;

	if (t->tgid == current->tgid || capable(CAP_SYS_PTRACE))
		return true;
	return c->uid == tc->uid && c->uid == tc->euid && c->uid == tc->suid &&
	       c->gid == tc->gid && c->gid == tc->egid && c->gid == tc->sgid;
}

long sys_get_robust_list(int64_t pid, uint64_t head_ptr, uint64_t len_ptr)
{
	struct task_struct *t = current;
	uint64_t len = sizeof(struct robust_list_head);

	if (pid) {
		t = find_task_by_pid((int)pid);
		if (!t || (int)pid != pid)
			return -ESRCH;
		if (!may_read_task(t))
			return -EPERM;
	}
	if (copy_to_user(len_ptr, &len, sizeof(len)))
		return -EFAULT;
	return copy_to_user(head_ptr, &t->robust_list, sizeof(t->robust_list));
}

/* The lock word at uaddr of a dying thread tid (Linux's handle_futex_death): if tid owns it,
 * keep its waiters bit, set FUTEX_OWNER_DIED and wake one waiter. A lock the thread was just
 * releasing (pending) that is already 0 may have a waiter who missed the unlock's wake. */
static void handle_futex_death(uint64_t uaddr, int tid, bool pending)
{
	uint32_t uval, nval;

	if (copy_from_user(&uval, uaddr, sizeof(uval)))
		return;
	for (;;) {
		if (pending && !uval) {
			futex_wake(uaddr, 1, FUTEX_BITSET_MATCH_ANY, true);
			return;
		}
		if ((uval & FUTEX_TID_MASK) != (uint32_t)tid)
			return;
		if (futex_cmpxchg_user(uaddr, uval, (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED,
				       &nval))
			return;
		if (nval == uval)
			break;
		uval = nval; /* changed under us (a waiter set FUTEX_WAITERS): again */
	}
	if (uval & FUTEX_WAITERS)
		futex_wake(uaddr, 1, FUTEX_BITSET_MATCH_ANY, true);
}

/* Read a list pointer: the entry, without its PI bit. 0 or -EFAULT. */
static long fetch_robust_entry(uint64_t *entry, uint64_t uptr)
{
	if (copy_from_user(entry, uptr, sizeof(*entry)))
		return -EFAULT;
	*entry &= ~1UL;
	return 0;
}

void exit_robust_list(struct task_struct *t)
{
	uint64_t head = t->robust_list, entry, next, pending;
	int64_t offset;
	int limit = ROBUST_LIST_LIMIT;

	t->robust_list = 0;
	if (fetch_robust_entry(&entry, head) ||
	    copy_from_user(&offset, head + 8, sizeof(offset)) ||
	    fetch_robust_entry(&pending, head + 16))
		return;
	while (entry != head) {
		long err = fetch_robust_entry(&next, entry);

		if (entry != pending)
			handle_futex_death(entry + (uint64_t)offset, t->pid, false);
		if (err || !--limit)
			break;
		entry = next;
	}
	if (pending)
		handle_futex_death(pending + (uint64_t)offset, t->pid, true);
}
