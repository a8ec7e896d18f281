/* ext2's block groups and blocks (Linux 2.6.23's fs/ext2/balloc.c): where a group's descriptor
 * is, which groups hold copies of the super block and descriptors, the free counts statfs
 * adds up, and the allocation and freeing of blocks through the groups' block bitmaps. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"

struct ext2_group_desc *ext2_get_group_desc(struct super_block *sb, unsigned long group,
					    struct buffer_head **bh)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long block = group / sbi->s_desc_per_block;
	unsigned long offset = group % sbi->s_desc_per_block;

	if (group >= sbi->s_groups_count)
		return NULL;
	if (bh)
		*bh = sbi->s_group_desc[block];
	return (struct ext2_group_desc *)sbi->s_group_desc[block]->b_data + offset;
}

/* Is a a power of b? */
static int test_root(unsigned long a, unsigned long b)
{
	unsigned long num = b;

	while (a > num)
		num *= b;
	return num == a;
}

int ext2_bg_has_super(struct super_block *sb, unsigned long group)
{
	if (!EXT2_HAS_RO_COMPAT_FEATURE(sb, EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	return group <= 1 || test_root(group, 3) || test_root(group, 5) || test_root(group, 7);
}

/* With META_BG, descriptor block n lives at the start of meta group n (the groups whose
 * descriptors it holds): in its first group, and copies in its second and last. */
static unsigned long ext2_bg_num_gdb_meta(struct super_block *sb, unsigned long group)
{
	unsigned long per = EXT2_SB(sb)->s_desc_per_block, index = group % per;

	return index == 0 || index == 1 || index == per - 1;
}

unsigned long ext2_bg_num_gdb(struct super_block *sb, unsigned long group)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long metagroup = group / sbi->s_desc_per_block;

	if (!EXT2_HAS_INCOMPAT_FEATURE(sb, EXT2_FEATURE_INCOMPAT_META_BG) ||
	    metagroup < sbi->s_es->s_first_meta_bg)
		return ext2_bg_has_super(sb, group) ? sbi->s_gdb_count : 0;
	return ext2_bg_num_gdb_meta(sb, group);
}

uint64_t descriptor_loc(struct super_block *sb, uint64_t logic_sb_block, unsigned long nr)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long bg;

	if (!EXT2_HAS_INCOMPAT_FEATURE(sb, EXT2_FEATURE_INCOMPAT_META_BG) ||
	    nr < sbi->s_es->s_first_meta_bg)
		return logic_sb_block + nr + 1;
	bg = sbi->s_desc_per_block * nr;
	return sbi->s_es->s_first_data_block + (uint64_t)bg * sbi->s_blocks_per_group +
	       (unsigned long)ext2_bg_has_super(sb, bg);
}

unsigned long ext2_count_free_blocks(struct super_block *sb)
{
	unsigned long i, n = 0;

	for (i = 0; i < EXT2_SB(sb)->s_groups_count; i++)
		n += ext2_get_group_desc(sb, i, NULL)->bg_free_blocks_count;
	return n;
}

unsigned long ext2_count_free_inodes(struct super_block *sb)
{
	unsigned long i, n = 0;

	for (i = 0; i < EXT2_SB(sb)->s_groups_count; i++)
		n += ext2_get_group_desc(sb, i, NULL)->bg_free_inodes_count;
	return n;
}

/* The first block of group, and how many it has (the last group may be short). */
static uint32_t group_first_block(struct super_block *sb, unsigned long group)
{
	return EXT2_SB(sb)->s_es->s_first_data_block +
	       (uint32_t)(group * EXT2_SB(sb)->s_blocks_per_group);
}

static unsigned long group_blocks(struct super_block *sb, unsigned long group)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);

	return MIN(sbi->s_blocks_per_group,
		   sbi->s_es->s_blocks_count - group_first_block(sb, group));
}

/* The blocks at group's start that copy the super block and the descriptors. */
static unsigned long group_head(struct super_block *sb, unsigned long group)
{
	if (!EXT2_HAS_INCOMPAT_FEATURE(sb, EXT2_FEATURE_INCOMPAT_META_BG) &&
	    !ext2_bg_has_super(sb, group))
		return 0;
	return (unsigned long)ext2_bg_has_super(sb, group) + ext2_bg_num_gdb(sb, group);
}

/* Is block one of group's own metadata: a super block or descriptor copy at its start, its
 * bitmaps, its inode table? */
