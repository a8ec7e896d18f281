/* userfaultfd(2): a descriptor that hears of the faults on the ranges registered with it, for
 * a thread of the program to resolve (Linux's fs/userfaultfd.c). The faulting thread sleeps in
 * handle_userfault, its message queued, until UFFDIO_COPY, ZEROPAGE or WAKE covers it. */
#include "kernel/arch/atomic.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/userfaultfd_k.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/mmap.h"
#include "mm/slab.h"

/* One fault asleep (on its own kernel stack): its message, and whether it was resolved. */
struct userfaultfd_wait_queue {
	struct uffd_msg msg;
	struct list_head entry; /* on ctx->fault_pending or fault_read until woken */
	bool waken;
};

static void userfaultfd_ctx_put(struct userfaultfd_ctx *ctx)
{
	bool last;

	spin_lock(&ctx->lock);
	last = --ctx->refcount == 0;
	spin_unlock(&ctx->lock);
	if (last)
		kfree(ctx);
}

/* Take the faults of list in [start, end) off it as woken; whether there was one. */
static bool wake_list(struct list_head *list, uint64_t start, uint64_t end)
{
	struct list_head *pos, *n;
	bool any = false;

	list_for_each_safe(pos, n, list) {
		struct userfaultfd_wait_queue *uwq =
			list_entry(pos, struct userfaultfd_wait_queue, entry);
		uint64_t a = uwq->msg.arg.pagefault.address;

		if (a >= start && a < end) {
			WRITE_ONCE(uwq->waken, true);
			list_del(&uwq->entry); /* (which leaves it linked to itself) */
			any = true;
		}
	}
	return any;
}

void userfaultfd_wake_range(struct userfaultfd_ctx *ctx, uint64_t start, uint64_t len)
{
	bool any;

	spin_lock(&ctx->lock);
	any = wake_list(&ctx->fault_pending, start, start + len);
	any |= wake_list(&ctx->fault_read, start, start + len);
	spin_unlock(&ctx->lock);
	if (any)
		wake_up(&ctx->fault_wqh);
}

/* The fault's sleep ends when it is resolved or the descriptor is closed; a fault of ring 3
 * also on any signal (the access is made again after the handler), one in the kernel only on
 * a fatal one (its system call would otherwise fail with EFAULT). */
static bool uffd_wait_done(struct userfaultfd_ctx *ctx, struct userfaultfd_wait_queue *uwq,
			   bool user)
{
	return READ_ONCE(uwq->waken) || READ_ONCE(ctx->released) ||
	       (user ? signal_pending(current) : fatal_signal_pending(current));
}

int handle_userfault(struct vm_fault *vmf, uint64_t address, unsigned long reason)
{
	struct mm_struct *mm = vmf->vma->vm_mm;
	struct userfaultfd_ctx *ctx = vmf->vma->vm_userfaultfd_ctx.ctx;
	struct userfaultfd_wait_queue uwq = { .waken = false };
	bool user = vmf->flags & FAULT_FLAG_USER, must_wait;
	struct wait_queue_entry w;

	(void)reason; /* VM_UFFD_MISSING: the one mode there is */
	if (ctx->features & UFFD_FEATURE_SIGBUS)
		return VM_FAULT_SIGBUS;
	if (!user && (ctx->flags & UFFD_USER_MODE_ONLY))
		return VM_FAULT_SIGBUS; /* the system call fails with EFAULT */
	/* Only do_page_fault can let go of mmap_sem and take the fault again: a fault the
	 * kernel makes itself (mlock's, copy_to_mm's) fails instead. */
	if (!(vmf->flags & FAULT_FLAG_ALLOW_RETRY))
		return VM_FAULT_SIGBUS;
	if (READ_ONCE(ctx->released))
		return VM_FAULT_NOPAGE; /* taken again once release has unregistered the range */

	uwq.msg.event = UFFD_EVENT_PAGEFAULT;
	uwq.msg.arg.pagefault.address = (ctx->features & UFFD_FEATURE_EXACT_ADDRESS)
						? address : ALIGN_DOWN(address, PAGE_SIZE);
	if (vmf->flags & FAULT_FLAG_WRITE)
		uwq.msg.arg.pagefault.flags = UFFD_PAGEFAULT_FLAG_WRITE;
	if (ctx->features & UFFD_FEATURE_THREAD_ID)
		uwq.msg.arg.pagefault.feat.ptid = (uint32_t)current->pid;
	INIT_LIST_HEAD(&uwq.entry);
	init_wait(&w, current);

	spin_lock(&ctx->lock);
	ctx->refcount++; /* the descriptor may be closed while this sleeps */
	list_add_tail(&uwq.entry, &ctx->fault_pending);
	spin_unlock(&ctx->lock);
	prepare_to_wait(&ctx->fault_wqh, &w, TASK_INTERRUPTIBLE);
	/* Queued first, then the PTE looked at (Linux's userfaultfd_must_wait): an UFFDIO_COPY
	 * that filled it before the message was queued woke nobody, so do not sleep. */
	must_wait = pte_none(READ_ONCE(*vmf->pte));
	up_read(&mm->mmap_sem); /* the VMA and the PTE may go from here on */
	vmf->vma = NULL;
	wake_up(&ctx->fd_wqh);
	while (must_wait && !uffd_wait_done(ctx, &uwq, user)) {
		schedule();
		prepare_to_wait(&ctx->fault_wqh, &w, TASK_INTERRUPTIBLE);
	}
	finish_wait(&ctx->fault_wqh, &w);
	spin_lock(&ctx->lock);
	list_del(&uwq.entry); /* (a waker took it off already, unless a signal came) */
	spin_unlock(&ctx->lock);
	userfaultfd_ctx_put(ctx);
	/* Taken again so that do_page_fault's one path after handle_mm_fault (the trace,
	 * up_read, the test of the answer) serves this answer too; it then starts the fault
	 * over (Linux returns without the lock, and its caller skips the up_read). A kernel
	 * fault of a task being killed is not taken again: its system call fails (EFAULT). */
	down_read(&mm->mmap_sem);
	if (!user && fatal_signal_pending(current))
		return VM_FAULT_SIGBUS;
	return VM_FAULT_RETRY;
}

