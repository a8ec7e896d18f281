/* /proc/PID: a directory per process, made when a lookup or a listing of /proc first names
 * it and dropped once the process is reaped and nothing holds it; in it, task/TID for each of
 * its threads; /proc/self, a link to the caller's. Each file of a PID or TID directory finds
 * its task by the directory's id when it is opened, as Linux's fs/proc/base.c does. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/mm_types.h"
#include "mm/oom.h"
#include "mm/slab.h"
#include "mm/vma.h"

/* The PID directories made so far, linked by i_dentry.d_child. They are not among the root's
 * i_children: the root's readdir lists live processes, not what happens to be cached. */
static LIST_HEAD(pid_dirs);

/* Positions of the root's readdir past its fixed entries: PID_POS + pid. */
#define PID_POS (1UL << 32)

/* The inode number of /proc/PID (k 0) and of its k-th file (k from 1): from the pid, above
 * any new_inode gives, so that a directory freed and made again keeps its numbers. Those of
 * /proc/PID/task/TID and its files (thread) are above all of those. */
#define TASK_DIR_K 63
#define FD_DIR_K 62
#define FDINFO_DIR_K 61
static unsigned long pid_ino(int pid, size_t k)
{
	return (1UL << 40) + (unsigned long)pid * 64 + k;
}

static unsigned long tid_ino(int tid, size_t k)
{
	return (1UL << 41) + (unsigned long)tid * 64 + k;
}

static int dir_pid(const struct inode *dir)
{
	return (int)(uintptr_t)dir->i_private;
}

struct task_struct *proc_task(const struct inode *ino)
{
	return find_task_by_pid(dir_pid(S_ISDIR(ino->i_mode) ? ino : ino->i_dentry.d_parent));
}

/* Open of a PID file with a show function: its text, made now from the live process. */
static int pid_text_open(struct inode *ino, struct file *f)
{
	const struct pid_entry *e = ino->i_private;
	struct task_struct *task = proc_task(ino);
	struct proc_text *t;

	if (!task)
		return -ENOENT; /* reaped since the lookup */
	t = proc_text_alloc(e->size);
	if (!t)
		return -ENOMEM;
	e->show(t, task);
	f->private_data = t;
	return 0;
}

static const struct file_operations pid_text_operations = {
	.open = pid_text_open,
	.read = proc_text_read,
	.write = proc_write_eio,
	.release = proc_text_release,
};

/* /proc/PID/exe: the path of the program's file (its address space's exe_file, which exec set
 * and munmap of the code does not take away). */
static int exe_readlink(struct inode *link, char *buf, size_t size)
{
	struct task_struct *task = proc_task(link);
	struct mm_struct *mm = task ? task->mm : NULL;
	char *path;
	size_t n;

	if (!mm || !mm->exe_file)
		return -ENOENT;
	path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	d_path(mm->exe_file->f_dentry, path, PATH_MAX); /* the name it was executed by */
	n = MIN(strlen(path), size);
	memcpy(buf, path, n);
	kfree(path);
	return (int)n;
}

/* /proc/self: the caller's process id (from any thread: the tgid), which the lookup then finds
 * in /proc. */
static int self_readlink(struct inode *link, char *buf, size_t size)
{
	char pid[16];
	size_t n = (size_t)snprintf(pid, sizeof(pid), "%d", current->tgid);

	(void)link;
	n = MIN(n, size);
	memcpy(buf, pid, n);
	return (int)n;
}

/* /proc/PID/oom_score: the OOM killer's badness of the process now (mm/oom_kill.c), 2.6.23's
 * number (pages, with oom_score_adj folded in); 0 for what it never kills. Linux since 2.6.36
 * scales its own score into 0..2000 instead; either way a higher number goes first. */
static void proc_pid_oom_score(struct proc_text *t, struct task_struct *task)
{
	proc_printf(t, "%lu\n", oom_score(task));
}

/* /proc/PID/oom_score_adj: the process's value, made at each read (Linux's
 * oom_score_adj_read). */
