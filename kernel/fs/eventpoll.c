/* epoll: a set of files watched at once, as Linux's fs/eventpoll.c. Each watched file (an
 * epitem) hooks a callback onto the wait queues its poll names; a wake_up on one of them puts
 * the item on the set's ready list, and epoll_wait asks each ready item's poll again and reports
 * what it says. Level-triggered items stay on the list while ready; EPOLLET ones come back only
 * with the next wake_up, EPOLLONESHOT ones not until EPOLL_CTL_MOD arms them again. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/eventpoll.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "mm/slab.h"

#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3
#define EPOLL_CLOEXEC O_CLOEXEC

#define EPOLLERR 0x008
#define EPOLLHUP 0x010
#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP (1U << 29)
#define EPOLLONESHOT (1U << 30)
#define EPOLLET (1U << 31)
/* The bits that steer an item rather than name events */
#define EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
/* What EPOLLEXCLUSIVE may come with */
#define EPOLLEXCLUSIVE_OK_BITS (0x001 | 0x004 | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | \
				EPOLLEXCLUSIVE)
#define EP_MAX_NESTS 4       /* epoll sets inside epoll sets, at most this deep */
#define EP_MAX_POLL_WAIT 4   /* wait queues one file's poll may name */
#define EP_MAX_EVENTS (0x7fffffff / 12)

/* x86-64's struct epoll_event is packed: 12 bytes. */
struct epoll_event {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));

struct eventpoll;

/* One wait queue of a watched file, with the callback on it. */
struct eppoll_entry {
	struct wait_queue_entry wait;
	struct wait_queue_head *whead;
	struct epitem *epi;
};

/* A watched (file, fd) pair of one set. */
struct epitem {
	struct list_head link;      /* in ep->items */
	struct list_head rdllink;   /* in ep->rdllist while ready (else self-linked) */
	struct list_head fllink;    /* in file->f_ep_links */
	struct file *file;
	int fd;
	struct epoll_event event;   /* what is asked, and the data given back */
	struct eventpoll *ep;
	int nwait;
	struct eppoll_entry pwq[EP_MAX_POLL_WAIT];
};

/* An epoll set: the private data of its file. */
struct eventpoll {
	spinlock_t lock;              /* guards rdllist: callbacks come from interrupts too */
	struct wait_queue_head wq;    /* epoll_wait's sleepers */
	struct wait_queue_head poll_wait; /* this set's own poll (a set inside another) */
	struct list_head items;
	struct list_head rdllist;
};

static const struct file_operations eventpoll_fops;

static bool is_file_epoll(const struct file *f)
{
	return f->f_op == &eventpoll_fops;
}

/* The item is ready (maybe): on the ready list, and the set's waiters and pollers woken. */
static void ep_mark_ready(struct eventpoll *ep, struct epitem *epi)
{
	uint64_t flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (list_empty(&epi->rdllink))
		list_add_tail(&epi->rdllink, &ep->rdllist);
	spin_unlock_irqrestore(&ep->lock, flags);
	wake_up(&ep->wq);
	wake_up(&ep->poll_wait);
}

/* A wake_up on a watched file's queue: the item is ready, maybe (epoll_wait asks again).
 * POLLFREE: the queue is being freed (a signalfd's, with its process's signal handlers): the
 * item is asked once more, as at any wake_up, and its entry leaves the queue now; ep_remove
 * will not touch it, and no wake_up reaches the item any more, as in Linux. */
static void ep_poll_callback(struct wait_queue_entry *w, unsigned long key)
{
	struct eppoll_entry *pwq = container_of(w, struct eppoll_entry, wait);
	struct epitem *epi = pwq->epi;

	/* (A EPOLLONESHOT item that fired has no events left: off until EPOLL_CTL_MOD.) */
	if (epi->event.events & ~EP_PRIVATE_BITS)
		ep_mark_ready(epi->ep, epi);
	if (key & POLLFREE) {
		list_del(&w->entry); /* the caller holds the queue's lock */
		pwq->whead = NULL;
	}
}

