/* ext2's names (Linux 2.6.23's fs/ext2/namei.c). faultline keeps no dentry cache: a name met
 * before is the child already hung on its directory, else the directory's entry gives the
 * inode number and ext2_iget the inode, which gets the name (d_attach). A file met again
 * under another name (a hard link) is the same inode, named by its first. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/fs/libfs.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"

static struct inode *ext2_lookup(struct inode *dir, const char *name, size_t len)
{
	struct inode *inode = simple_lookup(dir, name, len);
	unsigned long ino;
	int err;

	if (inode)
		return inode;
	if (len > EXT2_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	err = ext2_inode_by_name(dir, name, len, &ino);
	if (!err)
		err = ext2_iget(dir->i_sb, ino, &inode);
	if (err == -ENOENT)
		return NULL;
	if (err)
		return ERR_PTR(err); /* a corrupt entry or inode (said on the console) */
	if (list_empty(&inode->i_dentry.d_child) && inode != dir->i_sb->s_root)
		d_attach(dir, inode, name, len);
	return inode;
}

static void inode_inc_link_count(struct inode *inode)
{
	inode->i_nlink++;
	mark_inode_dirty(inode);
}

static void inode_dec_link_count(struct inode *inode)
{
	inode->i_nlink--;
	mark_inode_dirty(inode);
}

/* Is name (len bytes) in dir the VFS's name of inode? A hard link's other names are not. */
static bool ext2_is_d_name(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	return inode->i_dentry.d_parent == dir && !list_empty(&inode->i_dentry.d_child) &&
	       strlen(inode->i_dentry.d_name) == len && !memcmp(inode->i_dentry.d_name, name, len);
}

/* The entry name of dir that went named inode: if that was the inode's own name, the VFS
 * forgets it (a later lookup of another of its names, a hard link, names it again); an inode
 * without a name hangs from the root, never from a directory that may go. */
static void ext2_d_drop(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	if (!ext2_is_d_name(dir, name, len, inode))
		return;
	list_del(&inode->i_dentry.d_child);
	inode->i_dentry.d_parent = dir->i_sb->s_root;
}

/* Does the entry the VFS looked up still name inode? Another call may have removed or
 * replaced it while this one slept before taking s_names: -ENOENT then (the page put). */
static int ext2_entry_is(struct ext2_dir_entry_2 *de, struct page *page, struct inode *inode)
{
	if (de->inode == inode->i_ino)
		return 0;
	put_page(page);
	return -ENOENT;
}

/* The new inode gets its name in dir, or goes again (its number back to the bitmap). */
static int ext2_add_nondir(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	int err = ext2_add_link(dir, name, len, inode);

	if (!err) {
		d_attach(dir, inode, name, len);
		return 0;
	}
	inode_dec_link_count(inode);
	iput(inode);
	return err;
}

static int __ext2_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
		       struct inode **out)
{
	struct inode *inode;
	int err = ext2_new_inode(dir, mode, &inode);

	if (err)
		return err;
	ext2_set_inode_ops(inode);
	mark_inode_dirty(inode);
	err = ext2_add_nondir(dir, name, len, inode);
	if (!err)
		*out = inode;
	return err;
}

/* rdev is MKDEV's; ext2_write_inode stores it in i_block (the old 8:8 encoding in i_block[0]
 * when it fits, else the new one in i_block[1]). */
static int __ext2_mknod(struct inode *dir, const char *name, size_t len, uint32_t mode,
		      uint32_t rdev, struct inode **out)
{
	struct inode *inode;
	int err = ext2_new_inode(dir, mode, &inode);

	if (err)
		return err;
	init_special_inode(inode, inode->i_mode, rdev);
	inode->i_op = &ext2_special_inode_operations;
	mark_inode_dirty(inode);
	err = ext2_add_nondir(dir, name, len, inode);
	if (!err)
		*out = inode;
	return err;
}

/* A target that fits in i_block with its NUL is kept there (a fast symlink, no block);
 * a longer one, up to a block with its NUL, is the contents of a data block written through
 * the page cache (2.6.23's page_symlink). */
