/* POSIX message queues, as Linux's ipc/mqueue.c: the mqueue file system, whose files are the
 * queues (a read gives one line of their state), mq_open and mq_unlink on its root, and what
 * each queue costs its creator's RLIMIT_MSGQUEUE. Messages move in mqueue_msg.c. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/poll.h"
#include "kernel/ipc/mqueue.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/process/resource.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define MQUEUE_MAGIC 0x19800202
#define DIRENT_SIZE 20 /* the root's i_size grows by this per queue, as Linux's */
#define FILENT_SIZE 80 /* a queue's i_size: the length its line may have */
/* What Linux charges RLIMIT_MSGQUEUE per possible message (a struct msg_msg) and per possible
 * priority in use (a struct posix_msg_tree_node), on x86-64, beside the bytes themselves. */
#define MSG_MSG_SIZE 48
#define TREE_NODE_SIZE 48

int mq_queues_max = DFLT_QUEUESMAX;
int mq_msg_max = DFLT_MSGMAX;
int mq_msgsize_max = DFLT_MSGSIZEMAX;
int mq_msg_default = DFLT_MSG;
int mq_msgsize_default = DFLT_MSGSIZE;

static struct super_block *mq_sb; /* the instance mq_open and mq_unlink work on */
static LIST_HEAD(mq_infos);       /* every queue (the big kernel lock's) */

/* Bytes of RLIMIT_MSGQUEUE a queue of attr takes: Linux's mq_bytes + mq_treesize. */
static unsigned long mq_cost(const struct mq_attr *attr)
{
	unsigned long maxmsg = (unsigned long)attr->mq_maxmsg;

	return maxmsg * (unsigned long)attr->mq_msgsize + maxmsg * MSG_MSG_SIZE +
	       MIN(maxmsg, (unsigned long)MQ_PRIO_MAX) * TREE_NODE_SIZE;
}

/* What the queues of uid (open or named) cost now: Linux's user_struct mq_bytes. */
static unsigned long user_mq_bytes(uid_t uid)
{
	struct mqueue_inode_info *info;
	unsigned long sum = 0;

	list_for_each_entry(info, &mq_infos, list)
		if (info->user == uid)
			sum += info->mq_bytes;
	return sum;
}

/* The queue of a new inode: attr (NULL: the defaults) within the limits, as Linux's
 * mqueue_get_inode: -EINVAL past the sysctl maximums (the hard ones with CAP_SYS_RESOURCE),
 * -EMFILE past RLIMIT_MSGQUEUE, -ENOMEM. */
static int mqueue_new_info(struct inode *inode, const struct mq_attr *attr)
{
	struct mqueue_inode_info *info;
	/* The defaults, within the maximums. */
	struct mq_attr a = { .mq_maxmsg = MIN(mq_msg_max, mq_msg_default),
			     .mq_msgsize = MIN(mq_msgsize_max, mq_msgsize_default) };
	unsigned long cost;

	if (attr) {
		a.mq_maxmsg = attr->mq_maxmsg;
		a.mq_msgsize = attr->mq_msgsize;
	}
	if (a.mq_maxmsg <= 0 || a.mq_msgsize <= 0)
		return -EINVAL;
	if (capable(CAP_SYS_RESOURCE)) {
		if (a.mq_maxmsg > HARD_MSGMAX || a.mq_msgsize > HARD_MSGSIZEMAX)
			return -EINVAL;
	} else if (a.mq_maxmsg > mq_msg_max || a.mq_msgsize > mq_msgsize_max) {
		return -EINVAL;
	}
	cost = mq_cost(&a);
	if (user_mq_bytes(current->cred.uid) + cost > rlimit(RLIMIT_MSGQUEUE))
		return -EMFILE;
	info = kzalloc(sizeof(*info));
	if (!info)
		return -ENOMEM;
	info->attr = a;
	INIT_LIST_HEAD(&info->messages);
	INIT_LIST_HEAD(&info->e_wait_q[SEND]);
	INIT_LIST_HEAD(&info->e_wait_q[RECV]);
	init_waitqueue_head(&info->wait_q);
	info->user = current->cred.uid;
	info->mq_bytes = cost;
	list_add_tail(&info->list, &mq_infos);
	inode->i_private = info;
	inode->i_size = FILENT_SIZE;
	return 0;
}

/* A queue's inode has no name and no open file left: its messages and its cost go. */
static void mqueue_delete_inode(struct inode *inode)
{
	struct mqueue_inode_info *info = inode->i_private;

	if (!info)
		return;
	while (!list_empty(&info->messages)) {
		struct msg_msg *msg = list_first_entry(&info->messages, struct msg_msg, m_list);

		list_del(&msg->m_list);
		free_msg(msg);
	}
	/* Nobody sleeps on a queue nobody has open; a poller's entry went with its file. */
	BUG_ON(!list_empty(&info->e_wait_q[SEND]) || !list_empty(&info->e_wait_q[RECV]));
	list_del(&info->list);
	kfree(info);
	inode->i_private = NULL;
}

