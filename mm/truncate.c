/* Taking pages out of a file's cache (2.6.23's mm/truncate.c): truncate takes every page past
 * the new end, whatever its state; invalidate drops only what nobody needs (clean, unmapped,
 * unlocked), for fadvise's DONTNEED. */
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/rmap.h"

/* Take a page found with a reference out of mapping's cache, under its lock. */
void truncate_page(struct address_space *mapping, struct page *page)
{
	lock_page(page);
	if (page->mapping == mapping) {
		if (page->_mapcount >= 0) /* a fault mapped it meanwhile: unmap again */
			unmap_mapping_range(mapping, page->index);
		block_invalidatepage(page, 0); /* its buffers, if it has any */
		remove_from_page_cache(page);
	}
	unlock_page(page);
	put_page(page);
}

void truncate_inode_pages(struct inode *ino, uint64_t new_size, uint64_t old_size)
{
	struct address_space *mapping = ino->i_mapping;
	unsigned long first = ALIGN_UP(new_size, PAGE_SIZE) >> PAGE_SHIFT, index;
	unsigned long last = ALIGN_UP(old_size, PAGE_SIZE) >> PAGE_SHIFT;
	bool sparse = last > first + 4 * PAGE_HASH_SIZE;
	struct page *page;

	if (!mapping || !mapping->host)
		return;
	/* No page lies at or past the old end (file_rw drops what a short write left there), so
	 * index by index up to it, while that is cheaper than scanning the table. */
	if (!sparse)
		for (index = first; mapping->nrpages && index < last; index++)
			if ((page = find_get_page(mapping, index)))
				truncate_page(mapping, page);
	/* A huge range, or the inode's last truncate to 0: whatever is left at first or past
	 * it, wherever it lies. A page must never outlive its inode, or a new inode at the
	 * same address would find it by (mapping, index). Not after every partial truncate:
	 * the pages kept below first would make each one a scan of the whole table. */
	if (sparse || first == 0)
		while (mapping->nrpages && (page = find_get_page_from(mapping, first)))
			truncate_page(mapping, page);
	if (new_size & ~PAGE_MASK) {
		page = find_get_page(mapping, new_size >> PAGE_SHIFT);
		if (page) {
			memset((uint8_t *)page_address(page) + (new_size & ~PAGE_MASK), 0,
			       PAGE_SIZE - (new_size & ~PAGE_MASK));
			if (PagePrivate(page)) { /* the buffers past the end lose their blocks */
				lock_page(page);
				/* (reclaim may have freed them, or the page, while we waited) */
				if (page->mapping == mapping && PagePrivate(page))
					block_invalidatepage(page,
							     ALIGN_UP(new_size & ~PAGE_MASK,
								      page_buffers(page)->b_size));
				unlock_page(page);
			}
			put_page(page);
		}
	}
}

/*
 * Change a file's size (ftruncate). Shrinking follows 2.6.23's vmtruncate, in this order: set
 * i_size (new faults past it now see SIGBUS), unmap the range from every mapping, remove the
 * pages under their locks, and unmap once more for private copies made in between. A fault
 * therefore either ran wholly before (its PTE is zapped) or sees the new size (SIGBUS).
 */
int vmtruncate(struct inode *ino, uint64_t new_size)
{
	unsigned long first = ALIGN_UP(new_size, PAGE_SIZE) >> PAGE_SHIFT;
	uint64_t old_size = ino->i_size;

	ino->i_size = new_size;
	mark_inode_dirty(ino);
	if (new_size >= old_size)
		return 0; /* the new pages read as zeroes */
	unmap_mapping_range(ino->i_mapping, first);
	truncate_inode_pages(ino, new_size, old_size);
	unmap_mapping_range(ino->i_mapping, first);
	if (ino->i_op && ino->i_op->truncate) /* the store lets go of the bytes past it */
		ino->i_op->truncate(ino);
	return 0;
}

unsigned long invalidate_mapping_pages(struct address_space *mapping, unsigned long start,
				       unsigned long end)
{
	uint64_t isize = mapping->host ? mapping->host->i_size : 0;
	unsigned long dropped = 0;

	if (!isize)
		return 0;
	end = MIN(end, (unsigned long)((isize - 1) >> PAGE_SHIFT)); /* no page lies past i_size */
	for (unsigned long index = start; index <= end && mapping->nrpages; index++) {
		struct page *page = find_get_page(mapping, index);

		if (!page)
			continue;
		if (!TestSetPageLocked(page)) { /* a locked page is busy: leave it */
			if (page->mapping == mapping && !PageDirty(page) && !page_mapped(page) &&
			    try_to_release_page(page) && remove_mapping(mapping, page))
				dropped++;
			unlock_page(page);
		}
		put_page(page);
	}
	return dropped;
}
