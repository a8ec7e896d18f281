/* Mounting ext2 (Linux 2.6.23's fs/ext2/super.c): the super block read and checked, the group
 * descriptors read and checked, the root inode; what cannot be read is refused by name on the
 * console. A read-write mount marks the file system not clean (s_state) until put_super or a
 * remount read-only; write_super puts the free counts in the super block. statfs counts from
 * the descriptors. */
#include <stdarg.h>

#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/initcall.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/time/time.h"
#include "mm/slab.h"

#define EXT2_DFL_MAX_MNT_COUNT 20 /* mounts between checks, where the super block says 0 */

void ext2_msg(struct super_block *sb, const char *fmt, ...)
{
	char line[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("ext2: %s: %s\n", sb->s_id, line);
}

struct ext2_feature {
	uint32_t mask;
	const char *name;
};

/* The INCOMPAT features this ext2 does not read, by what they are to a reader. */
static const struct ext2_feature incompat_names[] = {
	{ EXT3_FEATURE_INCOMPAT_RECOVER, "needs journal recovery (ext3)" },
	{ EXT3_FEATURE_INCOMPAT_JOURNAL_DEV, "is an external journal (ext3)" },
	{ EXT2_FEATURE_INCOMPAT_COMPRESSION, "compression" },
	{ EXT4_FEATURE_INCOMPAT_EXTENTS, "extents (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_64BIT, "64bit (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_MMP, "mmp (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_EA_INODE, "ea_inode (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_DIRDATA, "dirdata (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_CSUM_SEED, "metadata_csum_seed (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_LARGEDIR, "large_dir (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_INLINE_DATA, "inline_data (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_ENCRYPT, "encrypt (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_CASEFOLD, "casefold (ext4)" },
	{ 0, NULL },
};

/* The RO_COMPAT features it would not keep right if it wrote. */
static const struct ext2_feature ro_compat_names[] = {
	{ EXT4_FEATURE_RO_COMPAT_HUGE_FILE, "huge_file (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_bg (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_DIR_NLINK, "dir_nlink (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE, "extra_isize (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_QUOTA, "quota (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_BIGALLOC, "bigalloc (ext4)" },
	{ EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, "metadata_csum (ext4)" },
	{ 0, NULL },
};

/* The names of the features in bits into buf, ", " between them; bits no table names are
 * shown as a number. */
static void feature_names(char *buf, size_t size, uint32_t bits, const struct ext2_feature *t)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; t->mask && n < size; t++) {
		if (!(bits & t->mask))
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", t->name);
		bits &= ~t->mask;
	}
	if (bits && n < size)
		snprintf(buf + n, size - n, "%sunknown feature 0x%x", n ? ", " : "", bits);
}

/* The free counts and the time into the super block, and it on the disk now (2.6.23's
 * ext2_sync_super). */
static void ext2_sync_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;

	es->s_free_blocks_count = (uint32_t)ext2_count_free_blocks(sb);
	es->s_free_inodes_count = (uint32_t)ext2_count_free_inodes(sb);
	es->s_wtime = (uint32_t)current_time().tv_sec;
	mark_buffer_dirty(sbi->s_sbh);
	if (sync_dirty_buffer(sbi->s_sbh))
		ext2_msg(sb, "cannot write the super block");
	sb->s_dirt = false;
}

/* A file system mounted read-write is not clean on the disk (EXT2_VALID_FS clear) until it
 * is unmounted or remounted read-only: a crash meanwhile leaves it to e2fsck. */
static void ext2_write_super(struct super_block *sb)
{
	struct ext2_super_block *es = EXT2_SB(sb)->s_es;

	if (!(sb->s_flags & MS_RDONLY)) {
		if (es->s_state & EXT2_VALID_FS) {
			es->s_state &= (uint16_t)~EXT2_VALID_FS;
			es->s_mtime = (uint32_t)current_time().tv_sec;
		}
		ext2_sync_super(sb);
	}
	sb->s_dirt = false;
}

/* Going read-write (2.6.23's ext2_setup_super): Linux's warnings when a check is due, one
 * more mount counted, and the super block written not clean. */
static void ext2_setup_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	uint32_t now = (uint32_t)current_time().tv_sec;

	if (!(sbi->s_mount_state & EXT2_VALID_FS))
		ext2_msg(sb, "warning: mounting unchecked fs, running e2fsck is recommended");
	else if (sbi->s_mount_state & EXT2_ERROR_FS)
		ext2_msg(sb, "warning: mounting fs with errors, running e2fsck is recommended");
	else if (es->s_max_mnt_count >= 0 && es->s_mnt_count >= (uint16_t)es->s_max_mnt_count)
		ext2_msg(sb, "warning: maximal mount count reached, running e2fsck is "
			 "recommended");
	else if (es->s_checkinterval && es->s_lastcheck + es->s_checkinterval <= now)
		ext2_msg(sb, "warning: checktime reached, running e2fsck is recommended");
	if (!es->s_max_mnt_count)
		es->s_max_mnt_count = EXT2_DFL_MAX_MNT_COUNT;
	es->s_mnt_count++;
	ext2_write_super(sb);
}

static void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long i;

	ext2_forget_inodes(sb);
	if (!(sb->s_flags & MS_RDONLY)) { /* clean again, as it was mounted */
		sbi->s_es->s_state = sbi->s_mount_state;
		ext2_sync_super(sb);
	}
	for (i = 0; sbi->s_group_desc && i < sbi->s_gdb_count; i++)
		brelse(sbi->s_group_desc[i]);
	kfree(sbi->s_group_desc);
	brelse(sbi->s_sbh);
	kfree(sbi);
	sb->s_fs_info = NULL;
}

/* Linux's ext2_statfs: the blocks the metadata takes (the super block copies, descriptors,
 * bitmaps and inode tables) are not counted as the file system's; what root has reserved is
 * free but not available. */
static int ext2_statfs(struct super_block *sb, struct kstatfs *buf)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	uint64_t overhead = es->s_first_data_block, bfree = ext2_count_free_blocks(sb);
	unsigned long i;

	for (i = 0; i < sbi->s_groups_count; i++)
		overhead += (uint64_t)ext2_bg_has_super(sb, i) + ext2_bg_num_gdb(sb, i);
	overhead += (uint64_t)sbi->s_groups_count * (2 + sbi->s_itb_per_group);
	buf->f_bsize = sb->s_blocksize;
	buf->f_blocks = es->s_blocks_count - overhead;
	buf->f_bfree = bfree;
	buf->f_bavail = bfree > es->s_r_blocks_count ? bfree - es->s_r_blocks_count : 0;
	buf->f_files = es->s_inodes_count;
	buf->f_ffree = ext2_count_free_inodes(sb);
	buf->f_namelen = NAME_MAX;
	return 0;
}

/* Read-only to read-write: not with an RO_COMPAT feature it does not know; read-write to
 * read-only: the state it was mounted with back on the disk (the VFS synced it first). */
static int ext2_remount(struct super_block *sb, unsigned long *flags, char *data)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	uint32_t ro_bits = es->s_feature_ro_compat & ~EXT2_FEATURE_RO_COMPAT_SUPP;
	char names[160];

	(void)data;
	if ((*flags & MS_RDONLY) == (sb->s_flags & MS_RDONLY))
		return 0;
	if (*flags & MS_RDONLY) {
		if ((es->s_state & EXT2_VALID_FS) || !(sbi->s_mount_state & EXT2_VALID_FS))
			return 0;
		es->s_state = sbi->s_mount_state;
		es->s_mtime = (uint32_t)current_time().tv_sec;
		ext2_sync_super(sb);
		return 0;
	}
	if (ro_bits) {
		feature_names(names, sizeof(names), ro_bits, ro_compat_names);
		ext2_msg(sb, "cannot remount read-write: %s", names);
		return -EROFS;
	}
	sbi->s_mount_state = es->s_state;
	sb->s_flags &= ~(unsigned long)MS_RDONLY;
	ext2_setup_super(sb);
	return 0;
}

static const struct super_operations ext2_sops = {
	.put_super = ext2_put_super,
	.statfs = ext2_statfs,
	.remount_fs = ext2_remount,
	.write_inode = ext2_write_inode,
	.delete_inode = ext2_delete_inode,
	.write_super = ext2_write_super,
};

/* The numbers of the super block against each other and the device: 0, or -EINVAL with a
 * line saying which is wrong. */
static int ext2_check_super(struct super_block *sb, uint64_t logic_sb_block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	unsigned long bits = sb->s_blocksize * 8;
	uint64_t dev_blocks = sb->s_bdev->bd_inode->i_size >> sb->s_blocksize_bits;

	if (sbi->s_inode_size < EXT2_GOOD_OLD_INODE_SIZE || sbi->s_inode_size > sb->s_blocksize ||
	    (sbi->s_inode_size & (sbi->s_inode_size - 1))) {
		ext2_msg(sb, "corrupt super block: inode size %u", sbi->s_inode_size);
		return -EINVAL;
	}
	if (!es->s_blocks_count || es->s_first_data_block != logic_sb_block) {
		ext2_msg(sb, "corrupt super block: first data block %u of %u, not %llu",
			 es->s_first_data_block, es->s_blocks_count,
			 (unsigned long long)logic_sb_block);
		return -EINVAL;
	}
	if (es->s_blocks_count > dev_blocks) {
		ext2_msg(sb, "corrupt super block: %u blocks, past the device's end (%llu blocks)",
			 es->s_blocks_count, (unsigned long long)dev_blocks);
		return -EINVAL;
	}
	if (!sbi->s_blocks_per_group || sbi->s_blocks_per_group > bits ||
	    !sbi->s_inodes_per_group || sbi->s_inodes_per_group > bits ||
	    sbi->s_inodes_per_group % sbi->s_inodes_per_block) {
		ext2_msg(sb, "corrupt super block: %lu blocks and %lu inodes per group",
			 sbi->s_blocks_per_group, sbi->s_inodes_per_group);
		return -EINVAL;
	}
	if ((uint64_t)sbi->s_groups_count * sbi->s_inodes_per_group != es->s_inodes_count ||
	    sbi->s_first_ino < EXT2_GOOD_OLD_FIRST_INO || sbi->s_first_ino > es->s_inodes_count) {
		ext2_msg(sb, "corrupt super block: %u inodes (first %lu) in %lu groups of %lu",
			 es->s_inodes_count, sbi->s_first_ino, sbi->s_groups_count,
			 sbi->s_inodes_per_group);
		return -EINVAL;
	}
	if (es->s_r_blocks_count > es->s_blocks_count) {
		ext2_msg(sb, "corrupt super block: %u blocks reserved of %u", es->s_r_blocks_count,
			 es->s_blocks_count);
		return -EINVAL;
	}
	return 0;
}

/* Each group's bitmaps and inode table inside the group (anywhere in the file system with
 * flex_bg), its free counts within its size: 0 or -EINVAL with a line. */
static int ext2_check_descriptors(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = sbi->s_es;
	bool flex = EXT2_HAS_INCOMPAT_FEATURE(sb, EXT4_FEATURE_INCOMPAT_FLEX_BG);
	unsigned long i;

	for (i = 0; i < sbi->s_groups_count; i++) {
		struct ext2_group_desc *gdp = ext2_get_group_desc(sb, i, NULL);
		uint64_t first = es->s_first_data_block + (uint64_t)i * sbi->s_blocks_per_group;
		uint64_t last = MIN(first + sbi->s_blocks_per_group, es->s_blocks_count) - 1;
		uint64_t itable_end = (uint64_t)gdp->bg_inode_table + sbi->s_itb_per_group - 1;
		const char *what = NULL;

		if (flex)
			first = es->s_first_data_block, last = es->s_blocks_count - 1;
		if (gdp->bg_block_bitmap < first || gdp->bg_block_bitmap > last)
			what = "block bitmap";
		else if (gdp->bg_inode_bitmap < first || gdp->bg_inode_bitmap > last)
			what = "inode bitmap";
		else if (gdp->bg_inode_table < first || itable_end > last)
			what = "inode table";
		if (what) {
			ext2_msg(sb, "corrupt group descriptor %lu: %s not in blocks %llu-%llu", i,
				 what, (unsigned long long)first, (unsigned long long)last);
			return -EINVAL;
		}
		if (gdp->bg_free_blocks_count > sbi->s_blocks_per_group ||
		    gdp->bg_free_inodes_count > sbi->s_inodes_per_group) {
			ext2_msg(sb, "corrupt group descriptor %lu: %u free blocks, %u free inodes",
				 i, gdp->bg_free_blocks_count, gdp->bg_free_inodes_count);
			return -EINVAL;
		}
	}
	return 0;
}

/* The descriptor blocks, read and kept: 0, -ENOMEM, -EIO. */
static int ext2_read_descriptors(struct super_block *sb, uint64_t logic_sb_block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned long i;

	sbi->s_group_desc = kzalloc(sbi->s_gdb_count * sizeof(*sbi->s_group_desc));
	if (!sbi->s_group_desc)
		return -ENOMEM;
	for (i = 0; i < sbi->s_gdb_count; i++) {
		uint64_t block = descriptor_loc(sb, logic_sb_block, i);

		if (block >= sbi->s_es->s_blocks_count) {
			ext2_msg(sb, "corrupt super block: group descriptors at block %llu, "
				 "past the end", (unsigned long long)block);
			return -EINVAL;
		}
		sbi->s_group_desc[i] = sb_bread(sb, block);
		if (!sbi->s_group_desc[i]) {
			ext2_msg(sb, "cannot read the group descriptors (block %llu)",
				 (unsigned long long)block);
			return -EIO;
		}
	}
	return 0;
}

/* The super block at byte 1024, in a buffer of sb's block size: NULL if it cannot be read. */
static struct ext2_super_block *read_super_block(struct super_block *sb, uint64_t *logic)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);

	*logic = EXT2_SUPER_OFFSET / sb->s_blocksize;
	brelse(sbi->s_sbh);
	sbi->s_sbh = sb_bread(sb, *logic);
	if (!sbi->s_sbh)
		return NULL;
	sbi->s_es = (struct ext2_super_block *)(sbi->s_sbh->b_data +
						EXT2_SUPER_OFFSET % sb->s_blocksize);
	return sbi->s_es;
}