static long oom_score_adj_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct task_struct *task = proc_task(f->f_inode);
	char text[16];
	size_t len;

	if (!task)
		return -ESRCH;
	len = (size_t)snprintf(text, sizeof(text), "%d\n", task->signal->oom_score_adj);
	n = *pos < len ? MIN(n, len - *pos) : 0;
	if (copy_to_user(ubuf, text + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return 99;
}

/* Linux's kstrtoint(s, 0, res): one optional sign, then "0x" hex, "0" octal or decimal
 * digits, an optional newline and nothing else. 0, -EINVAL or -ERANGE. */
static int kstrtoint0(const char *s, int *res)
{
	bool neg = *s == '-';
	unsigned long long v = 0;
	unsigned int base = 10;
	int n = 0, d;

	if (*s == '-' || *s == '+')
		s++;
	if (s[0] == '0' && (s[1] | 0x20) == 'x' && digit_value(s[2]) < 16) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (; (d = digit_value(*s)) < (int)base; s++, n++) {
		if (v > (~0ULL - (unsigned)d) / base)
			return -ERANGE;
		v = v * base + (unsigned)d;
	}
	if (!n)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > (neg ? 0x80000000ULL : 0x7fffffffULL))
		return -ERANGE;
	*res = neg ? (int)-(long long)v : (int)v;
	return 0;
}

/*
 * A write of a number in -1000..1000 (Linux's oom_score_adj_write, with its checks in its
 * order): at most 12 bytes are looked at, white space around them dropped; a value outside
 * the range is EINVAL; going below oom_score_adj_min needs CAP_SYS_RESOURCE (EACCES). That
 * minimum is not the value in force: a writer with CAP_SYS_RESOURCE sets both, so a process
 * may raise its value and lower it again down to what it was given. Returns the bytes
 * looked at.
 */
static long oom_score_adj_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct task_struct *task;
	char buf[13] = { 0 }, *s = buf, *end;
	int adj, err;

	(void)pos;
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	for (end = buf + strlen(buf); end > s && is_space(end[-1]);)
		*--end = '\0';
	while (is_space(*s))
		s++;
	err = kstrtoint0(s, &adj);
	if (err)
		return err;
	if (adj < OOM_SCORE_ADJ_MIN || adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	task = proc_task(f->f_inode);
	if (!task)
		return -ESRCH;
	if (adj < task->signal->oom_score_adj_min && !capable(CAP_SYS_RESOURCE))
		return -EACCES;
	task->signal->oom_score_adj = (short)adj;
	if (capable(CAP_SYS_RESOURCE))
		task->signal->oom_score_adj_min = (short)adj;
	return (long)n;
}

static const struct file_operations oom_score_adj_operations = {
	.read = oom_score_adj_read,
	.write = oom_score_adj_write,
};

static const struct inode_operations exe_link_operations = { .readlink = exe_readlink };
static const struct inode_operations self_link_operations = { .readlink = self_readlink };

/* /proc/mounts: Linux's link to self/mounts. */
static int mounts_readlink(struct inode *link, char *buf, size_t size)
{
	size_t n = MIN(sizeof("self/mounts") - 1, size);

	(void)link;
	memcpy(buf, "self/mounts", n);
	return (int)n;
}

static const struct inode_operations mounts_link_operations = { .readlink = mounts_readlink };

/* What a PID directory holds: files with a show function (made at open), files with their own
 * operations (fop), links (iop). */
