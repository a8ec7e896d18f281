/* Writeback (2.6.23's include/linux/writeback.h): what is dirty in memory, inodes and pages,
 * and the calls that put it on its store. kernel/fs/fs-writeback.c keeps the dirty inodes;
 * mm/page-writeback.c (declared in mm/filemap.h) writes a mapping's dirty pages. */
#ifndef KERNEL_FS_WRITEBACK_H
#define KERNEL_FS_WRITEBACK_H

#include "kernel/fs/fs.h"

enum writeback_sync_modes {
	WB_SYNC_NONE, /* start what can be written, skip what is busy */
	WB_SYNC_ALL,  /* write everything and wait (fsync, sync, umount) */
};

/* What a writeback pass is asked to do: handed down to writepage. */
struct writeback_control {
	enum writeback_sync_modes sync_mode;
	long nr_to_write;      /* pages still to write: each one written takes one off */
	uint64_t range_start;  /* bytes of the file to write, inclusive */
	uint64_t range_end;
	long pages_skipped;    /* dirty pages left because they were busy (WB_SYNC_NONE) */
	unsigned int for_reclaim : 1; /* reclaim wants the page freed */
};
#define WBC_ALL ((long)(~0UL >> 1)) /* nr_to_write without a limit */

/* i_state bits: what of an inode is newer in memory than on its store. */
#define I_DIRTY_SYNC 1     /* its times (fsync writes it, fdatasync need not) */
#define I_DIRTY_DATASYNC 2 /* what fdatasync needs too: its size, its block map */
#define I_DIRTY_PAGES 4    /* pages of its page cache */
#define I_DIRTY (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)
/* iput is deleting it (delete_inode may sleep): it never goes back on the dirty list, where a
 * sync would take a reference and iput it a second time. */
#define I_FREEING 8

/* kernel/fs/fs-writeback.c */
/* inode has something (flags, I_DIRTY_*) to write back: it goes on its super block's s_dirty
 * list (a file system without s_op->write_inode keeps no inodes on a store: nothing). */
void __mark_inode_dirty(struct inode *inode, int flags);
static inline void mark_inode_dirty(struct inode *inode)
{
	__mark_inode_dirty(inode, I_DIRTY);
}
static inline void mark_inode_dirty_sync(struct inode *inode)
{
	__mark_inode_dirty(inode, I_DIRTY_SYNC);
}
/* Write inode's dirty pages and the inode itself (s_op->write_inode) and, with sync, wait:
 * 0 or the first error. It leaves s_dirty. */
int write_inode_now(struct inode *inode, int sync);
/* Every dirty inode of sb, as write_inode_now: 0 or the first error. */
int sync_inodes_sb(struct super_block *sb, int wait);
/* The periodic writeback's pass (2.6.23's wb_kupdate): every inode, of every mounted file system
 * and of the block devices, dirtied before jiffies oldest written, not waited for. */
void writeback_inodes_older(uint64_t oldest);
/* Sleep until the periodic writeback is not writing sb's inodes (umount, which would find sb busy
 * while it does). */
void writeback_wait_sb(struct super_block *sb);
/* inode is going (iput): off the dirty list. */
void inode_sync_forget(struct inode *inode);

#endif