static int __ext2_symlink(struct inode *dir, const char *name, size_t len, const char *target)
{
	size_t l = strlen(target) + 1;
	struct inode *inode;
	int err;

	if (l > dir->i_sb->s_blocksize)
		return -ENAMETOOLONG;
	err = ext2_new_inode(dir, S_IFLNK | 0777, &inode);
	if (err)
		return err;
	if (l > sizeof(EXT2_I(inode)->i_data)) {
		long n;

		inode->i_op = &ext2_symlink_inode_operations;
		ext2_set_aops(inode);
		n = kernel_write(inode, 0, target, l - 1);
		err = n < 0 ? (int)n : n != (long)(l - 1) ? -ENOSPC : 0;
	} else {
		inode->i_op = &ext2_fast_symlink_inode_operations;
		memcpy(EXT2_I(inode)->i_data, target, l);
		inode->i_size = l - 1;
	}
	mark_inode_dirty(inode);
	if (err) {
		inode_dec_link_count(inode);
		iput(inode);
		return err;
	}
	return ext2_add_nondir(dir, name, len, inode);
}

/* A hard link: one more entry and link; the inode keeps its VFS name (or, having none, takes
 * this one). */
static int __ext2_link(struct inode *inode, struct inode *dir, const char *name, size_t len)
{
	int err;

	if (inode->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	inode->i_ctime = current_time();
	inode_inc_link_count(inode);
	err = ext2_add_link(dir, name, len, inode);
	if (err) {
		inode_dec_link_count(inode);
		return err;
	}
	if (list_empty(&inode->i_dentry.d_child))
		d_attach(dir, inode, name, len);
	return 0;
}

static int __ext2_mkdir(struct inode *dir, const char *name, size_t len, uint32_t mode)
{
	struct inode *inode;
	int err;

	if (dir->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	inode_inc_link_count(dir); /* the new ".." */
	err = ext2_new_inode(dir, S_IFDIR | mode, &inode);
	if (err) {
		inode_dec_link_count(dir);
		return err;
	}
	ext2_set_inode_ops(inode);
	inode_inc_link_count(inode); /* its "." */
	err = ext2_make_empty(inode, dir);
	if (!err)
		err = ext2_add_link(dir, name, len, inode);
	if (err) {
		inode->i_nlink = 0;
		mark_inode_dirty(inode);
		iput(inode);
		inode_dec_link_count(dir);
		return err;
	}
	d_attach(dir, inode, name, len);
	return 0;
}

static int __ext2_unlink(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	struct ext2_dir_entry_2 *de;
	struct page *page;
	int err = ext2_find_entry(dir, name, len, &de, &page);

	if (!err)
		err = ext2_entry_is(de, page, inode);
	if (!err)
		err = ext2_delete_entry(de, page);
	if (err)
		return err;
	ext2_d_drop(dir, name, len, inode);
	inode->i_ctime = dir->i_ctime;
	inode_dec_link_count(inode);
	iput(inode); /* the last name: it goes once no file is open on it */
	return 0;
}

static int __ext2_rmdir(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	int err = ext2_empty_dir(inode);

	if (err <= 0)
		return err ? err : -ENOTEMPTY;
	inode->i_count++; /* unlink's iput must leave it to us */
	err = __ext2_unlink(dir, name, len, inode);
	inode->i_count--;
	if (err)
		return err;
	inode->i_size = 0;
	inode_dec_link_count(inode); /* its "." */
	inode_dec_link_count(dir);   /* its ".." */
	iput(inode);
	return 0;
}

/* 2.6.23's order: the new name first (an entry set to old, or a new entry), then the old
 * name goes, then a moved directory's ".." follows it; link counts of old and of a replaced
 * target as unlink has them, and of the parents when a directory changes parent. */
static int __ext2_rename(struct inode *old_dir, const char *old_name, size_t old_len,
		       struct inode *old, struct inode *new_dir, const char *name, size_t len,
		       struct inode *target, unsigned int flags)
{
	struct ext2_dir_entry_2 *old_de, *dir_de = NULL, *new_de;
	struct page *old_page, *dir_page = NULL, *new_page;
	int err;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL; /* ext2 cannot exchange, as Linux's */
	err = ext2_find_entry(old_dir, old_name, old_len, &old_de, &old_page);
	if (!err)
		err = ext2_entry_is(old_de, old_page, old);
	if (err)
		return err;
	if (S_ISDIR(old->i_mode) && (err = ext2_dotdot(old, &dir_de, &dir_page)))
		goto out_old;
	if (target) {
		if (dir_de && (err = ext2_empty_dir(target)) <= 0) {
			err = err ? err : -ENOTEMPTY;
			goto out_dir;
		}
		err = ext2_find_entry(new_dir, name, len, &new_de, &new_page);
		if (!err)
			err = ext2_entry_is(new_de, new_page, target);
		if (err)
			goto out_dir;
		old->i_count++; /* set_link sleeps; old must outlive a race with its unlink */
		inode_inc_link_count(old);
		ext2_set_link(new_dir, new_de, new_page, old);
		ext2_d_drop(new_dir, name, len, target);
		target->i_ctime = current_time();
		if (dir_de)
			target->i_nlink--; /* its "." */
		inode_dec_link_count(target);
		iput(target);
	} else {
		if (dir_de && new_dir->i_nlink >= EXT2_LINK_MAX) {
			err = -EMLINK;
			goto out_dir;
		}
		old->i_count++;
		inode_inc_link_count(old);
		err = ext2_add_link(new_dir, name, len, old);
		if (err) {
			old->i_count--;
			inode_dec_link_count(old);
			goto out_dir;
		}
		if (dir_de)
			inode_inc_link_count(new_dir);
	}
	old->i_ctime = current_time();
	mark_inode_dirty(old);
	/* ENOENT: an unlink that slept with us took the old name (and its link) already */
	err = ext2_delete_entry(old_de, old_page);
	if (!err)
		inode_dec_link_count(old);
	else if (err == -ENOENT)
		err = 0;
	old->i_count--;
	if (dir_de) {
		ext2_set_link(old, dir_de, dir_page, new_dir);
		inode_dec_link_count(old_dir);
	}
	/* The VFS name follows when it was the one moved (a hard link's other name stays). */
	if (ext2_is_d_name(old_dir, old_name, old_len, old)) {
		list_del(&old->i_dentry.d_child);
		d_attach(new_dir, old, name, len);
	}
	return err;
out_dir:
	if (dir_de)
		put_page(dir_page);
out_old:
	put_page(old_page);
	return err;
}

/* The calls the VFS makes, each under the mount's s_names */
static void ext2_lock_names(struct inode *dir)
{
	down_write(&EXT2_SB(dir->i_sb)->s_names);
}

static void ext2_unlock_names(struct inode *dir)
{
	up_write(&EXT2_SB(dir->i_sb)->s_names);
}

#define EXT2_LOCKED(dir, call)                                                               \
	({                                                                                   \
		int __err;                                                                   \
		ext2_lock_names(dir);                                                        \
		__err = (call);                                                              \
		ext2_unlock_names(dir);                                                      \
		__err;                                                                       \
	})

static int ext2_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
		       struct inode **out)
{
	return EXT2_LOCKED(dir, __ext2_create(dir, name, len, mode, out));
}

static int ext2_mknod(struct inode *dir, const char *name, size_t len, uint32_t mode,
		      uint32_t rdev, struct inode **out)
{
	return EXT2_LOCKED(dir, __ext2_mknod(dir, name, len, mode, rdev, out));
}

static int ext2_symlink(struct inode *dir, const char *name, size_t len, const char *target)
{
	return EXT2_LOCKED(dir, __ext2_symlink(dir, name, len, target));
}

static int ext2_link(struct inode *inode, struct inode *dir, const char *name, size_t len)
{
	return EXT2_LOCKED(dir, __ext2_link(inode, dir, name, len));
}

static int ext2_mkdir(struct inode *dir, const char *name, size_t len, uint32_t mode)
{
	return EXT2_LOCKED(dir, __ext2_mkdir(dir, name, len, mode));
}

static int ext2_unlink(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	return EXT2_LOCKED(dir, __ext2_unlink(dir, name, len, inode));
}

static int ext2_rmdir(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	return EXT2_LOCKED(dir, __ext2_rmdir(dir, name, len, inode));
}

static int ext2_rename(struct inode *old_dir, const char *old_name, size_t old_len,
		       struct inode *old, struct inode *new_dir, const char *name, size_t len,
		       struct inode *target, unsigned int flags)
{
	return EXT2_LOCKED(old_dir, __ext2_rename(old_dir, old_name, old_len, old, new_dir, name,
						  len, target, flags));
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
	.create = ext2_create,
	.mkdir = ext2_mkdir,
	.mknod = ext2_mknod,
	.symlink = ext2_symlink,
	.link = ext2_link,
	.unlink = ext2_unlink,
	.rmdir = ext2_rmdir,
	.rename = ext2_rename,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};

/* Device files, FIFOs and sockets: the disk inode only. */
const struct inode_operations ext2_special_inode_operations = {
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
