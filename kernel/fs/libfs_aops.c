/* The page-cache half of libfs (2.6.23's fs/libfs.c simple_readpage, simple_prepare_write,
 * simple_commit_write): address_space_operations for a file system whose page cache is the
 * only copy of its files, so a page never cached is a hole, all zeroes. */
#include "kernel/fs/libfs.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/page.h"

int simple_readpage(struct file *f, struct page *page)
{
	(void)f;
	memset(page_address(page), 0, PAGE_SIZE);
	SetPageFlag(page, PG_uptodate);
	unlock_page(page);
	return 0;
}

/* A page not up to date gets zeroes outside [from, to); write() fills the rest. */
int simple_prepare_write(struct file *f, struct page *page, unsigned int from, unsigned int to)
{
	uint8_t *p = page_address(page);

	(void)f;
	if (!PageUptodate(page)) {
		memset(p, 0, from);
		memset(p + to, 0, PAGE_SIZE - to);
	}
	return 0;
}

/* The bytes are in: the page is whole now, the file reaches at least to them, and the page
 * is dirty (the cache holds the only copy). */
int simple_commit_write(struct file *f, struct page *page, unsigned int from, unsigned int to)
{
	struct inode *ino = page->mapping->host;
	uint64_t pos = ((uint64_t)page->index << PAGE_SHIFT) + to;

	(void)f;
	(void)from;
	if (!PageUptodate(page))
		SetPageFlag(page, PG_uptodate);
	if (pos > ino->i_size)
		ino->i_size = pos;
	set_page_dirty(page);
	return 0;
}
