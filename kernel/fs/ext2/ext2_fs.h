/* The second extended file system as it lies on the disk (Linux 2.6.23's include/linux/ext2_fs.h):
 * the super block, the group descriptors, the inode, the directory entry and the feature bits.
 * Every field is little-endian on the disk, as x86-64 is, so they are read in place. */
#ifndef KERNEL_FS_EXT2_EXT2_FS_H
#define KERNEL_FS_EXT2_EXT2_FS_H

#include <stdint.h>

#define EXT2_SUPER_MAGIC 0xEF53
#define EXT2_SUPER_OFFSET 1024 /* the super block's byte on the device, whatever the block size */
#define EXT2_MIN_BLOCK_SIZE 1024
#define EXT2_MAX_BLOCK_SIZE 4096 /* a block never spans pages of the page cache */
#define EXT2_MIN_BLOCK_LOG_SIZE 10
#define EXT2_MAX_BLOCK_LOG_SIZE 12

/* Inode numbers with a meaning of their own; the first free for files is s_first_ino (11 in
 * revision 0). */
#define EXT2_BAD_INO 1
#define EXT2_ROOT_INO 2
#define EXT2_GOOD_OLD_FIRST_INO 11
#define EXT2_GOOD_OLD_INODE_SIZE 128
#define EXT2_GOOD_OLD_REV 0 /* fixed inode size, no features */
#define EXT2_DYNAMIC_REV 1  /* s_inode_size, s_first_ino and the feature words are valid */

/* i_block: 12 direct block numbers, then a single, a double and a triple indirect block. */
#define EXT2_NDIR_BLOCKS 12
#define EXT2_IND_BLOCK EXT2_NDIR_BLOCKS
#define EXT2_DIND_BLOCK (EXT2_IND_BLOCK + 1)
#define EXT2_TIND_BLOCK (EXT2_DIND_BLOCK + 1)
#define EXT2_N_BLOCKS (EXT2_TIND_BLOCK + 1)

/* The super block: 1024 bytes at byte 1024 of the device (backups at the start of some
 * groups). Counts are in blocks of 1024 << s_log_block_size bytes. */
struct ext2_super_block {
	uint32_t s_inodes_count;
	uint32_t s_blocks_count;
	uint32_t s_r_blocks_count;     /* reserved for the super user */
	uint32_t s_free_blocks_count;
	uint32_t s_free_inodes_count;
	uint32_t s_first_data_block;   /* the block holding the super block: 1 with 1 KiB, else 0 */
	uint32_t s_log_block_size;
	uint32_t s_log_frag_size;
	uint32_t s_blocks_per_group;
	uint32_t s_frags_per_group;
	uint32_t s_inodes_per_group;
	uint32_t s_mtime;              /* last mounted */
	uint32_t s_wtime;              /* last written */
	uint16_t s_mnt_count;
	int16_t s_max_mnt_count;
	uint16_t s_magic;
	uint16_t s_state;              /* EXT2_VALID_FS once cleanly unmounted */
	uint16_t s_errors;
	uint16_t s_minor_rev_level;
	uint32_t s_lastcheck;
	uint32_t s_checkinterval;
	uint32_t s_creator_os;
	uint32_t s_rev_level;
	uint16_t s_def_resuid;
	uint16_t s_def_resgid;
	/* EXT2_DYNAMIC_REV only: */
	uint32_t s_first_ino;
	uint16_t s_inode_size;
	uint16_t s_block_group_nr;     /* the group this copy lives in */
	uint32_t s_feature_compat;
	uint32_t s_feature_incompat;
	uint32_t s_feature_ro_compat;
	uint8_t s_uuid[16];
	char s_volume_name[16];
	char s_last_mounted[64];
	uint32_t s_algorithm_usage_bitmap;
	uint8_t s_prealloc_blocks;
	uint8_t s_prealloc_dir_blocks;
	uint16_t s_padding1;
	/* ext3's journal: */
	uint8_t s_journal_uuid[16];
	uint32_t s_journal_inum;
	uint32_t s_journal_dev;
	uint32_t s_last_orphan;
	uint32_t s_hash_seed[4];
	uint8_t s_def_hash_version;
	uint8_t s_reserved_char_pad;
	uint16_t s_reserved_word_pad;
	uint32_t s_default_mount_opts;
	uint32_t s_first_meta_bg;      /* META_BG: the first group of descriptors placed that way */
	uint32_t s_reserved[190];
};

