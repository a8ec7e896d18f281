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

/* count blocks of size bytes from block of bdev to or from data (contiguous): 0 or -EIO. A
 * partition's blocks are checked against its end, which blk_rw (the disk's) does not know. */
static int blocks_rw(int rw, struct block_device *bdev, uint64_t block, unsigned int size,
		     unsigned int count, void *data)
{
	unsigned int per = size >> SECTOR_SHIFT;
	uint64_t first = block * per, nsec = (uint64_t)count * per;
	char name[40];

	if (first + nsec > bdev->bd_part->nr_sects || first + nsec < first) {
		bdevname(bdev, name, sizeof(name));
		printk("buffer: %s: block %lu (%u bytes) is past the end of the device\n", name,
		       (unsigned long)block, size);
		return -EIO;
	}
	return blk_rw(bdev->bd_disk, rw, bdev->bd_part->start_sect + first, (unsigned int)nsec,
		      data);
}

int submit_bh(int rw, struct buffer_head *bh)
{
	int err = blocks_rw(rw, bh->b_bdev, bh->b_blocknr, (unsigned int)bh->b_size, 1, bh->b_data);

	if (rw == READ) {
		if (err)
			clear_buffer_uptodate(bh);
		else
			set_buffer_uptodate(bh);
	}
	if (err) {
		char name[40];

		bdevname(bh->b_bdev, name, sizeof(name));
		printk("buffer: I/O error on %s, block %lu (%s)\n", name,
		       (unsigned long)bh->b_blocknr, rw == READ ? "read" : "write");
	}
	return err;
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
	if (PageUptodate(page))
		for (bh = head;; bh = bh->b_this_page) {
			set_buffer_uptodate(bh);
			if (bh->b_this_page == head)
				break;
		}
	/* The buffers hold the page: reclaim frees them (try_to_release_page) before it. */
	get_page(page);
	page->private = (unsigned long)head;
	SetPageFlag(page, PG_private);
	return head;
}

/* The buffers of a locked page, made (the inode's block size) if it has none: NULL without
 * memory. */
static struct buffer_head *page_buffers_or_new(struct page *page)
{
	const struct inode *inode = page->mapping->host;
	unsigned int bits = inode->i_blkbits;

	if (PagePrivate(page))
		return page_buffers(page);
	if (!bits && inode->i_sb) /* an inode made before its sb's block size was set */
		bits = inode->i_sb->s_blocksize_bits;
	return create_empty_buffers(page, 1U << (bits ? bits : PAGE_SHIFT), 0);
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
	bool dirty = false;

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
		dirty |= buffer_dirty(bh);
		free_buffer_head(bh);
		bh = next;
	} while (bh != head);
	ClearPageFlag(page, PG_private);
	page->private = 0;
	/* A file system that writes its buffers itself (sync_dirty_buffer) leaves the page
	 * dirty with every buffer clean: nothing of it is left to write. */
	if (!dirty)
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

/* The block size of the bdev page cache's buffers at block: the first block of the page
 * holding block, the page's index. */
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
	struct page *page = grab_cache_page(mapping, index);

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

	if (bad_block_size(bdev, size)) {
		printk("buffer: __getblk: bad block size %u\n", size);
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
	if (test_clear_buffer_dirty(bh)) {
		err = submit_bh(WRITE, bh);
		if (err)
			set_buffer_dirty(bh); /* still only in memory: keep it */
	}
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

/*
 * Read the blocks of a locked page that are not uptodate, runs of buffers consecutive on the
 * disk in one request each (2.6.23 sent one bio per buffer and let the block layer merge
 * them). Buffers must be mapped. 0 or -EIO.
 */
static int read_buffers(struct buffer_head **arr, int nr)
{
	int err = 0;

	for (int i = 0, len; i < nr; i += len) {
		struct buffer_head *bh = arr[i];
		int r;

		for (len = 1; i + len < nr && arr[i + len]->b_blocknr == bh->b_blocknr + len &&
			      arr[i + len]->b_data == bh->b_data + len * bh->b_size;
		     len++)
			;
		for (int k = i; k < i + len; k++)
			lock_buffer(arr[k]);
		r = 0;
		for (int k = i; k < i + len; k++)
			r |= buffer_uptodate(arr[k]); /* another reader got there first */
		if (r) { /* ... so each on its own, and only those still to read */
			r = 0;
			for (int k = i; k < i + len; k++) {
				if (!buffer_uptodate(arr[k]) && submit_bh(READ, arr[k]))
					err = r = -EIO;
				unlock_buffer(arr[k]);
			}
			continue;
		}
		r = blocks_rw(READ, bh->b_bdev, bh->b_blocknr, (unsigned int)bh->b_size,
			      (unsigned int)len, bh->b_data);
		for (int k = i; k < i + len; k++) {
			if (r)
				clear_buffer_uptodate(arr[k]);
			else
				set_buffer_uptodate(arr[k]);
			unlock_buffer(arr[k]);
		}
		if (r) {
			printk("buffer: I/O error reading blocks %lu-%lu\n",
			       (unsigned long)bh->b_blocknr,
			       (unsigned long)bh->b_blocknr + (unsigned long)len - 1);
			err = r;
		}
	}
	return err;
}

int block_read_full_page(struct page *page, get_block_t *get_block)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *arr[PAGE_SIZE / SECTOR_SIZE], *bh, *head = page_buffers_or_new(page);
	unsigned int size, bits, nr = 0;
	uint64_t iblock, lblock;
	bool error = false;
	int err;

	if (!head) {
		unlock_page(page);
		return -ENOMEM;
	}
	size = (unsigned int)head->b_size;
	bits = (unsigned int)__builtin_ctz(size);
	iblock = (uint64_t)page->index << (PAGE_SHIFT - bits);
	lblock = (inode->i_size + size - 1) >> bits;
	bh = head;
	do {
		if (buffer_uptodate(bh))
			continue;
		if (!buffer_mapped(bh)) {
			if (iblock < lblock && get_block(inode, iblock, bh, 0))
				error = true;
			if (!buffer_mapped(bh)) { /* a hole, or past the end of the file */
				memset(bh->b_data, 0, size);
				if (!error)
					set_buffer_uptodate(bh);
				continue;
			}
		}
		arr[nr++] = bh;
	} while (iblock++, (bh = bh->b_this_page) != head);
	err = read_buffers(arr, (int)nr);
	if (!err && !error) {
		/* The bytes of the last block past i_size read as zeroes (mmap shows them). */
		uint64_t start = (uint64_t)page->index << PAGE_SHIFT;

		if (inode->i_size < start + PAGE_SIZE && inode->i_size > start)
			memset((char *)page_address(page) + (inode->i_size - start), 0,
			       PAGE_SIZE - (inode->i_size - start));
		SetPageFlag(page, PG_uptodate);
	}
	unlock_page(page);
	return err || error ? -EIO : 0;
}

