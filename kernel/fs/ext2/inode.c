/* ext2's inodes (Linux 2.6.23's fs/ext2/inode.c): ext2_iget reads one from its group's inode
 * table, ext2_write_inode writes it back, ext2_delete_inode frees it; the aops are the generic
 * buffer-head ones over ext2_get_block (getblock.c). */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "kernel/time/time.h"
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

static int ext2_writepage(struct page *page, struct writeback_control *wbc)
{
	return block_write_full_page(page, ext2_get_block, wbc);
}

static int ext2_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	return mpage_writepages(mapping, wbc, ext2_get_block);
}

static int ext2_prepare_write(struct file *f, struct page *page, unsigned int from,
			      unsigned int to)
{
	(void)f;
	return block_prepare_write(page, from, to, ext2_get_block);
}

static uint64_t ext2_bmap(struct address_space *mapping, uint64_t block)
{
	return generic_block_bmap(mapping, block, ext2_get_block);
}

const struct address_space_operations ext2_aops = {
	.readpage = ext2_readpage,
	.readpages = ext2_readpages,
	.writepage = ext2_writepage,
	.writepages = ext2_writepages,
	.set_page_dirty = __set_page_dirty_buffers,
	.prepare_write = ext2_prepare_write,
	.commit_write = generic_commit_write,
	.bmap = ext2_bmap,
};

void ext2_set_aops(struct inode *inode)
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

void ext2_set_inode_ops(struct inode *inode)
{
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
		if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
			inode->i_fop = S_ISCHR(inode->i_mode) ? &def_chr_fops : &def_blk_fops;
	}
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
	ei->i_generation = raw->i_generation;
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		inode->i_rdev = ext2_decode_dev(ei->i_data);
	ext2_set_inode_ops(inode);
}

struct ext2_inode *ext2_get_inode(struct super_block *sb, unsigned long ino,
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

struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct ext2_inode_info *ei = kzalloc(sizeof(*ei));
	struct inode *inode = ei ? new_inode(sb, mode) : NULL;

	if (!inode) {
		kfree(ei);
		return NULL;
	}
	inode->i_private = ei;
	ei->vfs_inode = inode;
	INIT_LIST_HEAD(&ei->i_hash);
	init_rwsem(&ei->truncate_mutex);
	return inode;
}

void ext2_destroy_inode(struct inode *inode)
{
	kfree(inode->i_private);
	kfree(inode);
}

void ext2_insert_inode_hash(struct inode *inode)
{
	list_add(&EXT2_I(inode)->i_hash, inode_bucket(inode->i_sb, inode->i_ino));
}

int ext2_iget(struct super_block *sb, unsigned long ino, struct inode **out)
{
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
	inode = ext2_alloc_inode(sb, raw->i_mode);
	if (!inode) {
		brelse(bh);
		return -ENOMEM;
	}
	inode->i_ino = ino;
	EXT2_I(inode)->i_block_group = (uint32_t)((ino - 1) / EXT2_SB(sb)->s_inodes_per_group);
	ext2_fill_inode(inode, raw);
	brelse(bh);
	/* The read slept (the big kernel lock let go): another lookup of the same number may
	 * have put its inode in the table meanwhile. There is one struct inode per file. */
	*out = ext2_ilookup(sb, ino);
	if (*out) {
		ext2_destroy_inode(inode);
		return 0;
	}
	ext2_insert_inode_hash(inode);
	*out = inode;
	return 0;
}

/* An old filesystem gets what a large file needs: the dynamic revision's fields (2.6.23's
 * ext2_update_dynamic_rev) and the large_file feature, in the super block written at sync. */
static void ext2_set_large_file(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;

	if (EXT2_HAS_RO_COMPAT_FEATURE(sb, EXT2_FEATURE_RO_COMPAT_LARGE_FILE) &&
	    es->s_rev_level != EXT2_GOOD_OLD_REV)
		return;
	if (es->s_rev_level == EXT2_GOOD_OLD_REV) {
		ext2_msg(sb, "updating to revision %u because of a new feature flag",
			 EXT2_DYNAMIC_REV);
		es->s_first_ino = EXT2_GOOD_OLD_FIRST_INO;
		es->s_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
		es->s_rev_level = EXT2_DYNAMIC_REV;
	}
	es->s_feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	mark_buffer_dirty(sbi->s_sbh);
	sb->s_dirt = true;
}

/* A device file's number into i_block: the old 8:8 encoding in i_block[0] when it fits, else
 * the new one in i_block[1] (2.6.23's ext2_update_inode). */
