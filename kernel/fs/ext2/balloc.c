/* ext2's block groups (Linux 2.6.23's fs/ext2/balloc.c, the reading half): where a group's
 * descriptor is, which groups hold copies of the super block and descriptors, and the free
 * counts statfs adds up. Allocation comes here when ext2 writes. */
#include "kernel/fs/ext2/ext2.h"

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