static const struct pid_entry pid_entries[] = {
	{ "stat", S_IFREG | 0444, NULL, NULL, proc_pid_stat, 1024 },
	{ "status", S_IFREG | 0444, NULL, NULL, proc_pid_status, 2048 },
	{ "comm", S_IFREG | 0644, NULL, NULL, proc_pid_comm, 32 },
	{ "cmdline", S_IFREG | 0444, NULL, NULL, proc_pid_cmdline, PROC_CMDLINE_MAX },
	{ "maps", S_IFREG | 0444, &proc_maps_operations, NULL, NULL, 0 },
	{ "smaps", S_IFREG | 0444, &proc_smaps_operations, NULL, NULL, 0 },
	{ "pagemap", S_IFREG | 0400, &proc_pagemap_operations, NULL, NULL, 0 },
	{ "exe", S_IFLNK | 0777, NULL, &exe_link_operations, NULL, 0 },
	{ "oom_score", S_IFREG | 0444, NULL, NULL, proc_pid_oom_score, 32 },
	{ "oom_score_adj", S_IFREG | 0644, &oom_score_adj_operations, NULL, NULL, 0 },
	{ "mounts", S_IFREG | 0444, NULL, NULL, proc_pid_mounts, 8192 },
	{ "mountinfo", S_IFREG | 0444, NULL, NULL, proc_pid_mountinfo, 16384 },
	{ "coredump_filter", S_IFREG | 0644, &proc_coredump_filter_operations, NULL, NULL, 0 },
};

static const struct file_operations proc_task_operations;
static const struct inode_operations proc_task_inode_operations;

/* The files of a PID directory (/proc/PID) or, with thread, of a TID one (/proc/PID/task/TID,
 * the same files but task/). A directory short of files, without memory, stays consistent. */
static void pid_dir_fill(struct inode *dir, int id, bool thread)
{
	struct inode *i;

	for (size_t k = 0; k < ARRAY_SIZE(pid_entries); k++) {
		const struct pid_entry *e = &pid_entries[k];
		const struct file_operations *fop = e->fop ? e->fop : &pid_text_operations;

		i = proc_add(dir, e->name, e->mode, S_ISLNK(e->mode) ? NULL : fop);
		if (!i)
			return;
		i->i_ino = thread ? tid_ino(id, k + 1) : pid_ino(id, k + 1);
		if (e->iop)
			i->i_op = e->iop;
		i->i_private = (void *)e;
	}
	i = proc_add(dir, "fd", S_IFDIR | 0500, &proc_fd_operations);
	if (!i)
		return;
	i->i_op = &proc_fd_inode_operations;
	i->i_private = (void *)(uintptr_t)id; /* the process (or thread) whose descriptors */
	i->i_ino = thread ? tid_ino(id, FD_DIR_K) : pid_ino(id, FD_DIR_K);
	i = proc_add(dir, "fdinfo", S_IFDIR | 0555, &proc_fd_operations);
	if (!i)
		return;
	i->i_op = &proc_fdinfo_inode_operations;
	i->i_private = (void *)(uintptr_t)id;
	i->i_ino = thread ? tid_ino(id, FDINFO_DIR_K) : pid_ino(id, FDINFO_DIR_K);
	if (thread)
		return;
	i = proc_add(dir, "task", S_IFDIR | 0555, &proc_task_operations);
	if (!i)
		return;
	i->i_op = &proc_task_inode_operations;
	i->i_private = (void *)(uintptr_t)id; /* the process: task/'s threads are its */
	i->i_ino = pid_ino(id, TASK_DIR_K);
}

/* A directory of id's files, named id; NULL without memory. */
static struct inode *pid_dir_new(struct super_block *sb, int id, bool thread)
{
	struct inode *dir = proc_new_inode(sb, S_IFDIR | 0555);

	if (!dir)
		return NULL;
	dir->i_private = (void *)(uintptr_t)id;
	dir->i_ino = thread ? tid_ino(id, 0) : pid_ino(id, 0);
	dir->i_uid = dir->i_gid = 0; /* the process's euid, egid once credentials exist */
	snprintf(dir->i_dentry.d_name, sizeof(dir->i_dentry.d_name), "%d", id);
	return dir;
}

/* Make /proc/PID with its files; NULL without memory. */
static struct inode *pid_dir_make(struct inode *root, int pid)
{
	struct inode *dir = pid_dir_new(root->i_sb, pid, false);

	if (!dir)
		return NULL;
	/* Named in the root, but kept on pid_dirs, not on the root's list of children. */
	dir->i_dentry.d_parent = root;
	list_add_tail(&dir->i_dentry.d_child, &pid_dirs);
	pid_dir_fill(dir, pid, false);
	return dir;
}

