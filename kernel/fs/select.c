/* poll, ppoll, select and pselect6: ask each file's poll operation what it is ready for; if
 * nothing is, sleep on every wait queue the files named until one of them is woken, a signal
 * comes or the time is up, then ask again. A file with no poll operation is always ready. */
#include "kernel/time/time.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/poll.h"
#include "kernel/syscalls.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "mm/slab.h"

#define SELECT_STACK_FDS 256 /* select's six bitmaps for this many on the stack, else kmalloc */
#define NO_TIMEOUT UINT64_MAX

#define POLLIN_SET (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET POLLPRI

#define POLL_TABLE_ENTRIES 128

/* The wait queues a poll or select call sleeps on, one entry per (file, queue) (Linux's
 * poll_wqueues). */
struct poll_state {
	struct poll_table_struct pt; /* first: __pollwait finds the rest from it */
	int n;
	struct {
		struct wait_queue_head *q;
		struct wait_queue_entry wait;
	} entries[POLL_TABLE_ENTRIES];
	bool overflow;               /* a queue did not fit: never sleep long */
};

static void __pollwait(struct file *f, struct wait_queue_head *q, struct poll_table_struct *pt)
{
	struct poll_state *ps = (struct poll_state *)pt;

	(void)f;
	if (ps->n == POLL_TABLE_ENTRIES) {
		ps->overflow = true;
		return;
	}
	ps->entries[ps->n].q = q;
	init_wait(&ps->entries[ps->n].wait, current);
	prepare_to_wait(q, &ps->entries[ps->n].wait, TASK_INTERRUPTIBLE);
	ps->n++;
}

/* What fd is ready for, as poll reports it: POLLNVAL for a descriptor that is not open. */
static unsigned int poll_fd(uint64_t fd, struct poll_table_struct *pt)
{
	struct file *f = fget(fd);

	if (!f)
		return POLLNVAL;
	return f->f_op && f->f_op->poll ? f->f_op->poll(f, pt) : DEFAULT_POLLMASK;
}

/* A request: poll's array of struct pollfd, or select's three bitmaps. */
struct poll_request {
	struct pollfd {
		int fd;
		short events, revents;
	} *fds;
	uint64_t nfds;
	uint64_t *in, *out, *ex, *res_in, *res_out, *res_ex; /* select: n bits each */
	int n;
};

/* One look at every file of r, filling its answers: how many are ready. */
static int scan(struct poll_request *r, struct poll_table_struct *pt)
{
	int count = 0;

	for (uint64_t i = 0; i < r->nfds; i++) {
		struct pollfd *p = &r->fds[i];
		unsigned int mask = 0;

		if (p->fd >= 0)
			mask = poll_fd((uint64_t)p->fd, pt) &
			       ((unsigned short)p->events | POLLERR | POLLHUP | POLLNVAL);
		p->revents = (short)mask;
		count += mask != 0;
	}
	for (int fd = 0; r->in && fd < r->n; fd++) {
		uint64_t bit = 1ULL << (fd % 64);
		int w = fd / 64;
		unsigned int mask;

		if (!((r->in[w] | r->out[w] | r->ex[w]) & bit))
			continue;
		mask = poll_fd((uint64_t)fd, pt);
		if ((r->in[w] & bit) && (mask & POLLIN_SET) && ++count)
			r->res_in[w] |= bit;
		if ((r->out[w] & bit) && (mask & POLLOUT_SET) && ++count)
			r->res_out[w] |= bit;
		if ((r->ex[w] & bit) && (mask & POLLEX_SET) && ++count)
			r->res_ex[w] |= bit;
	}
	return count;
}

/* Look, and while nothing is ready sleep up to *ticks (NO_TIMEOUT: for ever); *ticks is left
 * with what remains. The count of ready files, or -EINTR for a signal with none ready. */
