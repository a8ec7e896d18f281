/* The address_space_operations of a block device's page cache (def_blk_aops, the part of
 * 2.6.23's fs/block_dev.c that moves bd_inode's pages): a page without buffers moves whole, a
 * page with buffers a block at a time (kernel/fs/buffer_page.c). */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/fs.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/page.h"

/* Block iblock (of bh's size) of the device is block iblock on the disk: no mapping needed.
 * None past the last whole block: a read sees a hole (zeroes), a write -EIO. */
static int blkdev_get_block(struct inode *inode, uint64_t iblock, struct buffer_head *bh,
			    int create)
{
	uint64_t size = bh->b_size ? bh->b_size : 1UL << inode->i_blkbits;

	if (iblock >= inode->i_size / size)
		return create ? -EIO : 0;
	bh->b_bdev = inode->i_private;
	bh->b_blocknr = iblock;
	set_buffer_mapped(bh);
	return 0;
}

/*
 * A page without buffers moves whole, as 2.6.23's mpage_readpage and mpage_writepage move a
 * page whose blocks lie in a row on the disk (a device's always do): one request, no buffer
 * heads. Those come when a file system asks for a block of the page (__getblk), and from then
 * on the page moves a buffer at a time. The sectors of the page inside the device: *sector
 * the first, the number returned (8, fewer in the last page of a device whose size is not a
 * whole number of pages).
 */
static unsigned int page_sectors(struct page *page, struct block_device **bdevp,
				 uint64_t *sector)
{
	struct block_device *bdev = page->mapping->host->i_private;
	uint64_t first = (uint64_t)page->index << (PAGE_SHIFT - SECTOR_SHIFT);
	uint64_t nr = bdev->bd_part->nr_sects;

	*bdevp = bdev;
	*sector = bdev->bd_part->start_sect + first;
	return first >= nr ? 0 : (unsigned int)MIN(nr - first, PAGE_SIZE >> SECTOR_SHIFT);
}

/* Fill a locked page without buffers from the disk, zeroes past the device's end. */
static int blkdev_fill_page(struct page *page)
{
	struct block_device *bdev;
	uint64_t sector;
	unsigned int n = page_sectors(page, &bdev, &sector);
	int err = n ? blk_rw(bdev->bd_disk, READ, sector, n, page_address(page)) : 0;

	if (err)
		return err;
	memset((uint8_t *)page_address(page) + (n << SECTOR_SHIFT), 0,
	       PAGE_SIZE - (n << SECTOR_SHIFT));
	SetPageFlag(page, PG_uptodate);
	return 0;
}

static int blkdev_readpage(struct file *f, struct page *page)
{
	int err;

	(void)f;
	if (PagePrivate(page))
		return block_read_full_page(page, blkdev_get_block);
	err = blkdev_fill_page(page);
	unlock_page(page);
	return err;
}

static int blkdev_writepage(struct page *page, struct writeback_control *wbc)
{
	struct block_device *bdev;
	uint64_t sector;
	unsigned int n;
	int err;

	if (PagePrivate(page))
		return block_write_full_page(page, blkdev_get_block, wbc);
	n = page_sectors(page, &bdev, &sector);
	err = n ? blk_rw(bdev->bd_disk, WRITE, sector, n, page_address(page)) : 0;
	if (err) /* clean, the error for fsync (writepage_locked's mapping_set_error) */
		SetPageFlag(page, PG_error);
	unlock_page(page);
	return err;
}

/* The bytes of the page outside [from, to) must be the disk's: read them if need be. */
static int blkdev_prepare_write(struct file *f, struct page *page, unsigned int from,
				unsigned int to)
{
	(void)f;
	if (PagePrivate(page))
		return block_prepare_write(page, from, to, blkdev_get_block);
	if (PageUptodate(page) || (from == 0 && to == PAGE_SIZE))
		return 0;
	return blkdev_fill_page(page);
}

/* A device's size never changes: only the buffers and the page. */
static int blkdev_commit_write(struct file *f, struct page *page, unsigned int from,
			       unsigned int to)
{
	(void)f;
	if (PagePrivate(page))
		return block_commit_write(page, from, to);
	SetPageFlag(page, PG_uptodate); /* read by prepare_write, or written whole */
	SetPageFlag(page, PG_dirty);
	return 0;
}

/* Pages read ahead: those in a row in one request. */
static void blkdev_readpages(struct file *f, struct address_space *mapping, struct page **pages,
			     unsigned int nr)
{
	mpage_readpages(f, mapping, pages, nr, blkdev_get_block);
}

/* A page of a device's cache has buffers (bd_block_size bytes) once a block of it was asked
 * for (__getblk): from then on it is read and written a buffer at a time. */
const struct address_space_operations def_blk_aops = {
	.readpage = blkdev_readpage,
	.readpages = blkdev_readpages,
	.writepage = blkdev_writepage,
	.prepare_write = blkdev_prepare_write,
	.commit_write = blkdev_commit_write,
	.set_page_dirty = __set_page_dirty_buffers,
};
