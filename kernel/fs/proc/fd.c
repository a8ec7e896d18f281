/* /proc/PID/fd (and /proc/PID/task/TID/fd): a link per open descriptor of the process, named
 * by its number, whose target is the file's path (Linux's fs/proc/fd.c): a named file's path,
 * "pipe:[INO]" for a pipe, "socket:[INO]" for a socket, "anon_inode:[eventfd]" for a file on
 * the anonymous inode; and
 * /proc/PID/fdinfo, a file of text per descriptor (its offset, flags, mount and inode, and the
 * kind's own lines). Entries are made when a lookup names them and dropped at a later lookup
 * once their descriptor is closed; each readlink or open reads the table as it is then. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/slab.h"

#define DT_REG 8
#define DT_LNK 10

/* The file at descriptor fd of the process the fd directory dir is of, or NULL. */
static struct file *fd_file(struct inode *dir, unsigned long fd)
{
	struct task_struct *task = proc_task(dir);

	return task && task->files ? fcheck_files(task->files, fd) : NULL;
}

/* How far the descriptor table of dir's process goes now (0 once it is gone). */
static unsigned long fd_table_size(struct inode *dir)
{
	struct task_struct *task = proc_task(dir);

	return task && task->files ? task->files->fdt.max_fds : 0;
}

static int proc_fd_readlink(struct inode *link, char *buf, size_t size)
{
	struct file *f = fd_file(link->i_dentry.d_parent,
				 (unsigned long)(uintptr_t)link->i_private);
	char *path;
	size_t n;

	if (!f)
		return -ENOENT; /* closed since the lookup */
	path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	file_path(f, path, PATH_MAX);
	n = MIN(strlen(path), size);
	memcpy(buf, path, n);
	kfree(path);
	return (int)n;
}

static const struct inode_operations proc_fd_link_operations = {
	.readlink = proc_fd_readlink,
};

/* fdinfo/N, made at open as Linux's seq_show: the offset, the open flags (O_CLOEXEC for a
 * close-on-exec descriptor), the mount's ID and the inode's number, then the kind's own lines
 * (its show_fdinfo). The descriptor closed since the lookup: ENOENT. */
static int proc_fdinfo_open(struct inode *ino, struct file *f)
{
	unsigned long fd = (unsigned long)(uintptr_t)ino->i_private;
	struct task_struct *task = proc_task(ino->i_dentry.d_parent);
	struct file *of = fd_file(ino->i_dentry.d_parent, fd);
	struct proc_text *t;

	if (!of)
		return -ENOENT;
	t = proc_text_alloc(8192);
	if (!t)
		return -ENOMEM;
	proc_printf(t, "pos:\t%llu\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\n",
		    (unsigned long long)of->f_pos,
		    of->f_flags | (fd_is_cloexec(task->files, (unsigned int)fd) ? O_CLOEXEC : 0),
		    of->f_inode->i_sb->s_mnt_id, of->f_inode->i_ino);
	if (of->f_op && of->f_op->show_fdinfo)
		of->f_op->show_fdinfo(t, of);
	f->private_data = t;
	return 0;
}

static const struct file_operations proc_fdinfo_file_operations = {
	.open = proc_fdinfo_open,
	.read = proc_text_read,
	.release = proc_text_release,
};

/* A descriptor number as Linux's name_to_int takes it: decimal, no sign, no leading zero but
 * "0" itself; -1 for anything else. */
static long name_to_fd(const char *name, size_t len)
{
	long fd = 0;

	if (!len || len > 9 || (len > 1 && name[0] == '0'))
		return -1;
	for (size_t k = 0; k < len; k++) {
		if (name[k] < '0' || name[k] > '9')
			return -1;
		fd = fd * 10 + (name[k] - '0');
	}
	return fd;
}

/* The inode number of dir's entry for fd, in readdir and stat alike: above every other of
 * procfs's (its PID numbers end below 1 << 48). */
static unsigned long fd_ino(const struct inode *dir, unsigned long fd)
{
	return (1UL << 62) | (dir->i_ino << 16) | fd;
}

static bool is_fdinfo_dir(const struct inode *dir);

/* fd/N: a link; fdinfo/N: a file of text (the same names, from the same table). */
static struct inode *proc_fd_lookup(struct inode *dir, const char *name, size_t len)
{
	long fd = name_to_fd(name, len);
	struct list_head *pos, *n;
	struct file *f;
	struct inode *i;

	/* The entries of closed descriptors that nothing holds go first. */
	list_for_each_safe(pos, n, &dir->i_children) {
		i = list_entry(pos, struct dentry, d_child)->d_inode;
		if (i->i_count || fd_file(dir, (unsigned long)(uintptr_t)i->i_private))
			continue;
		list_del(&i->i_dentry.d_child);
		i->i_nlink = 0;
		iput(i);
	}
	f = fd < 0 ? NULL : fd_file(dir, (unsigned long)fd);
	if (!f)
		return NULL;
	i = simple_lookup(dir, name, len);
	if (i)
		return i;
	if (is_fdinfo_dir(dir)) {
		i = proc_new_inode(dir->i_sb, S_IFREG | 0444);
		if (i)
			i->i_fop = &proc_fdinfo_file_operations;
	} else {
		/* Linux's mode: read and search for an end opened to read, write and search
		 * for one opened to write. */
		i = proc_new_inode(dir->i_sb, S_IFLNK | (f->f_mode & FMODE_READ ? 0500 : 0) |
						  (f->f_mode & FMODE_WRITE ? 0300 : 0));
		if (i)
			i->i_op = &proc_fd_link_operations;
	}
	if (!i)
		return NULL;
	i->i_ino = fd_ino(dir, (unsigned long)fd);
	i->i_private = (void *)(uintptr_t)fd;
	d_attach(dir, i, name, len);
	return i;
}

/* ".", "..", then each open descriptor, lowest first (positions FD_POS + fd + 1). */
#define FD_POS PROC_DOTS_POS
static int proc_fd_readdir(struct file *f, void *dirent,
			   int (*filldir)(void *dirent, const char *name, size_t len,
					  uint64_t pos, unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode;

	if (!proc_readdir_dots(f, dirent, filldir))
		return 0;
	/* (the table is looked at anew for each descriptor: filldir may sleep on a fault) */
	for (unsigned long fd = f->f_pos - FD_POS; fd < fd_table_size(dir); fd++) {
		char name[16];
		size_t len;

		if (!fd_file(dir, fd))
			continue;
		len = (size_t)snprintf(name, sizeof(name), "%lu", fd);
		if (filldir(dirent, name, len, FD_POS + fd + 1, fd_ino(dir, fd),
			    is_fdinfo_dir(dir) ? DT_REG : DT_LNK))
			break;
		f->f_pos = FD_POS + fd + 1;
	}
	return 0;
}

const struct file_operations proc_fd_operations = { .readdir = proc_fd_readdir };
const struct inode_operations proc_fd_inode_operations = { .lookup = proc_fd_lookup };
const struct inode_operations proc_fdinfo_inode_operations = { .lookup = proc_fd_lookup };

static bool is_fdinfo_dir(const struct inode *dir)
{
	return dir->i_op == &proc_fdinfo_inode_operations;
}
