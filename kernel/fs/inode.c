/* Inodes: made by a file system for each file it holds, named in their directory, and freed
 * when neither a name nor an open file is left (then their page cache goes back too). */
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/pipe.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

/* One counter for every file system, as Linux's get_next_ino: numbers never repeat. */
static unsigned long last_ino;

struct inode *new_inode(struct super_block *sb, uint32_t mode)
{
	struct inode *i = kzalloc(sizeof(*i));

	if (!i)
		return NULL;
	i->i_ino = ++last_ino;
	i->i_mode = mode;
	i->i_atime = i->i_mtime = i->i_ctime = current_time();
	i->i_nlink = 1;
	i->i_sb = sb;
	i->i_blkbits = sb ? sb->s_blocksize_bits : 0;
	/* A disk's file is read ahead as its device's queue says (BLKRASET). */
	if (sb && sb->s_bdev && sb->s_bdev->bd_inode)
		i->i_data.backing_dev_info = sb->s_bdev->bd_inode->i_data.backing_dev_info;
	i->i_dentry.d_inode = i;
	i->i_dentry.d_parent = i;
	INIT_LIST_HEAD(&i->i_children);
	INIT_LIST_HEAD(&i->i_dentry.d_child);
	INIT_LIST_HEAD(&i->i_list);
	return i;
}

void d_attach(struct inode *dir, struct inode *inode, const char *name, size_t len)
{
	memcpy(inode->i_dentry.d_name, name, len);
	inode->i_dentry.d_name[len] = '\0';
	inode->i_dentry.d_parent = dir;
	list_add_tail(&inode->i_dentry.d_child, &dir->i_children);
}

void d_move(struct dentry *d, struct inode *dir, const char *name, size_t len)
{
	list_del(&d->d_child);
	memcpy(d->d_name, name, len);
	d->d_name[len] = '\0';
	d->d_parent = dir;
	list_add_tail(&d->d_child, &dir->i_children);
}

/* A name that is gone and unused: it lets go of the directory it held, and is freed unless
 * it is its inode's first one (which goes with the inode, iput). */
static void d_free_unused(struct dentry *d)
{
	struct inode *dir = d->d_parent;
	bool held = d->d_holds_parent;

	if (held) {
		d->d_holds_parent = false;
		d->d_parent = d->d_inode->i_sb->s_root; /* (no one looks at it any more) */
	}
	if (d != &d->d_inode->i_dentry)
		kfree(d);
	if (held && --dir->i_count == 0)
		iput(dir); /* a directory removed meanwhile goes now */
}

void dput(struct dentry *d)
{
	BUG_ON(d->d_count <= 0);
	if (--d->d_count == 0 && d_unlinked(d))
		d_free_unused(d);
}

void d_delete(struct dentry *d, struct inode *dir)
{
	list_del(&d->d_child);
	d->d_parent = dir;
	if (d->d_count) {
		d->d_holds_parent = true;
		dir->i_count++;
	} else {
		d->d_parent = dir->i_sb->s_root; /* (dir may go: never a pointer to it) */
		d_free_unused(d);
	}
}

/* A socket's name in a directory: faultline has no sockets that bind to a path, and Linux's
 * open of one answers ENXIO. */
static int sock_no_open(struct inode *ino, struct file *f)
{
	(void)ino, (void)f;
	return -ENXIO;
}

static const struct file_operations bad_sock_fops = {
	.open = sock_no_open,
};

void init_special_inode(struct inode *inode, uint32_t mode, uint32_t rdev)
{
	inode->i_mode = mode;
	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		inode->i_rdev = rdev;
		inode->i_fop = S_ISCHR(mode) ? &def_chr_fops : &def_blk_fops;
	} else if (S_ISFIFO(mode)) {
		inode->i_fop = &def_fifo_fops;
	} else {
		inode->i_fop = &bad_sock_fops;
	}
}

void inode_touch_mtime(struct inode *inode)
{
	inode->i_mtime = inode->i_ctime = current_time();
	mark_inode_dirty_sync(inode);
}

void file_update_time(struct file *file)
{
	struct inode *inode = file->f_inode;
	struct timespec64 now = current_time();

	if (inode->i_mtime.tv_sec == now.tv_sec && inode->i_mtime.tv_nsec == now.tv_nsec &&
	    inode->i_ctime.tv_sec == now.tv_sec && inode->i_ctime.tv_nsec == now.tv_nsec)
		return;
	inode->i_mtime = inode->i_ctime = now;
	mark_inode_dirty_sync(inode);
}

static bool ts_after(struct timespec64 a, struct timespec64 b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

void file_accessed(struct file *f)
{
	struct inode *i = f->f_inode;
	struct timespec64 now = current_time();

	if (IS_NOATIME(i))
		return; /* mounted noatime, or read-only */
	if (!ts_after(i->i_atime, i->i_mtime) || !ts_after(i->i_atime, i->i_ctime) ||
	    now.tv_sec - i->i_atime.tv_sec >= 24 * 60 * 60) {
		i->i_atime = now;
		mark_inode_dirty_sync(i);
	}
}

void iput(struct inode *i)
{
	if (i->i_count > 0 || i->i_nlink > 0)
		return;
	fsnotify_inoderemove(i); /* IN_DELETE_SELF, and its watches go */
	inode_sync_forget(i); /* nothing of it is to be written any more */
	i->i_state |= I_FREEING;
	/* (A block device's node maps the device's cache, bd_inode's, which outlives it.) */
	if (i->i_mapping && i->i_mapping->host == i)
		truncate_inode_pages(i, 0, i->i_size); /* every cached page goes back */
	if (i->i_sb && i->i_sb->s_op && i->i_sb->s_op->delete_inode) {
		i->i_sb->s_op->delete_inode(i); /* the store frees it (and i_private) */
	} else if (i->i_op && i->i_op->truncate) { /* the store lets go of it all */
		i->i_size = 0;
		i->i_op->truncate(i);
	}
	kfree(i);
}
