/* timerfd: a timer behind a file, as Linux's fs/timerfd.c. timerfd_settime arms it (relative,
 * or TFD_TIMER_ABSTIME at a time of its clock), once or every interval; each expiration adds
 * one to a count that read returns and zeroes (8 bytes), sleeping while it is 0; poll says
 * POLLIN while it is not. faultline's clocks move with the 10 ms tick, so the armed timers
 * are checked by the boot CPU's tick (timerfd_tick); times are kept in nanoseconds of
 * CLOCK_MONOTONIC, so an interval shorter than a tick counts every expiration it had. */
#include "kernel/arch/atomic.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/fs/timerfd.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "mm/slab.h"

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_BOOTTIME 7
#define CLOCK_REALTIME_ALARM 8
#define CLOCK_BOOTTIME_ALARM 9
#define CAP_WAKE_ALARM 35

#define TFD_TIMER_ABSTIME 1
#define TFD_TIMER_CANCEL_ON_SET 2
#define TFD_SETTIME_FLAGS (TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
#define TFD_CREATE_FLAGS (O_CLOEXEC | O_NONBLOCK)

#define NSEC_PER_SEC 1000000000LL
#define TICK_NSEC (NSEC_PER_SEC / HZ)
#define KTIME_MAX INT64_MAX

struct itimerspec64 {
	struct timespec64 it_interval;
	struct timespec64 it_value;
};

struct timerfd_ctx {
	struct wait_queue_head wqh; /* readers of the count */
	struct list_head armed;     /* in armed_timers while armed, else self-linked */
	int clockid;
	int64_t expires;            /* the next expiration, CLOCK_MONOTONIC ns */
	int64_t interval;           /* ns; 0: once */
	uint64_t ticks;             /* expirations not read yet */
	int settime_flags;          /* the last timerfd_settime's (fdinfo shows them) */
};

/* The armed timers; the lock is taken by the tick, with interrupts off. */
static LIST_HEAD(armed_timers);
static DEFINE_SPINLOCK(timers_lock);
static volatile int64_t next_expiry = KTIME_MAX; /* no armed timer is due before this */

