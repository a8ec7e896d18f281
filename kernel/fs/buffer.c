/* Buffer heads (2.6.23's fs/buffer.c): the blocks of a block device as a file system reads and
 * writes them, each a slice of a page of the device's page cache, so that metadata read with
 * __bread and a read() of /dev/sdX share one copy of the bytes. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/slab.h"

/* Sleepers on BH_Lock, hashed by buffer over a table of queues (as the page lock's). */
#define BH_WAIT_TABLE_BITS 5
static struct wait_queue_head bh_wait_table[1U << BH_WAIT_TABLE_BITS];

void buffer_init(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(bh_wait_table); i++)
		init_waitqueue_head(&bh_wait_table[i]);
}

static struct wait_queue_head *bh_waitqueue(struct buffer_head *bh)
{
	uint64_t key = (uint64_t)bh * 0x9e3779b97f4a7c15ULL;

	return &bh_wait_table[key >> (64 - BH_WAIT_TABLE_BITS)];
}

void lock_buffer(struct buffer_head *bh)
{
	struct wait_queue_head *q;
	struct wait_queue_entry w;

	if (!test_set_buffer_locked(bh))
		return;
	q = bh_waitqueue(bh);
	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(q, &w, TASK_UNINTERRUPTIBLE);
		if (!test_set_buffer_locked(bh))
			break;
		schedule();
	}
	finish_wait(q, &w);
}

void unlock_buffer(struct buffer_head *bh)
{
	struct wait_queue_head *q = bh_waitqueue(bh);

	clear_buffer_locked(bh); /* a locked and: a full barrier before the look at the queue */
	if (!list_empty(&q->task_list))
		wake_up(q);
}

void wait_on_buffer(struct buffer_head *bh)
{
	if (buffer_locked(bh)) {
		lock_buffer(bh);
		unlock_buffer(bh);
	}
}

void bdev_io_error(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		   unsigned int count, int err)
{
	uint64_t end = (block + count) * (size >> SECTOR_SHIFT);
	char name[40];

	bdevname(bdev, name, sizeof(name));
	printk("buffer: %s on %s, blocks %lu-%lu of %u bytes (%s)%s\n",
	       err == -ENOSPC ? "no space" : "I/O error", name, (unsigned long)block,
	       (unsigned long)(block + count - 1), size, rw == READ ? "read" : "write",
	       end > bdev->bd_part->nr_sects ? ": past the end" : "");
}

/* The disk's sectors of count blocks of size bytes from block of bdev: false past the end of
 * the partition, which the disk's queue does not know. */
static bool bdev_sectors(struct block_device *bdev, uint64_t block, unsigned int size,
			 unsigned int count, uint64_t *sector, unsigned int *nsec)
{
	unsigned int per = size >> SECTOR_SHIFT;
	uint64_t first = block * per, n = (uint64_t)count * per;

	*sector = bdev->bd_part->start_sect + first;
	*nsec = (unsigned int)n;
	return first + n <= bdev->bd_part->nr_sects && first + n > first;
}

int bdev_rw_blocks(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		   unsigned int count, void *data)
{
	uint64_t sector;
	unsigned int nsec;
	int err = -EIO;

	if (bdev_sectors(bdev, block, size, count, &sector, &nsec))
		err = blk_rw(bdev->bd_disk, rw, sector, nsec, data);
	if (err)
		bdev_io_error(rw, bdev, block, size, count, err);
	return err;
}

int bdev_submit_blocks(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		       unsigned int count, void *data, void (*end_io)(struct request *, int),
		       void *end_io_data)
{
	uint64_t sector;
	unsigned int nsec;
	int err = -EIO;

	if (bdev_sectors(bdev, block, size, count, &sector, &nsec))
		err = blk_submit(bdev->bd_disk, rw, sector, nsec, data, end_io, end_io_data);
	if (err)
		bdev_io_error(rw, bdev, block, size, count, err);
	return err;
}

void *bounce_alloc(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, BOUNCE_ORDER);

	return page ? page_address(page) : NULL;
}

void bounce_free(void *buf)
{
	__free_pages(virt_to_page(buf), BOUNCE_ORDER);
}

int submit_bh_run(int rw, struct buffer_head *bh, unsigned int count)
{
	int err = bdev_rw_blocks(rw, bh->b_bdev, bh->b_blocknr, (unsigned int)bh->b_size, count,
				 bh->b_data);

	for (unsigned int k = 0; k < count; k++, bh = bh->b_this_page) {
		if (rw == WRITE && err)
			mark_buffer_write_io_error(bh, err);
		else if (rw == WRITE)
			clear_buffer_write_io_error(bh);
		else if (err)
			clear_buffer_uptodate(bh);
		else
			set_buffer_uptodate(bh);
	}
	return err;
}

void mark_buffer_write_io_error(struct buffer_head *bh, int err)
{
	set_buffer_write_io_error(bh);
	clear_buffer_uptodate(bh);
	if (bh->b_page->mapping)
		mapping_set_error(bh->b_page->mapping, err);
	if (bh->b_bdev && bh->b_bdev->bd_super) /* a file system's metadata: its syncfs hears */
		errseq_set(&bh->b_bdev->bd_super->s_wb_err, err);
}

