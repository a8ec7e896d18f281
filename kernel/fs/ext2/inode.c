/* ext2's inodes (Linux 2.6.23's fs/ext2/inode.c, the reading half): ext2_iget reads one from
 * its group's inode table, and ext2_get_block maps a block of a file to the disk through
 * i_block's direct, indirect, double and triple indirect block numbers; readpage is the
 * generic mpage_readpage over it (block_read_full_page for a page whose blocks are not in a
 * row). */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

static struct list_head *inode_bucket(struct super_block *sb, unsigned long ino)
{
	return &EXT2_SB(sb)->s_inode_hash[ino % EXT2_INODE_HASH];
}

static int ext2_readpage(struct file *f, struct page *page)
{
	(void)f;
	return mpage_readpage(page, ext2_get_block);
}

static void ext2_readpages(struct file *f, struct address_space *mapping, struct page **pages,
			   unsigned int nr)
{
	mpage_readpages(f, mapping, pages, nr, ext2_get_block);
}

static uint64_t ext2_bmap(struct address_space *mapping, uint64_t block)
{
	return generic_block_bmap(mapping, block, ext2_get_block);
}

const struct address_space_operations ext2_aops = {
	.readpage = ext2_readpage,
	.readpages = ext2_readpages,
	.set_page_dirty = __set_page_dirty_no_writeback,
	.bmap = ext2_bmap,
};

/* Files, directories and slow symlinks keep their blocks in a page cache. */
static void ext2_set_aops(struct inode *inode)
{
	inode->i_mapping = &inode->i_data;
	inode->i_data.host = inode;
	inode->i_data.a_ops = &ext2_aops;
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
	INIT_LIST_HEAD(&inode->i_data.i_mmap_nonlinear);
}

/* A symlink whose target fits in i_block has no data block (an extended attribute block
 * aside). */
static bool ext2_inode_is_fast_symlink(struct inode *inode)
{
	uint64_t ea_blocks = EXT2_I(inode)->i_file_acl ? inode->i_sb->s_blocksize >> 9 : 0;

	return inode->i_blocks == ea_blocks;
}

/* A device file's number: the old 8:8 encoding in i_block[0], else the new one in
 * i_block[1] (Linux's old_decode_dev and new_decode_dev). */
static uint32_t ext2_decode_dev(const uint32_t *i_data)
{
	uint32_t dev = i_data[0];

	if (dev)
		return MKDEV((dev >> 8) & 0xff, dev & 0xff);
	return new_decode_dev(i_data[1]);
}

/* Set up inode from its disk inode raw. */
static void ext2_fill_inode(struct inode *inode, const struct ext2_inode *raw)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	inode->i_mode = raw->i_mode;
	inode->i_uid = raw->i_uid | (uint32_t)raw->l_i_uid_high << 16;
	inode->i_gid = raw->i_gid | (uint32_t)raw->l_i_gid_high << 16;
	inode->i_nlink = raw->i_links_count;
	inode->i_size = raw->i_size;
	if (S_ISREG(inode->i_mode))
		inode->i_size |= (uint64_t)raw->i_size_high << 32;
	/* Times are signed 32-bit seconds on the disk. */
	inode->i_atime = (struct timespec64){ .tv_sec = (int32_t)raw->i_atime };
	inode->i_mtime = (struct timespec64){ .tv_sec = (int32_t)raw->i_mtime };
	inode->i_ctime = (struct timespec64){ .tv_sec = (int32_t)raw->i_ctime };
	inode->i_blocks = raw->i_blocks;
	memcpy(ei->i_data, raw->i_block, sizeof(ei->i_data));
	ei->i_flags = raw->i_flags;
	ei->i_file_acl = raw->i_file_acl;
	ei->i_dtime = raw->i_dtime;
	if (S_ISREG(inode->i_mode)) {
		inode->i_op = &ext2_file_inode_operations;
		inode->i_fop = &ext2_file_operations;
		ext2_set_aops(inode);
	} else if (S_ISDIR(inode->i_mode)) {
		inode->i_op = &ext2_dir_inode_operations;
		inode->i_fop = &ext2_dir_operations;
		ext2_set_aops(inode);
	} else if (S_ISLNK(inode->i_mode)) {
		if (ext2_inode_is_fast_symlink(inode)) {
			inode->i_op = &ext2_fast_symlink_inode_operations;
		} else {
			inode->i_op = &ext2_symlink_inode_operations;
			ext2_set_aops(inode);
		}
	} else {
		inode->i_op = &ext2_special_inode_operations;
		if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode)) {
			inode->i_rdev = ext2_decode_dev(ei->i_data);
			inode->i_fop = S_ISCHR(inode->i_mode) ? &def_chr_fops : &def_blk_fops;
		}
	}
}

/* The disk inode ino in its table's block, which the caller brelses: NULL (said) if the
 * number is out of range or the block cannot be read. */
