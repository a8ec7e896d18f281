/* /proc/PID/fd (Linux's fs/proc/fd.c): a directory listing the process's open descriptors, each
 * a link whose target is the open file's path, or pipe:[inode] for a pipe, read anew each time
 * from the descriptor table. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/slab.h"

/* Each descriptor's link has its own inode number, apart from those of the PID files. */
static unsigned long fd_ino(int pid, unsigned int fd)
{
	return (1UL << 60) + ((unsigned long)pid << 32) + fd;
}

/* The process's file open on descriptor fd, or NULL. */
static struct file *fd_file(struct task_struct *task, unsigned int fd)
{
	return task && task->files ? fcheck_files(task->files, fd) : NULL;
}

static int fd_readlink(struct inode *link, char *buf, size_t size)
{
	unsigned int fd = (unsigned int)(uintptr_t)link->i_private;
	struct file *f = fd_file(proc_task(link->i_parent), fd);
	const struct inode *ino;
	char *path;
	size_t n;

	if (!f)
		return -ENOENT;
	path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	ino = f->f_inode;
	if (ino->i_parent == ino && ino != ino->i_sb->s_root) /* no name: a pipe, say */
		snprintf(path, PATH_MAX, "%s:[%lu]", S_ISFIFO(ino->i_mode) ? "pipe" : "anon_inode",
			 ino->i_ino);
	else
		d_path(ino, path, PATH_MAX);
	n = MIN(strlen(path), size);
	memcpy(buf, path, n);
	kfree(path);
	return (int)n;
}

static const struct inode_operations fd_link_operations = { .readlink = fd_readlink };

/* The descriptor a name spells in decimal (no sign, no leading zero), or -1. */
static long name_to_fd(const char *name, size_t len)
{
	long fd = 0;

	if (!len || len > 10 || (name[0] == '0' && len > 1))
		return -1;
	for (size_t k = 0; k < len; k++) {
		if (name[k] < '0' || name[k] > '9')
			return -1;
		fd = fd * 10 + (name[k] - '0');
	}
	return fd <= 0x7fffffff ? fd : -1;
}

/* A link for an open descriptor, made at its first lookup and kept with the directory. */
static struct inode *proc_fd_lookup(struct inode *dir, const char *name, size_t len)
{
	struct task_struct *task = proc_task(dir);
	long fd = name_to_fd(name, len);
	struct inode *i;

	if (fd < 0 || !fd_file(task, (unsigned int)fd))
		return NULL;
	i = simple_lookup(dir, name, len);
	if (i)
		return i;
	i = proc_new_inode(dir->i_sb, S_IFLNK | 0700);
	if (!i)
		return NULL;
	i->i_op = &fd_link_operations;
	i->i_private = (void *)(uintptr_t)fd;
	i->i_ino = fd_ino(task->pid, (unsigned int)fd);
	i->i_uid = dir->i_uid;
	d_attach(dir, i, name, len);
	return i;
}

/* ".", "..", then each open descriptor, rising (positions FD_POS + fd + 1). */
#define FD_POS 2
static int proc_fd_readdir(struct file *f, void *dirent,
			   int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
					  unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode;
	struct task_struct *task = proc_task(dir);

	if (!proc_readdir_dots(f, dirent, filldir))
		return 0;
	/* The table may change while filldir copies out (a fault may sleep): looked up anew. */
	for (uint64_t fd = f->f_pos - FD_POS; task && task->files &&
	     fd < task->files->fdt.max_fds; fd++) {
		char name[16];
		size_t len;

		if (!fd_file(task, (unsigned int)fd))
			continue;
		len = (size_t)snprintf(name, sizeof(name), "%lu", (unsigned long)fd);
		if (filldir(dirent, name, len, FD_POS + fd + 1, fd_ino(task->pid, (unsigned int)fd),
			    10 /* DT_LNK */))
			break;
		f->f_pos = FD_POS + fd + 1;
		task = proc_task(dir); /* (gone if it was reaped meanwhile) */
	}
	return 0;
}

static const struct file_operations proc_fd_operations = { .readdir = proc_fd_readdir };
static const struct inode_operations proc_fd_inode_operations = { .lookup = proc_fd_lookup };

void proc_fd_dir_add(struct inode *dir, int id, uint32_t owner, unsigned long ino)
{
	/* dr-x------ and the process's: its descriptors are its own business */
	struct inode *i = proc_add(dir, "fd", S_IFDIR | 0500, &proc_fd_operations);

	if (!i)
		return;
	i->i_op = &proc_fd_inode_operations;
	i->i_private = (void *)(uintptr_t)id;
	i->i_ino = ino;
	i->i_uid = owner;
}
