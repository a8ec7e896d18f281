/* mpage_readpage and mpage_readpages (2.6.23's fs/mpage.c): a file's page whose blocks lie in
 * a row on the disk is read in one request straight into the page, with no buffer heads, and
 * pages read ahead whose blocks follow each other on the disk in one request for them all; a
 * page with holes in its middle, blocks out of order or buffers goes to block_read_full_page. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

/* A read in flight (2.6.23's bio of mpage_bio_submit): the locked pages it fills, and the
 * bounce buffer it goes through when there are several. */
struct mpage_read {
	struct block_device *bdev;
	uint64_t block;      /* the first disk block, for a message */
	unsigned int blocks; /* and how many */
	uint8_t *bounce;     /* NULL: straight into pages[0] */
	unsigned int zero_from; /* pages[0]'s bytes from here on are past the end of the file */
	unsigned int n;
	struct page *pages[BOUNCE_SIZE >> PAGE_SHIFT];
};

/* The completion interrupt of a read: each page uptodate (copied out of the bounce buffer) or,
 * if the disk failed, not; unlocked, which wakes whoever waits in lock_page for it. */
static void mpage_end_io_read(struct request *req, int error)
{
	struct mpage_read *mr = req->end_io_data;
	unsigned int bits = inode_blkbits(mr->pages[0]->mapping->host);

	if (error)
		bdev_io_error(READ, mr->bdev, mr->block, 1U << bits, mr->blocks, error);
	for (unsigned int k = 0; k < mr->n; k++) {
		size_t off = (size_t)k << PAGE_SHIFT;

		if (!error && mr->bounce)
			copy_page(page_address(mr->pages[k]), mr->bounce + off);
		if (!error && !k && mr->zero_from < PAGE_SIZE)
			memset((uint8_t *)page_address(mr->pages[0]) + mr->zero_from, 0,
			       PAGE_SIZE - mr->zero_from);
		if (!error)
			SetPageFlag(mr->pages[k], PG_uptodate);
		unlock_page(mr->pages[k]);
	}
	if (mr->bounce)
		bounce_free(mr->bounce);
	kfree(mr);
}

/*
 * Start the read of bytes disk blocks from block into the n locked pages (one page: straight
 * into it, its bytes from zero_from on then zeroed; several: a bounce buffer), and return: the
 * completion unlocks them. 0 once started; -ENOMEM or -EIO (said) if it could not be, the
 * pages unlocked.
 */
static int mpage_submit(struct page **pages, unsigned int n, struct block_device *bdev,
			uint64_t block, unsigned int bytes, void *bounce, unsigned int zero_from)
{
	unsigned int bits = inode_blkbits(pages[0]->mapping->host);
	struct mpage_read *mr = kmalloc(sizeof(*mr));
	int err = -ENOMEM;

	if (mr) {
		*mr = (struct mpage_read){ .bdev = bdev, .block = block, .blocks = bytes >> bits,
					   .bounce = bounce, .zero_from = zero_from, .n = n };
		memcpy(mr->pages, pages, n * sizeof(*pages));
		void *to = bounce ? bounce : page_address(pages[0]);

		err = bdev_submit_blocks(READ, bdev, block, 1U << bits, bytes >> bits, to,
					 mpage_end_io_read, mr);
		if (!err)
			return 0;
		kfree(mr);
	}
	if (bounce)
		bounce_free(bounce);
	for (unsigned int k = 0; k < n; k++)
		unlock_page(pages[k]);
	return err;
}

