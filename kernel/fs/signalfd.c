/* signalfd: signals read through a file, as Linux's fs/signalfd.c. The file holds a set of
 * signals; a read takes pending signals of that set off the reading task (as sigtimedwait
 * would: their handlers do not run), one struct signalfd_siginfo of 128 bytes each, sleeping
 * while none is pending; poll says POLLIN while one is. The set is normally blocked, so that
 * ordinary delivery does not take them first. signalfd on an existing one changes its set. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/fs/signalfd.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define SFD_CLOEXEC O_CLOEXEC
#define SFD_NONBLOCK O_NONBLOCK
#define SFD_FLAGS (SFD_CLOEXEC | SFD_NONBLOCK)
#define SI_TIMER (-2)
#define SI_SIGIO (-5)

/* Linux's struct signalfd_siginfo: 128 bytes. */
struct signalfd_siginfo {
	uint32_t ssi_signo;
	int32_t ssi_errno;
	int32_t ssi_code;
	uint32_t ssi_pid;
	uint32_t ssi_uid;
	int32_t ssi_fd;
	uint32_t ssi_tid;
	uint32_t ssi_band;
	uint32_t ssi_overrun;
	uint32_t ssi_trapno;
	int32_t ssi_status;
	int32_t ssi_int;
	uint64_t ssi_ptr;
	uint64_t ssi_utime;
	uint64_t ssi_stime;
	uint64_t ssi_addr;
	uint16_t ssi_addr_lsb;
	uint16_t pad2;
	int32_t ssi_syscall;
	uint64_t ssi_call_addr;
	uint32_t ssi_arch;
	uint8_t pad[28];
};
_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo is 128 bytes");

struct signalfd_ctx {
	uint64_t sigmask; /* the signals it reads (never SIGKILL or SIGSTOP) */
};

void signalfd_cleanup(struct sighand_struct *sh)
{
	if (waitqueue_active(&sh->signalfd_wqh))
		__wake_up(&sh->signalfd_wqh, POLLFREE);
}

static void signalfd_release(struct inode *ino, struct file *f)
{
	(void)ino;
	kfree(f->private_data);
}

static unsigned int signalfd_poll(struct file *f, struct poll_table_struct *pt)
{
	struct signalfd_ctx *ctx = f->private_data;

	poll_wait(f, &current->sighand->signalfd_wqh, pt);
	return (current->pending | current->signal->shared_pending) & ctx->sigmask ? POLLIN : 0;
}

/* info as Linux's signalfd_copyinfo lays it out, by what kind of sender it came from
 * (siginfo_layout): a fault's address, a child's status, a queued signal's value, a kill's
 * sender. */
static void signalfd_fill(struct signalfd_siginfo *s, const struct ksiginfo *info)
{
	bool fault = info->signo == SIGSEGV || info->signo == SIGBUS || info->signo == SIGILL ||
		     info->signo == SIGFPE || info->signo == SIGTRAP;

	memset(s, 0, sizeof(*s));
	s->ssi_signo = (uint32_t)info->signo;
	s->ssi_code = info->code;
	if (info->code > SI_USER && info->code < SI_KERNEL && fault) {
		s->ssi_addr = info->addr;
	} else if (info->code > SI_USER && info->code < SI_KERNEL && info->signo == SIGCHLD) {
		s->ssi_pid = (uint32_t)info->pid;
		s->ssi_uid = info->uid;
		s->ssi_status = info->status;
	} else if (info->code < 0 && info->code != SI_TIMER && info->code != SI_SIGIO) {
		s->ssi_pid = (uint32_t)info->pid; /* sigqueue, tkill: the value too */
		s->ssi_uid = info->uid;
		s->ssi_ptr = info->value;
		s->ssi_int = (int32_t)info->value;
	} else if (info->code == SI_USER || info->code == SI_KERNEL) {
		s->ssi_pid = (uint32_t)info->pid;
		s->ssi_uid = info->uid;
	}
}

/* One signal of the set: its number (info filled), -EAGAIN if none and nonblock, or
 * -ERESTARTSYS when another signal, one the task acts on, comes first. */
static int signalfd_dequeue(struct signalfd_ctx *ctx, struct ksiginfo *info, bool nonblock)
{
	struct wait_queue_entry w;
	int sig = dequeue_signal(ctx->sigmask, info);

	if (sig || nonblock)
		return sig ? sig : -EAGAIN;
	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&current->sighand->signalfd_wqh, &w, TASK_INTERRUPTIBLE);
		sig = dequeue_signal(ctx->sigmask, info);
		if (sig)
			break;
		if (signal_pending(current)) {
			sig = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	finish_wait(&current->sighand->signalfd_wqh, &w);
	return sig;
}

static long signalfd_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct signalfd_ctx *ctx = f->private_data;
	uint64_t count = n / sizeof(struct signalfd_siginfo);
	bool nonblock = f->f_flags & O_NONBLOCK;
	long total = 0, ret = 0;

	(void)pos;
	if (!count)
		return -EINVAL;
	do {
		struct signalfd_siginfo s;
		struct ksiginfo info;

		ret = signalfd_dequeue(ctx, &info, nonblock);
		if (ret <= 0)
			break;
		signalfd_fill(&s, &info);
		if (copy_to_user(ubuf + (uint64_t)total, &s, sizeof(s))) {
			ret = -EFAULT; /* as Linux, the signal is lost */
			break;
		}
		total += (long)sizeof(s);
		nonblock = true; /* only the first may sleep */
	} while (--count);
	return total ? total : ret;
}

static void signalfd_show_fdinfo(struct proc_text *m, struct file *f)
{
	struct signalfd_ctx *ctx = f->private_data;

	proc_printf(m, "sigmask:\t%016llx\n", (unsigned long long)ctx->sigmask);
}

static const struct file_operations signalfd_fops = {
	.llseek = noop_llseek,
	.read = signalfd_read,
	.poll = signalfd_poll,
	.release = signalfd_release,
	.show_fdinfo = signalfd_show_fdinfo,
};

long sys_signalfd4(int ufd, uint64_t umask, uint64_t sizemask, int flags)
{
	struct signalfd_ctx *ctx;
	struct file *f;
	uint64_t mask;

	if (sizemask != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	if (flags & ~SFD_FLAGS)
		return -EINVAL;
	mask &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	if (ufd == -1) {
		ctx = kzalloc(sizeof(*ctx));
		if (!ctx)
			return -ENOMEM;
		ctx->sigmask = mask;
		return anon_inode_getfd("[signalfd]", &signalfd_fops, ctx,
					O_RDWR | ((unsigned int)flags & SFD_FLAGS));
	}
	f = ufd < 0 ? NULL : fget((uint64_t)ufd);
	if (!f)
		return -EBADF;
	if (f->f_op != &signalfd_fops)
		return -EINVAL;
	ctx = f->private_data;
	ctx->sigmask = mask;
	/* A reader asleep on the old set may have something to read now. */
	wake_up(&current->sighand->signalfd_wqh);
	return ufd;
}

long sys_signalfd(int ufd, uint64_t umask, uint64_t sizemask)
{
	return sys_signalfd4(ufd, umask, sizemask, 0);
}