static bool ext2_system_block(struct super_block *sb, unsigned long group,
			      const struct ext2_group_desc *gdp, uint32_t block)
{
	uint32_t first = group_first_block(sb, group);

	return (block >= first && block - first < group_head(sb, group)) ||
	       block == gdp->bg_block_bitmap || block == gdp->bg_inode_bitmap ||
	       (block >= gdp->bg_inode_table &&
		block - gdp->bg_inode_table < EXT2_SB(sb)->s_itb_per_group);
}

/* The first block of [start, start + len) inside group whose bit is clear, or 0. */
static uint32_t first_clear(struct super_block *sb, unsigned long group, const void *bitmap,
			    uint32_t start, unsigned long len)
{
	uint32_t first = group_first_block(sb, group), b;
	unsigned long n = group_blocks(sb, group);

	for (b = start; b - start < len; b++)
		if (b >= first && b - first < n && !ext2_test_bit(b - first, bitmap))
			return b;
	return 0;
}

/*
 * Every metadata block of group inside it must be marked in use in its bitmap, or the bitmap
 * is corrupt and nothing is taken from it (a block handed out would overwrite the metadata).
 * The first metadata block marked free, or 0 if the bitmap is sound. (With flex_bg a group's
 * bitmaps and table may lie in another group: that group's bitmap is not asked about them.)
 */
static uint32_t ext2_bad_block_bitmap(struct super_block *sb, unsigned long group,
				      const struct ext2_group_desc *gdp, const void *bitmap)
{
	uint32_t bad = first_clear(sb, group, bitmap, group_first_block(sb, group),
				   group_head(sb, group));

	if (!bad)
		bad = first_clear(sb, group, bitmap, gdp->bg_block_bitmap, 1);
	if (!bad)
		bad = first_clear(sb, group, bitmap, gdp->bg_inode_bitmap, 1);
	if (!bad)
		bad = first_clear(sb, group, bitmap, gdp->bg_inode_table,
				  EXT2_SB(sb)->s_itb_per_group);
	return bad;
}

/* group's block bitmap, read and checked, or NULL (-EIO, said on the console). */
static struct buffer_head *read_block_bitmap(struct super_block *sb, unsigned long group)
{
	struct ext2_group_desc *gdp = ext2_get_group_desc(sb, group, NULL);
	struct buffer_head *bh = sb_bread(sb, gdp->bg_block_bitmap);
	uint32_t bad;

	if (!bh) {
		ext2_msg(sb, "cannot read the block bitmap of group %lu (block %u)", group,
			 gdp->bg_block_bitmap);
		return NULL;
	}
	bad = ext2_bad_block_bitmap(sb, group, gdp, bh->b_data);
	if (bad) {
		ext2_msg(sb, "corrupt block bitmap of group %lu: metadata block %u is marked free",
			 group, bad);
		brelse(bh);
		return NULL;
	}
	return bh;
}

/* Linux's ext2_has_free_blocks: the last s_r_blocks_count blocks are for root (or whoever
 * has CAP_SYS_RESOURCE) and the reserved user and group the super block names. */
static bool ext2_has_free_blocks(struct super_block *sb)
{
	struct ext2_super_block *es = EXT2_SB(sb)->s_es;
	unsigned long free = ext2_count_free_blocks(sb);

	if (free < (unsigned long)es->s_r_blocks_count + 1 && !capable(CAP_SYS_RESOURCE) &&
	    current->cred.fsuid != es->s_def_resuid &&
	    (es->s_def_resgid == 0 || !in_group_p(es->s_def_resgid)))
		return false;
	return free > 0;
}

/*
 * A clear bit of bitmap (n bits) at or after start, as 2.6.23's find_next_usable_block:
 * start itself, else one up to the next 64-block boundary (near the goal), else the first of
 * a free run of eight from a wholly free byte on (room to grow), else any. n if none.
 */
static unsigned long find_usable_bit(const uint8_t *bitmap, unsigned long n, unsigned long start)
{
	unsigned long end = MIN((start + 64) & ~63UL, n), b, byte;

	if (start >= n)
		return n;
	b = ext2_find_next_zero_bit(bitmap, end, start);
	if (b < end)
		return b;
	for (byte = (start + 7) >> 3; byte < (n >> 3); byte++) {
		if (bitmap[byte])
			continue;
		/* the free byte's run may start a few bits before it */
		for (b = byte << 3; b > start && !ext2_test_bit(b - 1, bitmap) &&
				    (byte << 3) - b < 7;
		     b--)
			;
		return b;
	}
	return ext2_find_next_zero_bit(bitmap, n, start);
}