int mpage_readpage(struct page *page, get_block_t *get_block)
{
	struct inode *inode = page->mapping->host;
	unsigned int bits = inode_blkbits(inode), size = 1U << bits;
	unsigned int per_page = PAGE_SIZE >> bits, first_hole = per_page;
	uint64_t block = (uint64_t)page->index << (PAGE_SHIFT - bits);
	uint64_t last = (inode->i_size + size - 1) >> bits, first = 0;
	struct block_device *bdev = NULL;
	uint8_t *data = page_address(page);
	uint64_t end;

	if (PagePrivate(page))
		return block_read_full_page(page, get_block);
	for (unsigned int i = 0; i < per_page; i++, block++) {
		struct buffer_head map = { .b_size = size };

		if (block < last && get_block(inode, block, &map, 0))
			return block_read_full_page(page, get_block); /* it says what failed */
		if (!buffer_mapped(&map)) { /* a hole, or past the end of the file */
			if (first_hole == per_page)
				first_hole = i;
			continue;
		}
		if (first_hole != per_page || (i && map.b_blocknr != first + i))
			return block_read_full_page(page, get_block); /* not in a row */
		if (!i) {
			first = map.b_blocknr;
			bdev = map.b_bdev;
		}
	}
	/* The holes at the end read as zeroes now, and the bytes past the end of the file once
	 * the read has filled their block. */
	memset(data + (first_hole << bits), 0, PAGE_SIZE - (first_hole << bits));
	end = (uint64_t)first_hole << bits;
	if (inode->i_size < ((uint64_t)page->index << PAGE_SHIFT) + end)
		end = inode->i_size > ((uint64_t)page->index << PAGE_SHIFT) ?
			      inode->i_size - ((uint64_t)page->index << PAGE_SHIFT) : 0;
	if (!first_hole) { /* all holes: nothing to read */
		SetPageFlag(page, PG_uptodate);
		unlock_page(page);
		return 0;
	}
	return mpage_submit(&page, 1, bdev, first, first_hole << bits, NULL, (unsigned int)end);
}

/* Are all the page's blocks mapped, in a row, inside the file? Then *first is its first disk
 * block: such pages, one after the other on the disk, make one request. (A block device's
 * page 0 starts at block 0, so the answer cannot be a block number of 0.) */
static bool page_run_block(struct page *page, get_block_t *get_block, uint64_t *first,
			   struct block_device **bdev)
{
	struct inode *inode = page->mapping->host;
	unsigned int bits = inode_blkbits(inode), size = 1U << bits;
	unsigned int per_page = PAGE_SIZE >> bits;
	uint64_t block = (uint64_t)page->index << (PAGE_SHIFT - bits);

	if (PagePrivate(page) || ((uint64_t)page->index + 1) << PAGE_SHIFT > inode->i_size)
		return false;
	for (unsigned int i = 0; i < per_page; i++) {
		struct buffer_head map = { .b_size = size };

		if (get_block(inode, block + i, &map, 0) || !buffer_mapped(&map))
			return false;
		if (!i) {
			*first = map.b_blocknr;
			*bdev = map.b_bdev;
		} else if (map.b_blocknr != *first + i) {
			return false;
		}
	}
	return true;
}

void mpage_readpages(struct file *f, struct address_space *mapping, struct page **pages,
		     unsigned int nr, get_block_t *get_block)
{
	unsigned int bits = inode_blkbits(mapping->host), n = 0;
	struct page *run[BOUNCE_SIZE >> PAGE_SHIFT];
	struct block_device *bdev = NULL, *b = NULL;
	uint64_t first = 0, block = 0;
	bool runs;

	for (unsigned int k = 0; k <= nr; k++) {
		runs = k < nr && page_run_block(pages[k], get_block, &block, &b);
		/* The run ends at a page that cannot join it: one not next in the file or on
		 * the disk, or one too many for the buffer or the queue. */
		if (n && (!runs || b != bdev || pages[k]->index != run[n - 1]->index + 1 ||
			  block != first + ((uint64_t)n << (PAGE_SHIFT - bits)) ||
			  n == ARRAY_SIZE(run) || (n + 1) << (PAGE_SHIFT - SECTOR_SHIFT) >
							  bdev->bd_disk->queue->max_sectors)) {
			uint8_t *buf = n > 1 ? bounce_alloc() : NULL;

			if (n == 1 || !buf) /* (no memory for a run: one by one) */
				for (unsigned int i = 0; i < n; i++)
					mapping->a_ops->readpage(f, run[i]);
			else
				mpage_submit(run, n, bdev, first, n << PAGE_SHIFT, buf, PAGE_SIZE);
			n = 0;
		}
		if (k == nr)
			break;
		if (!runs) { /* holes, blocks out of order, the end of the file: alone */
			mapping->a_ops->readpage(f, pages[k]);
			continue;
		}
		if (!n) {
			first = block;
			bdev = b;
		}
		run[n++] = pages[k];
	}
}
