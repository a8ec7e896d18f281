/* Shrinking a file's block map (the truncate half of Linux 2.6.23's fs/ext2/inode.c): the data
 * and indirect blocks past i_size go back to their groups, at every depth of the map. */
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"

/* The data blocks named in [p, q) freed, runs in a row on the disk at once, and their slots
 * zeroed (2.6.23's ext2_free_data). */
static void ext2_free_data(struct inode *inode, uint32_t *p, uint32_t *q)
{
	uint32_t start = 0;
	unsigned long count = 0;

	for (; p < q; p++) {
		uint32_t nr = *p;

		if (!nr)
			continue;
		*p = 0;
		if (count && nr == start + count) {
			count++;
			continue;
		}
		if (count)
			ext2_free_blocks(inode, start, count);
		start = nr;
		count = 1;
	}
	if (count)
		ext2_free_blocks(inode, start, count);
}

/* The trees under the slots [p, q), depth levels of indirect blocks deep (0: data blocks),
 * freed whole and the slots zeroed (2.6.23's ext2_free_branches). */
static void ext2_free_branches(struct inode *inode, uint32_t *p, uint32_t *q, int depth)
{
	struct super_block *sb = inode->i_sb;
	unsigned long per_block = sb->s_blocksize / sizeof(uint32_t);

	if (!depth) {
		ext2_free_data(inode, p, q);
		return;
	}
	for (; p < q; p++) {
		uint32_t nr = *p;
		struct buffer_head *bh;

		if (!nr)
			continue;
		*p = 0;
		if (!ext2_block_ok(sb, nr)) {
			ext2_msg(sb, "inode %lu: indirect block %u outside the file system",
				 inode->i_ino, nr);
			continue;
		}
		bh = sb_bread(sb, nr);
		if (!bh) { /* its blocks stay taken: e2fsck finds them */
			ext2_msg(sb, "inode %lu: cannot read indirect block %u", inode->i_ino, nr);
			continue;
		}
		ext2_free_branches(inode, (uint32_t *)bh->b_data,
				   (uint32_t *)bh->b_data + per_block, depth - 1);
		brelse(bh);
		ext2_free_blocks(inode, nr, 1); /* its buffer, changed above, is forgotten */
	}
}

/*
 * In the array [arr, end) of block numbers (i_data's slot, or an indirect block bh holds),
 * n levels above the data, free what lies at or past the path offsets[0..n): the subtree at
 * offsets[0] only in part if a deeper offset is not 0 (blocks before the end live there),
 * every slot after it whole.
 */
static void ext2_truncate_array(struct inode *inode, uint32_t *arr, uint32_t *end,
				struct buffer_head *bh, const unsigned long *offsets, int n)
{
	struct super_block *sb = inode->i_sb;
	uint32_t *slot = arr + offsets[0];
	bool partial = false;
	int k;

	for (k = 1; k < n; k++)
		partial |= offsets[k] != 0;
	if (partial && *slot && ext2_block_ok(sb, *slot)) {
		struct buffer_head *child = sb_bread(sb, *slot);

		if (child) {
			ext2_truncate_array(inode, (uint32_t *)child->b_data,
					    (uint32_t *)(child->b_data + sb->s_blocksize), child,
					    offsets + 1, n - 1);
			brelse(child);
		} else {
			ext2_msg(sb, "inode %lu: cannot read indirect block %u", inode->i_ino,
				 *slot);
		}
	}
	ext2_free_branches(inode, partial ? slot + 1 : slot, end, n - 1);
	if (bh)
		mark_buffer_dirty(bh);
}

void ext2_truncate(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct super_block *sb = inode->i_sb;
	unsigned long offsets[4];
	uint64_t iblock = (inode->i_size + sb->s_blocksize - 1) >> sb->s_blocksize_bits;
	uint32_t *i_data = ei->i_data;
	int n, k;

	if (!(S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) || S_ISLNK(inode->i_mode)))
		return;
	if (!inode->i_mapping)
		return; /* a fast symlink: i_data holds its target, no block */
	if (ei->i_flags & (EXT2_APPEND_FL | EXT2_IMMUTABLE_FL))
		return;
	/* Before the map is locked: it takes the page lock, under which get_block is called. */
	block_truncate_page(inode->i_mapping, inode->i_size, ext2_get_block);
	n = ext2_block_to_path(inode, iblock, offsets);
	down_write(&ei->truncate_mutex);
	if (n == 1) {
		ext2_free_data(inode, i_data + offsets[0], i_data + EXT2_NDIR_BLOCKS);
	} else if (n > 1) {
		unsigned long sub[4] = { 0, offsets[1], n > 2 ? offsets[2] : 0,
					 n > 3 ? offsets[3] : 0 };

		ext2_truncate_array(inode, i_data + offsets[0], i_data + offsets[0] + 1, NULL,
				    sub, n);
	}
	/* The indirect trees after the path's, whole (none past a triple indirect path). */
	for (k = n ? (int)MAX(offsets[0] + 1, (unsigned long)EXT2_IND_BLOCK) : EXT2_N_BLOCKS;
	     k < EXT2_N_BLOCKS; k++)
		ext2_free_branches(inode, i_data + k, i_data + k + 1, k - EXT2_IND_BLOCK + 1);
	/* The next allocation starts afresh from the map. */
	ei->i_next_alloc_block = 0;
	ei->i_next_alloc_goal = 0;
	up_write(&ei->truncate_mutex);
	inode->i_mtime = inode->i_ctime = current_time();
	mark_inode_dirty(inode);
}