#define EXT2_VALID_FS 0x0001
#define EXT2_ERROR_FS 0x0002

/*
 * Features. A COMPAT one changes nothing a reader must know; an RO_COMPAT one can be read
 * without knowing it but not written; an INCOMPAT one changes what is read, so a file system
 * with one it does not know cannot be mounted at all.
 */
#define EXT2_FEATURE_COMPAT_DIR_PREALLOC 0x0001
#define EXT2_FEATURE_COMPAT_IMAGIC_INODES 0x0002
#define EXT3_FEATURE_COMPAT_HAS_JOURNAL 0x0004
#define EXT2_FEATURE_COMPAT_EXT_ATTR 0x0008
#define EXT2_FEATURE_COMPAT_RESIZE_INO 0x0010
#define EXT2_FEATURE_COMPAT_DIR_INDEX 0x0020

#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001 /* backups only in groups 0, 1, 3^n, 5^n, 7^n */
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE 0x0002   /* i_size_high of regular files is used */
#define EXT2_FEATURE_RO_COMPAT_BTREE_DIR 0x0004
#define EXT4_FEATURE_RO_COMPAT_HUGE_FILE 0x0008
#define EXT4_FEATURE_RO_COMPAT_GDT_CSUM 0x0010
#define EXT4_FEATURE_RO_COMPAT_DIR_NLINK 0x0020
#define EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE 0x0040
#define EXT4_FEATURE_RO_COMPAT_QUOTA 0x0100
#define EXT4_FEATURE_RO_COMPAT_BIGALLOC 0x0200
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM 0x0400

#define EXT2_FEATURE_INCOMPAT_COMPRESSION 0x0001
#define EXT2_FEATURE_INCOMPAT_FILETYPE 0x0002 /* directory entries carry the file's type */
#define EXT3_FEATURE_INCOMPAT_RECOVER 0x0004  /* the journal holds changes not written yet */
#define EXT3_FEATURE_INCOMPAT_JOURNAL_DEV 0x0008
#define EXT2_FEATURE_INCOMPAT_META_BG 0x0010
#define EXT4_FEATURE_INCOMPAT_EXTENTS 0x0040
#define EXT4_FEATURE_INCOMPAT_64BIT 0x0080
#define EXT4_FEATURE_INCOMPAT_MMP 0x0100
#define EXT4_FEATURE_INCOMPAT_FLEX_BG 0x0200  /* only where metadata is placed */
#define EXT4_FEATURE_INCOMPAT_EA_INODE 0x0400
#define EXT4_FEATURE_INCOMPAT_DIRDATA 0x1000
#define EXT4_FEATURE_INCOMPAT_CSUM_SEED 0x2000
#define EXT4_FEATURE_INCOMPAT_LARGEDIR 0x4000
#define EXT4_FEATURE_INCOMPAT_INLINE_DATA 0x8000
#define EXT4_FEATURE_INCOMPAT_ENCRYPT 0x10000
#define EXT4_FEATURE_INCOMPAT_CASEFOLD 0x20000

/* What this ext2 reads. flex_bg only moves bitmaps and inode tables, which the group
 * descriptors locate anyway. */
#define EXT2_FEATURE_INCOMPAT_SUPP                                                            \
	(EXT2_FEATURE_INCOMPAT_FILETYPE | EXT2_FEATURE_INCOMPAT_META_BG |                     \
	 EXT4_FEATURE_INCOMPAT_FLEX_BG)
