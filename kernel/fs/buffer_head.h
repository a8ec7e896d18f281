/* Buffer heads (kernel/fs/buffer.c): a disk block as a file system sees it, a slice of a page of
 * the block device's page cache (2.6.23's fs/buffer.c). A file system reads its metadata with
 * sb_bread and maps its files' pages to disk blocks with a get_block function. */
#ifndef KERNEL_FS_BUFFER_HEAD_H
#define KERNEL_FS_BUFFER_HEAD_H

#include "kernel/fs/fs.h"
#include "mm/page.h"

/* Bits in b_state. */
enum bh_state_bits {
	BH_Uptodate, /* b_data holds the block's bytes */
	BH_Dirty,    /* b_data was changed and must be written to the disk */
	BH_Lock,     /* I/O on it is under way */
	BH_Mapped,   /* b_bdev and b_blocknr say where on the disk it lives */
	BH_New,      /* get_block just allocated the block: its disk bytes are garbage */
	BH_Boundary, /* the next block of the file is not the next on the disk */
	BH_Write_EIO, /* its last write failed: the disk holds older bytes (a write clears it) */
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

/* Atomic, as Linux's set_bit: a buffer's bits change on any CPU (lock_buffer's test-and-set
 * must not be undone by a plain read-modify-write of another bit). */
#define BUFFER_FNS(bit, name)                                                                 \
	static inline bool buffer_##name(const struct buffer_head *bh)                        \
	{                                                                                     \
		return (__atomic_load_n(&bh->b_state, __ATOMIC_RELAXED) >> BH_##bit) & 1;     \
	}                                                                                     \
	static inline void set_buffer_##name(struct buffer_head *bh)                          \
	{                                                                                     \
		__atomic_fetch_or(&bh->b_state, 1UL << BH_##bit, __ATOMIC_SEQ_CST);           \
	}                                                                                     \
	static inline void clear_buffer_##name(struct buffer_head *bh)                        \
	{                                                                                     \
		__atomic_fetch_and(&bh->b_state, ~(1UL << BH_##bit), __ATOMIC_SEQ_CST);       \
	}                                                                                     \
	static inline bool test_clear_buffer_##name(struct buffer_head *bh)                   \
	{                                                                                     \
		return __atomic_fetch_and(&bh->b_state, ~(1UL << BH_##bit), __ATOMIC_SEQ_CST) \
		       & (1UL << BH_##bit);                                                   \
	}                                                                                     \
	static inline bool test_set_buffer_##name(struct buffer_head *bh)                     \
	{                                                                                     \
		return __atomic_fetch_or(&bh->b_state, 1UL << BH_##bit, __ATOMIC_SEQ_CST) &    \
		       (1UL << BH_##bit);                                                     \
	}
BUFFER_FNS(Uptodate, uptodate)
BUFFER_FNS(Dirty, dirty)
BUFFER_FNS(Mapped, mapped)
BUFFER_FNS(New, new)
BUFFER_FNS(Boundary, boundary)
BUFFER_FNS(Lock, locked)
BUFFER_FNS(Write_EIO, write_io_error)

static inline void get_bh(struct buffer_head *bh)
{
	__atomic_add_fetch(&bh->b_count, 1, __ATOMIC_RELAXED);
}

static inline void put_bh(struct buffer_head *bh)
{
	__atomic_sub_fetch(&bh->b_count, 1, __ATOMIC_RELEASE);
}

/* The first buffer of a page with PG_private. */
#define page_buffers(page) ((struct buffer_head *)(page)->private)
#define page_has_buffers(page) PagePrivate(page)

/* The wait queues of BH_Lock, at boot (2.6.23's buffer_init). */
void buffer_init(void);
/* BH_Lock, taken around each transfer of the buffer: sleeps while another holds it. */
void lock_buffer(struct buffer_head *bh);
void unlock_buffer(struct buffer_head *bh);
/* Sleep until nobody holds BH_Lock. */
void wait_on_buffer(struct buffer_head *bh);
/* Move the locked bh's bytes to (WRITE) or from (READ) its block on b_bdev and wait: 0 or
 * -EIO (a device error, or past the end of the partition; or the device's own -errno). A read
 * sets BH_Uptodate on success and clears it on failure; a failed write is
 * mark_buffer_write_io_error's, a good one clears BH_Write_EIO. The caller unlocks bh. */
int submit_bh(int rw, struct buffer_head *bh);
/* The same for bh and the count - 1 buffers after it in its page, blocks in a row on the disk
 * (each locked): one request. */
int submit_bh_run(int rw, struct buffer_head *bh, unsigned int count);
/* A bounce buffer: BOUNCE_SIZE bytes of contiguous kernel memory for a request of several
 * pages (read-ahead, O_DIRECT), or NULL. */
#define BOUNCE_ORDER 3 /* 32 KiB, 64 sectors per request */
#define BOUNCE_SIZE (PAGE_SIZE << BOUNCE_ORDER)
void *bounce_alloc(void);
void bounce_free(void *buf);
/* count blocks of size bytes from block of bdev to (WRITE) or from (READ) data, contiguous
 * kernel memory, in one request: 0 or -EIO (said on the console; also past the device's
 * end). */
int bdev_rw_blocks(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		   unsigned int count, void *data);
/* The same without waiting (blk_submit): end_io(req, error) gets end_io_data in req when it
 * is done, from the completion interrupt. 0 once submitted, or -EIO, -ENOMEM (said) at once,
 * and end_io will not be called. */
struct request;
int bdev_submit_blocks(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		       unsigned int count, void *data, void (*end_io)(struct request *, int),
		       void *end_io_data);
/* "buffer: I/O error on sda1, blocks ..." on the console ("no space" for err -ENOSPC, a loop
 * device's file's file system full). */
void bdev_io_error(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		   unsigned int count, int err);

/*
 * A file system's map from a file's blocks to the disk's: set bh_result mapped (map_bh) to
 * the disk block holding block iblock of inode, or leave it unmapped for a hole. create: a
 * write needs the block, so allocate one for a hole (and set_buffer_new). 0 or -errno
 * (-EIO, -ENOSPC).
 */
typedef int(get_block_t)(struct inode *inode, uint64_t iblock, struct buffer_head *bh_result,
			 int create);

/* log2 of inode's block size: its own, or its super block's for an inode made before the
 * block size was set, or a page. */
static inline unsigned int inode_blkbits(const struct inode *inode)
{
	if (inode->i_blkbits)
		return inode->i_blkbits;
	if (inode->i_sb && inode->i_sb->s_blocksize_bits)
		return inode->i_sb->s_blocksize_bits;
	return PAGE_SHIFT;
}

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
/* The same block without reading it (the caller will fill all of it), or NULL (also for a
 * block past the device's last whole one, said on the console). */
struct buffer_head *__getblk(struct block_device *bdev, uint64_t block, unsigned int size);
void brelse(struct buffer_head *bh); /* NULL is fine */
/* The bytes of bh changed: it and its page are dirty. */
void mark_buffer_dirty(struct buffer_head *bh);
/* block of bdev (in bd_block_size units) was freed or is reused for a file's data: its buffer
 * in the device's cache, if any, is clean and not uptodate, so that stale metadata is never
 * written over the block's new bytes nor read back (2.6.23's unmap_underlying_metadata,
 * which bforget does for a buffer at hand). */
void unmap_underlying_metadata(struct block_device *bdev, uint64_t block);
/* Write bh now if it is dirty, and wait: 0 or -EIO (bh is then clean, as
 * mark_buffer_write_io_error leaves it). */
int sync_dirty_buffer(struct buffer_head *bh);
/* The write of bh failed with err (-EIO, or the device's own: -ENOSPC from a loop device on a
 * full file system), as Linux's end_buffer_write_sync and end_buffer_async_write see it: its
 * bytes are on no disk, and they stay in memory only while the page does. BH_Write_EIO set,
 * BH_Uptodate cleared (a later bread reads what the disk holds), and err recorded in the
 * page's mapping (mapping_set_error) for the fsync that will ask (Linux says -EIO for a buffer,
 * the request's error for a page written whole, as an ext2 file's data page here is). bh stays
 * clean: the write is not tried again, so the next fsync and umount go on. */
void mark_buffer_write_io_error(struct buffer_head *bh, int err);

/* sb's blocks are size bytes (a power of two from the device's sector size to PAGE_SIZE):
 * sets s_blocksize and s_blocksize_bits and the device's block size; size, or 0 if it
 * cannot be. */
int sb_set_blocksize(struct super_block *sb, int size);

/* readpage for a file system with a get_block: each block of the locked page is mapped, read
 * from the disk (or zeroed for a hole, and past i_size) and the page made uptodate and
 * unlocked. 0 or -EIO (the page is unlocked without PG_uptodate). */
int block_read_full_page(struct page *page, get_block_t *get_block);
/* Attach blocksize-byte buffers (unmapped, with b_state, and uptodate and dirty if the page
 * is) to a locked page without them. NULL without memory. Returns the first. */
struct buffer_head *create_empty_buffers(struct page *page, unsigned int blocksize,
					 unsigned long b_state);
/* Free the buffers of a locked page if none is in use, dirty or locked (PG_private and the
 * buffers' page reference go; a dirty page whose buffers are all clean becomes clean): 1, or
 * 0 if they stay. Reclaim calls it before it drops the page; a page without buffers: 1. */
int try_to_release_page(struct page *page);
/* Truncate is taking the locked page out of its mapping: the buffers from offset on lose
 * their data, and with offset 0 they go too if nobody holds one (else they stay with the
 * page, no longer in the cache, until the last brelse frees both). */
void block_invalidatepage(struct page *page, unsigned long offset);
/* prepare_write for a file system with a get_block: the buffers of the locked page that
 * bytes [from, to) touch are mapped (create: allocated) and those written only in part read;
 * a new block (BH_New) is zeroed. 0 or -errno. */
int block_prepare_write(struct page *page, unsigned int from, unsigned int to,
			get_block_t *get_block);
/* commit_write's part about buffers: those in [from, to) uptodate and dirty, the page dirty,
 * and uptodate if every buffer is. 0. */
int block_commit_write(struct page *page, unsigned int from, unsigned int to);
/* commit_write for a file system with a get_block (2.6.23's generic_commit_write):
 * block_commit_write, the inode's pages dirty, and i_size grown to the end of the write (the
 * inode dirty). 0. */
int generic_commit_write(struct file *f, struct page *page, unsigned int from, unsigned int to);
/* Truncate to from: the rest of the block from falls in is zeroed through the page cache and
 * its buffer dirtied, so that the disk holds zeroes past the end (2.6.23's
 * block_truncate_page; a hole stays one). 0 or -errno. */
int block_truncate_page(struct address_space *mapping, uint64_t from, get_block_t *get_block);
/* writepage for a file system with a get_block: each dirty buffer of the locked page inside
 * i_size is written (mapped first if need be; a run of them in a row on the disk in one
 * request) and waited for; the page is unlocked. 0, or the first error: -EIO from the disk
 * (the page stays clean, PG_error set, each failed buffer as mark_buffer_write_io_error
 * leaves it, as Linux's), or get_block's (the page is dirty again). */
int block_write_full_page(struct page *page, get_block_t *get_block,
			  struct writeback_control *wbc);
/* page_mkwrite for a file system with a get_block (2.6.24's block_page_mkwrite): the blocks
 * of the page inside the file are allocated now, so that a store into a hole of a full disk
 * is SIGBUS at the store (-ENOSPC), not data lost at writeback; the page and its buffers are
 * dirty. 0 (also for a page truncated meanwhile: the fault looks again) or -errno. */
struct vm_area_struct;
int block_page_mkwrite(struct vm_area_struct *vma, struct page *page, get_block_t *get_block);
/* set_page_dirty of a mapping whose pages have buffers: every buffer and the page dirty. 1
 * if the page was clean. */
int __set_page_dirty_buffers(struct page *page);
/* readpage for a file system with a get_block, as 2.6.23's mpage_readpage (fs/mpage.c): a
 * page whose blocks lie in a row on the disk (holes only at its end) is read in one request
 * and gets no buffer heads; any other page goes to block_read_full_page. The page is unlocked;
 * 0 or -EIO. */
int mpage_readpage(struct page *page, get_block_t *get_block);
/* readpages for a file system with a get_block (2.6.23's mpage_readpages): pages whose blocks
 * lie in a row on the disk, one after the other, are read in one request (up to BOUNCE_SIZE);
 * any other page goes to the mapping's readpage. Each page is unlocked. */
void mpage_readpages(struct file *f, struct address_space *mapping, struct page **pages,
		     unsigned int nr, get_block_t *get_block);
/* bmap: the disk block holding block of the file, 0 for a hole. */
uint64_t generic_block_bmap(struct address_space *mapping, uint64_t block,
			    get_block_t *get_block);

#endif