int __set_page_dirty_buffers(struct page *page)
{
	if (PagePrivate(page)) {
		struct buffer_head *head = page_buffers(page), *bh = head;

		do {
			set_buffer_dirty(bh);
			bh = bh->b_this_page;
		} while (bh != head);
	}
	if (PageDirty(page))
		return 0;
	SetPageFlag(page, PG_dirty);
	return 1;
}

int block_prepare_write(struct page *page, unsigned int from, unsigned int to,
			get_block_t *get_block)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *bh, *head = page_buffers_or_new(page);
	unsigned int start = 0;
	uint64_t block;
	int err = 0;

	if (!head)
		return -ENOMEM;
	block = (uint64_t)page->index << (PAGE_SHIFT - __builtin_ctz((unsigned int)head->b_size));
	bh = head;
	do {
		unsigned int end = start + (unsigned int)bh->b_size;
		bool touched = end > from && start < to;

		start = end;
		if (!touched) { /* not written: as the page has it */
			if (PageUptodate(page))
				set_buffer_uptodate(bh);
			continue;
		}
		if (!buffer_mapped(bh)) {
			err = get_block(inode, block, bh, 1);
			if (err)
				break;
			if (buffer_new(bh)) { /* a new block: its old bytes are garbage */
				clear_buffer_new(bh);
				memset(bh->b_data, 0, bh->b_size);
				set_buffer_uptodate(bh);
			}
		}
		if (PageUptodate(page)) {
			set_buffer_uptodate(bh);
		} else if (!buffer_uptodate(bh) && (end - bh->b_size < from || end > to)) {
			/* partly written: the rest of it must be the disk's */
			lock_buffer(bh);
			if (!buffer_uptodate(bh))
				err = submit_bh(READ, bh);
			unlock_buffer(bh);
			if (err)
				break;
		}
	} while (block++, (bh = bh->b_this_page) != head);
	return err;
}

int block_commit_write(struct page *page, unsigned int from, unsigned int to)
{
	struct buffer_head *head = page_buffers(page), *bh = head;
	unsigned int start = 0;
	bool partial = false;

	do {
		unsigned int end = start + (unsigned int)bh->b_size;

		if (end <= from || start >= to) {
			partial |= !buffer_uptodate(bh);
		} else {
			set_buffer_uptodate(bh);
			mark_buffer_dirty(bh);
		}
		start = end;
		bh = bh->b_this_page;
	} while (bh != head);
	/* Every buffer uptodate: so is the page, and read() needs no readpage. */
	if (!partial)
		SetPageFlag(page, PG_uptodate);
	return 0;
}

int block_write_full_page(struct page *page, get_block_t *get_block,
			  struct writeback_control *wbc)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *bh, *head = page_buffers_or_new(page);
	uint64_t block, last;
	int err = 0;

	(void)wbc;
	if (!head) {
		SetPageFlag(page, PG_dirty);
		unlock_page(page);
		return -ENOMEM;
	}
	block = (uint64_t)page->index << (PAGE_SHIFT - __builtin_ctz((unsigned int)head->b_size));
	last = (inode->i_size + head->b_size - 1) / head->b_size;
	bh = head;
	do {
		int r = 0;

		if (block >= last) { /* past the end of the file: nothing to write */
			clear_buffer_dirty(bh);
			continue;
		}
		if (!buffer_mapped(bh) && buffer_dirty(bh))
			r = get_block(inode, block, bh, 1);
		if (!r && buffer_mapped(bh) && buffer_dirty(bh))
			r = sync_dirty_buffer(bh);
		if (r && !err)
			err = r;
	} while (block++, (bh = bh->b_this_page) != head);
	if (err) { /* still only in memory: keep it dirty */
		SetPageFlag(page, PG_dirty);
		SetPageFlag(page, PG_error);
	}
	unlock_page(page);
	return err;
}

uint64_t generic_block_bmap(struct address_space *mapping, uint64_t block,
			    get_block_t *get_block)
{
	struct inode *inode = mapping->host;
	struct buffer_head tmp = { .b_size = 1UL << inode->i_blkbits };

	get_block(inode, block, &tmp, 0);
	return buffer_mapped(&tmp) ? tmp.b_blocknr : 0;
}