static int mqueue_statfs(struct super_block *sb, struct kstatfs *buf)
{
	(void)sb, (void)buf; /* Linux's simple_statfs: no counts */
	return 0;
}

static const struct super_operations mqueue_super_ops = {
	.statfs = mqueue_statfs,
	.delete_inode = mqueue_delete_inode,
};

static const struct inode_operations mqueue_dir_inode_operations;

/* A new queue named name in dir (the root), with mode's permission bits, as Linux's
 * mqueue_create_attr: -ENOSPC past queues_max (unless CAP_SYS_RESOURCE), or what the queue's
 * attributes are refused with. */
static int mqueue_create_attr(struct inode *dir, const char *name, size_t len, uint32_t mode,
			      const struct mq_attr *attr, struct inode **out)
{
	struct list_head *pos;
	struct inode *inode;
	int count = 0, err;

	list_for_each(pos, &mq_infos)
		count++;
	if (count >= mq_queues_max && !capable(CAP_SYS_RESOURCE))
		return -ENOSPC;
	inode = new_inode(dir->i_sb, S_IFREG | (mode & 07777));
	if (!inode)
		return -ENOMEM;
	inode_init_owner(inode, dir, S_IFREG | (mode & 07777));
	inode->i_fop = &mqueue_file_operations;
	err = mqueue_new_info(inode, attr);
	if (err) {
		kfree(inode);
		return err;
	}
	d_attach(dir, inode, name, len);
	dir->i_size += DIRENT_SIZE;
	dir->i_mtime = dir->i_ctime = dir->i_atime = current_time();
	*out = inode;
	return 0;
}

/* open(O_CREAT) of a new name in the file system: a queue with the default attributes. */
static int mqueue_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
			 struct inode **out)
{
	return mqueue_create_attr(dir, name, len, mode, NULL, out);
}

/* The name goes now, the queue with its last open file. */
static int mqueue_unlink(struct inode *dir, const char *name, size_t len, struct inode *victim)
{
	struct dentry *d = d_lookup(dir, name, len);

	BUG_ON(!d || d->d_inode != victim);
	d_delete(d, dir); /* a queue open by this name outlives it */
	dir->i_size -= DIRENT_SIZE;
	dir->i_mtime = dir->i_ctime = dir->i_atime = current_time();
	victim->i_nlink = 0;
	iput(victim);
	return 0;
}

/* A queue's name is a plain name; Linux's simple_lookup refuses one past NAME_MAX. */
static struct inode *mqueue_lookup(struct inode *dir, const char *name, size_t len)
{
	if (len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	return simple_lookup(dir, name, len);
}

static const struct inode_operations mqueue_dir_inode_operations = {
	.lookup = mqueue_lookup,
	.create = mqueue_create,
	.unlink = mqueue_unlink,
};

/* Its size in messages' bytes and its registration, Linux's line, from *pos on. */
static long mqueue_read_file(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct mqueue_inode_info *info = f->f_inode->i_private;
	char line[FILENT_SIZE];
	uint64_t len;

	snprintf(line, sizeof(line), "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
		 info->qsize, info->notify_owner ? info->notify_kind : 0,
		 info->notify_owner && info->notify_kind == SIGEV_SIGNAL ? info->notify_signo : 0,
		 info->notify_owner);
	len = strlen(line);
	if (*pos >= len)
		return 0;
	n = MIN(n, len - *pos);
	if (copy_to_user(ubuf, line + *pos, n))
		return -EFAULT;
	*pos += n;
	f->f_inode->i_atime = f->f_inode->i_ctime = current_time();
	return (long)n;
}

/* Every close: the closing process's registration goes (Linux's mqueue_flush_file). */
static void mqueue_flush_file(struct file *f)
{
	struct mqueue_inode_info *info = f->f_inode->i_private;

	if (info->notify_owner == current->tgid)
		remove_notification(info);
}

/* Readable with a message in it, writable with room, whatever the descriptor's access. */
static unsigned int mqueue_poll_file(struct file *f, struct poll_table_struct *pt)
{
	struct mqueue_inode_info *info = f->f_inode->i_private;
	unsigned int events = 0;

	poll_wait(f, &info->wait_q, pt);
	if (info->attr.mq_curmsgs)
		events |= POLLIN | POLLRDNORM;
	if (info->attr.mq_curmsgs < info->attr.mq_maxmsg)
		events |= POLLOUT | POLLWRNORM;
	return events;
}

const struct file_operations mqueue_file_operations = {
	.read = mqueue_read_file,
	.poll = mqueue_poll_file,
	.flush = mqueue_flush_file,
};

static int mqueue_fill_super(struct super_block *sb, void *data, int silent)
{
	(void)data, (void)silent; /* no options, no device */
	sb->s_op = &mqueue_super_ops;
	sb->s_root = simple_root(sb, 01777, &mqueue_dir_inode_operations, &simple_dir_operations);
	if (!sb->s_root)
		return -ENOMEM;
	sb->s_root->i_size = 2 * DIRENT_SIZE;
	if (!mq_sb)
		mq_sb = sb;
	return 0;
}

static void mqueue_kill_sb(struct super_block *sb)
{
	if (sb == mq_sb)
		mq_sb = NULL;
	kill_litter_super(sb);
}

static struct file_system_type mqueue_fs_type = {
	.name = "mqueue",
	.magic = MQUEUE_MAGIC,
	.fill_super = mqueue_fill_super,
	.kill_sb = mqueue_kill_sb,
};

void mqueue_init(void)
{
	register_filesystem(&mqueue_fs_type);
}

/* The queue's name from user space, checked as Linux's getname and lookup_one_len: -EFAULT,
 * -ENOENT (empty), -ENAMETOOLONG, -EACCES ("." and "..", or a slash in it). */
static long mq_getname(uint64_t uname, char *name)
{
	long err = path_from_user(uname, name);
	size_t len;

	if (err)
		return err;
	len = strlen(name);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EACCES;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '/')
			return -EACCES;
	return len > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* Linux's prepare_open, then the open itself: the new descriptor, close-on-exec always. */
static long do_mq_open(const char *name, int oflag, uint32_t mode, const struct mq_attr *attr)
{
	static const int oflag2acc[O_ACCMODE] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE };
	struct inode *root = mq_sb->s_root, *inode;
	bool created = false;
	struct file *f;
	long err;

