/* A file's block map (Linux 2.6.23's fs/ext2/inode.c, its get_block half): block i of a file
 * to a disk block through i_block's direct, indirect, double and triple indirect blocks, and
 * for a write the missing branch allocated near the file's other blocks. */
#include "kernel/compiler.h"
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

/*
 * Block i of a file to its path through i_block (2.6.23's ext2_block_to_path): offsets[0] is
 * the slot in i_block, each next one the slot in the indirect block the previous one names.
 * An indirect block holds N = blocksize / 4 block numbers. The first 12 blocks are direct
 * (depth 1: offsets[0] = i); the next N go through i_block[EXT2_IND_BLOCK] (depth 2), the next
 * N^2 through i_block[EXT2_DIND_BLOCK] (depth 3), the next N^3 through
 * i_block[EXT2_TIND_BLOCK] (depth 4), each level's slot the next base-N digit of i less the
 * blocks before its range. Returns the depth, 0 for a block past the triple indirect range
 * (ext2_get_block answers it -EIO). __weak: the lab block_to_path (docs/exercises.md) links
 * its stub instead.
 */
__weak int ext2_block_to_path(struct inode *inode, uint64_t i, unsigned long offsets[4])
{
	unsigned int bits = inode->i_sb->s_blocksize_bits - 2; /* 4-byte numbers per block */
	uint64_t ptrs = 1ULL << bits;

	if (i < EXT2_NDIR_BLOCKS) {
		offsets[0] = i;
		return 1;
	}
	i -= EXT2_NDIR_BLOCKS;
	if (i < ptrs) {
		offsets[0] = EXT2_IND_BLOCK, offsets[1] = i;
		return 2;
	}
	i -= ptrs;
	if (i < ptrs * ptrs) {
		offsets[0] = EXT2_DIND_BLOCK, offsets[1] = i >> bits, offsets[2] = i & (ptrs - 1);
		return 3;
	}
	i -= ptrs * ptrs;
	if ((i >> (2 * bits)) < ptrs) {
		offsets[0] = EXT2_TIND_BLOCK;
		offsets[1] = i >> (2 * bits);
		offsets[2] = (i >> bits) & (ptrs - 1);
		offsets[3] = i & (ptrs - 1);
		return 4;
	}
	return 0;
}

bool ext2_block_ok(struct super_block *sb, uint32_t block)
{
	struct ext2_super_block *es = EXT2_SB(sb)->s_es;

	return block >= es->s_first_data_block && block < es->s_blocks_count;
}

/* One step of a path through the block map: where the block number lies (p, in i_data or in
 * the indirect block bh holds) and what it was when read (key). */
struct ext2_indirect {
	uint32_t *p;
	uint32_t key;
	struct buffer_head *bh;
};

/*
 * Follow the path of offsets (depth steps) as far as blocks exist, as 2.6.23's
 * ext2_get_branch, under truncate_mutex (so nothing changes while a read sleeps). NULL if the
 * data block exists (chain[depth - 1].key); else the step whose key is 0, the first block
 * missing. *err -EIO if an indirect block cannot be read or lies outside the file system.
 */
static struct ext2_indirect *ext2_get_branch(struct inode *inode, int depth,
					     const unsigned long *offsets,
					     struct ext2_indirect chain[4], int *err)
{
	struct super_block *sb = inode->i_sb;
	int k;

	*err = 0;
	chain[0].p = &EXT2_I(inode)->i_data[offsets[0]];
	chain[0].key = *chain[0].p;
	chain[0].bh = NULL;
	for (k = 1; k < depth; k++) {
		struct buffer_head *bh;

		if (!chain[k - 1].key)
			return &chain[k - 1];
		if (!ext2_block_ok(sb, chain[k - 1].key)) {
			ext2_msg(sb, "inode %lu: indirect block %u outside the file system",
				 inode->i_ino, chain[k - 1].key);
			*err = -EIO;
			return &chain[k - 1];
		}
		bh = sb_bread(sb, chain[k - 1].key);
		if (!bh) {
			*err = -EIO;
			return &chain[k - 1];
		}
		chain[k].bh = bh;
		chain[k].p = (uint32_t *)bh->b_data + offsets[k];
		chain[k].key = *chain[k].p;
	}
	return chain[depth - 1].key ? NULL : &chain[depth - 1];
}

/*
 * Where a new block of the file should go (2.6.23's ext2_find_goal and ext2_find_near): right
 * after the last one allocated if the file is written in order, else after the nearest block
 * before it in the same indirect block (or i_data), else after that indirect block, else a
 * place in the inode's group that differs by process, so that files written at the same
 * time do not interleave.
 */
