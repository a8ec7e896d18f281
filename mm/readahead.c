/* Reading ahead (2.6.23's mm/readahead.c, its on-demand readahead): a file read in order has
 * its next pages read before they are asked for, in a window that grows as the reads go on,
 * so that a sequential reader meets one disk request per window instead of one per page. */
#include "kernel/fs/fs.h"
#include "mm/backing-dev.h"
#include "mm/filemap.h"
#include "mm/gfp.h"

#define RA_BATCH 32 /* pages handed to readpages at once */

void file_ra_state_init(struct file_ra_state *ra, struct address_space *mapping)
{
	ra->ra_pages = mapping && mapping->backing_dev_info ?
			       (unsigned int)mapping->backing_dev_info->ra_pages : 0;
	ra->prev_index = ~0UL;
}

/* The locked new pages go to the file system: readpages if it has one, else readpage each. */
static void read_pages(struct address_space *mapping, struct file *f, struct page **pages,
		       unsigned int nr)
{
	if (mapping->a_ops->readpages)
		mapping->a_ops->readpages(f, mapping, pages, nr);
	else
		for (unsigned int k = 0; k < nr; k++)
			mapping->a_ops->readpage(f, pages[k]);
	for (unsigned int k = 0; k < nr; k++)
		put_page(pages[k]);
}

unsigned long __do_page_cache_readahead(struct address_space *mapping, struct file *f,
					unsigned long offset, unsigned long nr_to_read,
					unsigned long lookahead_size)
{
	uint64_t isize = mapping->host->i_size;
	struct page *pages[RA_BATCH];
	unsigned long end_index, done = 0;
	unsigned int n = 0;

	if (!isize)
		return 0;
	end_index = (unsigned long)((isize - 1) >> PAGE_SHIFT);
	for (unsigned long i = 0; i < nr_to_read && offset + i <= end_index; i++) {
		struct page *page = find_get_page(mapping, offset + i);

		if (page) { /* cached already */
			put_page(page);
			continue;
		}
		page = alloc_page(GFP_HIGHUSER);
		if (!page)
			break;
		SetPageFlag(page, PG_locked);
		if (add_to_page_cache(page, mapping, offset + i)) { /* another reader's */
			ClearPageFlag(page, PG_locked);
			put_page(page);
			continue;
		}
		if (i == nr_to_read - lookahead_size)
			SetPageFlag(page, PG_readahead);
		pages[n++] = page;
		done++;
		if (n == RA_BATCH) {
			read_pages(mapping, f, pages, n);
			n = 0;
		}
	}
	if (n)
		read_pages(mapping, f, pages, n);
	return done;
}

/* The first window of a read of size pages: four times it for a small read, twice for a
 * middling one, max for a large one. */
static unsigned long get_init_ra_size(unsigned long size, unsigned long max)
{
	unsigned long newsize = 1;

	while (newsize < size)
		newsize <<= 1;
	if (newsize <= max / 32)
		newsize *= 4;
	else if (newsize <= max / 4)
		newsize *= 2;
	else
		newsize = max;
	return newsize < max ? newsize : max;
}

/* The window after one of ra->size pages: four times as big while small, else twice. */
static unsigned long get_next_ra_size(const struct file_ra_state *ra, unsigned long max)
{
	unsigned long cur = ra->size, newsize = cur < max / 16 ? 4 * cur : 2 * cur;

	return newsize < max ? newsize : max;
}

/* The first page from offset + 1 on, within max, that is not cached: where the window a
 * marker belongs to ends. 0 if none is. */
static unsigned long next_hole(struct address_space *mapping, unsigned long offset,
			       unsigned long max)
{
	for (unsigned long i = offset + 1; i <= offset + max; i++) {
		struct page *page = find_get_page(mapping, i);

		if (!page)
			return i;
		put_page(page);
	}
	return 0;
}

/*
 * A read of req_size pages at offset missed the cache (hit_marker false) or reached a page
 * marked PG_readahead (true). A read where the last window's mark said the next one would be
 * pushes the window forward, larger; a read of the page after the last one read, or one
 * larger than the window, starts a window; a marker met by an interleaved reader finds where
 * its window ended and goes on from there; any other read is read as asked, no more.
 */
static unsigned long ondemand_readahead(struct address_space *mapping, struct file_ra_state *ra,
					struct file *f, bool hit_marker, unsigned long offset,
					unsigned long req_size)
{
	unsigned long max = ra->ra_pages;
	bool sequential;

	if (offset && (offset == ra->start + ra->size - ra->async_size ||
		       offset == ra->start + ra->size)) {
		ra->start += ra->size;
		ra->size = (unsigned int)get_next_ra_size(ra, max);
		ra->async_size = ra->size;
		goto readit;
	}
	sequential = offset - ra->prev_index <= 1UL || req_size > max;
	if (!hit_marker && !sequential)
		return __do_page_cache_readahead(mapping, f, offset, req_size, 0);
	if (hit_marker) {
		unsigned long start = next_hole(mapping, offset, max + 1);

		if (!start || start - offset > max)
			return 0;
		ra->start = start;
		ra->size = (unsigned int)(start - offset); /* the old async_size */
		ra->size = (unsigned int)get_next_ra_size(ra, max);
		ra->async_size = ra->size;
		goto readit;
	}
	ra->start = offset;
	ra->size = (unsigned int)get_init_ra_size(req_size, max);
	ra->async_size = ra->size > req_size ? ra->size - (unsigned int)req_size : ra->size;
readit:
	return __do_page_cache_readahead(mapping, f, ra->start, ra->size, ra->async_size);
}

void page_cache_sync_readahead(struct address_space *mapping, struct file_ra_state *ra,
			       struct file *f, unsigned long offset, unsigned long req_size)
{
	if (ra->ra_pages)
		ondemand_readahead(mapping, ra, f, false, offset, req_size);
}

void page_cache_async_readahead(struct address_space *mapping, struct file_ra_state *ra,
				struct file *f, struct page *page, unsigned long offset,
				unsigned long req_size)
{
	ClearPageFlag(page, PG_readahead);
	if (ra->ra_pages)
		ondemand_readahead(mapping, ra, f, true, offset, req_size);
}