/* ---------------------------------------------------------------- the descriptor */

/* The oldest fault not yet read, moved to fault_read, into *msg; 0, -EAGAIN or -EINTR. */
static long userfaultfd_ctx_read(struct userfaultfd_ctx *ctx, bool no_wait, struct uffd_msg *msg)
{
	struct wait_queue_entry w;
	long ret;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&ctx->fd_wqh, &w, TASK_INTERRUPTIBLE);
		spin_lock(&ctx->lock);
		if (!list_empty(&ctx->fault_pending)) {
			struct userfaultfd_wait_queue *uwq = list_first_entry(
				&ctx->fault_pending, struct userfaultfd_wait_queue, entry);

			list_del(&uwq->entry);
			list_add_tail(&uwq->entry, &ctx->fault_read);
			*msg = uwq->msg;
			spin_unlock(&ctx->lock);
			ret = 0;
			break;
		}
		spin_unlock(&ctx->lock);
		if (no_wait) {
			ret = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		schedule();
	}
	finish_wait(&ctx->fd_wqh, &w);
	return ret;
}

/* As many whole messages as fit; only the first may be waited for. */
static long userfaultfd_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct userfaultfd_ctx *ctx = f->private_data;
	bool no_wait = f->f_flags & O_NONBLOCK;
	long done = 0;

	(void)pos;
	if (!ctx->api_done)
		return -EINVAL;
	for (;;) {
		struct uffd_msg msg;
		long err;

		if (n < sizeof(msg))
			return done ? done : -EINVAL;
		err = userfaultfd_ctx_read(ctx, no_wait, &msg);
		if (err)
			return done ? done : err;
		if (copy_to_user(ubuf, &msg, sizeof(msg)))
			return done ? done : -EFAULT;
		done += sizeof(msg);
		ubuf += sizeof(msg);
		n -= sizeof(msg);
		no_wait = true;
	}
}

/* POLLIN while a fault waits to be read. Before UFFDIO_API, and on a descriptor without
 * O_NONBLOCK, POLLERR: a fault may be resolved between poll and read, and then a blocking read
 * would wait for the next one (Linux's answer). */
static unsigned int userfaultfd_poll(struct file *f, struct poll_table_struct *pt)
{
	struct userfaultfd_ctx *ctx = f->private_data;
	unsigned int mask = 0;

	poll_wait(f, &ctx->fd_wqh, pt);
	if (!ctx->api_done || !(f->f_flags & O_NONBLOCK))
		return POLLERR;
	spin_lock(&ctx->lock);
	if (!list_empty(&ctx->fault_pending))
		mask = POLLIN | POLLRDNORM;
	spin_unlock(&ctx->lock);
	return mask;
}

/* The last close: every registration of ctx goes (its ranges fault as ordinary memory from now
 * on), then every fault asleep on it wakes and is taken again. */
static void userfaultfd_release(struct inode *ino, struct file *f)
{
	struct userfaultfd_ctx *ctx = f->private_data;
	struct mm_struct *mm = ctx->mm;
	struct vm_area_struct *vma;

	(void)ino;
	WRITE_ONCE(ctx->released, true);
	down_write(&mm->mmap_sem);
	for (vma = vma_first(mm); vma; vma = vma_next(mm, vma)) {
		struct vm_area_struct *v;

		if (vma->vm_userfaultfd_ctx.ctx != ctx)
			continue;
		v = vma_modify_flags_uffd(mm, vma, vma->vm_start, vma->vm_end,
					  vma->vm_flags & ~VM_UFFD_MISSING, NULL);
		if (v) /* (only a split allocates: a whole VMA never fails) */
			vma = v;
	}
	up_write(&mm->mmap_sem);
	spin_lock(&ctx->lock);
	wake_list(&ctx->fault_pending, 0, UINT64_MAX);
	wake_list(&ctx->fault_read, 0, UINT64_MAX);
	spin_unlock(&ctx->lock);
	wake_up(&ctx->fault_wqh);
	wake_up(&ctx->fd_wqh);
	ctx->mm = NULL;
	mmput(mm);
	userfaultfd_ctx_put(ctx);
}

static const struct file_operations userfaultfd_fops = {
	.read = userfaultfd_read,
	.poll = userfaultfd_poll,
	.ioctl = userfaultfd_ioctl,
	.release = userfaultfd_release,
};

long sys_userfaultfd(uint64_t flags)
{
	struct userfaultfd_ctx *ctx;
	long fd;

	if (flags & ~(uint64_t)(O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY))
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	spin_lock_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->fault_pending);
	INIT_LIST_HEAD(&ctx->fault_read);
	init_waitqueue_head(&ctx->fault_wqh);
	init_waitqueue_head(&ctx->fd_wqh);
	ctx->refcount = 1;
	ctx->flags = (unsigned int)flags;
	ctx->mm = current->mm;
	ctx->mm->mm_users++; /* the ranges it registers are this address space's */
	fd = anon_inode_getfd("[userfaultfd]", &userfaultfd_fops, ctx,
			      O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK)));
	if (fd < 0) {
		mmput(ctx->mm);
		kfree(ctx);
	}
	return fd;
}
