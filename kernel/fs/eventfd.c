/* eventfd: a 64-bit counter behind a file, as Linux's fs/eventfd.c. write adds to it (sleeping
 * while the sum would pass 0xfffffffffffffffe), read takes all of it, or one with
 * EFD_SEMAPHORE (sleeping while it is 0); poll says which of the two would not sleep. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define EFD_SEMAPHORE 1
#define EFD_CLOEXEC O_CLOEXEC
#define EFD_NONBLOCK O_NONBLOCK
#define EFD_FLAGS_SET (EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK)
#define ULLONG_MAX (~0ULL)

struct eventfd_ctx {
	struct wait_queue_head wqh; /* readers wait for a count, writers for room */
	uint64_t count;             /* never ULLONG_MAX from a write */
	unsigned int flags;         /* EFD_SEMAPHORE */
	int id;                     /* fdinfo's eventfd-id: the lowest no other one has */
	struct list_head list;      /* in eventfds */
};

static LIST_HEAD(eventfds); /* every eventfd (the big kernel lock's) */

/* The lowest id no eventfd has (Linux's ida_alloc). */
static int eventfd_new_id(void)
{
	struct eventfd_ctx *ctx;
	int id = 0;

again:
	list_for_each_entry(ctx, &eventfds, list)
		if (ctx->id == id) {
			id++;
			goto again;
		}
	return id;
}

static void eventfd_release(struct inode *ino, struct file *f)
{
	struct eventfd_ctx *ctx = f->private_data;

	(void)ino;
	list_del(&ctx->list);
	kfree(ctx);
}

static void eventfd_show_fdinfo(struct proc_text *m, struct file *f)
{
	struct eventfd_ctx *ctx = f->private_data;

	proc_printf(m, "eventfd-count: %16llx\neventfd-id: %d\neventfd-semaphore: %d\n",
		    (unsigned long long)ctx->count, ctx->id, !!(ctx->flags & EFD_SEMAPHORE));
}

static unsigned int eventfd_poll(struct file *f, struct poll_table_struct *pt)
{
	struct eventfd_ctx *ctx = f->private_data;
	unsigned int events = 0;

	poll_wait(f, &ctx->wqh, pt);
	if (ctx->count > 0)
		events |= POLLIN;
	if (ctx->count == ULLONG_MAX)
		events |= POLLERR;
	if (ULLONG_MAX - 1 > ctx->count)
		events |= POLLOUT;
	return events;
}

/* Could a read (reader) or a write of ucnt go ahead without sleeping? */
static bool eventfd_ready(const struct eventfd_ctx *ctx, bool reader, uint64_t ucnt)
{
	return reader ? ctx->count > 0 : ULLONG_MAX - ctx->count > ucnt;
}

/* Sleep until it could: 0, -EAGAIN (O_NONBLOCK), or -ERESTARTSYS for a signal (the call is
 * restarted if its handler says SA_RESTART). */
static long eventfd_wait(struct file *f, bool reader, uint64_t ucnt)
{
	struct eventfd_ctx *ctx = f->private_data;

	if (eventfd_ready(ctx, reader, ucnt))
		return 0;
	if (f->f_flags & O_NONBLOCK)
		return -EAGAIN;
	return wait_event_interruptible(ctx->wqh, eventfd_ready(ctx, reader, ucnt)) ? -ERESTARTSYS
										     : 0;
}

static long eventfd_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct eventfd_ctx *ctx = f->private_data;
	long err = n < sizeof(uint64_t) ? -EINVAL : eventfd_wait(f, true, 0);
	uint64_t ucnt;

	(void)pos;
	if (err)
		return err;
	ucnt = ctx->flags & EFD_SEMAPHORE ? 1 : ctx->count;
	ctx->count -= ucnt;
	wake_up(&ctx->wqh); /* room for writers */
	/* As Linux, the count is taken before the copy: a bad buffer loses it. */
	return copy_to_user(ubuf, &ucnt, sizeof(ucnt)) ? -EFAULT : (long)sizeof(ucnt);
}

static long eventfd_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct eventfd_ctx *ctx = f->private_data;
	uint64_t ucnt;
	long err;

	(void)pos;
	if (n < sizeof(ucnt))
		return -EINVAL;
	if (copy_from_user(&ucnt, ubuf, sizeof(ucnt)))
		return -EFAULT;
	if (ucnt == ULLONG_MAX)
		return -EINVAL;
	err = eventfd_wait(f, false, ucnt);
	if (err)
		return err;
	ctx->count += ucnt;
	wake_up(&ctx->wqh); /* a count for readers */
	return sizeof(ucnt);
}

static const struct file_operations eventfd_fops = {
	.llseek = noop_llseek,
	.read = eventfd_read,
	.write = eventfd_write,
	.poll = eventfd_poll,
	.release = eventfd_release,
	.show_fdinfo = eventfd_show_fdinfo,
};

long sys_eventfd2(unsigned int count, int flags)
{
	struct eventfd_ctx *ctx;

	if (flags & ~EFD_FLAGS_SET)
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wqh);
	ctx->count = count;
	ctx->flags = (unsigned int)flags & EFD_SEMAPHORE;
	ctx->id = eventfd_new_id();
	list_add_tail(&ctx->list, &eventfds);
	/* On failure the file, if made, was released (ctx freed with it). */
	return anon_inode_getfd("[eventfd]", &eventfd_fops, ctx,
				O_RDWR | ((unsigned int)flags & (EFD_CLOEXEC | EFD_NONBLOCK)));
}

long sys_eventfd(unsigned int count)
{
	return sys_eventfd2(count, 0);
}
