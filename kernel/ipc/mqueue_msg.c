/* POSIX message queues' messages, as Linux's ipc/mqueue.c moves them: mq_timedsend and
 * mq_timedreceive (priority order, sleeping with an absolute CLOCK_REALTIME timeout, a message
 * handed straight to a sleeping receiver and a sleeping sender's taken into the room a receive
 * makes), mq_notify's one notification and mq_getsetattr. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/poll.h"
#include "kernel/ipc/mqueue.h"
#include "kernel/lib/err.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "mm/mmu.h"
#include "mm/slab.h"

#define DATALEN_MSG (PAGE_SIZE - sizeof(struct msg_msg))
#define DATALEN_SEG (PAGE_SIZE - sizeof(struct msg_seg))

/* struct sigevent as user space passes it (x86-64, 64 bytes). */
struct sigevent {
	uint64_t sigev_value;
	int32_t sigev_signo;
	int32_t sigev_notify;
	int32_t pad[12];
};

void free_msg(struct msg_msg *msg)
{
	struct msg_seg *seg = msg->next;

	kfree(msg);
	while (seg) {
		struct msg_seg *next = seg->next;

		kfree(seg);
		seg = next;
	}
}

/* A message of len bytes copied from user space: ERR_PTR(-ENOMEM) or (-EFAULT). */
static struct msg_msg *load_msg(uint64_t usrc, size_t len)
{
	size_t n = MIN(len, DATALEN_MSG);
	struct msg_msg *msg = kmalloc(sizeof(*msg) + n);
	struct msg_seg **pseg;

	if (!msg)
		return ERR_PTR(-ENOMEM);
	msg->next = NULL;
	msg->m_ts = len;
	pseg = &msg->next;
	for (size_t done = n; done < len; done += MIN(len - done, DATALEN_SEG)) {
		*pseg = kmalloc(sizeof(**pseg) + MIN(len - done, DATALEN_SEG));
		if (!*pseg) {
			free_msg(msg);
			return ERR_PTR(-ENOMEM);
		}
		(*pseg)->next = NULL;
		pseg = &(*pseg)->next;
	}
	/* Copied once all is allocated: a fault that sleeps finds nothing half made. */
	if (copy_from_user(msg->data, usrc, n)) {
		free_msg(msg);
		return ERR_PTR(-EFAULT);
	}
	len -= n, usrc += n;
	for (struct msg_seg *seg = msg->next; seg; seg = seg->next) {
		n = MIN(len, DATALEN_SEG);
		if (copy_from_user(seg->data, usrc, n)) {
			free_msg(msg);
			return ERR_PTR(-EFAULT);
		}
		len -= n, usrc += n;
	}
	return msg;
}

static long store_msg(uint64_t udst, const struct msg_msg *msg)
{
	size_t len = msg->m_ts, n = MIN(len, DATALEN_MSG);

	if (copy_to_user(udst, msg->data, n))
		return -EFAULT;
	len -= n, udst += n;
	for (struct msg_seg *seg = msg->next; seg; seg = seg->next) {
		n = MIN(len, DATALEN_SEG);
		if (copy_to_user(udst, seg->data, n))
			return -EFAULT;
		len -= n, udst += n;
	}
	return 0;
}

/* Into the queue behind the last message of its priority or a higher one. */
static void msg_insert(struct msg_msg *msg, struct mqueue_inode_info *info)
{
	struct list_head *pos = info->messages.prev;

	while (pos != &info->messages &&
	       list_entry(pos, struct msg_msg, m_list)->m_type < msg->m_type)
		pos = pos->prev;
	list_add(&msg->m_list, pos);
	info->attr.mq_curmsgs++;
	info->qsize += msg->m_ts;
}

/* The oldest message of the highest priority, out of the queue (which has one). */
static struct msg_msg *msg_get(struct mqueue_inode_info *info)
{
	struct msg_msg *msg = list_first_entry(&info->messages, struct msg_msg, m_list);

	list_del(&msg->m_list);
	info->attr.mq_curmsgs--;
	info->qsize -= msg->m_ts;
	return msg;
}

/* Linux's task prio, by which sleepers are served: a real-time task's (SCHED_FIFO, SCHED_RR)
 * comes before every other, the higher its rt_priority the sooner; the rest share one (Linux's
 * nice 0: faultline keeps no nice value). */
static int waiter_prio(const struct task_struct *t)
{
	return t->rt_priority ? 99 - (int)t->rt_priority : 120;
}

/* Into the sleepers, sorted from the last to serve to the first: before the first one at least
 * as urgent, so that equals are served in order of arrival (Linux's wq_add). */
static void wq_add(struct mqueue_inode_info *info, int sr, struct ext_wait_queue *ewp)
{
	struct ext_wait_queue *walk;

	list_for_each_entry(walk, &info->e_wait_q[sr], list)
		if (waiter_prio(walk->task) <= waiter_prio(current)) {
			list_add_tail(&ewp->list, &walk->list);
			return;
		}
	list_add_tail(&ewp->list, &info->e_wait_q[sr]);
}

/* The sender or receiver to serve first (the most urgent, the longest asleep of those), or
 * NULL. */
