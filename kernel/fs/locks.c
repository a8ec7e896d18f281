/* POSIX record locks (fcntl F_GETLK, F_SETLK, F_SETLKW) with Linux's fs/locks.c names: a lock
 * is a byte range of an inode held by a process (its files_struct), shared (F_RDLCK) or
 * exclusive (F_WRLCK). A process's own locks never overlap: a new one replaces, splits or
 * merges with them (posix_lock_file). Closing any descriptor of the file drops them all.
 * Open file description locks (F_OFD_*) are the same ranges owned by the struct file instead:
 * they go when its last reference does, and a process's two opens of a file conflict.
 * flock(2)'s BSD locks are whole-file locks owned by the open file description too, on a list
 * of their own: they never meet POSIX locks, as in Linux. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/locks.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define F_RDLCK	   0
#define F_WRLCK	   1
#define F_UNLCK	   2
#define OFFSET_MAX INT64_MAX
#define SEEK_SET   0
#define SEEK_CUR   1
#define SEEK_END   2
#define DEADLOCK_DEPTH 16 /* how far a chain of waiters is followed, as Linux's MAX_DEADLK */

/* The user's struct flock on x86-64. */
struct flock {
	int16_t l_type, l_whence;
	int64_t l_start, l_len;
	int32_t l_pid;
};

struct file_lock {
	struct list_head fl_link;     /* in file_locks */
	struct inode *fl_inode;
	void *fl_owner;               /* the process's files_struct, or an OFD lock's file */
	int fl_pid;                   /* what F_GETLK reports: the pid, -1 for an OFD lock */
	int fl_type;                  /* F_RDLCK or F_WRLCK */
	int64_t fl_start, fl_end;     /* inclusive; fl_end OFFSET_MAX: to the end of any file */
};

/* A process asleep in F_SETLKW, and the owner of the lock it waits for: the edges that
 * deadlock detection follows. */
struct lock_waiter {
	struct list_head link;
	void *owner, *blocker;
};

static LIST_HEAD(file_locks);
static LIST_HEAD(blocked_waiters);
static DECLARE_WAIT_QUEUE_HEAD(lock_wait);

static bool overlap(const struct file_lock *a, const struct file_lock *b)
{
	return a->fl_inode == b->fl_inode && a->fl_start <= b->fl_end && b->fl_start <= a->fl_end;
}

/* Another process's lock that request conflicts with (one of them exclusive), the lowest
 * such (Linux keeps each owner's locks sorted by start), or NULL. */
static struct file_lock *posix_test_lock(const struct file_lock *request)
{
	struct file_lock *fl, *found = NULL;

	list_for_each_entry(fl, &file_locks, fl_link)
		if (fl->fl_owner != request->fl_owner && overlap(fl, request) &&
		    (fl->fl_type == F_WRLCK || request->fl_type == F_WRLCK) &&
		    (!found || fl->fl_start < found->fl_start))
			found = fl;
	return found;
}

/* Would owner waiting for blocker close a cycle of waiting processes? */
static bool posix_locks_deadlock(void *owner, void *blocker)
{
	for (int i = 0; i < DEADLOCK_DEPTH; i++) {
		struct lock_waiter *w, *next = NULL;

		if (blocker == owner)
			return true;
		list_for_each_entry(w, &blocked_waiters, link)
			if (w->owner == blocker)
				next = w;
		if (!next)
			return false;
		blocker = next->blocker;
	}
	return false;
}

/*
 * Apply request (F_UNLCK included) to its owner's locks, which the caller checked it does
 * not conflict with others': the owner's locks of the same type that overlap or touch it are
 * merged into it, those of the other type are cut back (a lock wholly around it splits in
 * two). 0, or -ENOLCK without memory (nothing changed).
 */
static int posix_lock_file(struct file_lock *request)
{
	struct file_lock *fl, *spare[2] = { NULL, NULL };
	struct list_head *pos, *n;
	int64_t start = request->fl_start, end = request->fl_end;
	int used = 0;

	for (int i = 0; i < 2; i++) {
		spare[i] = kmalloc(sizeof(*spare[i]));
		if (!spare[i]) {
			kfree(spare[0]);
			return -ENOLCK;
		}
	}
	list_for_each_safe(pos, n, &file_locks) {
		fl = list_entry(pos, struct file_lock, fl_link);
		if (fl->fl_owner != request->fl_owner || fl->fl_inode != request->fl_inode)
			continue;
		if (request->fl_type == fl->fl_type) {
			/* Same type, overlapping or adjacent: one lock. */
			if ((fl->fl_end != OFFSET_MAX && fl->fl_end + 1 < start) ||
			    (end != OFFSET_MAX && end + 1 < fl->fl_start))
				continue;
			start = MIN(start, fl->fl_start);
			end = MAX(end, fl->fl_end);
			list_del(&fl->fl_link);
			kfree(fl);
			continue;
		}
		if (fl->fl_end < start || fl->fl_start > end)
			continue;
		if (fl->fl_start < start && fl->fl_end > end) { /* split around the request */
			*spare[used] = *fl;
			spare[used]->fl_start = end + 1;
			list_add_tail(&spare[used++]->fl_link, &file_locks);
			fl->fl_end = start - 1;
		} else if (fl->fl_start < start) {
			fl->fl_end = start - 1;
		} else if (fl->fl_end > end) {
			fl->fl_start = end + 1;
		} else {
			list_del(&fl->fl_link);
			kfree(fl);
		}
	}
	if (request->fl_type != F_UNLCK) {
		*spare[used] = *request;
		spare[used]->fl_start = start;
		spare[used]->fl_end = end;
		list_add_tail(&spare[used++]->fl_link, &file_locks);
	}
	while (used < 2)
		kfree(spare[used++]);
	wake_up(&lock_wait); /* any waiter may be free to go now */
	return 0;
}

