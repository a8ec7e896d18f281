/* Dirty inodes (2.6.23's fs/fs-writeback.c): an inode whose times, size, block map or pages are
 * newer in memory than on its disk waits on its super block's s_dirty list, oldest first, until
 * sync, fsync or umount writes it (write_inode_now). */
#include "kernel/fs/writeback.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/page.h"

void __mark_inode_dirty(struct inode *inode, int flags)
{
	struct super_block *sb = inode->i_sb;

	if (inode->i_state & I_FREEING)
		return;
	if (!sb || !sb->s_op || !sb->s_op->write_inode)
		return; /* its store is memory: nothing to write back */
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
