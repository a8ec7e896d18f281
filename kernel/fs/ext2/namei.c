/* ext2's names (Linux 2.6.23's fs/ext2/namei.c, the reading half). faultline keeps no dentry
 * cache: a name met before is the child already hung on its directory, else the directory's
 * entry gives the inode number and ext2_iget the inode, which gets the name (d_attach). A
 * file met again under another name (a hard link) is the same inode, named by its first. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/lib/err.h"
#include "kernel/fs/libfs.h"

static struct inode *ext2_lookup(struct inode *dir, const char *name, size_t len)
{
	struct inode *inode = simple_lookup(dir, name, len);
	unsigned long ino;
	int err;

	if (inode)
		return inode;
	err = ext2_find_entry(dir, name, len, &ino);
	if (!err)
		err = ext2_iget(dir->i_sb, ino, &inode);
	if (err == -ENOENT)
		return NULL;
	if (err)
		return ERR_PTR(err); /* a corrupt entry or inode (said on the console) */
	if (list_empty(&inode->i_sibling) && inode != dir->i_sb->s_root)
		d_attach(dir, inode, name, len);
	return inode;
}

/* chmod, chown, utimensat: nothing to refuse; notify_change applies them and marks the inode
 * dirty, and write_inode puts them in the inode table. */
int ext2_setattr(struct inode *inode, const struct iattr *attr)
{
	(void)inode, (void)attr;
	return 0;
}

const struct inode_operations ext2_dir_inode_operations = {
	.lookup = ext2_lookup,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};

/* Device files, FIFOs and sockets: the disk inode only. */
const struct inode_operations ext2_special_inode_operations = {
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