/* struct flock to a lock request on f (Linux's flock_to_posix_lock): -EINVAL for a bad
 * l_whence or a range starting before 0, -EOVERFLOW for one past OFFSET_MAX. An OFD
 * request (ofd) is owned by f and must come with l_pid 0. */
static long flock_to_posix_lock(struct file *f, const struct flock *l, struct file_lock *fl,
				bool ofd)
{
	if (ofd && l->l_pid != 0)
		return -EINVAL;
	int64_t start;

	switch (l->l_whence) {
	case SEEK_SET: start = 0; break;
	case SEEK_CUR: start = (int64_t)f->f_pos; break;
	case SEEK_END: start = (int64_t)f->f_inode->i_size; break;
	default: return -EINVAL;
	}
	if (l->l_start > OFFSET_MAX - start)
		return -EOVERFLOW;
	start += l->l_start;
	if (start < 0)
		return -EINVAL;
	if (l->l_len > 0) {
		if (l->l_len - 1 > OFFSET_MAX - start)
			return -EOVERFLOW;
		fl->fl_end = start + l->l_len - 1;
	} else if (l->l_len < 0) { /* the l_len bytes before l_start */
		fl->fl_end = start - 1;
		start += l->l_len;
		if (start < 0)
			return -EINVAL;
	} else {
		fl->fl_end = OFFSET_MAX;
	}
	fl->fl_start = start;
	fl->fl_inode = f->f_inode;
	fl->fl_owner = ofd ? (void *)f : (void *)current->files;
	fl->fl_pid = ofd ? -1 : current->pid;
	if (l->l_type != F_RDLCK && l->l_type != F_WRLCK && l->l_type != F_UNLCK)
		return -EINVAL;
	fl->fl_type = l->l_type;
	return 0;
}

long fcntl_getlk(struct file *f, unsigned int cmd, uint64_t uflock)
{
	struct file_lock req, *fl;
	struct flock l;
	long err;

	if (copy_from_user(&l, uflock, sizeof(l)))
		return -EFAULT;
	if (l.l_type != F_RDLCK && l.l_type != F_WRLCK)
		return -EINVAL;
	if ((err = flock_to_posix_lock(f, &l, &req, cmd == F_OFD_GETLK)))
		return err;
	fl = posix_test_lock(&req);
	if (!fl) {
		l.l_type = F_UNLCK; /* the rest stays as the caller gave it */
	} else {
		l.l_type = (int16_t)fl->fl_type;
		l.l_whence = SEEK_SET;
		l.l_start = fl->fl_start;
		l.l_len = fl->fl_end == OFFSET_MAX ? 0 : fl->fl_end - fl->fl_start + 1;
		l.l_pid = fl->fl_pid;
	}
	return copy_to_user(uflock, &l, sizeof(l)) ? -EFAULT : 0;
}

/*
 * F_SETLK and F_SETLKW, in Linux's order: the range (-EINVAL, -EOVERFLOW), the open mode
 * (-EBADF: a read lock needs a file open for reading, a write lock one open for writing),
 * then the conflict: -EAGAIN for F_SETLK; F_SETLKW sleeps until the conflict is gone, fails
 * with -EDEADLK if the holder is itself (through others) waiting for this process, and is
 * interrupted by a signal (-ERESTARTSYS: EINTR, or a restart with SA_RESTART).
 */
