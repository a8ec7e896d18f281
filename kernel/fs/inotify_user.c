/* inotify(7): a descriptor on the anonymous inode whose reads are struct inotify_event records
 * of what happened to the inodes it watches (Linux's fs/notify/inotify/): inotify_init1,
 * inotify_add_watch, inotify_rm_watch, the queue with its merging and its overflow, and the
 * per-user limits of /proc/sys/fs/inotify. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/inotify.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/poll.h"
#include "kernel/initcall.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/gfp.h"
#include "mm/mmu.h"
#include "mm/slab.h"

/* inotify_add_watch's mask bits that are not events (Linux's values) */
#define IN_ONLYDIR 0x01000000
#define IN_DONT_FOLLOW 0x02000000
#define IN_EXCL_UNLINK 0x04000000
#define IN_MASK_CREATE 0x10000000
#define IN_MASK_ADD 0x20000000
#define IN_ONESHOT 0x80000000
#define IN_ALL_EVENTS 0x00000fff
/* Every bit inotify_add_watch knows; a mask with another is EINVAL, one with none too. */
#define ALL_INOTIFY_BITS (IN_ALL_EVENTS | FS_UNMOUNT | FS_Q_OVERFLOW | FS_IN_IGNORED | \
			  IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_CREATE |    \
			  IN_MASK_ADD | FS_ISDIR | IN_ONESHOT)
#define IN_CLOEXEC O_CLOEXEC
#define IN_NONBLOCK O_NONBLOCK
#define FIONREAD 0x541b

int inotify_max_queued_events = 16384;
int inotify_max_user_instances = 128;
int inotify_max_user_watches = 8192; /* set from the memory at boot, as Linux */

/* What one user (by effective uid at inotify_init) holds: instances and watches (Linux's
 * ucounts, for the limits above). */
struct inotify_ucounts {
	struct list_head list;
	uint32_t uid;
	int instances, watches;
};

static LIST_HEAD(inotify_users);

/* One queued event (Linux's inotify_event_info): name_len bytes of name, no NUL counted. */
struct inotify_event_info {
	struct list_head list;
	uint32_t mask;
	int wd;
	uint32_t sync_cookie;
	uint32_t name_len;
	char name[];
};

/* An inotify instance (Linux's fsnotify_group with its inotify_data). */
struct fsnotify_group {
	struct list_head notification_list; /* the events, oldest first */
	unsigned int q_len, max_events;
	struct inotify_event_info *overflow_event; /* queued at most once: IN_Q_OVERFLOW */
	struct wait_queue_head notification_waitq; /* readers, poll and epoll */
	struct list_head marks;                    /* its watches, by g_list */
	int last_wd;                               /* wds are handed out cyclically from 1 */
	bool shutdown;                             /* being released: no more events */
	struct inotify_ucounts *ucounts;
};

/* The record as read(2) gives it (struct inotify_event). */
struct inotify_event {
	int32_t wd;
	uint32_t mask, cookie, len;
};

/* A name's room in a record: with its NUL, rounded up to a whole record header. */
static size_t round_event_name_len(const struct inotify_event_info *ev)
{
	return ev->name_len ? ALIGN_UP(ev->name_len + 1, sizeof(struct inotify_event)) : 0;
}

static struct inotify_ucounts *get_ucounts(uint32_t uid)
{
	struct inotify_ucounts *uc;

	list_for_each_entry(uc, &inotify_users, list)
		if (uc->uid == uid)
			return uc;
	uc = kzalloc(sizeof(*uc));
	if (uc) {
		uc->uid = uid;
		list_add(&uc->list, &inotify_users);
	}
	return uc;
}

static void put_ucounts(struct inotify_ucounts *uc)
{
	if (!uc->instances && !uc->watches) {
		list_del(&uc->list);
		kfree(uc);
	}
}

/* Linux's inotify_merge: an event equal to the last one queued (mask, wd, name; not an
 * IN_IGNORED) is that one. */
static bool inotify_merge(struct fsnotify_group *group, const struct inotify_event_info *ev)
{
	const struct inotify_event_info *last =
		list_entry(group->notification_list.prev, struct inotify_event_info, list);

	if (last->mask & FS_IN_IGNORED)
		return false;
	return last->mask == ev->mask && last->wd == ev->wd && last->name_len == ev->name_len &&
	       !memcmp(last->name, ev->name, ev->name_len);
}

/* Queue ev (Linux's fsnotify_add_event): merged with the last event, or, when the queue holds
 * max_events already, dropped for the one IN_Q_OVERFLOW. ev NULL: memory ran out. */
