/* fsync, fdatasync, sync and syncfs (Linux's fs/sync.c): what a file or a file system holds
 * only in memory is put on its store. The memory file systems' page cache is their store
 * (noop_fsync); a disk's file system writes its dirty inodes, their pages and its buffers. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/writeback.h"
#include "kernel/syscalls.h"

/* 0, or -EINVAL for a file that cannot be synced, or the file system's error (-EIO). */
static long do_fsync(uint64_t fd, int datasync)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (!f->f_op || !f->f_op->fsync)
		return -EINVAL;
	return f->f_op->fsync(f, datasync);
}

long sys_fsync(uint64_t fd)
{
	return do_fsync(fd, 0);
}

long sys_fdatasync(uint64_t fd)
{
	return do_fsync(fd, 1);
}

/* It stays mounted meanwhile (umount is EBUSY while s_inflight counts the sync). Its dirty
 * inodes (and their pages) first, then its super block, then the buffers they dirtied. */
int sync_filesystem(struct super_block *sb)
{
	int err, r;

	sb->s_inflight++;
	err = sync_inodes_sb(sb, 1);
	if (sb->s_dirt && sb->s_op && sb->s_op->write_super)
		sb->s_op->write_super(sb);
	if (sb->s_bdev) {
		r = sync_blockdev(sb->s_bdev);
		if (r && !err)
			err = r;
	}
	sb->s_inflight--;
	return err;
}

/* Errors are not reported: sync(2) cannot fail. */
long sys_sync(void)
{
	struct super_block *sb;

	list_for_each_entry(sb, mount_table(), s_list)
		sync_filesystem(sb);
	return 0;
}

/* The file system holding fd's file written; its error, or the writeback error of any of its
 * files (or its metadata) since this open file last asked, once (today's Linux's s_wb_err). */
long sys_syncfs(uint64_t fd)
{
	struct file *f = fget(fd);
	struct super_block *sb;
	int err, r;

	if (!f)
		return -EBADF;
	sb = f->f_inode->i_sb;
	err = sync_filesystem(sb);
	r = errseq_check_and_advance(&sb->s_wb_err, &f->f_sb_err);
	return err ? err : r;
}