uint32_t ext2_new_block(struct inode *inode, uint32_t goal, int *err)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	unsigned long group, i, start, n, bit;

	*err = -ENOSPC;
	if (!ext2_has_free_blocks(sb))
		return 0;
	if (goal < es->s_first_data_block || goal >= es->s_blocks_count)
		goal = es->s_first_data_block;
	group = (goal - es->s_first_data_block) / sbi->s_blocks_per_group;
	start = (goal - es->s_first_data_block) % sbi->s_blocks_per_group;
	for (i = 0; i < sbi->s_groups_count; i++, start = 0) {
		unsigned long g = (group + i) % sbi->s_groups_count;
		struct buffer_head *bh, *gdp_bh = NULL;
		struct ext2_group_desc *gdp = ext2_get_group_desc(sb, g, &gdp_bh);
		uint32_t block;

		if (!gdp->bg_free_blocks_count)
			continue;
		bh = read_block_bitmap(sb, g); /* may sleep: the bitmap is looked at after */
		if (!bh) {
			*err = -EIO;
			return 0;
		}
		n = group_blocks(sb, g);
		bit = find_usable_bit((const uint8_t *)bh->b_data, n, start);
		if (bit >= n && start)
			bit = find_usable_bit((const uint8_t *)bh->b_data, n, 0);
		if (bit >= n) {
			brelse(bh);
			continue;
		}
		/* No sleep since the bitmap was looked at: the bit is still clear. */
		ext2_set_bit(bit, bh->b_data);
		block = group_first_block(sb, g) + (uint32_t)bit;
		gdp->bg_free_blocks_count--;
		es->s_free_blocks_count--;
		mark_buffer_dirty(bh);
		mark_buffer_dirty(gdp_bh);
		mark_buffer_dirty(sbi->s_sbh);
		sb->s_dirt = true;
		brelse(bh);
		inode->i_blocks += sb->s_blocksize >> 9;
		*err = 0;
		return block;
	}
	return 0;
}

void ext2_free_blocks(struct inode *inode, uint32_t block, unsigned long count)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;

	if (block < es->s_first_data_block || block + count < block ||
	    block + count > es->s_blocks_count) {
		ext2_msg(sb, "inode %lu: freeing blocks not in the data zone: %u, %lu of them",
			 inode->i_ino, block, count);
		return;
	}
	while (count) {
		unsigned long group = (block - es->s_first_data_block) / sbi->s_blocks_per_group;
		uint32_t first = group_first_block(sb, group), b;
		unsigned long n = MIN(count, group_blocks(sb, group) - (block - first)), freed = 0;
		struct buffer_head *gdp_bh = NULL, *bh;
		struct ext2_group_desc *gdp = ext2_get_group_desc(sb, group, &gdp_bh);

		bh = read_block_bitmap(sb, group);
		if (!bh)
			return;
		for (b = block; b - block < n; b++) {
			if (ext2_system_block(sb, group, gdp, b)) {
				ext2_msg(sb, "inode %lu: freeing block %u, metadata of group %lu",
					 inode->i_ino, b, group);
				continue;
			}
			/* Its buffer in the device's cache forgotten before the bit is clear: once
			 * it is, another file may take the block (this sleeps). */
			if (ext2_test_bit(b - first, bh->b_data))
				unmap_underlying_metadata(sb->s_bdev, b);
			if (!ext2_clear_bit(b - first, bh->b_data)) {
				ext2_msg(sb, "inode %lu: bit already cleared for block %u",
					 inode->i_ino, b);
				continue;
			}
			freed++;
			gdp->bg_free_blocks_count++;
			es->s_free_blocks_count++;
		}
		mark_buffer_dirty(bh);
		mark_buffer_dirty(gdp_bh);
		mark_buffer_dirty(sbi->s_sbh);
		sb->s_dirt = true;
		brelse(bh);
		/* The file holds none of them any more, a bit found clear included (its block
		 * was the file's: the bitmap was wrong, and e2fsck counts i_blocks so). */
		inode->i_blocks -= n * (sb->s_blocksize >> 9);
		block += (uint32_t)n;
		count -= n;
	}
}
