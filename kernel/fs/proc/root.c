/* procfs, mounted on /proc: files that are not stored anywhere but made from the kernel's
 * state when they are opened, in Linux's formats: meminfo, uptime, loadavg, cpuinfo, stat,
 * vmstat, the binary kpagecount and kpageflags, sys/vm/, the drivers' files (proc_create);
 * the fixed tree is built at each mount, the directory of each process (base.c) when it is
 * first named. Each mount is an instance of its own showing the same state. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"

struct proc_text *proc_text_alloc(size_t cap)
{
	struct proc_text *t = kmalloc(sizeof(*t) + cap);

	if (t) {
		t->len = 0;
		t->cap = cap;
		t->buf[0] = '\0';
	}
	return t;
}

void proc_printf(struct proc_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += MIN((size_t)n, t->cap - t->len - 1);
}

long proc_text_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct proc_text *t = f->private_data;

	n = *pos < t->len ? MIN(n, t->len - *pos) : 0;
	if (copy_to_user(ubuf, t->buf + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

long proc_write_eio(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return -EIO;
}

void proc_text_release(struct inode *ino, struct file *f)
{
	(void)ino;
	kfree(f->private_data);
}

/* Open of a proc_entry's file: its text, made now. */
static int proc_entry_open(struct inode *ino, struct file *f)
{
	const struct proc_entry *e = ino->i_private;
	struct proc_text *t = proc_text_alloc(e->size_now ? e->size_now() : e->size);

	if (!t)
		return -ENOMEM;
	e->show(t);
	f->private_data = t;
	return 0;
}

static const struct file_operations proc_entry_operations = {
	.open = proc_entry_open,
	.read = proc_text_read,
	.write = proc_write_eio,
	.release = proc_text_release,
};

/* The files at the top of /proc, each made by one function. */
static const struct proc_entry *const proc_root_entries[] = {
	&proc_meminfo, &proc_uptime, &proc_loadavg, &proc_cpuinfo, &proc_stat, &proc_vmstat,
	&proc_filesystems,
	&proc_diskstats,
};

/* Linux's procfs refuses a new mode for its files; owners and times may change. */
static int proc_setattr(struct inode *ino, const struct iattr *attr)
{
	(void)ino;
	return (attr->ia_valid & ATTR_MODE) ? -EPERM : 0;
}

static const struct inode_operations proc_dir_inode_operations = {
	.lookup = simple_lookup,
	.setattr = proc_setattr,
};

static const struct inode_operations proc_file_inode_operations = {
	.setattr = proc_setattr,
};

/* The root: its fixed files, then a directory per process (base.c). */
static const struct inode_operations proc_root_inode_operations = {
	.lookup = proc_root_lookup,
	.setattr = proc_setattr,
};

static const struct file_operations proc_root_operations = {
	.readdir = proc_root_readdir,
};

struct inode *proc_new_inode(struct super_block *sb, uint32_t mode)
{
	struct inode *i = new_inode(sb, mode);

	if (i) {
		i->i_op = S_ISDIR(mode) ? &proc_dir_inode_operations : &proc_file_inode_operations;
		i->i_fop = S_ISDIR(mode) ? &simple_dir_operations : NULL;
	}
	return i;
}

struct inode *proc_add(struct inode *dir, const char *name, uint32_t mode,
		       const struct file_operations *fop)
{
	struct inode *i = proc_new_inode(dir->i_sb, mode);

	if (!i)
		return NULL;
	if (fop)
		i->i_fop = fop;
	d_attach(dir, i, name, strlen(name));
	return i;
}

/* The drivers' files (proc_create), which every mount of procfs shows. */
#define PROC_CREATED_MAX 16
static struct {
	const char *path;
	const struct proc_entry *e;
} proc_created[PROC_CREATED_MAX];
static int nr_proc_created;

/* The file e at path under root (missing directories made): 0 or -ENOMEM. */
static int proc_create_in(struct inode *dir, const char *path, const struct proc_entry *e)
{
	struct inode *ino;
	const char *slash;

	while ((slash = strchr(path, '/'))) {
		ino = simple_lookup(dir, path, (size_t)(slash - path));
		if (!ino) {
			char name[NAME_MAX + 1];
			size_t len = MIN((size_t)(slash - path), (size_t)NAME_MAX);

			memcpy(name, path, len);
			name[len] = 0;
			ino = proc_add(dir, name, S_IFDIR | 0555, NULL);
		}
		if (!ino)
			return -ENOMEM;
		dir = ino;
		path = slash + 1;
	}
	ino = proc_add(dir, path, S_IFREG | 0444, &proc_entry_operations);
	if (!ino)
		return -ENOMEM;
	ino->i_private = (void *)e;
	return 0;
}

static int proc_fill_super(struct super_block *sb, void *data, int silent)
{
	(void)data, (void)silent; /* no options, no device */
	sb->s_root = simple_root(sb, 0555, &proc_root_inode_operations, &proc_root_operations);
	if (!sb->s_root || proc_self_init(sb->s_root) || proc_sys_init(sb->s_root) ||
	    proc_page_init(sb->s_root))
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(proc_root_entries); i++) {
		struct inode *ino = proc_add(sb->s_root, proc_root_entries[i]->name,
					     S_IFREG | 0444, &proc_entry_operations);

		if (!ino)
			return -ENOMEM;
		ino->i_private = (void *)proc_root_entries[i];
	}
	for (int i = 0; i < nr_proc_created; i++)
		if (proc_create_in(sb->s_root, proc_created[i].path, proc_created[i].e))
			return -ENOMEM;
	return 0;
}

static struct file_system_type proc_fs_type;

int proc_create(const char *path, const struct proc_entry *e)
{
	struct super_block *sb;
	int err = 0;

	if (nr_proc_created == PROC_CREATED_MAX)
		return -ENOMEM;
	proc_created[nr_proc_created].path = path;
	proc_created[nr_proc_created++].e = e;
	list_for_each_entry(sb, mount_table(), s_list)
		if (sb->s_type == &proc_fs_type && !err)
			err = proc_create_in(sb->s_root, path, e);
	return err;
}

/* Unmounted: the PID directories of this instance, then its fixed tree. */
static void proc_kill_sb(struct super_block *sb)
{
	proc_pid_dirs_forget(sb);
	kill_litter_super(sb);
}

static struct file_system_type proc_fs_type = {
	.name = "proc",
	.magic = 0x9fa0, /* PROC_SUPER_MAGIC */
	.fill_super = proc_fill_super,
	.kill_sb = proc_kill_sb,
};

void proc_root_init(void)
{
	register_filesystem(&proc_fs_type);
}