static uint32_t ext2_find_goal(struct inode *inode, uint64_t iblock, struct ext2_indirect *ind)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	uint32_t *start = ind->bh ? (uint32_t *)ind->bh->b_data : ei->i_data, *p;
	unsigned long colour;

	if (iblock == ei->i_next_alloc_block && ei->i_next_alloc_goal)
		return ei->i_next_alloc_goal;
	for (p = ind->p - 1; p >= start; p--)
		if (*p)
			return *p;
	if (ind->bh)
		return (uint32_t)ind->bh->b_blocknr;
	colour = (unsigned long)(current->pid % 16) * (sbi->s_blocks_per_group / 16);
	return sbi->s_es->s_first_data_block +
	       (uint32_t)(ei->i_block_group * sbi->s_blocks_per_group + colour);
}

/*
 * The num blocks a branch lacks, from the missing indirect block down to the data block, as
 * 2.6.23's ext2_alloc_branch: allocated in a row from goal, each indirect one zeroed in the
 * device's cache with the number of the next in its slot (offsets[1..]). branch[0].key is
 * the first, for the caller to put in its place. 0, or -ENOSPC or -EIO with every block
 * allocated given back.
 */
static int ext2_alloc_branch(struct inode *inode, int num, uint32_t goal,
			     const unsigned long *offsets, struct ext2_indirect *branch)
{
	struct super_block *sb = inode->i_sb;
	uint32_t blocks[4];
	int n, allocated = 0, made = 0, err = 0;

	for (n = 0; n < num; n++) {
		blocks[n] = ext2_new_block(inode, goal, &err);
		if (!blocks[n])
			goto failed;
		allocated++;
		goal = blocks[n] + 1;
	}
	branch[0].key = blocks[0];
	for (n = 1; n < num; n++) {
		struct buffer_head *bh = __getblk(sb->s_bdev, blocks[n - 1],
						  (unsigned int)sb->s_blocksize);

		if (!bh) {
			err = -EIO;
			goto failed;
		}
		lock_buffer(bh);
		memset(bh->b_data, 0, bh->b_size);
		branch[n].bh = bh;
		branch[n].p = (uint32_t *)bh->b_data + offsets[n];
		branch[n].key = *branch[n].p = blocks[n];
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		mark_buffer_dirty(bh);
		made = n;
	}
	return 0;
failed:
	for (n = 1; n <= made; n++) /* freeing forgets these zeroed buffers: never written */
		brelse(branch[n].bh);
	for (n = 0; n < allocated; n++)
		ext2_free_blocks(inode, blocks[n], 1);
	return err;
}

int ext2_get_block(struct inode *inode, uint64_t iblock, struct buffer_head *bh_result,
		   int create)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned long offsets[4];
	struct ext2_indirect chain[4], *partial, *p;
	int depth = ext2_block_to_path(inode, iblock, offsets), err, left;
	uint32_t block;

	if (!depth) {
		ext2_msg(sb, "inode %lu: block %llu is past the triple indirect block's reach",
			 inode->i_ino, (unsigned long long)iblock);
		return -EIO;
	}
	if (create)
		down_write(&ei->truncate_mutex);
	else
		down_read(&ei->truncate_mutex);
	partial = ext2_get_branch(inode, depth, offsets, chain, &err);
	if (!partial) {
		block = chain[depth - 1].key;
		if (!ext2_block_ok(sb, block)) {
			ext2_msg(sb, "inode %lu: block %llu maps to block %u, outside the file "
				 "system", inode->i_ino, (unsigned long long)iblock, block);
			err = -EIO;
		} else {
			map_bh(bh_result, sb, block);
		}
		partial = &chain[depth - 1];
		goto out;
	}
	if (err || !create)
		goto out; /* a hole: bh_result stays unmapped, the page reads zeroes there */
	left = (int)(&chain[depth] - partial);
	err = ext2_alloc_branch(inode, left, ext2_find_goal(inode, iblock, partial),
				offsets + (partial - chain), partial);
	if (err)
		goto out;
	/* The branch hangs from its place only now, whole (2.6.23's ext2_splice_branch). */
	*partial->p = partial->key;
	if (partial->bh)
		mark_buffer_dirty(partial->bh);
	block = chain[depth - 1].key;
	ei->i_next_alloc_block = iblock + 1;
	ei->i_next_alloc_goal = block + 1;
	inode->i_ctime = current_time();
	mark_inode_dirty(inode);
	/* A stale metadata buffer of the block must not be written over the file's data. */
	unmap_underlying_metadata(sb->s_bdev, block);
	map_bh(bh_result, sb, block);
	set_buffer_new(bh_result);
	partial = &chain[depth - 1];
out:
	for (p = partial; p > chain; p--)
		brelse(p->bh);
	if (create)
		up_write(&ei->truncate_mutex);
	else
		up_read(&ei->truncate_mutex);
	return err;
}