/* Is anything of this directory open, or anyone's working directory? */
static bool pid_dir_busy(const struct inode *dir)
{
	const struct list_head *pos;

	if (dir->i_count)
		return true;
	list_for_each(pos, &dir->i_children) {
		const struct inode *i = list_entry(pos, struct dentry, d_child)->d_inode;

		if (S_ISDIR(i->i_mode) ? pid_dir_busy(i) : i->i_count != 0)
			return true;
	}
	return false;
}

/* Free what dir holds, subdirectories included (dir itself stays). */
static void pid_dir_free_children(struct inode *dir)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &dir->i_children) {
		struct inode *i = list_entry(pos, struct dentry, d_child)->d_inode;

		if (S_ISDIR(i->i_mode))
			pid_dir_free_children(i);
		list_del(&i->i_dentry.d_child);
		i->i_nlink = 0;
		iput(i);
	}
}

/* Free the PID directories that nothing holds (an open file, a working directory): all of
 * them, or only those whose process is gone. Their inode numbers come from the pid, so one
 * made again looks the same. A path walk holds no count on a directory, so this must not run
 * while a walk is inside one: the root's lookup frees only the directories of reaped
 * processes, which no lookup can reach any more. */
static void pid_dirs_prune(bool all)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &pid_dirs) {
		struct inode *dir = list_entry(pos, struct inode, i_dentry.d_child);

		if ((!all && find_task_by_pid(dir_pid(dir))) || pid_dir_busy(dir))
			continue;
		pid_dir_free_children(dir);
		list_del(&dir->i_dentry.d_child);
		dir->i_nlink = 0;
		iput(dir);
	}
}

void proc_flush_task(void)
{
	pid_dirs_prune(true);
}

void proc_pid_dirs_forget(struct super_block *sb)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &pid_dirs) {
		struct inode *dir = list_entry(pos, struct inode, i_dentry.d_child);

		if (dir->i_sb != sb)
			continue;
		pid_dir_free_children(dir);
		list_del(&dir->i_dentry.d_child);
		dir->i_nlink = 0;
		iput(dir);
	}
}

/* The pid a name spells in decimal (no sign, no leading zero), or 0. */
static int name_to_pid(const char *name, size_t len)
{
	long pid = 0;

	if (!len || len > 10 || name[0] == '0')
		return 0;
	for (size_t k = 0; k < len; k++) {
		if (name[k] < '0' || name[k] > '9')
			return 0;
		pid = pid * 10 + (name[k] - '0');
	}
	return pid <= 0x7fffffff ? (int)pid : 0;
}

struct inode *proc_root_lookup(struct inode *root, const char *name, size_t len)
{
	struct inode *i = simple_lookup(root, name, len);
	struct list_head *pos;
	int pid;

	if (i)
		return i;
	pid = name_to_pid(name, len);
	if (!pid || !find_task_by_pid(pid))
		return NULL;
	pid_dirs_prune(false);
	list_for_each(pos, &pid_dirs) {
		i = list_entry(pos, struct inode, i_dentry.d_child);
		/* (this mount of procfs's) */
		if (dir_pid(i) == pid && i->i_dentry.d_parent == root)
			return i;
	}
	return pid_dir_make(root, pid);
}

/* The live process with the smallest pid >= from, or NULL. */
static struct task_struct *next_task(int64_t from)
{
	struct task_struct *best = NULL;
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		/* a thread's own pid is found by lookup, as on Linux, but not listed */
		if (t->pid > 0 && thread_group_leader(t) && t->pid >= from &&
		    (!best || t->pid < best->pid))
			best = t;
	}
	return best;
}