static void inotify_add_event(struct fsnotify_group *group, struct inotify_event_info *ev)
{
	if (group->shutdown) {
		kfree(ev);
		return;
	}
	if (!ev || group->q_len >= group->max_events) {
		kfree(ev);
		if (!list_empty(&group->overflow_event->list))
			return; /* queued already */
		ev = group->overflow_event;
	} else if (!list_empty(&group->notification_list) && inotify_merge(group, ev)) {
		kfree(ev);
		return;
	}
	group->q_len++;
	list_add_tail(&ev->list, &group->notification_list);
	wake_up(&group->notification_waitq);
}

static void queue_event(struct fsnotify_group *group, int wd, uint32_t mask, const char *name,
			size_t len, uint32_t cookie)
{
	struct inotify_event_info *ev = kmalloc(sizeof(*ev) + len + 1);

	if (ev) {
		INIT_LIST_HEAD(&ev->list);
		ev->mask = mask;
		ev->wd = wd;
		ev->sync_cookie = cookie;
		ev->name_len = (uint32_t)len;
		memcpy(ev->name, name, len);
		ev->name[len] = '\0';
	}
	inotify_add_event(group, ev);
}

static void inotify_handle_inode_event(struct fsnotify_mark *mark, uint32_t mask,
				       const char *name, size_t len, uint32_t cookie)
{
	/* inotify never said IN_ISDIR with these two (Linux keeps it so) */
	if (mask & (FS_MOVE_SELF | FS_DELETE_SELF))
		mask &= ~(uint32_t)FS_ISDIR;
	queue_event(mark->group, mark->wd, mask, name, len, cookie);
	if (mark->flags & FSNOTIFY_MARK_FLAG_IN_ONESHOT)
		fsnotify_destroy_mark(mark);
}

/* The watch goes: its IN_IGNORED, then its wd is free and the user's count drops. */
static void inotify_freeing_mark(struct fsnotify_mark *mark)
{
	struct fsnotify_group *group = mark->group;

	queue_event(group, mark->wd, FS_IN_IGNORED, NULL, 0, 0);
	list_del(&mark->g_list);
	group->ucounts->watches--;
	kfree(mark);
}

static const struct fsnotify_ops inotify_fsnotify_ops = {
	.handle_inode_event = inotify_handle_inode_event,
	.freeing_mark = inotify_freeing_mark,
};

static unsigned int inotify_poll(struct file *f, struct poll_table_struct *pt)
{
	struct fsnotify_group *group = f->private_data;

	poll_wait(f, &group->notification_waitq, pt);
	return list_empty(&group->notification_list) ? 0 : POLLIN | POLLRDNORM;
}

/* The first event as a record (header, name, zeroes) into ubuf: its size, or -EFAULT. The event
 * is gone either way, as Linux's. */
static long copy_event_to_user(struct fsnotify_group *group, uint64_t ubuf)
{
	struct inotify_event_info *ev =
		list_first_entry(&group->notification_list, struct inotify_event_info, list);
	size_t pad = round_event_name_len(ev);
	uint8_t rec[sizeof(struct inotify_event) + NAME_MAX + 1 + sizeof(struct inotify_event)];
	struct inotify_event hdr = { .wd = ev->wd, .cookie = ev->sync_cookie, .len = (uint32_t)pad,
				     .mask = ev->mask & (IN_ALL_EVENTS | FS_ISDIR | FS_UNMOUNT |
							 FS_IN_IGNORED | FS_Q_OVERFLOW) };

	memset(rec, 0, sizeof(hdr) + pad);
	memcpy(rec, &hdr, sizeof(hdr));
	memcpy(rec + sizeof(hdr), ev->name, ev->name_len);
	list_del(&ev->list); /* (and empty: an overflow event may queue again) */
	group->q_len--;
	if (ev != group->overflow_event)
		kfree(ev);
	return copy_to_user(ubuf, rec, sizeof(hdr) + pad) ? -EFAULT : (long)(sizeof(hdr) + pad);
}

/*
 * As many whole records as fit in n bytes; -EINVAL if the first does not. With none queued it
 * waits (O_NONBLOCK: -EAGAIN; a signal: -ERESTARTSYS), and once it has some it stops at an
 * empty queue.
 */
