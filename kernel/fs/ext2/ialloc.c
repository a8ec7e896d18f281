/* ext2's inode numbers taken and given back (Linux 2.6.23's fs/ext2/ialloc.c): a group chosen
 * for a new inode, a bit of its inode bitmap, the counts of the group and the super block. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"

/* group's inode bitmap, or NULL (said on the console). */
static struct buffer_head *read_inode_bitmap(struct super_block *sb, unsigned long group)
{
	struct ext2_group_desc *gdp = ext2_get_group_desc(sb, group, NULL);
	struct buffer_head *bh = sb_bread(sb, gdp->bg_inode_bitmap);

	if (!bh)
		ext2_msg(sb, "cannot read the inode bitmap of group %lu (block %u)", group,
			 gdp->bg_inode_bitmap);
	return bh;
}

/*
 * A directory goes to a group with at least the average of free inodes and, among those, the
 * most free blocks, so that directories spread over the disk and their files have room near
 * them (2.6.23's find_group_dir, its "oldalloc" policy; the default Orlov allocator is not
 * done). -1 if no group has a free inode.
 */
static long find_group_dir(struct super_block *sb)
{
	unsigned long ngroups = EXT2_SB(sb)->s_groups_count, group;
	unsigned long avefreei = ext2_count_free_inodes(sb) / ngroups;
	struct ext2_group_desc *best = NULL;
	long best_group = -1;

	for (group = 0; group < ngroups; group++) {
		struct ext2_group_desc *desc = ext2_get_group_desc(sb, group, NULL);

		if (!desc->bg_free_inodes_count || desc->bg_free_inodes_count < avefreei)
			continue;
		if (!best || desc->bg_free_blocks_count > best->bg_free_blocks_count) {
			best = desc;
			best_group = (long)group;
		}
	}
	return best_group;
}

/*
 * Anything else goes near its directory (2.6.23's find_group_other): the directory's group if
 * it has a free inode and a free block, else a quadratic hash from it for one that has both,
 * else the first group after it with a free inode. -1 if none has one.
 */
static long find_group_other(struct super_block *sb, struct inode *parent)
{
	unsigned long ngroups = EXT2_SB(sb)->s_groups_count;
	unsigned long parent_group = EXT2_I(parent)->i_block_group, group = parent_group, i;
	struct ext2_group_desc *desc = ext2_get_group_desc(sb, parent_group, NULL);

	if (desc && desc->bg_free_inodes_count && desc->bg_free_blocks_count)
		return (long)parent_group;
	/* Files of different directories start in different places. */
	group = (parent_group + parent->i_ino) % ngroups;
	for (i = 1; i < ngroups; i <<= 1) {
		group = (group + i) % ngroups;
		desc = ext2_get_group_desc(sb, group, NULL);
		if (desc->bg_free_inodes_count && desc->bg_free_blocks_count)
			return (long)group;
	}
	group = parent_group;
	for (i = 0; i < ngroups; i++) {
		group = (group + 1) % ngroups;
		if (ext2_get_group_desc(sb, group, NULL)->bg_free_inodes_count)
			return (long)group;
	}
	return -1;
}

/* The number of a free inode of group taken in its bitmap and counted: 0 if the group has
 * none, -EIO if the bitmap cannot be read or names a reserved inode free. */
static long take_inode(struct super_block *sb, unsigned long group, bool dir)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct buffer_head *gdp_bh = NULL, *bh = read_inode_bitmap(sb, group);
	struct ext2_group_desc *gdp = ext2_get_group_desc(sb, group, &gdp_bh);
	unsigned long bit, ino;

	if (!bh)
		return -EIO;
	/* No sleep from here to the bit set: the read above was the last. */
	bit = ext2_find_next_zero_bit(bh->b_data, sbi->s_inodes_per_group, 0);
	if (bit >= sbi->s_inodes_per_group) {
		brelse(bh);
		return 0;
	}
	ino = group * sbi->s_inodes_per_group + bit + 1;
	if (ino < sbi->s_first_ino || ino > sbi->s_es->s_inodes_count) {
		ext2_msg(sb, "corrupt inode bitmap of group %lu: reserved inode %lu is free",
			 group, ino);
		brelse(bh);
		return -EIO;
	}
	ext2_set_bit(bit, bh->b_data);
	gdp->bg_free_inodes_count--;
	if (dir)
		gdp->bg_used_dirs_count++;
	sbi->s_es->s_free_inodes_count--;
	mark_buffer_dirty(bh);
	mark_buffer_dirty(gdp_bh);
	mark_buffer_dirty(sbi->s_sbh);
	sb->s_dirt = true;
	brelse(bh);
	return (long)ino;
}