/* What the super block says: the block size set, the geometry in sbi. 0 or -EINVAL (said,
 * but for a device that holds no ext2 at all when silent). */
static int ext2_read_geometry(struct super_block *sb, int silent, uint64_t *logic)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es;
	char names[160];
	unsigned long blocksize;

	if (!sb_set_blocksize(sb, EXT2_MIN_BLOCK_SIZE) || !(es = read_super_block(sb, logic))) {
		ext2_msg(sb, "cannot read the super block");
		return -EINVAL;
	}
	if (es->s_magic != EXT2_SUPER_MAGIC) {
		if (!silent)
			ext2_msg(sb, "no ext2 file system here (magic 0x%04x)", es->s_magic);
		return -EINVAL;
	}
	if (es->s_rev_level > EXT2_DYNAMIC_REV) {
		ext2_msg(sb, "cannot mount: revision %u", es->s_rev_level);
		return -EINVAL;
	}
	if (es->s_feature_incompat & ~EXT2_FEATURE_INCOMPAT_SUPP) {
		feature_names(names, sizeof(names), es->s_feature_incompat &
			      ~EXT2_FEATURE_INCOMPAT_SUPP, incompat_names);
		ext2_msg(sb, "cannot mount: %s", names);
		return -EINVAL;
	}
	if (es->s_log_block_size > EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE) {
		ext2_msg(sb, "cannot mount: block size 2^%llu (a page at most)",
			 (unsigned long long)es->s_log_block_size + EXT2_MIN_BLOCK_LOG_SIZE);
		return -EINVAL;
	}
	blocksize = EXT2_MIN_BLOCK_SIZE << es->s_log_block_size;
	if (blocksize != sb->s_blocksize) {
		if (!sb_set_blocksize(sb, (int)blocksize) || !(es = read_super_block(sb, logic))) {
			ext2_msg(sb, "cannot read the super block in blocks of %lu", blocksize);
			return -EINVAL;
		}
		if (es->s_magic != EXT2_SUPER_MAGIC) {
			ext2_msg(sb, "the super block changed while it was read");
			return -EINVAL;
		}
	}
	sbi->s_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	sbi->s_first_ino = EXT2_GOOD_OLD_FIRST_INO;
	if (es->s_rev_level != EXT2_GOOD_OLD_REV) {
		sbi->s_inode_size = es->s_inode_size;
		sbi->s_first_ino = es->s_first_ino;
	}
	sbi->s_blocks_per_group = es->s_blocks_per_group;
	sbi->s_inodes_per_group = es->s_inodes_per_group;
	sbi->s_inodes_per_block = sb->s_blocksize / MAX(sbi->s_inode_size, 1u);
	sbi->s_desc_per_block = sb->s_blocksize / sizeof(struct ext2_group_desc);
	if (sbi->s_blocks_per_group && es->s_blocks_count > es->s_first_data_block)
		sbi->s_groups_count = (es->s_blocks_count - es->s_first_data_block +
				       sbi->s_blocks_per_group - 1) / sbi->s_blocks_per_group;
	if (sbi->s_inodes_per_block)
		sbi->s_itb_per_group = sbi->s_inodes_per_group / sbi->s_inodes_per_block;
	sbi->s_gdb_count = (sbi->s_groups_count + sbi->s_desc_per_block - 1) /
			   sbi->s_desc_per_block;
	return ext2_check_super(sb, *logic);
}