static long inotify_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct fsnotify_group *group = f->private_data;
	uint64_t start = ubuf;
	long ret;

	(void)pos;
	for (;;) {
		if (!list_empty(&group->notification_list)) {
			struct inotify_event_info *ev = list_first_entry(
				&group->notification_list, struct inotify_event_info, list);

			ret = -EINVAL;
			if (sizeof(struct inotify_event) + round_event_name_len(ev) > n)
				break;
			ret = copy_event_to_user(group, ubuf);
			if (ret < 0)
				break;
			ubuf += (uint64_t)ret;
			n -= (uint64_t)ret;
			continue;
		}
		ret = -EAGAIN;
		if ((f->f_flags & O_NONBLOCK) || start != ubuf)
			break;
		if (wait_event_interruptible(group->notification_waitq,
					     !list_empty(&group->notification_list))) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	if (start != ubuf && ret != -EFAULT)
		ret = (long)(ubuf - start);
	return ret;
}

/* FIONREAD: the bytes of every record queued, as an int. */
static long inotify_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct fsnotify_group *group = f->private_data;
	struct inotify_event_info *ev;
	int len = 0;

	if (cmd != FIONREAD)
		return -ENOTTY;
	list_for_each_entry(ev, &group->notification_list, list)
		len += (int)(sizeof(struct inotify_event) + round_event_name_len(ev));
	return copy_to_user(arg, &len, sizeof(len)) ? -EFAULT : 0;
}

/* The last close: every watch goes (their IN_IGNORED unread), then the queue. */
static void inotify_release(struct inode *ino, struct file *f)
{
	struct fsnotify_group *group = f->private_data;

	(void)ino;
	group->shutdown = true;
	while (!list_empty(&group->marks)) /* each with an IN_IGNORED that goes unqueued */
		fsnotify_destroy_mark(
			list_first_entry(&group->marks, struct fsnotify_mark, g_list));
	while (!list_empty(&group->notification_list)) {
		struct inotify_event_info *ev = list_first_entry(&group->notification_list,
								 struct inotify_event_info, list);

		list_del(&ev->list);
		if (ev != group->overflow_event)
			kfree(ev);
	}
	kfree(group->overflow_event);
	group->ucounts->instances--;
	put_ucounts(group->ucounts);
	kfree(group);
}

static const struct file_operations inotify_fops = {
	.llseek = noop_llseek,
	.read = inotify_read,
	.ioctl = inotify_ioctl,
	.poll = inotify_poll,
	.release = inotify_release,
};

/* A new instance for current's user: -EMFILE past max_user_instances, -ENOMEM. */
static long inotify_new_group(struct fsnotify_group **out)
{
	struct inotify_ucounts *uc = get_ucounts(current->cred.euid);
	struct fsnotify_group *group;

	if (!uc)
		return -ENOMEM;
	if (uc->instances >= READ_ONCE(inotify_max_user_instances)) {
		put_ucounts(uc);
		return -EMFILE;
	}
	group = kzalloc(sizeof(*group));
	if (group)
		group->overflow_event = kzalloc(sizeof(*group->overflow_event));
	if (!group || !group->overflow_event) {
		kfree(group);
		put_ucounts(uc);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&group->notification_list);
	INIT_LIST_HEAD(&group->marks);
	init_waitqueue_head(&group->notification_waitq);
	INIT_LIST_HEAD(&group->overflow_event->list);
	group->overflow_event->mask = FS_Q_OVERFLOW;
	group->overflow_event->wd = -1;
	group->max_events = (unsigned int)READ_ONCE(inotify_max_queued_events);
	group->ucounts = uc;
	uc->instances++;
	*out = group;
	return 0;
}

long sys_inotify_init1(int flags)
{
	struct fsnotify_group *group;
	long err;

	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	err = inotify_new_group(&group);
	if (err)
		return err;
	/* on failure the file, if made, was released (the group with it) */
	return anon_inode_getfd("inotify", &inotify_fops, group,
				O_RDONLY | ((unsigned int)flags & (IN_CLOEXEC | IN_NONBLOCK)));
}

long sys_inotify_init(void)
{
	return sys_inotify_init1(0);
}

/* The mark's events and flags from inotify_add_watch's mask (a directory's: its children's
 * events too). */
static uint32_t inotify_arg_to_mask(const struct inode *inode, uint32_t arg)
{
	return FS_UNMOUNT | (S_ISDIR(inode->i_mode) ? FS_EVENT_ON_CHILD : 0) |
	       (arg & IN_ALL_EVENTS);
}

static unsigned int inotify_arg_to_flags(uint32_t arg)
{
	return ((arg & IN_EXCL_UNLINK) ? FSNOTIFY_MARK_FLAG_EXCL_UNLINK : 0) |
	       ((arg & IN_ONESHOT) ? FSNOTIFY_MARK_FLAG_IN_ONESHOT : 0);
}

static bool wd_in_use(struct fsnotify_group *group, int wd)
{
	struct fsnotify_mark *m;

	list_for_each_entry(m, &group->marks, g_list)
		if (m->wd == wd)
			return true;
	return false;
}