struct ep_pqueue {
	struct poll_table_struct pt;
	struct epitem *epi;
};

/* The watched file's poll names a queue: hook the item's callback onto it. */
static void ep_ptable_queue_proc(struct file *f, struct wait_queue_head *q,
				 struct poll_table_struct *pt)
{
	struct epitem *epi = container_of(pt, struct ep_pqueue, pt)->epi;
	struct eppoll_entry *pwq;

	(void)f;
	if (epi->nwait < 0 || epi->nwait == EP_MAX_POLL_WAIT) {
		epi->nwait = -1; /* more than it can hold: the item cannot be added */
		return;
	}
	pwq = &epi->pwq[epi->nwait++];
	init_wait(&pwq->wait, NULL);
	pwq->wait.func = ep_poll_callback;
	pwq->whead = q;
	pwq->epi = epi;
	add_wait_queue(q, &pwq->wait);
}

/* What the item's file is ready for now, of what is asked. */
static unsigned int ep_item_poll(struct epitem *epi, struct poll_table_struct *pt)
{
	return epi->file->f_op->poll(epi->file, pt) & epi->event.events;
}

/* The item goes: off its file's queues, the ready list and both lists, then freed. */
static void ep_remove(struct eventpoll *ep, struct epitem *epi)
{
	uint64_t flags;

	for (int i = 0; i < epi->nwait; i++)
		if (epi->pwq[i].whead)
			remove_wait_queue(epi->pwq[i].whead, &epi->pwq[i].wait);
	list_del(&epi->fllink);
	list_del(&epi->link);
	spin_lock_irqsave(&ep->lock, flags);
	list_del(&epi->rdllink);
	spin_unlock_irqrestore(&ep->lock, flags);
	kfree(epi);
}

static struct epitem *ep_find(struct eventpoll *ep, struct file *f, int fd)
{
	struct epitem *epi;

	list_for_each_entry(epi, &ep->items, link)
		if (epi->file == f && epi->fd == fd)
			return epi;
	return NULL;
}

static int ep_insert(struct eventpoll *ep, const struct epoll_event *event, struct file *tf,
		     int fd)
{
	struct epitem *epi = kzalloc(sizeof(*epi));
	struct ep_pqueue epq = { .pt = { .qproc = ep_ptable_queue_proc }, .epi = epi };
	unsigned int revents;

	if (!epi)
		return -ENOMEM;
	if (ep_find(ep, tf, fd)) { /* another thread added it while the allocation slept */
		kfree(epi);
		return -EEXIST;
	}
	INIT_LIST_HEAD(&epi->rdllink);
	epi->file = tf;
	epi->fd = fd;
	epi->event = *event;
	epi->ep = ep;
	list_add_tail(&epi->link, &ep->items);
	list_add_tail(&epi->fllink, &tf->f_ep_links);
	revents = ep_item_poll(epi, &epq.pt);
	if (epi->nwait < 0) {
		epi->nwait = EP_MAX_POLL_WAIT;
		ep_remove(ep, epi);
		return -ENOMEM;
	}
	if (revents)
		ep_mark_ready(ep, epi);
	return 0;
}

static int ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_event *event)
{
	epi->event = *event;
	/* Ready now: reported at the next epoll_wait, even an edge-triggered item. */
	if (ep_item_poll(epi, NULL))
		ep_mark_ready(ep, epi);
	return 0;
}

/* Would watching the set to from ep close a loop, or nest sets deeper than EP_MAX_NESTS? */
static bool ep_loop_check(struct eventpoll *ep, struct eventpoll *to, int depth)
{
	struct epitem *epi;

	if (to == ep || depth > EP_MAX_NESTS)
		return true;
	list_for_each_entry(epi, &to->items, link)
		if (is_file_epoll(epi->file) &&
		    ep_loop_check(ep, epi->file->private_data, depth + 1))
			return true;
	return false;
}

