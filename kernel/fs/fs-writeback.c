/* Dirty inodes (2.6.23's fs/fs-writeback.c): an inode whose times, size, block map or pages are
 * newer in memory than on its disk waits on its super block's s_dirty list, oldest first, until
 * sync, fsync, umount or the periodic writeback (writeback_inodes_older, mm/pdflush.c) writes it
 * (write_inode_now). */
#include "kernel/arch/atomic.h"
#include "kernel/fs/writeback.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/page.h"

void __mark_inode_dirty(struct inode *inode, int flags)
{
	struct super_block *sb = inode->i_sb;

	if (inode->i_state & I_FREEING)
		return;
	/* Its store is memory: nothing to write back. (A block device's inode has no
	 * write_inode, only pages to write: it waits on the "bdev" super block's list.) */
	if (!sb || ((!sb->s_op || !sb->s_op->write_inode) &&
		    !(flags == I_DIRTY_PAGES && inode->i_mapping &&
		      mapping_cap_account_dirty(inode->i_mapping))))
		return;
	if ((inode->i_state & (unsigned long)flags) == (unsigned long)flags)
		return;
	if (!(inode->i_state & I_DIRTY)) {
		inode->dirtied_when = jiffies;
		list_add_tail(&inode->i_list, &sb->s_dirty);
	}
	inode->i_state |= (unsigned long)flags;
}

void inode_sync_forget(struct inode *inode)
{
	list_del(&inode->i_list);
	inode->i_state &= ~(unsigned long)I_DIRTY;
}

/*
 * The inode is taken off the list and its state cleared before anything is written: what
 * dirties it while the writes sleep puts it back on the list, to be written next time. A
 * reference (i_count) keeps an unlinked inode alive meanwhile.
 */
int write_inode_now(struct inode *inode, int sync)
{
	unsigned long state = inode->i_state;
	struct super_block *sb = inode->i_sb;
	int err = 0, r;

	inode_sync_forget(inode);
	inode->i_count++;
	if (inode->i_mapping && inode->i_mapping->a_ops && inode->i_mapping->a_ops->writepage) {
		struct writeback_control wbc = {
			.sync_mode = sync ? WB_SYNC_ALL : WB_SYNC_NONE,
			.nr_to_write = WBC_ALL,
			.range_end = ~0ULL,
		};

		err = do_writepages(inode->i_mapping, &wbc);
		if (wbc.pages_skipped) /* busy pages: they wait for the next pass */
			__mark_inode_dirty(inode, I_DIRTY_PAGES);
	}
	if ((state & (I_DIRTY_SYNC | I_DIRTY_DATASYNC)) && sb->s_op && sb->s_op->write_inode) {
		r = sb->s_op->write_inode(inode, sync);
		if (r && !err)
			err = r;
	}
	inode->i_count--;
	iput(inode);
	return err;
}

/* The list is taken whole first, so that a writer who keeps dirtying inodes cannot keep the
 * sync going forever; what becomes dirty meanwhile waits for the next one. */
int sync_inodes_sb(struct super_block *sb, int wait)
{
	LIST_HEAD(batch);
	int err = 0;

	list_splice_init(&sb->s_dirty, &batch);
	while (!list_empty(&batch)) {
		struct inode *inode = list_first_entry(&batch, struct inode, i_list);
		int r;

		/* write_inode_now takes it off batch (a delete while it sleeps would too). */
		r = write_inode_now(inode, wait);
		if (r && !err)
			err = r;
	}
	return err;
}

/* The super block whose inodes the periodic writeback is writing now, or NULL. */
static struct super_block *writeback_sb;

void writeback_wait_sb(struct super_block *sb)
{
	while (READ_ONCE(writeback_sb) == sb) {
		current->state = TASK_UNINTERRUPTIBLE;
		schedule_timeout(1);
	}
}

/* One super block's inodes dirtied before oldest (jiffies), oldest first, without waiting. Each
 * leaves the list before it is written: one dirtied again meanwhile goes to the tail, younger. */
static bool writeback_sb_older(struct super_block *sb, uint64_t oldest)
{
	bool wrote = false;

	while (!list_empty(&sb->s_dirty)) {
		struct inode *inode = list_first_entry(&sb->s_dirty, struct inode, i_list);

		if ((int64_t)(inode->dirtied_when - oldest) > 0)
			break;
		write_inode_now(inode, 0);
		wrote = true;
	}
	return wrote;
}

void writeback_inodes_older(uint64_t oldest)
{
	struct super_block *sb;
	bool wrote;

again: /* the writes slept: the list may have changed, so the walk starts over */
	list_for_each_entry(sb, mount_table(), s_list) {
		if (list_empty(&sb->s_dirty))
			continue;
		/* It cannot go while the writes sleep (sync_filesystem's way); a umount waits
		 * for them (writeback_wait_sb) rather than seeing it busy. */
		sb->s_inflight++;
		writeback_sb = sb;
		wrote = writeback_sb_older(sb, oldest);
		writeback_sb = NULL;
		sb->s_inflight--;
		if (wrote) /* (it has none older than oldest left: the next walk passes it) */
			goto again;
	}
	if (blockdev_superblock)
		writeback_sb_older(blockdev_superblock, oldest);
}