/* Linux's idr_alloc_cyclic from 1: the lowest free wd after the last one handed out. */
static int inotify_next_wd(struct fsnotify_group *group)
{
	int wd = group->last_wd;

	do
		wd = wd == INT32_MAX ? 1 : wd + 1;
	while (wd_in_use(group, wd));
	group->last_wd = wd;
	return wd;
}

static long inotify_new_watch(struct fsnotify_group *group, struct inode *inode, uint32_t arg)
{
	struct fsnotify_mark *mark = kzalloc(sizeof(*mark));
	int wd;

	if (!mark)
		return -ENOMEM;
	wd = inotify_next_wd(group); /* taken before the limit's check, as Linux's idr */
	if (group->ucounts->watches >= READ_ONCE(inotify_max_user_watches)) {
		kfree(mark);
		return -ENOSPC;
	}
	mark->group = group;
	mark->ops = &inotify_fsnotify_ops;
	mark->mask = inotify_arg_to_mask(inode, arg);
	mark->flags = inotify_arg_to_flags(arg);
	mark->wd = wd;
	list_add_tail(&mark->g_list, &group->marks);
	group->ucounts->watches++;
	fsnotify_add_mark(mark, inode);
	return wd;
}

/* The group's watch on inode takes arg (added to its mask with IN_MASK_ADD, else in its
 * place), or a new one is made: the wd, or -EEXIST (IN_MASK_CREATE), -ENOSPC, -ENOMEM. */
static long inotify_update_watch(struct fsnotify_group *group, struct inode *inode, uint32_t arg)
{
	struct fsnotify_mark *mark = fsnotify_find_mark(inode, group);

	if (!mark)
		return inotify_new_watch(group, inode, arg);
	if (arg & IN_MASK_CREATE)
		return -EEXIST;
	if (!(arg & IN_MASK_ADD)) {
		mark->mask = 0;
		mark->flags = 0;
	}
	mark->mask |= inotify_arg_to_mask(inode, arg);
	mark->flags |= inotify_arg_to_flags(arg);
	fsnotify_recalc_mask(inode);
	return mark->wd;
}

/* The instance open on fd: -EBADF, or -EINVAL for a descriptor of anything else. */
static long inotify_group_of(int fd, struct fsnotify_group **out)
{
	struct file *f = fd >= 0 ? fget((uint64_t)fd) : NULL;

	if (!f)
		return -EBADF;
	if (f->f_op != &inotify_fops)
		return -EINVAL;
	*out = f->private_data;
	return 0;
}

/* Linux's checks in its order: the mask, the descriptor, the two ways of updating at once,
 * the kind of descriptor, the path (IN_DONT_FOLLOW: a last symbolic link itself; IN_ONLYDIR:
 * -ENOTDIR for anything but a directory), read permission on what it names. */
long sys_inotify_add_watch(int fd, uint64_t upath, uint32_t mask)
{
	struct fsnotify_group *group;
	struct inode *inode;
	struct file *f;
	long err;

	if ((mask & ~(uint32_t)ALL_INOTIFY_BITS) || !(mask & ALL_INOTIFY_BITS))
		return -EINVAL;
	f = fd >= 0 ? fget((uint64_t)fd) : NULL;
	if (!f)
		return -EBADF;
	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		return -EINVAL;
	err = inotify_group_of(fd, &group);
	if (err)
		return err;
	err = user_path_at(AT_FDCWD, upath, !(mask & IN_DONT_FOLLOW), &inode);
	if (err)
		return err;
	if ((mask & IN_ONLYDIR) && !S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	err = inode_permission(inode, MAY_READ);
	return err ? err : inotify_update_watch(group, inode, mask);
}

long sys_inotify_rm_watch(int fd, int wd)
{
	struct fsnotify_group *group;
	struct fsnotify_mark *m;
	long err = inotify_group_of(fd, &group);

	if (err)
		return err;
	list_for_each_entry(m, &group->marks, g_list)
		if (m->wd == wd) {
			fsnotify_destroy_mark(m);
			return 0;
		}
	return -EINVAL;
}

/* Linux's default for max_user_watches: what 1 % of memory holds of a watch and two inodes,
 * between 8192 and 1048576. */
static void inotify_user_setup(void)
{
	uint64_t cost = sizeof(struct fsnotify_mark) + 2 * sizeof(struct inode);
	uint64_t max = (nr_managed_pages() / 100) * PAGE_SIZE / cost;

	inotify_max_user_watches = (int)MIN(MAX(max, 8192ULL), 1048576ULL);
}
device_initcall(inotify_user_setup);
