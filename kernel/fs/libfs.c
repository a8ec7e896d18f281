/* Directories kept in memory: lookup searches the list of children, readdir walks it. Small
 * and linear on purpose: the ramdisk holds tens of files, not thousands. */
#include "kernel/errno.h"
#include "kernel/fs/libfs.h"
#include "kernel/lib/string.h"

struct dentry *d_lookup(struct inode *dir, const char *name, size_t len)
{
	struct list_head *pos;

	list_for_each(pos, &dir->i_children) {
		struct dentry *d = list_entry(pos, struct dentry, d_child);

		if (strlen(d->d_name) == len && strncmp(d->d_name, name, len) == 0)
			return d;
	}
	return NULL;
}

struct inode *simple_lookup(struct inode *dir, const char *name, size_t len)
{
	struct dentry *d = d_lookup(dir, name, len);

	return d ? d->d_inode : NULL;
}

#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_BLK 6
#define DT_REG 8
#define DT_LNK 10
#define DT_SOCK 12

static unsigned int dt_type(uint32_t mode)
{
	if (S_ISDIR(mode))
		return DT_DIR;
	if (S_ISLNK(mode))
		return DT_LNK;
	if (S_ISFIFO(mode))
		return DT_FIFO;
	if (S_ISBLK(mode))
		return DT_BLK;
	if (S_ISSOCK(mode))
		return DT_SOCK;
	return S_ISCHR(mode) ? DT_CHR : DT_REG;
}

int dcache_readdir(struct file *f, void *dirent,
		   int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				  unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode, *parent = dir->i_dentry.d_parent, *ino;
	struct list_head *pos = &dir->i_children;
	struct dentry *d;
	uint64_t index;

	/* ".." of a mounted root is the directory it covers' parent, as path lookup has it */
	while (parent == parent->i_sb->s_root && parent->i_sb->s_mountpoint)
		parent = parent->i_sb->s_mountpoint->i_dentry.d_parent;
	for (index = 0;; index++) {
		const char *name;

		if (index == 0) {
			ino = dir, name = ".";
		} else if (index == 1) {
			ino = parent, name = "..";
		} else {
			pos = pos->next;
			if (pos == &dir->i_children)
				break;
			d = list_entry(pos, struct dentry, d_child);
			ino = d->d_inode, name = d->d_name;
		}
		if (index < f->f_pos)
			continue;
		if (filldir(dirent, name, strlen(name), index + 1, ino->i_ino,
			    dt_type(ino->i_mode)))
			break;
		f->f_pos = index + 1;
	}
	return 0;
}

struct inode *simple_root(struct super_block *sb, uint32_t mode,
			  const struct inode_operations *iop, const struct file_operations *fop)
{
	struct inode *root = new_inode(sb, S_IFDIR | mode);

	if (root) {
		root->i_op = iop;
		root->i_fop = fop;
	}
	return root;
}

int noop_fsync(struct file *f, int datasync)
{
	(void)f, (void)datasync;
	return 0;
}

const struct file_operations simple_dir_operations = {
	.readdir = dcache_readdir,
	.fsync = noop_fsync,
};

const struct inode_operations simple_dir_inode_operations = {
	.lookup = simple_lookup,
};

int pseudo_fill_super(struct super_block *sb, void *data, int silent)
{
	(void)data, (void)silent; /* no options, no device */
	sb->s_root = new_inode(sb, S_IFDIR | 0500);
	return sb->s_root ? 0 : -ENOMEM;
}