void eventpoll_release(struct file *f)
{
	if (!f->f_ep_links.next) /* a file made by hand, not by dentry_open */
		return;
	while (!list_empty(&f->f_ep_links)) {
		struct epitem *epi = list_first_entry(&f->f_ep_links, struct epitem, fllink);

		ep_remove(epi->ep, epi);
	}
}

static void ep_eventpoll_release(struct inode *ino, struct file *f)
{
	struct eventpoll *ep = f->private_data;

	(void)ino;
	while (!list_empty(&ep->items))
		ep_remove(ep, list_first_entry(&ep->items, struct epitem, link));
	kfree(ep);
}

/* The ready item after pos (NULL: the first), or NULL. Only the list's links are read under
 * the lock: callbacks add to it from interrupts, and only this process context takes items off
 * it (under the big kernel lock), so pos stays on it while its file's poll is asked. */
static struct epitem *ep_next_ready(struct eventpoll *ep, struct epitem *pos)
{
	struct list_head *next;
	uint64_t flags;

	spin_lock_irqsave(&ep->lock, flags);
	next = pos ? pos->rdllink.next : ep->rdllist.next;
	spin_unlock_irqrestore(&ep->lock, flags);
	return next == &ep->rdllist ? NULL : list_entry(next, struct epitem, rdllink);
}

/* A set is readable when one of its ready items still is. */
static unsigned int ep_eventpoll_poll(struct file *f, struct poll_table_struct *pt)
{
	struct eventpoll *ep = f->private_data;
	struct epitem *epi = NULL;

	poll_wait(f, &ep->poll_wait, pt);
	while ((epi = ep_next_ready(ep, epi)))
		if (ep_item_poll(epi, NULL))
			return POLLIN | POLLRDNORM;
	return 0;
}

/* fdinfo: a line per watched file, as Linux's ep_show_fdinfo. */
static void ep_show_fdinfo(struct proc_text *m, struct file *f)
{
	struct eventpoll *ep = f->private_data;
	struct epitem *epi;

	list_for_each_entry(epi, &ep->items, link) {
		struct inode *ino = epi->file->f_inode;

		proc_printf(m, "tfd: %8d events: %8x data: %16llx  pos:%lli ino:%lx sdev:%x\n",
			    epi->fd, epi->event.events, (unsigned long long)epi->event.data,
			    (long long)epi->file->f_pos, ino->i_ino, ino->i_sb->s_dev);
	}
}

static const struct file_operations eventpoll_fops = {
	.llseek = noop_llseek,
	.poll = ep_eventpoll_poll,
	.release = ep_eventpoll_release,
	.show_fdinfo = ep_show_fdinfo,
};

long sys_epoll_create1(int flags)
{
	struct eventpoll *ep;

	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wq);
	init_waitqueue_head(&ep->poll_wait);
	INIT_LIST_HEAD(&ep->items);
	INIT_LIST_HEAD(&ep->rdllist);
	return anon_inode_getfd("[eventpoll]", &eventpoll_fops, ep,
				O_RDWR | ((unsigned int)flags & O_CLOEXEC));
}

long sys_epoll_create(int size)
{
	return size <= 0 ? -EINVAL : sys_epoll_create1(0);
}

static long do_epoll_ctl(struct file *f, int op, struct file *tf, int fd,
			 struct epoll_event ev)
{
	struct eventpoll *ep;
	struct epitem *epi;

