/* ext2 in memory (Linux 2.6.23's fs/ext2/ext2.h and ext2_fs_sb.h): what a mount keeps of the
 * super block and its groups, what an inode keeps of its disk inode, and the calls between
 * the files of kernel/fs/ext2/. */
#ifndef KERNEL_FS_EXT2_EXT2_H
#define KERNEL_FS_EXT2_EXT2_H

#include "kernel/fs/buffer_head.h"
#include "kernel/fs/ext2/ext2_fs.h"
#include "kernel/locking/rwsem.h"

#define EXT2_INODE_HASH 256 /* buckets of a mount's table of inodes by number */

/* A mounted ext2 (sb->s_fs_info). Its super block and descriptor blocks stay read while it
 * is mounted. */
struct ext2_sb_info {
	unsigned long s_inodes_per_block;
	unsigned long s_blocks_per_group;
	unsigned long s_inodes_per_group;
	unsigned long s_itb_per_group;  /* inode table blocks per group */
	unsigned long s_gdb_count;      /* group descriptor blocks */
	unsigned long s_desc_per_block;
	unsigned long s_groups_count;
	unsigned int s_inode_size;
	unsigned long s_first_ino;
	struct buffer_head *s_sbh;      /* the buffer holding the super block */
	struct ext2_super_block *s_es;  /* the super block, inside s_sbh */
	struct buffer_head **s_group_desc;
	uint16_t s_mount_state;         /* s_state as mounted: put back at unmount (VALID_FS) */
	uint32_t s_next_generation;     /* i_generation of the next new inode */
	/* Every inode met, by number: a file met again, by a second name (a hard link) too, is
	 * the same struct inode (Linux's inode hash, per mount here). */
	struct list_head s_inode_hash[EXT2_INODE_HASH];
	/* Held (for writing) by each call of namei.c that changes names: no other change of a
	 * directory of this mount comes between its look at the entries and its change, across
	 * the sleeps in between (what the directories' i_mutex and s_vfs_rename_mutex are to
	 * 2.6.23's VFS, coarser). Lookups and readdir do not take it. */
	struct rw_semaphore s_names;
};

/* What an inode keeps of its disk inode beyond struct inode (inode->i_private). */
struct ext2_inode_info {
	uint32_t i_data[EXT2_N_BLOCKS]; /* i_block: the block map, or a fast symlink's target */
	uint32_t i_flags;
	uint32_t i_file_acl;
	uint32_t i_dtime;
	uint32_t i_block_group;         /* the group whose table holds it */
	uint32_t i_generation;          /* NFS's: kept as the disk has it */
	/* The file's last allocation, for the next one's goal (2.6.23's ext2_find_goal). */
	uint64_t i_next_alloc_block;    /* the file's block after the last allocated */
	uint32_t i_next_alloc_goal;     /* the disk block after it */
	/* get_block's allocation and truncate's freeing change the block map one at a time
	 * (2.6.23's truncate_mutex; both sleep on the disk). */
	struct rw_semaphore truncate_mutex;
	unsigned long i_dir_start_lookup; /* a directory's page where the last lookup hit */
	struct list_head i_hash;        /* in s_inode_hash */
	struct inode *vfs_inode;
};

static inline struct ext2_sb_info *EXT2_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct ext2_inode_info *EXT2_I(struct inode *inode)
{
	return inode->i_private;
}

#define EXT2_HAS_INCOMPAT_FEATURE(sb, mask)                                                   \
	((EXT2_SB(sb)->s_es->s_feature_incompat & (mask)) != 0)
#define EXT2_HAS_RO_COMPAT_FEATURE(sb, mask)                                                  \
	((EXT2_SB(sb)->s_es->s_feature_ro_compat & (mask)) != 0)

/* The bitmaps: bit nr of a block at addr, little-endian (bit 0 is the low bit of byte 0). */
static inline bool ext2_test_bit(unsigned long nr, const void *addr)
{
	return (((const uint8_t *)addr)[nr >> 3] >> (nr & 7)) & 1;
}