int proc_root_readdir(struct file *f, void *dirent,
		      int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				     unsigned long ino, unsigned int type))
{
	uint64_t fixed = 2;
	struct list_head *pos;
	struct task_struct *t;

	list_for_each(pos, &f->f_inode->i_children)
		fixed++;
	if (f->f_pos < fixed) {
		dcache_readdir(f, dirent, filldir);
		if (f->f_pos < fixed)
			return 0; /* the buffer is full */
		f->f_pos = PID_POS;
	}
	while ((t = next_task((int64_t)(f->f_pos - PID_POS)))) {
		char name[16];
		size_t len = (size_t)snprintf(name, sizeof(name), "%d", t->pid);

		if (filldir(dirent, name, len, PID_POS + (uint64_t)t->pid + 1, pid_ino(t->pid, 0),
			    4 /* DT_DIR */))
			break;
		f->f_pos = PID_POS + (uint64_t)t->pid + 1;
	}
	return 0;
}

/* /proc/PID/task/TID: for a thread of the directory's process, the directory made now or
 * before. The TID directories of threads that have exited go first, unless held (as the PID
 * directories do at the root). */
static struct inode *proc_task_lookup(struct inode *dir, const char *name, size_t len)
{
	int tid = name_to_pid(name, len);
	struct task_struct *t = tid ? find_task_by_pid(tid) : NULL;
	struct list_head *pos, *n;
	struct inode *i;

	if (!t || t->tgid != dir_pid(dir))
		return NULL;
	list_for_each_safe(pos, n, &dir->i_children) {
		i = list_entry(pos, struct dentry, d_child)->d_inode;
		if (find_task_by_pid(dir_pid(i)) || pid_dir_busy(i))
			continue;
		pid_dir_free_children(i);
		list_del(&i->i_dentry.d_child);
		i->i_nlink = 0;
		iput(i);
	}
	i = simple_lookup(dir, name, len);
	if (i)
		return i;
	i = pid_dir_new(dir->i_sb, tid, true);
	if (!i)
		return NULL;
	d_attach(dir, i, name, len);
	pid_dir_fill(i, tid, true);
	return i;
}

/* The live thread of group tgid with the smallest tid >= from, or NULL. */
static struct task_struct *next_thread_of(int tgid, int64_t from)
{
	struct task_struct *best = NULL;
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->tgid == tgid && t->pid >= from && (!best || t->pid < best->pid))
			best = t;
	}
	return best;
}

bool proc_readdir_dots(struct file *f, void *dirent,
		       int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				      unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode;

	if (f->f_pos == 0) {
		if (filldir(dirent, ".", 1, 1, dir->i_ino, 4 /* DT_DIR */))
			return false;
		f->f_pos = 1;
	}
	if (f->f_pos == 1) {
		if (filldir(dirent, "..", 2, 2, dir->i_dentry.d_parent->i_ino, 4))
			return false;
		f->f_pos = PROC_DOTS_POS;
	}
	return true;
}

/* ".", "..", then one directory per live thread, by tid (positions TID_POS + tid + 1). */
#define TID_POS PROC_DOTS_POS
static int proc_task_readdir(struct file *f, void *dirent,
			     int (*filldir)(void *dirent, const char *name, size_t len,
					    uint64_t pos, unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode;
	struct task_struct *t;

	if (!proc_readdir_dots(f, dirent, filldir))
		return 0;
	while ((t = next_thread_of(dir_pid(dir), (int64_t)(f->f_pos - TID_POS)))) {
		char name[16];
		size_t len = (size_t)snprintf(name, sizeof(name), "%d", t->pid);
		uint64_t next = TID_POS + (uint64_t)t->pid + 1;

		if (filldir(dirent, name, len, next, tid_ino(t->pid, 0), 4))
			break;
		f->f_pos = next;
	}
	return 0;
}

static const struct file_operations proc_task_operations = { .readdir = proc_task_readdir };
static const struct inode_operations proc_task_inode_operations = { .lookup = proc_task_lookup };

int proc_self_init(struct inode *root)
{
	struct inode *self = proc_add(root, "self", S_IFLNK | 0777, NULL);
	struct inode *mounts = proc_add(root, "mounts", S_IFLNK | 0777, NULL);

	if (!self || !mounts)
		return -ENOMEM;
	self->i_op = &self_link_operations;
	mounts->i_op = &mounts_link_operations;
	return 0;
}
