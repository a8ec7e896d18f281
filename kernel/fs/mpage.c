/* mpage_readpage (2.6.23's fs/mpage.c): a file's page whose blocks lie in a row on the disk is
 * read in one request straight into the page, with no buffer heads; a page with holes in its
 * middle, blocks out of order or buffers already goes to block_read_full_page. */
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