/* Set (ext2_set_bit) or clear bit nr: was it set before? */
static inline bool ext2_set_bit(unsigned long nr, void *addr)
{
	bool old = ext2_test_bit(nr, addr);

	((uint8_t *)addr)[nr >> 3] |= (uint8_t)(1u << (nr & 7));
	return old;
}

static inline bool ext2_clear_bit(unsigned long nr, void *addr)
{
	bool old = ext2_test_bit(nr, addr);

	((uint8_t *)addr)[nr >> 3] &= (uint8_t)~(1u << (nr & 7));
	return old;
}

/* The first clear bit from offset on below size, or size. */
static inline unsigned long ext2_find_next_zero_bit(const void *addr, unsigned long size,
						    unsigned long offset)
{
	const uint8_t *p = addr;

	while (offset < size) {
		if (!(offset & 7) && p[offset >> 3] == 0xff)
			offset += 8;
		else if (!ext2_test_bit(offset, addr))
			return offset;
		else
			offset++;
	}
	return size;
}

/* super.c: a line on the console about sb, "ext2: sda: ..." */
void ext2_msg(struct super_block *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* balloc.c: the block groups */
/* Group group's descriptor (its buffer in *bh if bh is not NULL), or NULL past the last. */
struct ext2_group_desc *ext2_get_group_desc(struct super_block *sb, unsigned long group,
					    struct buffer_head **bh);
/* Does group hold a copy of the super block (and of the descriptors)? */
int ext2_bg_has_super(struct super_block *sb, unsigned long group);
/* Blocks of descriptors group holds. */
unsigned long ext2_bg_num_gdb(struct super_block *sb, unsigned long group);
/* The block holding descriptor block nr, after the super block at logic_sb_block. */
uint64_t descriptor_loc(struct super_block *sb, uint64_t logic_sb_block, unsigned long nr);
unsigned long ext2_count_free_blocks(struct super_block *sb);
unsigned long ext2_count_free_inodes(struct super_block *sb);

/* balloc.c: taking and giving back blocks (bitmap, group descriptor, super block counts). */
/* A free block for inode, near goal if it can: its number, or 0 with *err -ENOSPC or -EIO. */
uint32_t ext2_new_block(struct inode *inode, uint32_t goal, int *err);
/* count blocks from block on are free again (their buffers forgotten: never written). */
void ext2_free_blocks(struct inode *inode, uint32_t block, unsigned long count);

/* ialloc.c */
/* A new inode of mode (S_IF* and permissions) for a name in dir: a number taken from a
 * group's bitmap (counts, and used directories), owner and group by inode_init_owner, one
 * link, times now, no blocks, in the mount's inode table, dirty. Its operations are the
 * caller's to set (ext2_set_inode_ops). 0, -ENOSPC (no free inode), -EIO, -ENOMEM. */
int ext2_new_inode(struct inode *dir, uint32_t mode, struct inode **out);
/* The disk inode's number goes back to its group's bitmap (delete_inode). */
void ext2_free_inode(struct inode *inode);

/* inode.c */
/* The disk inode ino in its table's block, which the caller brelses: NULL (said) if the
 * number is out of range or the block cannot be read. */
struct ext2_inode *ext2_get_inode(struct super_block *sb, unsigned long ino,
				  struct buffer_head **bhp);
/* A struct inode of sb with its ext2_inode_info (i_private), not in the table yet; NULL
 * without memory. ext2_destroy_inode frees both. */
struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode);
void ext2_destroy_inode(struct inode *inode);
/* inode (new, with i_private set up) goes into its mount's table of inodes by number. */
void ext2_insert_inode_hash(struct inode *inode);
/* i_op, i_fop and the page cache of a file, directory or slow symlink, from i_mode. */
void ext2_set_inode_ops(struct inode *inode);
/* Files, directories and slow symlinks keep their blocks in a page cache: inode's, with
 * ext2_aops (a slow symlink made by ext2_symlink gets it so). */
void ext2_set_aops(struct inode *inode);
/* The blocks past i_size go back (and the tail of the last block is zeroed on the disk). */
void ext2_truncate(struct inode *inode);
/* The inode numbered ino, read from its table the first time: 0 or -EIO (a number out of
 * range, a deleted inode, a read error), -ENOMEM. */