static int64_t monotonic_ns(void)
{
	return (int64_t)jiffies * TICK_NSEC;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, read from one tick. */
static int64_t realtime_offset(void)
{
	struct timespec64 mono, real;
	uint64_t j;

	do {
		j = jiffies;
		ktime_get_ts64(&mono);
		ktime_get_real_ts64(&real);
	} while (j != jiffies);
	return (real.tv_sec - mono.tv_sec) * NSEC_PER_SEC + (real.tv_nsec - mono.tv_nsec);
}

/* A timespec as ns, KTIME_MAX past what 64 bits hold (Linux's ktime saturates too). */
static int64_t timespec_to_ns(const struct timespec64 *ts)
{
	if (ts->tv_sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec64 ns_to_timespec(int64_t ns)
{
	return (struct timespec64){ ns / NSEC_PER_SEC, (long)(ns % NSEC_PER_SEC) };
}

/* Under timers_lock: count what is due at now, rearm or disarm, wake the readers. */
static void timerfd_expire(struct timerfd_ctx *ctx, int64_t now)
{
	uint64_t n = 1;

	if (ctx->interval) {
		n += (uint64_t)((now - ctx->expires) / ctx->interval);
		ctx->expires += (int64_t)n * ctx->interval;
	} else {
		list_del(&ctx->armed);
	}
	ctx->ticks += n;
	wake_up(&ctx->wqh);
}

static void update_next_expiry(void)
{
	struct timerfd_ctx *ctx;
	int64_t next = KTIME_MAX;

	list_for_each_entry(ctx, &armed_timers, armed)
		if (ctx->expires < next)
			next = ctx->expires;
	next_expiry = next;
}

void timerfd_tick(void)
{
	struct list_head *pos, *n;
	int64_t now = monotonic_ns();

	if (now < next_expiry)
		return;
	spin_lock(&timers_lock);
	list_for_each_safe(pos, n, &armed_timers) {
		struct timerfd_ctx *ctx = list_entry(pos, struct timerfd_ctx, armed);

		if (ctx->expires <= now)
			timerfd_expire(ctx, now);
	}
	update_next_expiry();
	spin_unlock(&timers_lock);
}

static void timerfd_release(struct inode *ino, struct file *f)
{
	struct timerfd_ctx *ctx = f->private_data;
	uint64_t flags;

	(void)ino;
	spin_lock_irqsave(&timers_lock, flags);
	list_del(&ctx->armed);
	update_next_expiry();
	spin_unlock_irqrestore(&timers_lock, flags);
	kfree(ctx);
}

static unsigned int timerfd_poll(struct file *f, struct poll_table_struct *pt)
{
	struct timerfd_ctx *ctx = f->private_data;

	poll_wait(f, &ctx->wqh, pt);
	return READ_ONCE(ctx->ticks) ? POLLIN : 0;
}

static long timerfd_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct timerfd_ctx *ctx = f->private_data;
	uint64_t ticks, flags;
	int err;

	(void)pos;
	if (n < sizeof(ticks))
		return -EINVAL;
	if (!READ_ONCE(ctx->ticks) && (f->f_flags & O_NONBLOCK))
		return -EAGAIN;
	err = wait_event_interruptible(ctx->wqh, READ_ONCE(ctx->ticks) != 0);
	if (err)
		return -ERESTARTSYS; /* a signal: restarted if its handler says SA_RESTART */
	spin_lock_irqsave(&timers_lock, flags);
	ticks = ctx->ticks;
	ctx->ticks = 0;
	spin_unlock_irqrestore(&timers_lock, flags);
	return copy_to_user(ubuf, &ticks, sizeof(ticks)) ? -EFAULT : (long)sizeof(ticks);
}

static void timerfd_get(const struct timerfd_ctx *ctx, int64_t now, struct itimerspec64 *t);

static void timerfd_show_fdinfo(struct proc_text *m, struct file *f)
{
	struct timerfd_ctx *ctx = f->private_data;
	struct itimerspec64 t;
	uint64_t irq, ticks;

	spin_lock_irqsave(&timers_lock, irq);
	timerfd_get(ctx, monotonic_ns(), &t);
	ticks = ctx->ticks;
	spin_unlock_irqrestore(&timers_lock, irq);
	proc_printf(m, "clockid: %d\nticks: %llu\nsettime flags: 0%o\n"
		    "it_value: (%llu, %llu)\nit_interval: (%llu, %llu)\n",
		    ctx->clockid, (unsigned long long)ticks, ctx->settime_flags,
		    (unsigned long long)t.it_value.tv_sec, (unsigned long long)t.it_value.tv_nsec,
		    (unsigned long long)t.it_interval.tv_sec,
		    (unsigned long long)t.it_interval.tv_nsec);
}

static const struct file_operations timerfd_fops = {
	.llseek = noop_llseek,
	.read = timerfd_read,
	.poll = timerfd_poll,
	.release = timerfd_release,
	.show_fdinfo = timerfd_show_fdinfo,
};

long sys_timerfd_create(int clockid, int flags)
{
	struct timerfd_ctx *ctx;

	if ((flags & ~TFD_CREATE_FLAGS) ||
	    (clockid != CLOCK_MONOTONIC && clockid != CLOCK_REALTIME &&
	     clockid != CLOCK_REALTIME_ALARM && clockid != CLOCK_BOOTTIME &&
	     clockid != CLOCK_BOOTTIME_ALARM))
		return -EINVAL;
	if ((clockid == CLOCK_REALTIME_ALARM || clockid == CLOCK_BOOTTIME_ALARM) &&
	    !capable(CAP_WAKE_ALARM))
		return -EPERM;
	ctx = kzalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wqh);
	INIT_LIST_HEAD(&ctx->armed);
	ctx->clockid = clockid;
	return anon_inode_getfd("[timerfd]", &timerfd_fops, ctx,
				O_RDWR | ((unsigned int)flags & TFD_CREATE_FLAGS));
}

/* The timer as gettime shows it: the time to the next expiration (0: disarmed) and the
 * interval. Under timers_lock. */
static void timerfd_get(const struct timerfd_ctx *ctx, int64_t now, struct itimerspec64 *t)
{
	int64_t left = list_empty(&ctx->armed) ? 0 : ctx->expires - now;

	t->it_value = ns_to_timespec(left > 0 ? left : 0);
	t->it_interval = ns_to_timespec(ctx->interval);
}

/* The timerfd behind fd: -EBADF, or -EINVAL for another kind of file. */
static long timerfd_fget(int fd, struct timerfd_ctx **ctx)
{
	struct file *f = fd < 0 ? NULL : fget((uint64_t)fd);

	if (!f)
		return -EBADF;
	if (f->f_op != &timerfd_fops)
		return -EINVAL;
	*ctx = f->private_data;
	return 0;
}

static bool timespec_valid(const struct timespec64 *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NSEC_PER_SEC;
}

long sys_timerfd_settime(int fd, int flags, uint64_t unew, uint64_t uold)
{
	struct itimerspec64 new, old;
	struct timerfd_ctx *ctx;
	int64_t now, value;
	uint64_t irq;
	long err;

	if (copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if ((flags & ~TFD_SETTIME_FLAGS) || !timespec_valid(&new.it_value) ||
	    !timespec_valid(&new.it_interval))
		return -EINVAL;
	err = timerfd_fget(fd, &ctx);
	if (err)
		return err;
	value = timespec_to_ns(&new.it_value);
	spin_lock_irqsave(&timers_lock, irq);
	now = monotonic_ns();
	timerfd_get(ctx, now, &old);
	list_del(&ctx->armed);
	ctx->ticks = 0; /* a new setting starts a new count, as Linux's */
	ctx->settime_flags = flags;
	ctx->interval = timespec_to_ns(&new.it_interval);
	if (value) {
		if (!(flags & TFD_TIMER_ABSTIME))
			ctx->expires = value > KTIME_MAX - now ? KTIME_MAX : now + value;
		else if (ctx->clockid == CLOCK_REALTIME || ctx->clockid == CLOCK_REALTIME_ALARM)
			ctx->expires = value - realtime_offset();
		else
			ctx->expires = value;
		list_add_tail(&ctx->armed, &armed_timers);
		if (ctx->expires <= now)
			timerfd_expire(ctx, now); /* already past: expired now, not at the tick */
	}
	update_next_expiry();
	spin_unlock_irqrestore(&timers_lock, irq);
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timerfd_gettime(int fd, uint64_t ucur)
{
	struct timerfd_ctx *ctx;
	struct itimerspec64 cur;
	uint64_t irq;
	long err = timerfd_fget(fd, &ctx);

	if (err)
		return err;
	spin_lock_irqsave(&timers_lock, irq);
	timerfd_get(ctx, monotonic_ns(), &cur);
	spin_unlock_irqrestore(&timers_lock, irq);
	return copy_to_user(ucur, &cur, sizeof(cur)) ? -EFAULT : 0;
}