static void ext2_encode_dev(uint32_t *i_block, uint32_t dev)
{
	if (MAJOR(dev) < 256 && MINOR(dev) < 256) {
		i_block[0] = MAJOR(dev) << 8 | MINOR(dev);
		i_block[1] = 0;
	} else {
		i_block[0] = 0;
		i_block[1] = (uint32_t)new_encode_dev(dev);
		i_block[2] = 0;
	}
}

/* Every field of the in-memory inode into its place in the inode table's buffer (2.6.23's
 * ext2_update_inode); wait: on the disk before returning. 0 or -EIO. */
static int ext2_update_inode(struct inode *inode, int wait)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct buffer_head *bh;
	struct ext2_inode *raw = ext2_get_inode(inode->i_sb, inode->i_ino, &bh);
	int err = 0;

	if (!raw)
		return -EIO;
	raw->i_mode = (uint16_t)inode->i_mode;
	raw->i_uid = (uint16_t)inode->i_uid;
	raw->l_i_uid_high = (uint16_t)(inode->i_uid >> 16);
	raw->i_gid = (uint16_t)inode->i_gid;
	raw->l_i_gid_high = (uint16_t)(inode->i_gid >> 16);
	raw->i_links_count = (uint16_t)inode->i_nlink;
	raw->i_size = (uint32_t)inode->i_size;
	raw->i_atime = (uint32_t)inode->i_atime.tv_sec;
	raw->i_ctime = (uint32_t)inode->i_ctime.tv_sec;
	raw->i_mtime = (uint32_t)inode->i_mtime.tv_sec;
	raw->i_blocks = (uint32_t)inode->i_blocks;
	raw->i_dtime = ei->i_dtime;
	raw->i_flags = ei->i_flags;
	raw->i_file_acl = ei->i_file_acl;
	raw->i_generation = ei->i_generation;
	if (S_ISREG(inode->i_mode)) {
		raw->i_size_high = (uint32_t)(inode->i_size >> 32);
		if (inode->i_size > 0x7fffffffULL)
			ext2_set_large_file(inode->i_sb);
	}
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		ext2_encode_dev(raw->i_block, inode->i_rdev);
	else
		memcpy(raw->i_block, ei->i_data, sizeof(raw->i_block));
	mark_buffer_dirty(bh);
	if (wait && (sync_dirty_buffer(bh) || buffer_dirty(bh))) {
		ext2_msg(inode->i_sb, "cannot write inode %lu", inode->i_ino);
		err = -EIO;
	}
	brelse(bh);
	return err;
}

int ext2_write_inode(struct inode *inode, int wait)
{
	return ext2_update_inode(inode, wait);
}

#define EXT2_XATTR_MAGIC 0xea020000 /* an extended attribute block's first word */

/* The block of extended attributes a deleted inode names: one user less, freed with the last
 * (2.6.23's ext2_xattr_delete_inode; faultline reads no attribute, but must not leak it). */
static void ext2_xattr_delete_inode(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct super_block *sb = inode->i_sb;
	struct buffer_head *bh;
	uint32_t *hdr; /* h_magic, h_refcount, h_blocks */

	if (!ei->i_file_acl)
		return;
	bh = ext2_block_ok(sb, ei->i_file_acl) ? sb_bread(sb, ei->i_file_acl) : NULL;
	hdr = bh ? (uint32_t *)bh->b_data : NULL;
	if (!hdr || hdr[0] != EXT2_XATTR_MAGIC || hdr[2] != 1) {
		ext2_msg(sb, "inode %lu: bad extended attribute block %u", inode->i_ino,
			 ei->i_file_acl);
	} else if (hdr[1] <= 1) {
		ext2_free_blocks(inode, ei->i_file_acl, 1);
	} else {
		hdr[1]--;
		mark_buffer_dirty(bh);
		inode->i_blocks -= sb->s_blocksize >> 9;
	}
	brelse(bh);
	ei->i_file_acl = 0;
}

/*
 * The last name and the last user are gone (iput, which dropped the page cache and took the
 * inode off the dirty list first): its blocks and its number go back, the disk inode keeps
 * its deletion time (2.6.23's ext2_delete_inode). iput frees the struct inode after.
 */
void ext2_delete_inode(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	ei->i_dtime = (uint32_t)current_time().tv_sec;
	inode->i_size = 0;
	ext2_xattr_delete_inode(inode);
	if (inode->i_blocks)
		ext2_truncate(inode);
	/* Written before the number is free: a new inode of the number zeroes it after. */
	ext2_update_inode(inode, 0);
	/* Out of the table before the number is free: a new inode may take it while the
	 * bitmap is read, and a lookup of the number must find that one. */
	list_del(&ei->i_hash);
	ext2_free_inode(inode);
	kfree(ei);
	inode->i_private = NULL;
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
