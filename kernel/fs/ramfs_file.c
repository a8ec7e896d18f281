/* ramfs's address_space_operations (2.6.23's fs/ramfs/file-mmu.c): a page not in the cache is
 * read from the file's image in the ramdisk ("the disk"), zeroes past it; written pages stay
 * dirty in the cache, the only copy, and are never written back. */
#include "kernel/fs/libfs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/page.h"

/* The page's bytes as the file has them: from the image while it lasts, then zeroes. */
static void ramfs_fill_page(struct page *page)
{
	const struct ramfs_image *image = page->mapping->host->i_private;
	uint64_t off = (uint64_t)page->index << PAGE_SHIFT, n = 0;

	if (image && off < image->size) {
		n = MIN(PAGE_SIZE, image->size - off);
		memcpy(page_address(page), image->data + off, n);
	}
	memset((uint8_t *)page_address(page) + n, 0, PAGE_SIZE - n);
	SetPageFlag(page, PG_uptodate);
}

static int ramfs_readpage(struct file *f, struct page *page)
{
	(void)f;
	ramfs_fill_page(page);
	unlock_page(page);
	return 0;
}

/* The bytes write() leaves alone must be the file's: the whole page is read first, so that
 * even a write that copies nothing leaves it as the file has it. */
static int ramfs_prepare_write(struct file *f, struct page *page, unsigned int from,
			       unsigned int to)
{
	(void)f;
	(void)from;
	(void)to;
	if (!PageUptodate(page))
		ramfs_fill_page(page);
	return 0;
}

/* No writepage: nothing is written back, and reclaim keeps dirty pages. */
const struct address_space_operations ramfs_aops = {
	.readpage = ramfs_readpage,
	.prepare_write = ramfs_prepare_write,
	.commit_write = simple_commit_write,
	.set_page_dirty = __set_page_dirty_no_writeback,
};
