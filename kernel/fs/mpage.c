/* mpage_readpage, mpage_readpages and mpage_writepages (2.6.23's fs/mpage.c): a file's page
 * whose blocks lie in a row on the disk is read in one request straight into the page, with
 * no buffer heads, and pages read ahead, or dirty pages written back, whose blocks follow each
 * other on the disk in one request for them all; a page with holes in its middle, blocks out
 * of order or (read) buffers goes to block_read_full_page, (written) to writepage. */
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

/* The pages mpage_writepages is gathering for one write: locked, made clean for it, each
 * whole inside the file with its blocks in a row on the disk, one page after the other. */
struct mpage_data {
	get_block_t *get_block;
	struct block_device *bdev;
	uint64_t first;  /* the disk block of pages[0] */
	unsigned int n;
	struct page *pages[BOUNCE_SIZE >> PAGE_SHIFT];
};

/* Can the locked page go whole in a write of pages in a row? Then *first is its first disk
 * block. A page with buffers needs each mapped and uptodate (all of it is written), their
 * blocks in a row; one without, its blocks mapped in a row (page_run_block). */
static bool page_write_block(struct page *page, get_block_t *get_block, uint64_t *first,
			     struct block_device **bdev)
{
	struct buffer_head *head, *bh;
	unsigned int i = 0;

	if (!PagePrivate(page))
		return page_run_block(page, get_block, first, bdev);
	if (((uint64_t)page->index + 1) << PAGE_SHIFT > page->mapping->host->i_size)
		return false;
	head = bh = page_buffers(page);
	*first = head->b_blocknr;
	*bdev = head->b_bdev;
	do {
		if (!buffer_mapped(bh) || !buffer_uptodate(bh) || bh->b_blocknr != *first + i ||
		    bh->b_bdev != *bdev)
			return false;
		i++;
	} while ((bh = bh->b_this_page) != head);
	return true;
}

/* Write the gathered pages in one request through a bounce buffer and wait; each page
 * unlocked, and on failure marked PG_error (its buffers as mark_buffer_write_io_error), the
 * error kept in the mapping. A single page, or no memory for the buffer: each through
 * writepage. */
static int mpage_write_run(struct mpage_data *mpd, struct writeback_control *wbc)
{
	struct address_space *mapping = mpd->pages[0]->mapping;
	unsigned int bits = inode_blkbits(mapping->host), n = mpd->n;
	uint8_t *buf = n > 1 ? bounce_alloc() : NULL;
	int err = 0;

	mpd->n = 0;
	if (!buf) {
		for (unsigned int k = 0; k < n; k++) {
			int r = __writepage(mpd->pages[k], wbc, mapping);

			err = err ? err : r;
		}
		return err;
	}
	for (unsigned int k = 0; k < n; k++) {
		struct page *page = mpd->pages[k];

		if (PagePrivate(page)) {
			struct buffer_head *head = page_buffers(page), *bh = head;

			do {
				lock_buffer(bh);
				clear_buffer_dirty(bh); /* what is written now is the page's */
			} while ((bh = bh->b_this_page) != head);
		}
		copy_page(buf + ((size_t)k << PAGE_SHIFT), page_address(page));
	}
	__atomic_add_fetch(&nr_writeback, n, __ATOMIC_RELAXED);
	err = bdev_rw_blocks(WRITE, mpd->bdev, mpd->first, 1U << bits,
			     n << (PAGE_SHIFT - bits), buf);
	__atomic_sub_fetch(&nr_writeback, n, __ATOMIC_RELAXED);
	bounce_free(buf);
	for (unsigned int k = 0; k < n; k++) {
		struct page *page = mpd->pages[k];

		if (PagePrivate(page)) {
			struct buffer_head *head = page_buffers(page), *bh = head;

			do {
				if (err)
					mark_buffer_write_io_error(bh, err);
				else
					clear_buffer_write_io_error(bh);
				unlock_buffer(bh);
			} while ((bh = bh->b_this_page) != head);
		}
		/* A failed write leaves the page clean, as block_write_full_page does: the error
		 * waits in the mapping for fsync, and nothing tries the write again. */
		if (err)
			SetPageFlag(page, PG_error);
		unlock_page(page);
	}
	if (err)
		mapping_set_error(mapping, err);
	return err;
}

/* writepage_t of mpage_writepages: the page joins the run, or the run is written first and
 * the page starts the next one, or (it cannot be written whole in a row) goes alone through
 * writepage. */
static int __mpage_writepage(struct page *page, struct writeback_control *wbc, void *data)
{
	struct mpage_data *mpd = data;
	struct address_space *mapping = page->mapping;
	unsigned int bits = inode_blkbits(mapping->host);
	struct block_device *bdev = NULL;
	uint64_t block = 0;
	bool whole = page_write_block(page, mpd->get_block, &block, &bdev);
	int err = 0;

	if (mpd->n && (!whole || bdev != mpd->bdev ||
		       page->index != mpd->pages[mpd->n - 1]->index + 1 ||
		       block != mpd->first + ((uint64_t)mpd->n << (PAGE_SHIFT - bits)) ||
		       mpd->n == ARRAY_SIZE(mpd->pages) ||
		       (mpd->n + 1) << (PAGE_SHIFT - SECTOR_SHIFT) >
			       bdev->bd_disk->queue->max_sectors))
		err = mpage_write_run(mpd, wbc);
	if (!whole) {
		int r = __writepage(page, wbc, mapping);

		return err ? err : r;
	}
	if (!mpd->n) {
		mpd->first = block;
		mpd->bdev = bdev;
	}
	mpd->pages[mpd->n++] = page;
	return err;
}

int mpage_writepages(struct address_space *mapping, struct writeback_control *wbc,
		     get_block_t *get_block)
{
	struct mpage_data mpd = { .get_block = get_block };
	int err = write_cache_pages(mapping, wbc, __mpage_writepage, &mpd);

	if (mpd.n) {
		int r = mpage_write_run(&mpd, wbc);

		if (!err)
			err = r;
	}
	return err;
}