int submit_bh(int rw, struct buffer_head *bh)
{
	return submit_bh_run(rw, bh, 1);
}

/* Buffer heads come from kmalloc (one size class serves them all). */
static struct buffer_head *alloc_buffer_head(void)
{
	return kzalloc(sizeof(struct buffer_head));
}

static void free_buffer_head(struct buffer_head *bh)
{
	kfree(bh);
}

struct buffer_head *create_empty_buffers(struct page *page, unsigned int blocksize,
					 unsigned long b_state)
{
	struct buffer_head *head = NULL, *tail = NULL, *bh;

	for (unsigned int off = PAGE_SIZE; off > 0; off -= blocksize) {
		bh = alloc_buffer_head();
		if (!bh) {
			while (head) {
				bh = head->b_this_page;
				free_buffer_head(head);
				head = bh;
			}
			return NULL;
		}
		bh->b_state = b_state;
		bh->b_page = page;
		bh->b_size = blocksize;
		bh->b_data = (char *)page_address(page) + off - blocksize;
		bh->b_this_page = head;
		if (!tail)
			tail = bh;
		head = bh;
	}
	tail->b_this_page = head; /* the ring */
	/* What the page is, each of its blocks is: a dirty page not written back yet must not
	 * become clean buffers that reclaim would drop. */
	for (bh = head; PageUptodate(page) || PageDirty(page); bh = bh->b_this_page) {
		if (PageUptodate(page))
			set_buffer_uptodate(bh);
		if (PageDirty(page))
			set_buffer_dirty(bh);
		if (bh->b_this_page == head)
			break;
	}
	/* The buffers hold the page: reclaim frees them (try_to_release_page) before it. */
	get_page(page);
	page->private = (unsigned long)head;
	SetPageFlag(page, PG_private);
	return head;
}

/* A buffer busy: someone holds it, or it has bytes not on the disk yet, or I/O under way. */
static bool buffer_busy(const struct buffer_head *bh)
{
	return __atomic_load_n(&bh->b_count, __ATOMIC_ACQUIRE) ||
	       (bh->b_state & ((1UL << BH_Dirty) | (1UL << BH_Lock)));
}

int try_to_release_page(struct page *page)
{
	struct buffer_head *head, *bh, *next;

	if (!PagePrivate(page))
		return 1;
	head = page_buffers(page);
	bh = head;
	do {
		if (buffer_busy(bh))
			return 0;
		bh = bh->b_this_page;
	} while (bh != head);
	bh = head;
	do {
		next = bh->b_this_page;
		free_buffer_head(bh);
		bh = next;
	} while (bh != head);
	ClearPageFlag(page, PG_private);
	page->private = 0;
	/* A file system that writes its buffers itself (sync_dirty_buffer) leaves the page
	 * dirty with every buffer clean: nothing of it is left to write. */
	ClearPageFlag(page, PG_dirty);
	put_page(page);
	return 1;
}

void block_invalidatepage(struct page *page, unsigned long offset)
{
	struct buffer_head *head, *bh;
	unsigned long start = 0;

	if (!PagePrivate(page))
		return;
	head = page_buffers(page);
	bh = head;
	do {
		if (start >= offset) { /* wholly past offset: its bytes go */
			lock_buffer(bh);
			clear_buffer_dirty(bh);
			clear_buffer_mapped(bh);
			clear_buffer_uptodate(bh);
			clear_buffer_new(bh);
			unlock_buffer(bh);
		}
		start += bh->b_size;
		bh = bh->b_this_page;
	} while (bh != head);
	if (!offset)
		try_to_release_page(page);
}

/* In blocks of size bytes: the index of the page holding block, its first block in *first. */
static unsigned long block_page_index(uint64_t block, unsigned int size, uint64_t *first)
{
	unsigned int per_page = PAGE_SIZE / size;

	*first = block - block % per_page;
	return (unsigned long)(block / per_page);
}

/*
 * The page of bdev's cache holding block, locked, with buffers of size bytes mapped to their
 * blocks (2.6.23's grow_dev_page). A page with buffers of another size (an earlier block size)
 * gets new ones if the old are not in use. NULL without memory or if they are.
 */
static struct page *grow_dev_page(struct block_device *bdev, uint64_t block, unsigned int size)
{
	struct address_space *mapping = bdev->bd_inode->i_mapping;
	struct buffer_head *head, *bh;
	uint64_t first;
	unsigned long index = block_page_index(block, size, &first);
	/* GFP_NOFS: a file system reads its metadata under its own locks, which the writepage
	 * that reclaim could call would take again. */
	struct page *page = find_or_create_page(mapping, index, GFP_NOFS);