long fcntl_setlk(struct file *f, unsigned int cmd, uint64_t uflock)
{
	bool ofd = cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	bool wait = cmd == F_SETLKW || cmd == F_OFD_SETLKW;
	struct lock_waiter me;
	struct wait_queue_entry w;
	struct file_lock req, *fl;
	struct flock l;
	long err;

	if (copy_from_user(&l, uflock, sizeof(l)))
		return -EFAULT;
	if ((err = flock_to_posix_lock(f, &l, &req, ofd)))
		return err;
	me.owner = req.fl_owner;
	if ((req.fl_type == F_RDLCK && !(f->f_mode & FMODE_READ)) ||
	    (req.fl_type == F_WRLCK && !(f->f_mode & FMODE_WRITE)))
		return -EBADF;
	if (req.fl_type == F_UNLCK)
		return posix_lock_file(&req);
	init_wait(&w, current);
	for (;;) {
		/* Asleep-to-be before the test, so that an unlock in between wakes us. */
		prepare_to_wait(&lock_wait, &w, TASK_INTERRUPTIBLE);
		fl = posix_test_lock(&req);
		/* Deadlocks are looked for between processes only, as in Linux. */
		if (!fl || !wait || signal_pending(current) ||
		    (!ofd && posix_locks_deadlock(me.owner, fl->fl_owner)))
			break;
		me.blocker = fl->fl_owner;
		list_add_tail(&me.link, &blocked_waiters);
		schedule();
		list_del(&me.link);
	}
	finish_wait(&lock_wait, &w);
	if (!fl)
		return posix_lock_file(&req);
	if (!wait)
		return -EAGAIN;
	if (signal_pending(current))
		return -ERESTARTSYS;
	return -EDEADLK;
}

/* Drop every lock owned by owner on f's inode; wake the waiters if there was one. */
static void locks_remove_owner(struct file *f, void *owner)
{
	struct list_head *pos, *n;
	bool removed = false;

	if (!f)
		return;
	list_for_each_safe(pos, n, &file_locks) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_link);

		if (fl->fl_owner == owner && fl->fl_inode == f->f_inode) {
			list_del(&fl->fl_link);
			kfree(fl);
			removed = true;
		}
	}
	if (removed)
		wake_up(&lock_wait);
}

void locks_remove_posix(struct file *f, struct files_struct *files)
{
	locks_remove_owner(f, files);
}

/* flock(2)'s operations, Linux's numbers */
#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
#define LOCK_MAND 32

static LIST_HEAD(flock_locks); /* whole-file locks, fl_owner the struct file */

/* Drop f's flock lock, if it has one: whether it did. */
static bool flock_remove(struct file *f)
{
	struct file_lock *fl;

	list_for_each_entry(fl, &flock_locks, fl_link)
		if (fl->fl_owner == f) {
			list_del(&fl->fl_link);
			kfree(fl);
			wake_up(&lock_wait);
			return true;
		}
	return false;
}

/* Another open file's flock lock on f's inode that type conflicts with, or NULL */
static struct file_lock *flock_test(struct file *f, int type)
{
	struct file_lock *fl;

	list_for_each_entry(fl, &flock_locks, fl_link)
		if (fl->fl_owner != f && fl->fl_inode == f->f_inode &&
		    (fl->fl_type == F_WRLCK || type == F_WRLCK))
			return fl;
	return NULL;
}

/*
 * Linux's flock_lock_inode: a lock of the type held already is kept; else the one held goes
 * first (a conversion is not atomic: if the new one must wait, or cannot with LOCK_NB, the old
 * one is gone all the same), then the new one waits for the conflicting ones to go.
 */
long sys_flock(uint64_t fd, uint64_t cmd)
{
	struct file *f;
	struct file_lock *fl, *new;
	struct wait_queue_entry w;
	unsigned int op = (unsigned int)cmd;
	int type;

	if (op & LOCK_MAND)
		return 0; /* never did anything; Linux ignores it now */
	switch (op & ~(unsigned int)LOCK_NB) {
	case LOCK_SH: type = F_RDLCK; break;
	case LOCK_EX: type = F_WRLCK; break;
	case LOCK_UN: type = F_UNLCK; break;
	default: return -EINVAL;
	}
	f = fget(fd);
	if (!f)
		return -EBADF;
	list_for_each_entry(fl, &flock_locks, fl_link)
		if (fl->fl_owner == f && fl->fl_type == type)
			return 0;
	flock_remove(f);
	if (type == F_UNLCK)
		return 0;
	new = kmalloc(sizeof(*new));
	if (!new)
		return -ENOMEM;
	*new = (struct file_lock){ .fl_inode = f->f_inode, .fl_owner = f, .fl_pid = current->tgid,
				   .fl_type = type, .fl_start = 0, .fl_end = OFFSET_MAX };
	/* Ours while we wait (another thread may close the descriptor): a lock granted to a
	 * file already closed goes with this reference, as Linux's fdput. */
	get_file(f);
	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&lock_wait, &w, TASK_INTERRUPTIBLE);
		if (!flock_test(f, type) || (op & LOCK_NB) || signal_pending(current))
			break;
		schedule();
	}
	finish_wait(&lock_wait, &w);
	if (!flock_test(f, type)) {
		list_add_tail(&new->fl_link, &flock_locks);
		fput(f);
		return 0;
	}
	kfree(new);
	fput(f);
	return (op & LOCK_NB) ? -EAGAIN : -ERESTARTSYS; /* EAGAIN is EWOULDBLOCK */
}

void locks_remove_file(struct file *f)
{
	locks_remove_owner(f, f);
	flock_remove(f);
}
