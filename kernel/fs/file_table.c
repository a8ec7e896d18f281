/* Open files: a struct file is one open of an inode, counted by the descriptors and
 * mappings that hold it. Its f_op comes from the inode and may be replaced by the file's
 * own open (a character device picks its driver's table there). */
#include "kernel/errno.h"
#include "kernel/fs/eventpoll.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/locks.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/slab.h"

struct file *fget(uint64_t fd)
{
	return fcheck_files(current->files, fd);
}

void get_file(struct file *f)
{
	f->f_count++;
}

void fput(struct file *f)
{
	struct super_block *sb;

	if (!f || --f->f_count > 0)
		return;
	sb = f->f_inode->i_sb;
	fsnotify_close(f);
	locks_remove_file(f);
	eventpoll_release(f); /* out of every epoll set that watched it */
	if (f->f_op && f->f_op->release)
		f->f_op->release(f->f_inode, f);
	list_del(&f->f_list);
	if (f->f_mode & FMODE_WRITER)
		put_write_access(f->f_inode);
	dput(f->f_dentry); /* before the inode, which may hold it (its first name) */
	if (--f->f_inode->i_count == 0)
		iput(f->f_inode); /* frees it if it was unlinked */
	if (unlikely(sb->s_detached))
		put_detached_super(sb);
	kfree(f);
}

int get_write_access(struct inode *inode)
{
	if (inode->i_writecount < 0)
		return -ETXTBSY;
	inode->i_writecount++;
	return 0;
}

void put_write_access(struct inode *inode)
{
	BUG_ON(inode->i_writecount <= 0);
	inode->i_writecount--;
}

int deny_write_access(struct file *f)
{
	struct inode *inode = f->f_inode;

	if (inode->i_writecount > 0)
		return -ETXTBSY;
	inode->i_writecount--;
	return 0;
}

void allow_write_access(struct file *f)
{
	BUG_ON(f->f_inode->i_writecount >= 0);
	f->f_inode->i_writecount++;
}

/* A device, FIFO or socket: writing it writes no file, so no program is in the way. */
static bool special_file(uint32_t mode)
{
	return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode);
}

/* Flags that act at open and are not kept in f_flags (F_GETFL never shows them). */
#define OPEN_ONLY_FLAGS (O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC | __FMODE_NONOTIFY)

int dentry_open(struct dentry *dentry, unsigned int flags, struct file **out)
{
	struct inode *inode = dentry->d_inode;
	struct file *f = kzalloc(sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	*f = (struct file){ .f_count = 1, .f_inode = inode, .f_dentry = dentry,
			    .f_op = inode->i_fop,
			    /* O_NOCTTY is seen by open() (a terminal's), then dropped */
			    .f_flags = (flags | O_LARGEFILE) &
				       ~(unsigned int)(OPEN_ONLY_FLAGS & ~O_NOCTTY),
			    .f_mode = FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE };
	INIT_LIST_HEAD(&f->f_ep_links);
	if (flags & __FMODE_NONOTIFY)
		f->f_mode |= FMODE_NONOTIFY;
	if ((flags & O_ACCMODE) != O_WRONLY)
		f->f_mode |= FMODE_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		f->f_mode |= FMODE_WRITE;
	if (inode->i_mapping)
		file_ra_state_init(&f->f_ra, inode->i_mapping);
	/* Not while a program runs from it (before the file's own open, as Linux's
	 * do_dentry_open). */
	if ((f->f_mode & FMODE_WRITE) && !special_file(inode->i_mode)) {
		err = get_write_access(inode);
		if (err) {
			kfree(f);
			return err;
		}
		f->f_mode |= FMODE_WRITER;
	}
	inode->i_count++;
	dentry->d_count++;
	/* An open file is a use of its mount (a pending MNT_EXPIRE is called off) and keeps it
	 * from being unmounted, or made read-only under a writer: from before open(), which may
	 * sleep (a FIFO's waits for the other end). */
	inode->i_sb->s_expiry_mark = false;
	list_add(&f->f_list, &inode->i_sb->s_files);
	err = f->f_op && f->f_op->open ? f->f_op->open(inode, f) : 0;
	f->f_flags &= ~(unsigned int)O_NOCTTY;
	if (err) {
		/* Not released: open failed, so there is nothing to undo but the count. */
		list_del(&f->f_list);
		if (f->f_mode & FMODE_WRITER)
			put_write_access(inode);
		dput(dentry);
		inode->i_count--;
		kfree(f);
		if (unlikely(inode->i_sb->s_detached))
			put_detached_super(inode->i_sb);
		return err;
	}
	/* After open, which may have given the file another mapping (a block device's). */
	if (inode->i_mapping)
		f->f_wb_err = filemap_sample_wb_err(inode->i_mapping);
	f->f_sb_err = errseq_sample(&inode->i_sb->s_wb_err);
	fsnotify_open(f); /* Linux's vfs_open: once fput will say IN_CLOSE_* */
	*out = f;
	return 0;
}

int nonseekable_open(struct inode *inode, struct file *f)
{
	(void)inode;
	f->f_mode &= ~(unsigned int)(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE);
	return 0;
}