int ext2_new_inode(struct inode *dir, uint32_t mode, struct inode **out)
{
	struct super_block *sb = dir->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_inode_info *ei;
	struct buffer_head *bh;
	struct ext2_inode *raw;
	struct inode *inode;
	unsigned long i;
	long group = S_ISDIR(mode) ? find_group_dir(sb) : find_group_other(sb, dir), ino = 0;

	if (group < 0)
		return -ENOSPC;
	inode = ext2_alloc_inode(sb, mode);
	if (!inode)
		return -ENOMEM;
	/* The group chosen may have lost its last inode while a bitmap was read: the next. */
	for (i = 0; i < sbi->s_groups_count && !ino; i++) {
		ino = take_inode(sb, (unsigned long)group, S_ISDIR(mode));
		if (!ino)
			group = (group + 1) % (long)sbi->s_groups_count;
	}
	if (ino <= 0) {
		ext2_destroy_inode(inode);
		return ino ? (int)ino : -ENOSPC;
	}
	ei = EXT2_I(inode);
	inode_init_owner(inode, dir, mode);
	inode->i_ino = (unsigned long)ino;
	inode->i_blocks = 0;
	ei->i_block_group = (uint32_t)group;
	ei->i_generation = sbi->s_next_generation++;
	/* Flags a directory hands down; never its index, which ext2 does not keep. */
	ei->i_flags = EXT2_I(dir)->i_flags & ~(uint32_t)EXT2_INDEX_FL;
	if (S_ISLNK(mode))
		ei->i_flags &= ~(uint32_t)(EXT2_IMMUTABLE_FL | EXT2_APPEND_FL);
	if (!S_ISDIR(mode))
		ei->i_flags &= ~(uint32_t)EXT2_DIRSYNC_FL;
	/* The disk inode starts as zeroes: what write_inode does not set (extended fields of a
	 * large inode) must not be a deleted file's. */
	raw = ext2_get_inode(sb, inode->i_ino, &bh);
	if (raw) {
		memset(raw, 0, sbi->s_inode_size);
		mark_buffer_dirty(bh);
		brelse(bh);
	}
	ext2_insert_inode_hash(inode);
	mark_inode_dirty(inode);
	*out = inode;
	return 0;
}

void ext2_free_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long ino = inode->i_ino, group, bit;
	struct buffer_head *bh, *gdp_bh = NULL;
	struct ext2_group_desc *gdp;

	if (ino < sbi->s_first_ino || ino > sbi->s_es->s_inodes_count) {
		ext2_msg(sb, "freeing reserved or nonexistent inode %lu", ino);
		return;
	}
	group = (ino - 1) / sbi->s_inodes_per_group;
	bit = (ino - 1) % sbi->s_inodes_per_group;
	bh = read_inode_bitmap(sb, group);
	if (!bh)
		return;
	gdp = ext2_get_group_desc(sb, group, &gdp_bh);
	if (!ext2_clear_bit(bit, bh->b_data)) {
		ext2_msg(sb, "bit already cleared for inode %lu", ino);
		brelse(bh);
		return;
	}
	gdp->bg_free_inodes_count++;
	if (S_ISDIR(inode->i_mode))
		gdp->bg_used_dirs_count--;
	sbi->s_es->s_free_inodes_count++;
	mark_buffer_dirty(bh);
	mark_buffer_dirty(gdp_bh);
	mark_buffer_dirty(sbi->s_sbh);
	sb->s_dirt = true;
	brelse(bh);
}