/* The largest file: what the triple indirect block reaches, and no more than i_blocks (2^32
 * sectors) can count with the indirect blocks a full map needs (Linux's ext2_max_size). */
static uint64_t ext2_max_size(unsigned int bits)
{
	uint64_t per = 1ULL << (bits - 2), reach, upper;
	uint64_t meta = 1 + (1 + per) + (1 + per + per * per);

	reach = (EXT2_NDIR_BLOCKS + per + per * per + per * per * per) << bits;
	upper = ((0xffffffffULL >> (bits - 9)) - meta) << bits;
	return MIN(MIN(reach, upper), MAX_LFS_FILESIZE);
}

static int ext2_fill_super(struct super_block *sb, void *data, int silent)
{
	struct ext2_sb_info *sbi = kzalloc(sizeof(*sbi));
	uint32_t ro_bits;
	uint64_t logic;
	char names[160];
	unsigned long i;
	int err;

	(void)data; /* no options yet */
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sb->s_op = &ext2_sops;
	for (i = 0; i < EXT2_INODE_HASH; i++)
		INIT_LIST_HEAD(&sbi->s_inode_hash[i]);
	init_rwsem(&sbi->s_names);
	err = ext2_read_geometry(sb, silent, &logic);
	if (!err)
		err = ext2_read_descriptors(sb, logic);
	if (!err)
		err = ext2_check_descriptors(sb);
	ro_bits = sbi->s_es ? sbi->s_es->s_feature_ro_compat & ~EXT2_FEATURE_RO_COMPAT_SUPP : 0;
	if (!err && !(sb->s_flags & MS_RDONLY) && ro_bits) {
		feature_names(names, sizeof(names), ro_bits, ro_compat_names);
		ext2_msg(sb, "cannot mount read-write: %s", names);
		err = -EINVAL;
	}
	if (!err)
		err = ext2_iget(sb, EXT2_ROOT_INO, &sb->s_root);
	if (!err && (!S_ISDIR(sb->s_root->i_mode) || !sb->s_root->i_size ||
		     !sb->s_root->i_blocks)) {
		ext2_msg(sb, "corrupt root inode: mode 0%o, %llu bytes", sb->s_root->i_mode,
			 (unsigned long long)sb->s_root->i_size);
		err = -EINVAL;
	}
	if (err) {
		sb->s_flags |= MS_RDONLY; /* nothing was written: nothing to put back */
		ext2_put_super(sb);
		sb->s_root = NULL;
		return err;
	}
	sb->s_maxbytes = ext2_max_size(sb->s_blocksize_bits);
	sbi->s_mount_state = sbi->s_es->s_state;
	sbi->s_next_generation = (uint32_t)current_time().tv_nsec ^
				 (uint32_t)current_time().tv_sec;
	if (!(sb->s_flags & MS_RDONLY))
		ext2_setup_super(sb);
	return 0;
}

static struct file_system_type ext2_fs_type = {
	.name = "ext2",
	.magic = EXT2_SUPER_MAGIC,
	.fs_flags = FS_REQUIRES_DEV,
	.fill_super = ext2_fill_super,
};

static void init_ext2_fs(void)
{
	register_filesystem(&ext2_fs_type);
}
device_initcall(init_ext2_fs);