static long do_poll(struct poll_request *r, uint64_t *ticks)
{
	struct poll_state *ps = kzalloc(sizeof(*ps));
	struct poll_table_struct *pt = &ps->pt;
	bool timed_out = *ticks == 0;
	long count;

	if (!ps)
		return -ENOMEM;
	ps->pt.qproc = __pollwait;
	for (;;) {
		/* The queues are joined on the first look; later looks only ask again. The state
		 * is set before asking, so a wake_up after the answer is not lost. */
		current->state = TASK_INTERRUPTIBLE;
		count = scan(r, pt);
		pt = NULL;
		if (count || timed_out || signal_pending(current))
			break;
		if (*ticks == NO_TIMEOUT && !ps->overflow) {
			schedule();
			continue;
		}
		*ticks = schedule_timeout(ps->overflow ? MIN(*ticks, 1) : *ticks);
		timed_out = *ticks == 0;
	}
	for (int i = 0; i < ps->n; i++)
		finish_wait(ps->entries[i].q, &ps->entries[i].wait);
	current->state = TASK_RUNNING;
	kfree(ps);
	return count || !signal_pending(current) ? count : -EINTR;
}

/* Ticks for a duration, rounded up (a sleep never ends early), and back. */
static uint64_t to_ticks(uint64_t sec, uint64_t nsec)
{
	return sec * HZ + (nsec + 1000000000ULL / HZ - 1) / (1000000000ULL / HZ);
}

static void from_ticks(uint64_t ticks, int64_t *sec, int64_t *nsec)
{
	*sec = (int64_t)(ticks / HZ);
	*nsec = (int64_t)(ticks % HZ) * (1000000000LL / HZ);
}

/* A struct timespec (or, with usec, a struct timeval) from user memory as ticks. A timeval's
 * microseconds past a second carry into the seconds, as Linux's select does; a negative part,
 * or a timespec's nanoseconds past a second, is -EINVAL. */
static long timeout_from_user(uint64_t ut, bool usec, uint64_t *ticks)
{
	int64_t t[2];

	*ticks = NO_TIMEOUT;
	if (!ut)
		return 0;
	if (copy_from_user(t, ut, sizeof(t)))
		return -EFAULT;
	if (usec) {
		t[0] += t[1] / 1000000;
		t[1] = t[1] % 1000000 * 1000;
	}
	if (t[0] < 0 || t[1] < 0 || t[1] >= 1000000000)
		return -EINVAL;
	*ticks = to_ticks((uint64_t)t[0], (uint64_t)t[1]);
	return 0;
}

/* What is left of the time, written back as Linux does (the C libraries pass a copy). */
static void timeout_to_user(uint64_t ut, bool usec, uint64_t ticks)
{
	int64_t t[2];

	if (!ut || ticks == NO_TIMEOUT)
		return;
	from_ticks(ticks, &t[0], &t[1]);
	if (usec)
		t[1] /= 1000;
	(void)copy_to_user(ut, t, sizeof(t));
}