	if (!tf->f_op || !tf->f_op->poll)
		return -EPERM; /* a regular file or a directory: always ready, nothing to watch */
	if (f == tf || !is_file_epoll(f))
		return -EINVAL;
	if (ev.events & EPOLLEXCLUSIVE) {
		if (op == EPOLL_CTL_MOD)
			return -EINVAL;
		if (op == EPOLL_CTL_ADD &&
		    (is_file_epoll(tf) || (ev.events & ~EPOLLEXCLUSIVE_OK_BITS)))
			return -EINVAL;
	}
	ep = f->private_data;
	if (op == EPOLL_CTL_ADD && is_file_epoll(tf) && ep_loop_check(ep, tf->private_data, 1))
		return -ELOOP;
	epi = ep_find(ep, tf, fd);
	switch (op) {
	case EPOLL_CTL_ADD:
		if (epi)
			return -EEXIST;
		ev.events |= EPOLLERR | EPOLLHUP;
		return ep_insert(ep, &ev, tf, fd);
	case EPOLL_CTL_DEL:
		if (!epi)
			return -ENOENT;
		ep_remove(ep, epi);
		return 0;
	case EPOLL_CTL_MOD:
		if (!epi)
			return -ENOENT;
		if (epi->event.events & EPOLLEXCLUSIVE)
			return -EINVAL; /* an exclusive item cannot be modified */
		ev.events |= EPOLLERR | EPOLLHUP;
		return ep_modify(ep, epi, &ev);
	}
	return -EINVAL;
}

long sys_epoll_ctl(int epfd, int op, int fd, uint64_t uevent)
{
	struct epoll_event ev = { 0 };
	struct file *f, *tf;
	long ret;

	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, uevent, sizeof(ev)))
		return -EFAULT;
	f = epfd < 0 ? NULL : fget((uint64_t)epfd);
	tf = fd < 0 ? NULL : fget((uint64_t)fd);
	if (!f || !tf)
		return -EBADF;
	/* Held across the call: an allocation may sleep, and another thread close either. */
	get_file(f);
	get_file(tf);
	ret = do_epoll_ctl(f, op, tf, fd, ev);
	fput(tf);
	fput(f);
	return ret;
}

/* Report up to maxevents ready items at uevents: how many, or -EFAULT if none could be. The
 * items are asked and their events gathered a chunk at a time without sleeping, then the chunk
 * is copied out, which may sleep (a fault): an item may be removed meanwhile (a close, a
 * EPOLL_CTL_DEL), so none is touched after the copy (Linux holds the set's mutex instead).
 * A chunk that cannot be copied is lost. */
#define EP_CHUNK 32
static long ep_send_events(struct eventpoll *ep, uint64_t uevents, int maxevents)
{
	struct epoll_event chunk[EP_CHUNK];
	LIST_HEAD(txlist);
	uint64_t flags;
	bool fault = false;
	long n = 0;

	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&ep->rdllist, &txlist);
	spin_unlock_irqrestore(&ep->lock, flags);
	while (n < maxevents && !list_empty(&txlist)) {
		int k = 0;

		while (k < EP_CHUNK && n + k < maxevents && !list_empty(&txlist)) {
			struct epitem *epi = list_first_entry(&txlist, struct epitem, rdllink);
			unsigned int events;

			/* Off the list before asking: a wake_up meanwhile puts it on rdllist. */
			spin_lock_irqsave(&ep->lock, flags);
			list_del(&epi->rdllink);
			spin_unlock_irqrestore(&ep->lock, flags);
			events = ep_item_poll(epi, NULL);
			if (!events)
				continue; /* not ready after all */
			chunk[k].events = events;
			chunk[k++].data = epi->event.data;
			if (epi->event.events & EPOLLONESHOT)
				epi->event.events &= EP_PRIVATE_BITS;
			else if (!(epi->event.events & EPOLLET))
				ep_mark_ready(ep, epi); /* level-triggered: asked again next time */
		}
		if (k && copy_to_user(uevents + (uint64_t)n * sizeof(chunk[0]), chunk,
				      (uint64_t)k * sizeof(chunk[0]))) {
			fault = true;
			break;
		}
		n += k;
	}
	/* What was not looked at stays ready, ahead of what came meanwhile. */
	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&txlist, &ep->rdllist);
	spin_unlock_irqrestore(&ep->lock, flags);
	return n || !fault ? n : -EFAULT;
}

