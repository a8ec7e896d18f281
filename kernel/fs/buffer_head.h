/* Buffer heads (kernel/fs/buffer.c): a disk block as a file system sees it, a slice of a page of
 * the block device's page cache (2.6.23's fs/buffer.c). A file system reads its metadata with
 * sb_bread and maps its files' pages to disk blocks with a get_block function. */
#ifndef KERNEL_FS_BUFFER_HEAD_H
#define KERNEL_FS_BUFFER_HEAD_H

#include "kernel/fs/fs.h"

struct page;

/* Bits in b_state. */
enum bh_state_bits {
	BH_Uptodate, /* b_data holds the block's bytes */
	BH_Dirty,    /* b_data was changed and must be written to the disk */
	BH_Lock,     /* I/O on it is under way */
	BH_Mapped,   /* b_bdev and b_blocknr say where on the disk it lives */
	BH_New,      /* get_block just allocated the block: its disk bytes are garbage */
	BH_Boundary, /* the next block of the file is not the next on the disk */
};

/* One block. A page of the block device's page cache (or of a file's) is cut into
 * PAGE_SIZE / b_size of them, linked in a ring by b_this_page, the first one in
 * page->private (PG_private set). */
struct buffer_head {
	unsigned long b_state;           /* BH_* bits */
	struct buffer_head *b_this_page; /* the next buffer of the same page (a ring) */
	struct page *b_page;
	uint64_t b_blocknr;              /* its block on b_bdev, in b_size units */
	size_t b_size;                   /* bytes */
	char *b_data;                    /* its bytes, inside b_page */
	struct block_device *b_bdev;
	int b_count;                     /* users: brelse drops one */
};

#define BUFFER_FNS(bit, name)                                                                 \
	static inline bool buffer_##name(const struct buffer_head *bh)                        \
	{                                                                                     \
		return (bh->b_state >> BH_##bit) & 1;                                         \
	}                                                                                     \
	static inline void set_buffer_##name(struct buffer_head *bh)                          \
	{                                                                                     \
		bh->b_state |= 1UL << BH_##bit;                                               \
	}                                                                                     \
	static inline void clear_buffer_##name(struct buffer_head *bh)                        \
	{                                                                                     \
		bh->b_state &= ~(1UL << BH_##bit);                                            \
	}
BUFFER_FNS(Uptodate, uptodate)
BUFFER_FNS(Dirty, dirty)
BUFFER_FNS(Mapped, mapped)
BUFFER_FNS(New, new)
BUFFER_FNS(Boundary, boundary)

/*
 * A file system's map from a file's blocks to the disk's: set bh_result mapped (map_bh) to
 * the disk block holding block iblock of inode, or leave it unmapped for a hole. create: a
 * write needs the block, so allocate one for a hole (and set_buffer_new). 0 or -errno
 * (-EIO, -ENOSPC).
 */
typedef int(get_block_t)(struct inode *inode, uint64_t iblock, struct buffer_head *bh_result,
			 int create);

static inline void map_bh(struct buffer_head *bh, struct super_block *sb, uint64_t block)
{
	set_buffer_mapped(bh);
	bh->b_bdev = sb->s_bdev;
	bh->b_blocknr = block;
	bh->b_size = sb->s_blocksize;
}

/* Block block (of size bytes) of bdev, read if it was not in the page cache: NULL on a read
 * error (said on the console) or without memory. The caller owns a reference: brelse it. */
struct buffer_head *__bread(struct block_device *bdev, uint64_t block, unsigned int size);
static inline struct buffer_head *sb_bread(struct super_block *sb, uint64_t block)
{
	return __bread(sb->s_bdev, block, (unsigned int)sb->s_blocksize);
}
/* The same block without reading it (the caller will fill all of it), or NULL. */
struct buffer_head *__getblk(struct block_device *bdev, uint64_t block, unsigned int size);
void brelse(struct buffer_head *bh); /* NULL is fine */
/* The bytes of bh changed: it and its page are dirty. */
void mark_buffer_dirty(struct buffer_head *bh);
/* Write bh now if it is dirty, and wait: 0 or -EIO. */
int sync_dirty_buffer(struct buffer_head *bh);

/* sb's blocks are size bytes (a power of two from the device's sector size to PAGE_SIZE):
 * sets s_blocksize and s_blocksize_bits and the device's block size; size, or 0 if it
 * cannot be. */
int sb_set_blocksize(struct super_block *sb, int size);

/* readpage for a file system with a get_block: each block of the locked page is mapped, read
 * from the disk (or zeroed for a hole, and past i_size) and the page made uptodate and
 * unlocked. 0 or -EIO (the page is unlocked without PG_uptodate). */
int block_read_full_page(struct page *page, get_block_t *get_block);
/* bmap: the disk block holding block of the file, 0 for a hole. */
uint64_t generic_block_bmap(struct address_space *mapping, uint64_t block,
			    get_block_t *get_block);

#endif
