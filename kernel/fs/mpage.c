/* mpage_readpage and mpage_readpages (2.6.23's fs/mpage.c): a file's page whose blocks lie in
 * a row on the disk is read in one request straight into the page, with no buffer heads, and
 * pages read ahead whose blocks follow each other on the disk in one request for them all; a
 * page with holes in its middle, blocks out of order or buffers goes to block_read_full_page. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"

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
	if (first_hole && bdev_rw_blocks(READ, bdev, first, size, first_hole, data)) {
		unlock_page(page);
		return -EIO;
	}
	/* The holes at the end, and the bytes past the end of the file, read as zeroes. */
	end = (uint64_t)first_hole << bits;
	if (inode->i_size < ((uint64_t)page->index << PAGE_SHIFT) + end)
		end = inode->i_size > ((uint64_t)page->index << PAGE_SHIFT) ?
			      inode->i_size - ((uint64_t)page->index << PAGE_SHIFT) : 0;
	memset(data + end, 0, PAGE_SIZE - end);
	SetPageFlag(page, PG_uptodate);
	unlock_page(page);
	return 0;
}

/* The first disk block of the page if all its blocks are mapped, in a row, inside the file:
 * such pages, one after the other on the disk, make one request. 0 for any other page. */
static uint64_t page_run_block(struct page *page, get_block_t *get_block,
			       struct block_device **bdev)
{
	struct inode *inode = page->mapping->host;
	unsigned int bits = inode_blkbits(inode), size = 1U << bits;
	unsigned int per_page = PAGE_SIZE >> bits;
	uint64_t block = (uint64_t)page->index << (PAGE_SHIFT - bits), first = 0;

	if (PagePrivate(page) || ((uint64_t)page->index + 1) << PAGE_SHIFT > inode->i_size)
		return 0;
	for (unsigned int i = 0; i < per_page; i++) {
		struct buffer_head map = { .b_size = size };

		if (get_block(inode, block + i, &map, 0) || !buffer_mapped(&map))
			return 0;
		if (!i) {
			first = map.b_blocknr;
			*bdev = map.b_bdev;
		} else if (map.b_blocknr != first + i) {
			return 0;
		}
	}
	return first;
}

/* Fill the n locked pages of run from disk blocks [first, ...) through buf, one request. A
 * page left not uptodate (a failed read) is read alone when it is asked for. */
static void mpage_read_run(struct page **run, unsigned int n, struct block_device *bdev,
			   uint64_t first, uint8_t *buf)
{
	unsigned int bits = inode_blkbits(run[0]->mapping->host);

	if (!bdev_rw_blocks(READ, bdev, first, 1U << bits, n << (PAGE_SHIFT - bits), buf))
		for (unsigned int k = 0; k < n; k++) {
			copy_page(page_address(run[k]), buf + ((size_t)k << PAGE_SHIFT));
			SetPageFlag(run[k], PG_uptodate);
		}
	for (unsigned int k = 0; k < n; k++)
		unlock_page(run[k]);
}

void mpage_readpages(struct file *f, struct address_space *mapping, struct page **pages,
		     unsigned int nr, get_block_t *get_block)
{
	unsigned int bits = inode_blkbits(mapping->host), n = 0;
	struct page *run[BOUNCE_SIZE >> PAGE_SHIFT];
	struct block_device *bdev = NULL, *b = NULL;
	uint64_t first = 0, block;
	uint8_t *buf = bounce_alloc();

	for (unsigned int k = 0; k <= nr; k++) {
		block = k < nr && buf ? page_run_block(pages[k], get_block, &b) : 0;
		/* The run ends at a page that cannot join it: one not next in the file or on
		 * the disk, or one too many for the buffer or the queue. */
		if (n && (!block || b != bdev || pages[k]->index != run[n - 1]->index + 1 ||
			  block != first + ((uint64_t)n << (PAGE_SHIFT - bits)) ||
			  n == ARRAY_SIZE(run) || (n + 1) << (PAGE_SHIFT - SECTOR_SHIFT) >
							  bdev->bd_disk->queue->max_sectors)) {
			if (n == 1)
				mapping->a_ops->readpage(f, run[0]);
			else
				mpage_read_run(run, n, bdev, first, buf);
			n = 0;
		}
		if (k == nr)
			break;
		if (!block) { /* holes, blocks out of order, the end of the file: alone */
			mapping->a_ops->readpage(f, pages[k]);
			continue;
		}
		if (!n) {
			first = block;
			bdev = b;
		}
		run[n++] = pages[k];
	}
	if (buf)
		bounce_free(buf);
}