#define EP_NO_TIMEOUT UINT64_MAX

/* Wait up to ticks (EP_NO_TIMEOUT: for ever; 0: only look) for events. */
static long do_epoll_wait(int epfd, uint64_t uevents, int maxevents, uint64_t ticks)
{
	struct wait_queue_entry w;
	struct eventpoll *ep;
	struct file *f;
	long n;

	if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
		return -EINVAL;
	if (!access_ok(uevents, (uint64_t)maxevents * sizeof(struct epoll_event)))
		return -EFAULT;
	f = epfd < 0 ? NULL : fget((uint64_t)epfd);
	if (!f)
		return -EBADF;
	if (!is_file_epoll(f))
		return -EINVAL;
	ep = f->private_data;
	get_file(f); /* another thread's close cannot free the set under the sleep */
	init_wait(&w, current);
	for (;;) {
		/* Queued before looking: a callback after the look wakes the sleep. */
		prepare_to_wait(&ep->wq, &w, TASK_INTERRUPTIBLE);
		n = ep_send_events(ep, uevents, maxevents);
		if (n || signal_pending(current) || !ticks)
			break;
		if (ticks == EP_NO_TIMEOUT)
			schedule();
		else
			ticks = schedule_timeout(ticks);
	}
	finish_wait(&ep->wq, &w);
	fput(f);
	return n || !signal_pending(current) ? n : -EINTR;
}

/* A timeout in ms (negative: none) as ticks, rounded up: a wait never ends early. */
static uint64_t ms_to_ticks(int timeout)
{
	return timeout < 0 ? EP_NO_TIMEOUT : ((uint64_t)timeout * HZ + 999) / 1000;
}

long sys_epoll_wait(int epfd, uint64_t uevents, int maxevents, int timeout)
{
	return do_epoll_wait(epfd, uevents, maxevents, ms_to_ticks(timeout));
}

/* epoll_wait with usigmask (sigsetsize bytes) as the blocked set meanwhile. */
static long epoll_pwait_ticks(int epfd, uint64_t uevents, int maxevents, uint64_t ticks,
			      uint64_t usigmask, uint64_t sigsetsize)
{
	uint64_t saved;
	long ret = set_user_sigmask(usigmask, sigsetsize, &saved);

	if (ret)
		return ret;
	ret = do_epoll_wait(epfd, uevents, maxevents, ticks);
	restore_saved_sigmask_unless(ret == -EINTR, saved);
	return ret;
}

long sys_epoll_pwait(int epfd, uint64_t uevents, int maxevents, int timeout, uint64_t usigmask,
		     uint64_t sigsetsize)
{
	return epoll_pwait_ticks(epfd, uevents, maxevents, ms_to_ticks(timeout), usigmask,
				 sigsetsize);
}

/* epoll_pwait with a struct timespec (NULL: no timeout; a negative part or nanoseconds past a
 * second: EINVAL). */
long sys_epoll_pwait2(int epfd, uint64_t uevents, int maxevents, uint64_t uts, uint64_t usigmask,
		      uint64_t sigsetsize)
{
	uint64_t ticks = EP_NO_TIMEOUT;
	int64_t ts[2];

	if (uts) {
		if (copy_from_user(ts, uts, sizeof(ts)))
			return -EFAULT;
		if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
			return -EINVAL;
		if ((uint64_t)ts[0] < EP_NO_TIMEOUT / HZ - 1) /* else: longer than forever */
			ticks = (uint64_t)ts[0] * HZ +
				((uint64_t)ts[1] + 1000000000 / HZ - 1) / (1000000000 / HZ);
	}
	return epoll_pwait_ticks(epfd, uevents, maxevents, ticks, usigmask, sigsetsize);
}