	inode = simple_lookup(root, name, strlen(name));
	if (!inode) {
		if (!(oflag & O_CREAT))
			return -ENOENT;
		err = inode_permission(root, MAY_WRITE | MAY_EXEC);
		if (!err)
			err = mqueue_create_attr(root, name, strlen(name), apply_umask(mode),
						 attr, &inode);
		created = !err;
	} else if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		return -EEXIST;
	} else if ((oflag & O_ACCMODE) == (O_RDWR | O_WRONLY)) {
		return -EINVAL;
	} else {
		err = inode_permission(inode, oflag2acc[oflag & O_ACCMODE]);
	}
	if (err)
		return err;
	err = dentry_open(&inode->i_dentry, (unsigned int)oflag & (O_ACCMODE | O_NONBLOCK), &f);
	if (err)
		return err;
	if ((oflag & O_ACCMODE) == O_ACCMODE) /* a new queue's: Linux's f_mode has neither */
		f->f_mode &= ~(unsigned int)(FMODE_READ | FMODE_WRITE);
	inode->i_count++; /* held across the install, which may sleep */
	err = fd_install_lowest(f, 0, true);
	inode->i_count--;
	/* Linux takes the descriptor first: past RLIMIT_NOFILE no queue is left made. */
	if (err < 0 && created && inode->i_nlink)
		mqueue_unlink(root, inode->i_dentry.d_name, strlen(inode->i_dentry.d_name), inode);
	else
		iput(inode); /* (frees it only if it was unlinked meanwhile) */
	return err;
}

long sys_mq_open(uint64_t uname, int64_t oflag, uint64_t mode, uint64_t uattr)
{
	struct mq_attr attr;
	char *name;
	long err;

	if (uattr && copy_from_user(&attr, uattr, sizeof(attr)))
		return -EFAULT;
	name = kmalloc(PATH_MAX);
	if (!name)
		return -ENOMEM;
	err = mq_getname(uname, name);
	if (!err)
		err = mq_sb ? do_mq_open(name, (int)oflag, (uint32_t)mode & 07777,
					 uattr ? &attr : NULL)
			    : -ENOSYS;
	kfree(name);
	return err;
}

long sys_mq_unlink(uint64_t uname)
{
	struct inode *victim;
	char *name = kmalloc(PATH_MAX);
	long err;

	if (!name)
		return -ENOMEM;
	err = mq_getname(uname, name);
	if (!err && !mq_sb)
		err = -ENOSYS;
	if (!err) {
		victim = simple_lookup(mq_sb->s_root, name, strlen(name));
		err = victim ? may_delete(mq_sb->s_root, victim) : -ENOENT;
		if (!err)
			err = mqueue_unlink(mq_sb->s_root, name, strlen(name), victim);
	}
	kfree(name);
	return err;
}
