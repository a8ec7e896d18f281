/* Writing a file's dirty pages back (2.6.23's mm/page-writeback.c): each dirty page of a range
 * goes through its mapping's writepage, and an error is kept in the mapping for the fsync or
 * msync that will ask. The page cache has no dirty tags: the range is walked by index. Before
 * the write every PTE mapping the page is made clean and read-only (clear_page_dirty_for_io),
 * so that a store after it faults and dirties the page again. */
#include "kernel/errno.h"
#include "kernel/fs/writeback.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/rmap.h"

long nr_writeback; /* pages inside a writepage now: /proc/meminfo's Writeback */

void mapping_set_error(struct address_space *mapping, int err)
{
	if (!err)
		return;
	errseq_set(&mapping->wb_err, err);
	if (mapping->host && mapping->host->i_sb) /* for syncfs */
		errseq_set(&mapping->host->i_sb->s_wb_err, err);
	if (err == -ENOSPC)
		__atomic_fetch_or(&mapping->flags, 1UL << AS_ENOSPC, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(&mapping->flags, 1UL << AS_EIO, __ATOMIC_RELAXED);
}

errseq_t filemap_sample_wb_err(struct address_space *mapping)
{
	return errseq_sample(&mapping->wb_err);
}

int file_check_and_advance_wb_err(struct file *f)
{
	struct address_space *mapping = f->f_inode->i_mapping;
	int err;

	if (!mapping) /* nothing of it is written back */
		return 0;
	err = errseq_check_and_advance(&mapping->wb_err, &f->f_wb_err);
	/* Reported: the flags of the callers without a file would say it a second time. */
	__atomic_fetch_and(&mapping->flags, ~((1UL << AS_EIO) | (1UL << AS_ENOSPC)),
			   __ATOMIC_RELAXED);
	return err;
}

bool mapping_cap_account_dirty(const struct address_space *mapping)
{
	return mapping->a_ops && mapping->a_ops->writepage;
}

int clear_page_dirty_for_io(struct page *page)
{
	struct address_space *mapping = page->mapping;

	/* A store since the page was marked dirty left its PTE dirty: it is dirty now too. */
	if (mapping && mapping_cap_account_dirty(mapping) && page_mkclean(page))
		set_page_dirty(page);
	return (__atomic_fetch_and(&page->flags, ~(1UL << PG_dirty), __ATOMIC_SEQ_CST) >>
		PG_dirty) & 1;
}

/* The page is locked: PG_dirty goes before the write, so that a store made while the write is
 * under way dirties it again. */
static int writepage_locked(struct address_space *mapping, struct page *page,
			    struct writeback_control *wbc)
{
	int err;

	if (!clear_page_dirty_for_io(page)) {
		unlock_page(page);
		return 0;
	}
	__atomic_add_fetch(&nr_writeback, 1, __ATOMIC_RELAXED);
	err = mapping->a_ops->writepage(page, wbc); /* unlocks the page */
	__atomic_sub_fetch(&nr_writeback, 1, __ATOMIC_RELAXED);
	if (err)
		mapping_set_error(mapping, err);
	wbc->nr_to_write--;
	return err;
}

int do_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	uint64_t size = mapping->host->i_size, end = wbc->range_end;
	unsigned long index, last;
	int err = 0;

	if (!mapping->a_ops || !mapping->a_ops->writepage || !size || wbc->range_start >= size)
		return 0;
	if (end > size - 1)
		end = size - 1;
	last = (unsigned long)(end >> PAGE_SHIFT);
	for (index = (unsigned long)(wbc->range_start >> PAGE_SHIFT);
	     index <= last && mapping->nrpages && wbc->nr_to_write > 0; index++) {
		struct page *page = find_get_page(mapping, index);
		int r = 0;

		if (!page)
			continue;
		if (wbc->sync_mode == WB_SYNC_NONE && PageLocked(page)) {
			if (PageDirty(page))
				wbc->pages_skipped++;
			put_page(page); /* busy: a later pass takes it */
			continue;
		}
		lock_page(page);
		if (page->mapping == mapping && PageDirty(page))
			r = writepage_locked(mapping, page, wbc);
		else
			unlock_page(page);
		put_page(page);
		if (r && !err)
			err = r;
	}
	return err;
}

/* Bytes [start, end] of mapping written and waited for (writepage waits for its own I/O):
 * 2.6.23's __filemap_fdatawrite_range with WB_SYNC_ALL. 0 or the first error. */
static int fdatawrite_range(struct address_space *mapping, uint64_t start, uint64_t end)
{
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_ALL,
		.nr_to_write = WBC_ALL,
		.range_start = start,
		.range_end = end,
	};

	return do_writepages(mapping, &wbc);
}

int filemap_write_and_wait_range(struct address_space *mapping, uint64_t start, uint64_t end)
{
	unsigned long flags;

	fdatawrite_range(mapping, start, end);
	flags = __atomic_fetch_and(&mapping->flags, ~((1UL << AS_EIO) | (1UL << AS_ENOSPC)),
				   __ATOMIC_RELAXED);
	if (flags & (1UL << AS_ENOSPC))
		return -ENOSPC;
	if (flags & (1UL << AS_EIO))
		return -EIO;
	return 0;
}

int filemap_write_and_wait(struct address_space *mapping)
{
	return filemap_write_and_wait_range(mapping, 0, ~0ULL);
}

int file_write_and_wait_range(struct file *f, uint64_t start, uint64_t end)
{
	int err = fdatawrite_range(f->f_inode->i_mapping, start, end);
	int r = file_check_and_advance_wb_err(f); /* this write's error too: it set wb_err */

	return err ? err : r;
}

int write_one_page(struct page *page, int wait)
{
	struct address_space *mapping = page->mapping;
	struct writeback_control wbc = {
		.sync_mode = wait ? WB_SYNC_ALL : WB_SYNC_NONE,
		.nr_to_write = 1,
	};

	if (!PageDirty(page)) {
		unlock_page(page);
		return 0;
	}
	return writepage_locked(mapping, page, &wbc);
}

unsigned long global_dirty_pages(void)
{
	unsigned long n = 0;

	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		const struct page *p = pfn_to_page(pfn);

		if (PageDirty(p) && !PageFlag(p, PG_anon) && !PageFlag(p, PG_swapcache) &&
		    p->mapping && mapping_cap_account_dirty(p->mapping))
			n++;
	}
	return n;
}

void set_page_dirty_balance(struct page *page)
{
	struct address_space *mapping = page->mapping;

	if (set_page_dirty(page))
		balance_dirty_pages_ratelimited(mapping);
}