long set_user_sigmask(uint64_t umask, uint64_t size, uint64_t *saved)
{
	uint64_t mask;

	*saved = current->blocked;
	if (!umask)
		return 0;
	if (size != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	current->blocked = mask & ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	return 0;
}

void restore_saved_sigmask_unless(bool interrupted, uint64_t saved)
{
	if (interrupted) {
		current->sigstate.saved_sigmask = saved;
		current->sigstate.restore_sigmask = true;
	} else {
		current->blocked = saved;
	}
}

static long poll_common(uint64_t ufds, uint64_t nfds, uint64_t *ticks)
{
	struct poll_request r = { .nfds = nfds };
	size_t size = nfds * sizeof(struct pollfd);
	long ret;

	if (nfds > rlimit(RLIMIT_NOFILE)) /* as Linux */
		return -EINVAL;
	r.fds = kmalloc(size ? size : 1);
	if (!r.fds)
		return -ENOMEM;
	ret = copy_from_user(r.fds, ufds, size) ? -EFAULT : do_poll(&r, ticks);
	for (uint64_t i = 0; ret >= 0 && i < nfds; i++)
		if (copy_to_user(ufds + i * sizeof(struct pollfd) + 6, &r.fds[i].revents, 2))
			ret = -EFAULT;
	kfree(r.fds);
	return ret;
}

long sys_poll(uint64_t ufds, uint64_t nfds, int64_t timeout_ms)
{
	uint64_t ticks = timeout_ms < 0 ? NO_TIMEOUT
					: to_ticks((uint64_t)timeout_ms / 1000,
						   (uint64_t)timeout_ms % 1000 * 1000000);

	return poll_common(ufds, nfds, &ticks);
}

long sys_ppoll(uint64_t ufds, uint64_t nfds, uint64_t uts, uint64_t umask, uint64_t size)
{
	uint64_t ticks, saved;
	long ret = timeout_from_user(uts, false, &ticks);

	if (!ret)
		ret = set_user_sigmask(umask, size, &saved);
	if (ret)
		return ret;
	ret = poll_common(ufds, nfds, &ticks);
	restore_saved_sigmask_unless(ret == -EINTR, saved);
	timeout_to_user(uts, false, ticks);
	return ret;
}

static long select_common(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex,
			  uint64_t *ticks)
{
	uint64_t stack_sets[6 * SELECT_STACK_FDS / 64], *sets = stack_sets;
	uint64_t user[3] = { uin, uout, uex };
	struct poll_request r;
	size_t bytes, words;
	long ret = 0;

	/* nfds is an int: the register's upper half is not part of it (Linux's SYSCALL_DEFINE) */
	n = (int)n;
	if (n < 0)
		return -EINVAL;
	/* as Linux, no further than the descriptor table goes */
	n = MIN(n, (int64_t)current->files->fdt.max_fds);
	words = (size_t)(n + 63) / 64;
	bytes = words * 8;
	if (n > SELECT_STACK_FDS && !(sets = kmalloc(6 * bytes)))
		return -ENOMEM;
	memset(sets, 0, 6 * bytes);
	r = (struct poll_request){ .in = sets, .out = sets + words, .ex = sets + 2 * words,
				   .res_in = sets + 3 * words, .res_out = sets + 4 * words,
				   .res_ex = sets + 5 * words, .n = (int)n };
	for (int i = 0; !ret && i < 3; i++)
		if (user[i] && copy_from_user(sets + i * words, user[i], bytes))
			ret = -EFAULT;
	for (int fd = 0; !ret && fd < r.n; fd++)
		if (((r.in[fd / 64] | r.out[fd / 64] | r.ex[fd / 64]) >> (fd % 64) & 1) &&
		    !fget((uint64_t)fd))
			ret = -EBADF;
	if (!ret)
		ret = do_poll(&r, ticks);
	for (int i = 0; ret >= 0 && i < 3; i++)
		if (user[i] && copy_to_user(user[i], sets + (3 + i) * words, bytes))
			ret = -EFAULT;
	if (sets != stack_sets)
		kfree(sets);
	return ret;
}

long sys_select(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex, uint64_t utv)
{
	uint64_t ticks;
	long ret = timeout_from_user(utv, true, &ticks);

	if (ret)
		return ret;
	ret = select_common(n, uin, uout, uex, &ticks);
	timeout_to_user(utv, true, ticks);
	return ret;
}

/* pselect6's sixth argument points to { const sigset_t *mask; size_t size; }. */
long sys_pselect6(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex, uint64_t uts,
		  uint64_t usig)
{
	uint64_t ticks, saved, sig[2] = { 0, 0 };
	long ret = timeout_from_user(uts, false, &ticks);

	if (!ret && usig && copy_from_user(sig, usig, sizeof(sig)))
		ret = -EFAULT;
	if (!ret)
		ret = set_user_sigmask(sig[0], sig[1], &saved);
	if (ret)
		return ret;
	ret = select_common(n, uin, uout, uex, &ticks);
	restore_saved_sigmask_unless(ret == -EINTR, saved);
	timeout_to_user(uts, false, ticks);
	return ret;
}