static struct ext2_inode *ext2_get_inode(struct super_block *sb, unsigned long ino,
					 struct buffer_head **bhp)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long group, offset;
	struct ext2_group_desc *gdp;
	uint64_t block;

	if ((ino != EXT2_ROOT_INO && ino < sbi->s_first_ino) || ino > sbi->s_es->s_inodes_count) {
		ext2_msg(sb, "bad inode number %lu", ino);
		return NULL;
	}
	group = (ino - 1) / sbi->s_inodes_per_group;
	gdp = ext2_get_group_desc(sb, group, NULL);
	offset = ((ino - 1) % sbi->s_inodes_per_group) * sbi->s_inode_size;
	block = gdp->bg_inode_table + (offset >> sb->s_blocksize_bits);
	*bhp = sb_bread(sb, block);
	if (!*bhp) {
		ext2_msg(sb, "cannot read inode %lu (block %llu)", ino, (unsigned long long)block);
		return NULL;
	}
	return (struct ext2_inode *)((*bhp)->b_data + (offset & (sb->s_blocksize - 1)));
}

/* The inode numbered ino if it was read already, else NULL (Linux's ilookup). */
static struct inode *ext2_ilookup(struct super_block *sb, unsigned long ino)
{
	struct ext2_inode_info *ei;

	list_for_each_entry(ei, inode_bucket(sb, ino), i_hash)
		if (ei->vfs_inode->i_ino == ino)
			return ei->vfs_inode;
	return NULL;
}

int ext2_iget(struct super_block *sb, unsigned long ino, struct inode **out)
{
	struct ext2_inode_info *ei;
	struct buffer_head *bh;
	struct ext2_inode *raw;
	struct inode *inode;

	*out = ext2_ilookup(sb, ino);
	if (*out)
		return 0;
	raw = ext2_get_inode(sb, ino, &bh);
	if (!raw)
		return -EIO;
	/* No name holds it: freed, or an orphan a crash left (e2fsck's to free). An inode
	 * without links would also be freed by iput under this table. */
	if (raw->i_links_count == 0) {
		ext2_msg(sb, "deleted inode %lu referenced", ino);
		brelse(bh);
		return -EIO;
	}
	ei = kzalloc(sizeof(*ei));
	inode = ei ? new_inode(sb, raw->i_mode) : NULL;
	if (!inode) {
		kfree(ei);
		brelse(bh);
		return -ENOMEM;
	}
	inode->i_ino = ino;
	inode->i_private = ei;
	ei->vfs_inode = inode;
	ei->i_block_group = (uint32_t)((ino - 1) / EXT2_SB(sb)->s_inodes_per_group);
	ext2_fill_inode(inode, raw);
	brelse(bh);
	/* The read slept (the big kernel lock let go): another lookup of the same number may
	 * have put its inode in the table meanwhile. There is one struct inode per file. */
	*out = ext2_ilookup(sb, ino);
	if (*out) {
		kfree(ei);
		kfree(inode);
		return 0;
	}
	list_add(&ei->i_hash, inode_bucket(sb, ino));
	*out = inode;
	return 0;
}

void ext2_forget_inodes(struct super_block *sb)
{
	unsigned long b;

	for (b = 0; b < EXT2_INODE_HASH; b++) {
		struct list_head *head = inode_bucket(sb, b);

		while (!list_empty(head)) {
			struct ext2_inode_info *ei = list_entry(head->next, struct ext2_inode_info,
								i_hash);
			struct inode *inode = ei->vfs_inode;

			if (inode->i_mapping)
				truncate_inode_pages(inode, 0, inode->i_size);
			list_del(&ei->i_hash);
			kfree(ei);
			kfree(inode);
		}
	}
}

void ext2_getattr(struct inode *inode, struct kstat *stat)
{
	stat->nlink = (uint64_t)inode->i_nlink;
	stat->blocks = inode->i_blocks;
	stat->blksize = inode->i_sb->s_blocksize;
}

/*
 * The path through i_block to block i of a file: offsets[0] is the slot in i_block, each next
 * one the slot in the indirect block the previous names. The depth (1 direct, 2 indirect, 3
 * double, 4 triple indirect), 0 past what a triple indirect block reaches.
 */
static int ext2_block_to_path(struct inode *inode, uint64_t i, unsigned long offsets[4])
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

/* A block number from i_block or an indirect block must lie inside the file system. */
static bool ext2_block_ok(struct super_block *sb, uint32_t block)
{
	struct ext2_super_block *es = EXT2_SB(sb)->s_es;

	return block >= es->s_first_data_block && block < es->s_blocks_count;
}

int ext2_get_block(struct inode *inode, uint64_t iblock, struct buffer_head *bh_result,
		   int create)
{
	struct super_block *sb = inode->i_sb;
	unsigned long offsets[4];
	int depth = ext2_block_to_path(inode, iblock, offsets), k;
	uint32_t block;

	if (create)
		return -EROFS; /* allocation comes with writing */
	if (!depth) {
		ext2_msg(sb, "inode %lu: block %llu is past the triple indirect block's reach",
			 inode->i_ino, (unsigned long long)iblock);
		return -EIO;
	}
	block = EXT2_I(inode)->i_data[offsets[0]];
	for (k = 1; k < depth && block; k++) {
		struct buffer_head *bh;

		if (!ext2_block_ok(sb, block))
			break;
		bh = sb_bread(sb, block);
		if (!bh)
			return -EIO;
		block = ((const uint32_t *)bh->b_data)[offsets[k]];
		brelse(bh);
	}
	if (!block)
		return 0; /* a hole: bh_result stays unmapped, the page reads zeroes there */
	if (!ext2_block_ok(sb, block)) {
		ext2_msg(sb, "inode %lu: block %llu maps to block %u, outside the file system",
			 inode->i_ino, (unsigned long long)iblock, block);
		return -EIO;
	}
	map_bh(bh_result, sb, block);
	return 0;
}