int ext2_iget(struct super_block *sb, unsigned long ino, struct inode **out);
/* super_operations: the inode into its table's buffer (wait: and on the disk), 0 or -EIO;
 * the inode's blocks and number freed once its last link and user are gone. */
int ext2_write_inode(struct inode *inode, int wait);
void ext2_delete_inode(struct inode *inode);
/* Every inode of sb goes (unmount): their page cache too. */
void ext2_forget_inodes(struct super_block *sb);
/* The path through i_block to block i of a file: offsets[0] is the slot in i_block, each next
 * one the slot in the indirect block the previous names. The depth (1 direct, 2 indirect, 3
 * double, 4 triple indirect), 0 past what a triple indirect block reaches. */
int ext2_block_to_path(struct inode *inode, uint64_t i, unsigned long offsets[4]);
/* A block number from i_block or an indirect block must lie inside the file system. */
bool ext2_block_ok(struct super_block *sb, uint32_t block);
/* Map block iblock of inode (get_block_t); create: allocate what is missing (the indirect
 * blocks zeroed, the data block BH_New), all or nothing (-ENOSPC, -EIO). */
int ext2_get_block(struct inode *inode, uint64_t iblock, struct buffer_head *bh_result,
		   int create);
void ext2_getattr(struct inode *inode, struct kstat *stat);
extern const struct address_space_operations ext2_aops;

/* dir.c: reading. A call that finds an entry gives it with its page, whose reference the
 * caller puts (put_page) or hands on to ext2_delete_entry or ext2_set_link. */
/* The entry of dir holding name (len bytes): 0, -ENOENT, -EIO (a corrupt entry, said on the
 * console). */
int ext2_find_entry(struct inode *dir, const char *name, size_t len,
		    struct ext2_dir_entry_2 **res_dir, struct page **res_page);
/* The inode number of that entry in *ino: 0, -ENOENT, -EIO. */
int ext2_inode_by_name(struct inode *dir, const char *name, size_t len, unsigned long *ino);
/* The ".." entry of dir (the second of its first block): 0 or -EIO. */
int ext2_dotdot(struct inode *dir, struct ext2_dir_entry_2 **res_dir, struct page **res_page);
/* 1 if dir holds nothing but "." and "..", 0 if it holds more, -EIO. */
int ext2_empty_dir(struct inode *dir);
/* dir.c: writing (the directory's mtime and ctime become now). */
/* A new entry name in dir for inode: in the slack after an entry or an unused one, else in a
 * new block at the end (i_size grows by a block). 0, -EEXIST (the name is there: a race),
 * -ENAMETOOLONG, -ENOSPC, -EIO. */
int ext2_add_link(struct inode *dir, const char *name, size_t len, struct inode *inode);
/* de goes: merged into the entry before it in its block, or unused (inode 0) if it is the
 * first. 0, -ENOENT (it went meanwhile), -EIO; puts page. */
int ext2_delete_entry(struct ext2_dir_entry_2 *de, struct page *page);
/* de of dir points to inode now (rename over a name, ".." of a moved directory); puts page. */
void ext2_set_link(struct inode *dir, struct ext2_dir_entry_2 *de, struct page *page,
		   struct inode *inode);
/* The first block of the new directory inode: "." and ".." (parent). 0, -ENOSPC, -EIO. */
int ext2_make_empty(struct inode *inode, struct inode *parent);
extern const struct file_operations ext2_dir_operations;

/* namei.c, file.c, symlink.c */
int ext2_setattr(struct inode *inode, const struct iattr *attr); /* 0: notify_change applies */
extern const struct inode_operations ext2_dir_inode_operations;
extern const struct inode_operations ext2_file_inode_operations;
extern const struct inode_operations ext2_special_inode_operations;
extern const struct file_operations ext2_file_operations;
int ext2_fsync(struct file *f, int datasync); /* file.c: files' and directories' fsync */
extern const struct inode_operations ext2_fast_symlink_inode_operations;
extern const struct inode_operations ext2_symlink_inode_operations;

#endif