#define EXT2_FEATURE_RO_COMPAT_SUPP                                                           \
	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT2_FEATURE_RO_COMPAT_LARGE_FILE |            \
	 EXT2_FEATURE_RO_COMPAT_BTREE_DIR)

/* One block group's descriptor: where its bitmaps and inode table are, and its counts. The
 * descriptors follow the super block's block (or, with META_BG, start each meta group). */
struct ext2_group_desc {
	uint32_t bg_block_bitmap;
	uint32_t bg_inode_bitmap;
	uint32_t bg_inode_table;
	uint16_t bg_free_blocks_count;
	uint16_t bg_free_inodes_count;
	uint16_t bg_used_dirs_count;
	uint16_t bg_pad;
	uint32_t bg_reserved[3];
};

/* An inode as the inode table holds it: the first 128 bytes of each s_inode_size. */
struct ext2_inode {
	uint16_t i_mode;
	uint16_t i_uid;          /* low 16 bits */
	uint32_t i_size;         /* low 32 bits */
	uint32_t i_atime;
	uint32_t i_ctime;
	uint32_t i_mtime;
	uint32_t i_dtime;        /* deleted */
	uint16_t i_gid;          /* low 16 bits */
	uint16_t i_links_count;
	uint32_t i_blocks;       /* 512-byte sectors it holds, indirect blocks included */
	uint32_t i_flags;
	uint32_t i_osd1;
	uint32_t i_block[EXT2_N_BLOCKS]; /* block numbers, or a fast symlink's target */
	uint32_t i_generation;
	uint32_t i_file_acl;     /* a block of extended attributes */
	uint32_t i_dir_acl;      /* a regular file's i_size_high */
	uint32_t i_faddr;
	uint8_t l_i_frag;
	uint8_t l_i_fsize;
	uint16_t i_pad1;
	uint16_t l_i_uid_high;
	uint16_t l_i_gid_high;
	uint32_t l_i_reserved2;
};
#define i_size_high i_dir_acl

#define EXT2_IMMUTABLE_FL 0x00000010
#define EXT2_APPEND_FL 0x00000020
#define EXT2_INDEX_FL 0x00001000   /* hashed-index directory (readable linearly too) */
#define EXT2_DIRSYNC_FL 0x00010000
#define EXT4_EXTENTS_FL 0x00080000 /* i_block holds an extent tree, not block numbers */

/* A directory entry: a directory is a file of blocks, each cut into entries whose rec_len
 * sum to the block. inode 0 is an unused entry. Without FILETYPE, name_len is 16 bits and
 * file_type its high byte. */
struct ext2_dir_entry_2 {
	uint32_t inode;
	uint16_t rec_len;
	uint8_t name_len;
	uint8_t file_type;
	char name[];
};

#define EXT2_NAME_LEN 255  /* name_len is a byte */
#define EXT2_LINK_MAX 32000 /* links of an inode: a directory's subdirectories + 2 */

#define EXT2_FT_UNKNOWN 0
#define EXT2_FT_REG_FILE 1
#define EXT2_FT_DIR 2
#define EXT2_FT_CHRDEV 3
#define EXT2_FT_BLKDEV 4
#define EXT2_FT_FIFO 5
#define EXT2_FT_SOCK 6
#define EXT2_FT_SYMLINK 7
#define EXT2_FT_MAX 8

/* Entries are 4-byte aligned: the header (8 bytes) and the name, rounded up. */
#define EXT2_DIR_PAD 4
#define EXT2_DIR_ROUND (EXT2_DIR_PAD - 1U)
#define EXT2_DIR_REC_LEN(name_len) (((name_len) + 8U + EXT2_DIR_ROUND) & ~EXT2_DIR_ROUND)

_Static_assert(sizeof(struct ext2_super_block) == 1024, "the super block is 1024 bytes");
_Static_assert(sizeof(struct ext2_group_desc) == 32, "a group descriptor is 32 bytes");
_Static_assert(sizeof(struct ext2_inode) == 128, "an inode is 128 bytes");

#endif