static struct ext_wait_queue *wq_get_first_waiter(struct mqueue_inode_info *info, int sr)
{
	struct list_head *last = info->e_wait_q[sr].prev;

	return last == &info->e_wait_q[sr] ? NULL : list_entry(last, struct ext_wait_queue, list);
}

/* Sleep as a sender or receiver (sr) until served (0), a signal (-ERESTARTSYS: the timeout
 * is absolute, so a restart waits for the same time) or the jiffies deadline if timed
 * (-ETIMEDOUT, at once if it has passed), as Linux's wq_sleep. */
static long wq_sleep(struct mqueue_inode_info *info, int sr, bool timed, uint64_t deadline,
		     struct ext_wait_queue *ewp)
{
	long ret;

	ewp->task = current;
	ewp->ready = false;
	wq_add(info, sr, ewp);
	for (;;) {
		current->state = TASK_INTERRUPTIBLE;
		if (ewp->ready) {
			ret = 0;
			break;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (timed && jiffies >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (timed)
			schedule_timeout(deadline - jiffies);
		else
			schedule();
	}
	current->state = TASK_RUNNING;
	if (!ewp->ready)
		list_del(&ewp->list);
	return ret;
}

static void wq_serve(struct ext_wait_queue *ewp)
{
	list_del(&ewp->list);
	ewp->ready = true;
	wake_up_process(ewp->task);
}

/* Room was made: a sleeping sender's message takes it, else pollers hear of it. */
static void pipelined_receive(struct mqueue_inode_info *info)
{
	struct ext_wait_queue *sender = wq_get_first_waiter(info, SEND);

	if (!sender) {
		wake_up(&info->wait_q);
		return;
	}
	msg_insert(sender->msg, info);
	wq_serve(sender);
}

/* The queue went from empty to one message, with no receiver asleep: the registered process
 * hears of it once (its registration goes), as Linux's __do_notify. */
static void __do_notify(struct mqueue_inode_info *info)
{
	if (info->notify_owner && info->attr.mq_curmsgs == 1) {
		if (info->notify_kind == SIGEV_SIGNAL && info->notify_signo) {
			struct ksiginfo si = { .signo = info->notify_signo, .code = SI_MESGQ,
					       .pid = current->tgid, .uid = current->cred.uid,
					       .value = info->notify_value };
			struct task_struct *p = find_task_by_pid(info->notify_owner);

			if (p)
				group_send_sig_info(si.signo, &si, p);
		}
		remove_notification(info);
	}
	wake_up(&info->wait_q);
}

void remove_notification(struct mqueue_inode_info *info)
{
	info->notify_owner = 0;
}

static void mqueue_touch(struct file *f)
{
	f->f_inode->i_atime = f->f_inode->i_mtime = f->f_inode->i_ctime = current_time();
}

/* An absolute CLOCK_REALTIME timeout as a jiffies deadline, rounded up: -EFAULT, or -EINVAL
 * for a timespec that is no time (checked before anything else, as Linux does). */
static long prepare_timeout(uint64_t uts, uint64_t *deadline)
{
	int64_t ts[2];
	uint64_t ticks;

	if (copy_from_user(ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	if (ts[0] > (1LL << 40)) /* tens of thousands of years: never */
		ticks = 1ULL << 50;
	else
		ticks = (uint64_t)ts[0] * HZ +
			((uint64_t)ts[1] + 1000000000 / HZ - 1) / (1000000000 / HZ);
	*deadline = realtime_ticks_to_jiffies(ticks);
	return 0;
}

/* The open queue behind descriptor fd, held (get_file): NULL and -EBADF if it is none. */
static struct file *mq_fget(int64_t mqdes, struct mqueue_inode_info **info)
{
	struct file *f = (int)mqdes < 0 ? NULL : fget((uint64_t)(int)mqdes);

	*info = mqueue_file_info(f);
	if (!*info)
		return NULL;
	get_file(f);
	return f;
}

long sys_mq_timedsend(int64_t mqdes, uint64_t uptr, uint64_t len, uint64_t uprio, uint64_t uts)
{
	uint32_t prio = (uint32_t)uprio;
	struct mqueue_inode_info *info;
	struct ext_wait_queue wait, *receiver;
	struct msg_msg *msg;
	uint64_t deadline = 0;
	struct file *f;
	long ret = 0;

	if (uts && (ret = prepare_timeout(uts, &deadline)))
		return ret;
	if (prio >= MQ_PRIO_MAX)
		return -EINVAL;
	f = mq_fget(mqdes, &info);
	if (!f)
		return -EBADF;
	if (!(f->f_mode & FMODE_WRITE))
		ret = -EBADF;
	else if (len > (uint64_t)info->attr.mq_msgsize)
		ret = -EMSGSIZE;
	if (ret) {
		fput(f);
		return ret;
	}
	msg = load_msg(uptr, len);
	if (IS_ERR(msg)) {
		fput(f);
		return PTR_ERR(msg);
	}
	msg->m_type = prio;
	if (info->attr.mq_curmsgs == info->attr.mq_maxmsg) {
		if (f->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
		} else {
			wait.msg = msg;
			ret = wq_sleep(info, SEND, uts, deadline, &wait);
		}
	} else {
		receiver = wq_get_first_waiter(info, RECV);
		if (receiver) {
			receiver->msg = msg;
			wq_serve(receiver);
		} else {
			msg_insert(msg, info);
			__do_notify(info);
		}
		mqueue_touch(f);
	}
	if (ret)
		free_msg(msg);
	fput(f);
	return ret;
}

long sys_mq_timedreceive(int64_t mqdes, uint64_t uptr, uint64_t len, uint64_t uprio,
			 uint64_t uts)
{
	struct mqueue_inode_info *info;
	struct ext_wait_queue wait = { .msg = NULL };
	struct msg_msg *msg = NULL;
	uint64_t deadline = 0;
	struct file *f;
	long ret = 0;

	if (uts && (ret = prepare_timeout(uts, &deadline)))
		return ret;
	f = mq_fget(mqdes, &info);
	if (!f)
		return -EBADF;
	if (!(f->f_mode & FMODE_READ))
		ret = -EBADF;
	else if (len < (uint64_t)info->attr.mq_msgsize)
		ret = -EMSGSIZE;
	else if (info->attr.mq_curmsgs) {
		msg = msg_get(info);
		mqueue_touch(f);
		pipelined_receive(info);
	} else if (f->f_flags & O_NONBLOCK) {
		ret = -EAGAIN;
	} else {
		ret = wq_sleep(info, RECV, uts, deadline, &wait);
		msg = wait.msg; /* the sender's, handed over */
	}
	fput(f);
	if (ret)
		return ret;
	/* As Linux, the message is out of the queue before the copy: a bad buffer loses it. */
	ret = (long)msg->m_ts;
	if ((uprio && copy_to_user(uprio, &(uint32_t){ (uint32_t)msg->m_type }, 4)) ||
	    store_msg(uptr, msg))
		ret = -EFAULT;
	free_msg(msg);
	return ret;
}

/* SIGEV_THREAD names a netlink socket (sigev_signo) to which the cookie at sigev_value is sent:
 * faultline has no netlink sockets, so the registration fails as Linux's would with a socket
 * of another family (-EINVAL) or a descriptor that is no socket (-ENOTSOCK), after -EFAULT
 * for the cookie and -EBADF for the descriptor. */
static long notify_thread_sock(const struct sigevent *ev)
{
	char cookie[NOTIFY_COOKIE_LEN];
	struct file *sock;

	if (copy_from_user(cookie, ev->sigev_value, sizeof(cookie)))
		return -EFAULT;
	sock = ev->sigev_signo < 0 ? NULL : fget((uint64_t)ev->sigev_signo);
	if (!sock)
		return -EBADF;
	return S_ISSOCK(sock->f_inode->i_mode) ? -EINVAL : -ENOTSOCK;
}

long sys_mq_notify(int64_t mqdes, uint64_t usev)
{
	struct mqueue_inode_info *info;
	struct sigevent ev;
	struct file *f;
	long ret = 0;

	if (usev) {
		if (copy_from_user(&ev, usev, sizeof(ev)))
			return -EFAULT;
		if (ev.sigev_notify != SIGEV_NONE && ev.sigev_notify != SIGEV_SIGNAL &&
		    ev.sigev_notify != SIGEV_THREAD)
			return -EINVAL;
		if (ev.sigev_notify == SIGEV_SIGNAL && (uint32_t)ev.sigev_signo > NSIG)
			return -EINVAL;
		if (ev.sigev_notify == SIGEV_THREAD)
			return notify_thread_sock(&ev);
	}
	f = mq_fget(mqdes, &info);
	if (!f)
		return -EBADF;
	if (!usev) {
		if (info->notify_owner == current->tgid) {
			remove_notification(info);
			f->f_inode->i_atime = f->f_inode->i_ctime = current_time();
		}
	} else if (info->notify_owner) {
		ret = -EBUSY;
	} else {
		info->notify_kind = ev.sigev_notify;
		info->notify_signo = ev.sigev_signo;
		info->notify_value = ev.sigev_value;
		info->notify_owner = current->tgid;
		f->f_inode->i_atime = f->f_inode->i_ctime = current_time();
	}
	fput(f);
	return ret;
}

long sys_mq_getsetattr(int64_t mqdes, uint64_t unew, uint64_t uold)
{
	struct mqueue_inode_info *info;
	struct mq_attr new, old;
	struct file *f;

	if (unew && copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if (unew && (new.mq_flags & ~(int64_t)O_NONBLOCK))
		return -EINVAL;
	f = mq_fget(mqdes, &info);
	if (!f)
		return -EBADF;
	old = info->attr;
	old.mq_flags = f->f_flags & O_NONBLOCK;
	if (unew) {
		if (new.mq_flags & O_NONBLOCK)
			f->f_flags |= O_NONBLOCK;
		else
			f->f_flags &= ~(unsigned int)O_NONBLOCK;
		f->f_inode->i_atime = f->f_inode->i_ctime = current_time();
	}
	fput(f);
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
