/* futex(2): a thread sleeps while a word of its memory holds the value it expects, until
 * another wakes it by the word's address (Linux's kernel/futex.c, without priority
 * inheritance). Waiters hang in a hash of queues by key: (mm, address) for a private futex
 * or one in private memory, (inode, offset) for a process-shared one in a shared mapping, so
 * that processes sharing the page meet on it whatever address each maps it at. */
#include "kernel/errno.h"
#include "kernel/futex/futex.h"
#include "kernel/lib/list.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"
#include "kernel/fs/fs.h"
#include "mm/vma.h"

#define FUTEX_HASH_BITS 6
#define FUTEX_CMD_MASK	(~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

/* What names a futex (Linux's union futex_key): the address space and the address, or the
 * shared file's inode and the byte offset in it. A process-shared futex's key never
 * matches a private one, as Linux's. */
struct futex_key {
	void *object;
	uint64_t offset;
	bool shared;
};

/* One waiter (Linux's futex_q), on its stack while it sleeps. */
struct futex_q {
	struct list_head list;
	struct task_struct *task;
	struct futex_key key;
	uint32_t bitset;
	bool woken; /* taken off the queue by a wake: the wait succeeded */
};

static struct list_head futex_queues[1 << FUTEX_HASH_BITS];

static bool match_futex(const struct futex_key *a, const struct futex_key *b)
{
	return a->object == b->object && a->offset == b->offset && a->shared == b->shared;
}

static struct list_head *hash_futex(const struct futex_key *key)
{
	uint64_t h = ((uint64_t)key->object >> 6) ^ (key->offset >> 2) ^ (key->offset >> 9);
	struct list_head *head = &futex_queues[h & ((1 << FUTEX_HASH_BITS) - 1)];

	if (!head->next)
		INIT_LIST_HEAD(head);
	return head;
}

/* The key of the word at uaddr of current (Linux's get_futex_key): an aligned user address
 * (EINVAL, EFAULT); a process-shared futex must be mapped (its key is found through the
 * page: EFAULT), a private one need not be. */