	if (!page)
		return NULL;
	if (PagePrivate(page) && page_buffers(page)->b_size != size &&
	    !try_to_release_page(page))
		goto failed;
	head = PagePrivate(page) ? page_buffers(page) : create_empty_buffers(page, size, 0);
	if (!head)
		goto failed;
	bh = head;
	do { /* 2.6.23's init_page_buffers: none mapped past the device's last whole block */
		if (!buffer_mapped(bh)) {
			bh->b_bdev = bdev;
			bh->b_blocknr = first;
			if (first < bdev->bd_inode->i_size / size)
				set_buffer_mapped(bh);
		}
		first++;
		bh = bh->b_this_page;
	} while (bh != head);
	return page;
failed:
	unlock_page(page);
	put_page(page);
	return NULL;
}

/* size must be a power of two from the device's sector size to a page. */
static bool bad_block_size(struct block_device *bdev, unsigned int size)
{
	return size < SECTOR_SIZE || size > PAGE_SIZE || (size & (size - 1)) ||
	       size < bdev->bd_disk->logical_block_size;
}

struct buffer_head *__getblk(struct block_device *bdev, uint64_t block, unsigned int size)
{
	struct buffer_head *bh;
	struct page *page;
	char name[40];

	if (bad_block_size(bdev, size)) {
		printk("buffer: __getblk: bad block size %u\n", size);
		return NULL;
	}
	if (block >= bdev->bd_inode->i_size / size) { /* no page of the cache past the end */
		bdevname(bdev, name, sizeof(name));
		printk("buffer: %s: block %lu (%u bytes) is past the end of the device\n", name,
		       (unsigned long)block, size);
		return NULL;
	}
	page = grow_dev_page(bdev, block, size);
	if (!page)
		return NULL;
	/* Under the page lock, which reclaim also takes: the buffer cannot go meanwhile. */
	bh = page_buffers(page);
	while (bh->b_blocknr != block)
		bh = bh->b_this_page;
	get_bh(bh);
	unlock_page(page);
	put_page(page); /* the buffers hold the page */
	return bh;
}

struct buffer_head *__bread(struct block_device *bdev, uint64_t block, unsigned int size)
{
	struct buffer_head *bh = __getblk(bdev, block, size);

	if (!bh || buffer_uptodate(bh))
		return bh;
	lock_buffer(bh);
	if (!buffer_uptodate(bh)) /* another reader may have read it meanwhile */
		submit_bh(READ, bh);
	unlock_buffer(bh);
	if (buffer_uptodate(bh))
		return bh;
	brelse(bh);
	return NULL;
}

void unmap_underlying_metadata(struct block_device *bdev, uint64_t block)
{
	unsigned int size = bdev->bd_block_size;
	uint64_t first;
	struct page *page = find_get_page(bdev->bd_inode->i_mapping,
					  block_page_index(block, size, &first));
	struct buffer_head *head, *bh;

	if (!page)
		return;
	lock_page(page); /* reclaim frees buffers under it: they stay while we look */
	if (PagePrivate(page) && page_buffers(page)->b_size == size) {
		head = page_buffers(page);
		bh = head;
		do {
			if (bh->b_blocknr == block) {
				/* Stale: never to be written over what the block holds next. */
				clear_buffer_dirty(bh);
				wait_on_buffer(bh);
				clear_buffer_uptodate(bh);
			}
			bh = bh->b_this_page;
		} while (bh != head);
	}
	unlock_page(page);
	put_page(page);
}

void brelse(struct buffer_head *bh)
{
	struct page *page;
	bool orphan;

	if (!bh)
		return;
	if (__atomic_load_n(&bh->b_count, __ATOMIC_RELAXED) <= 0) {
		printk("buffer: brelse of a free buffer (block %lu)\n",
		       (unsigned long)bh->b_blocknr);
		return;
	}
	page = bh->b_page;
	/* Truncated while held (a block size changed under a file system's buffer): its page
	 * left the cache with the buffers, and the last user frees them and it. */
	orphan = !READ_ONCE(page->mapping);
	if (orphan)
		get_page(page);
	put_bh(bh);
	if (!orphan)
		return;
	if (!TestSetPageLocked(page)) {
		if (!page->mapping)
			try_to_release_page(page);
		unlock_page(page);
	}
	put_page(page);
}

void mark_buffer_dirty(struct buffer_head *bh)
{
	if (test_set_buffer_dirty(bh))
		return;
	/* The page too (2.6.23's __set_page_dirty_nobuffers): the other buffers stay clean. */
	SetPageFlag(bh->b_page, PG_dirty);
}

int sync_dirty_buffer(struct buffer_head *bh)
{
	int err = 0;

	lock_buffer(bh);
	if (test_clear_buffer_dirty(bh))
		err = submit_bh(WRITE, bh); /* a failure leaves it clean: not tried again */
	unlock_buffer(bh);
	return err;
}

int sb_set_blocksize(struct super_block *sb, int size)
{
	struct block_device *bdev = sb->s_bdev;

	if (size <= 0 || bad_block_size(bdev, (unsigned int)size))
		return 0;
	if (set_blocksize(bdev, (unsigned int)size))
		return 0;
	sb->s_blocksize = (unsigned long)size;
	sb->s_blocksize_bits = (unsigned char)__builtin_ctz((unsigned int)size);
	return size;
}
