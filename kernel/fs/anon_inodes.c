/* Anonymous inodes: one inode, in a pseudo file system mounted nowhere, shared by every file
 * that has no name (eventfd, epoll, timerfd, signalfd, userfaultfd), as Linux's. fstat of any
 * of them shows that inode (mode 0600 and no file type, root's); the kind is the file's name. */
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/libfs.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"

static struct super_block *anon_inode_mnt;
static struct inode *anon_inode_inode;
/* A name of the anonymous inode per kind of file ("[eventfd]"): the dentry Linux gives each
 * such file carries it. Never in a directory, each its own root: never unlinked or freed. */
#define ANON_KINDS 8
static struct dentry anon_dentries[ANON_KINDS];
static unsigned int nr_anon_dentries;

static struct dentry *anon_dentry(const char *name)
{
	struct dentry *d;
	unsigned int i;

	for (i = 0; i < nr_anon_dentries; i++)
		if (!strcmp(anon_dentries[i].d_name, name))
			return &anon_dentries[i];
	BUG_ON(i == ANON_KINDS || strlen(name) > NAME_MAX); /* a kind the table lacks room for */
	d = &anon_dentries[nr_anon_dentries++];
	d->d_inode = d->d_parent = anon_inode_inode;
	INIT_LIST_HEAD(&d->d_child);
	strlcpy(d->d_name, name, sizeof(d->d_name));
	return d;
}

static struct file_system_type anon_inode_fs_type = {
	.name = "anon_inodefs",
	.magic = 0x09041934, /* ANON_INODE_FS_MAGIC */
	.fill_super = pseudo_fill_super,
};

void anon_inode_init(void)
{
	anon_inode_mnt = kern_mount(&anon_inode_fs_type);
	anon_inode_inode = anon_inode_mnt ? new_inode(anon_inode_mnt, 0600) : NULL;
	if (!anon_inode_inode) {
		printk("anon_inodes: cannot make the anonymous inode: eventfd and its kin will "
		       "fail with ENFILE\n");
		return;
	}
	/* Linux's is S_IRUSR | S_IWUSR with no S_IF* type: fstat's st_mode is 0600. The files'
	 * count never takes it to 0, so iput never frees it. */
	anon_inode_inode->i_count = 1;
}

bool is_anon_inode_file(const struct file *f)
{
	return anon_inode_inode && f->f_inode == anon_inode_inode;
}

struct file *anon_inode_getfile(const char *name, const struct file_operations *fops,
				void *priv, unsigned int flags)
{
	struct file *f;
	int err;

	if (!anon_inode_inode)
		return ERR_PTR(-ENFILE);
	/* The inode's i_fop is NULL: dentry_open calls no open, and f_op is set after. */
	err = dentry_open(anon_dentry(name), flags & O_ACCMODE, &f);
	if (err)
		return ERR_PTR(err);
	f->f_op = fops;
	/* No pread or pwrite (-ESPIPE), as Linux's alloc_file gives; lseek is the fops' own. */
	f->f_mode &= ~(unsigned int)(FMODE_PREAD | FMODE_PWRITE);
	f->f_flags = flags & (O_ACCMODE | O_NONBLOCK); /* no O_LARGEFILE: F_GETFL shows 02 */
	f->private_data = priv;
	return f;
}

long anon_inode_getfd(const char *name, const struct file_operations *fops, void *priv,
		      unsigned int flags)
{
	struct file *f = anon_inode_getfile(name, fops, priv, flags);

	if (IS_ERR(f))
		return PTR_ERR(f);
	return fd_install_lowest(f, 0, flags & O_CLOEXEC);
}