static long get_futex_key(uint64_t uaddr, bool shared, struct futex_key *key)
{
	struct vm_area_struct *vma;
	uint32_t v;

	if (uaddr & 3)
		return -EINVAL;
	if (!access_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	*key = (struct futex_key){ current->mm, uaddr, shared };
	if (!shared)
		return 0;
	if (copy_from_user(&v, uaddr, sizeof(v)))
		return -EFAULT;
	vma = find_vma(current->mm, uaddr);
	if (vma && vma->vm_start <= uaddr && (vma->vm_flags & VM_SHARED) && vma->vm_file) {
		key->object = vma->vm_file->f_inode;
		key->offset = (vma->vm_pgoff << PAGE_SHIFT) + (uaddr - vma->vm_start);
	}
	return 0;
}

static void wake_futex(struct futex_q *q)
{
	list_del(&q->list);
	q->woken = true;
	wake_up_process(q->task);
}

/* Wake up to nr (at least one) waiters of key whose bitset meets bitset. */
static int wake_key(const struct futex_key *key, int nr, uint32_t bitset)
{
	struct list_head *head = hash_futex(key), *pos, *n;
	int woken = 0;

	list_for_each_safe(pos, n, head)
	{
		struct futex_q *q = list_entry(pos, struct futex_q, list);

		if (!match_futex(&q->key, key) || !(q->bitset & bitset))
			continue;
		wake_futex(q);
		if (++woken >= nr)
			break;
	}
	return woken;
}

int futex_wake(uint64_t uaddr, int nr, uint32_t bitset, bool shared)
{
	struct futex_key key;
	long err = get_futex_key(uaddr, shared, &key);

	return err ? (int)err : wake_key(&key, nr, bitset);
}

static long futex_wait_restart(struct restart_block *rb);

/* Sleep on uaddr while it holds val, until a wake whose bitset meets ours (0), the jiffies
 * deadline (-ETIMEDOUT; timed false: none) or a signal: without a timeout the call is run
 * again after the handler (-ERESTARTSYS), with one it continues to the same deadline unless
 * a handler ran (then -EINTR), as Linux's futex_wait. */
static long futex_wait(uint64_t uaddr, int flags, uint32_t val, bool timed, uint64_t deadline,
		       uint32_t bitset)
{
	struct futex_q q = { .task = current, .bitset = bitset };
	struct restart_block *rb;
	uint32_t cur;
	long err;

	if (!bitset)
		return -EINVAL;
	err = get_futex_key(uaddr, !(flags & FUTEX_PRIVATE_FLAG), &q.key);
	if (err)
		return err;
	for (;;) {
		if (copy_from_user(&cur, uaddr, sizeof(cur)))
			return -EFAULT;
		if (cur != val)
			return -EAGAIN;
		q.woken = false;
		/* One CPU, no preemption in the kernel: nothing runs between the read and the
		 * queueing, so no wake can be lost. */
		list_add_tail(&q.list, hash_futex(&q.key));
		current->state = TASK_INTERRUPTIBLE;
		if (!signal_pending(current) && (!timed || jiffies < deadline)) {
			if (timed)
				schedule_timeout(deadline - jiffies);
			else
				schedule();
		}
		current->state = TASK_RUNNING;
		if (q.woken)
			return 0;
		list_del(&q.list);
		if (timed && jiffies >= deadline)
			return -ETIMEDOUT;
		if (signal_pending(current))
			break;
	}
	if (!timed)
		return -ERESTARTSYS;
	rb = &current->sigstate.restart_block;
	rb->fn = futex_wait_restart;
	rb->futex_uaddr = uaddr;
	rb->futex_val = val;
	rb->futex_bitset = bitset;
	rb->futex_flags = flags;
	rb->expires = deadline;
	return -ERESTART_RESTARTBLOCK;
}

static long futex_wait_restart(struct restart_block *rb)
{
	return futex_wait(rb->futex_uaddr, rb->futex_flags, rb->futex_val, true, rb->expires,
			  rb->futex_bitset);
}

/* Wake up to nr_wake waiters of uaddr and move up to nr_requeue others to uaddr2's queue;
 * with cmp first check that uaddr still holds cmpval (else -EAGAIN). Returns the number woken
 * and moved, as Linux's futex_requeue. */
static long futex_requeue(uint64_t uaddr, bool shared, int nr_wake, int nr_requeue, uint64_t uaddr2,
			  bool cmp, uint32_t cmpval)
{
	struct futex_key key, key2;
	struct list_head *head, *head2, *pos, *n;
	uint32_t cur;
	long err, count = 0;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	err = get_futex_key(uaddr, shared, &key);
	if (!err)
		err = get_futex_key(uaddr2, shared, &key2);
	if (err)
		return err;
	if (cmp) {
		if (copy_from_user(&cur, uaddr, sizeof(cur)))
			return -EFAULT;
		if (cur != cmpval)
			return -EAGAIN;
	}
	head = hash_futex(&key);
	head2 = hash_futex(&key2);
	list_for_each_safe(pos, n, head)
	{
		struct futex_q *q = list_entry(pos, struct futex_q, list);

		if (count - nr_wake >= nr_requeue)
			break;
		if (!match_futex(&q->key, &key))
			continue;
		if (++count <= nr_wake) {
			wake_futex(q);
			continue;
		}
		list_del(&q->list);
		q->key = key2;
		list_add_tail(&q->list, head2);
	}
	return count;
}

/* FUTEX_WAKE_OP's operation on the word at uaddr2 (Linux's futex_atomic_op_inuser): op
 * oparg into it; then compare the old value with cmparg. 1 or 0 (the comparison), -EFAULT,
 * or -ENOSYS for an unknown operation or comparison (the store is done by then, as Linux). */
static long futex_atomic_op(uint32_t encoded, uint64_t uaddr2)
{
	int op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int oparg = (int)(encoded << 8) >> 20, cmparg = (int)(encoded << 20) >> 20;
	uint32_t old, val, found;

	if (encoded & (8U << 28)) /* FUTEX_OP_OPARG_SHIFT */
		oparg = 1 << (oparg & 31);
	if (copy_from_user(&old, uaddr2, sizeof(old)))
		return -EFAULT;
again:
	switch (op) {
	case 0: /* FUTEX_OP_SET */
		val = (uint32_t)oparg;
		break;
	case 1: /* FUTEX_OP_ADD */
		val = old + (uint32_t)oparg;
		break;
	case 2: /* FUTEX_OP_OR */
		val = old | (uint32_t)oparg;
		break;
	case 3: /* FUTEX_OP_ANDN */
		val = old & ~(uint32_t)oparg;
		break;
	case 4: /* FUTEX_OP_XOR */
		val = old ^ (uint32_t)oparg;
		break;
	default:
		return -ENOSYS;
	}
	/* One atomic step: another CPU's thread may change the word between the read and the
	 * write; then compute again from what it wrote. */
	if (futex_cmpxchg_user(uaddr2, old, val, &found))
		return -EFAULT;
	if (found != old) {
		old = found;
		goto again;
	}
	switch (cmp) {
	case 0:
		return (int)old == cmparg;
	case 1:
		return (int)old != cmparg;
	case 2:
		return (int)old < cmparg;
	case 3:
		return (int)old <= cmparg;
	case 4:
		return (int)old > cmparg;
	case 5:
		return (int)old >= cmparg;
	}
	return -ENOSYS;
}

/* Change the word at uaddr2, wake up to nr_wake waiters of uaddr, and if the old value of
 * uaddr2 passed the comparison also up to nr_wake2 of uaddr2 (glibc's condition variables).
 * The number woken. */
static long futex_wake_op(uint64_t uaddr, bool shared, int nr_wake, int nr_wake2, uint64_t uaddr2,
			  uint32_t encoded)
{
	struct futex_key key, key2;
	long err = get_futex_key(uaddr, shared, &key), op_ret, woken;

	if (!err)
		err = get_futex_key(uaddr2, shared, &key2);
	if (err)
		return err;
	op_ret = futex_atomic_op(encoded, uaddr2);
	if (op_ret < 0)
		return op_ret;
	woken = wake_key(&key, nr_wake, FUTEX_BITSET_MATCH_ANY);
	if (op_ret)
		woken += wake_key(&key2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
	return woken;
}

/* A timeout as a jiffies deadline: FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's absolute on
 * CLOCK_MONOTONIC (or CLOCK_REALTIME with FUTEX_CLOCK_REALTIME). Rounded up: never early. */
static long futex_timeout(uint64_t utime, int cmd, int op, uint64_t *deadline)
{
	int64_t ts[2];
	uint64_t ticks;

	if (copy_from_user(ts, utime, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	ticks = (uint64_t)ts[0] * HZ + ((uint64_t)ts[1] + 1000000000 / HZ - 1) / (1000000000 / HZ);
	if (cmd == FUTEX_WAIT)
		*deadline = ticks ? jiffies + ticks + 1 : jiffies; /* +1: a tick partly gone */
	else if (op & FUTEX_CLOCK_REALTIME)
		*deadline = realtime_ticks_to_jiffies(ticks);
	else
		*deadline = ticks;
	return 0;
}

/* futex(uaddr, op, val, timeout or val2, uaddr2, val3). Unknown operations (and the
 * priority-inheritance ones, not built) are ENOSYS, as Linux answers for what it lacks. */
long sys_futex(uint64_t uaddr, int64_t uop, uint64_t val, uint64_t utime, uint64_t uaddr2,
	       uint64_t val3)
{
	int op = (int)uop, cmd = op & FUTEX_CMD_MASK;
	bool shared = !(op & FUTEX_PRIVATE_FLAG), timed = false;
	uint64_t deadline = 0;
	long err;

	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	if (utime && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
		err = futex_timeout(utime, cmd, op, &deadline);
		if (err)
			return err;
		timed = true;
	}
	switch (cmd) {
	case FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, op, (uint32_t)val, timed, deadline, (uint32_t)val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		if (!(uint32_t)val3)
			return -EINVAL;
		return futex_wake(uaddr, (int)val, (uint32_t)val3, shared);
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, shared, (int)val, (int)utime, uaddr2, false, 0);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, shared, (int)val, (int)utime, uaddr2, true,
				     (uint32_t)val3);
	case FUTEX_WAKE_OP:
		return futex_wake_op(uaddr, shared, (int)val, (int)utime, uaddr2, (uint32_t)val3);
	}
	return -ENOSYS;
}
