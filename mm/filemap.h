/* The page cache and file pages (mm/filemap.c). */
#ifndef MM_FILEMAP_H
#define MM_FILEMAP_H

#include "kernel/lib/errseq.h"
#include "mm/gfp.h"
#include "mm/page.h"

struct address_space;
struct file;
struct file_ra_state;
struct inode;
struct vm_area_struct;
struct vm_fault;
struct vm_operations_struct;
struct writeback_control;

extern unsigned long nr_pagecache; /* pages in the page cache, all files */
/* Teaching knobs (docs/history.md): legacy_nopage makes file mappings use
 * legacy_file_vm_ops; race_window_us is how long __do_fault sleeps, in ticks, between the op's
 * return and locking the page. */
extern bool legacy_nopage;
extern uint64_t race_window_ticks;
void race_window_sleep(struct vm_area_struct *vma, struct vm_fault *vmf);

/*
 * race_window_us: a slow machine between the op's return and the page lock. A fault() page is
 * locked across it, so truncate waits for the fault; a nopage() page is not, so truncate can
 * run wholly inside it (docs/history.md). Nothing without the parameter. With it, the window
 * also counts what happened in it, all in its slow path so that no other fault pays: a
 * truncate that unmaps the file while a fault is inside (fl_truncate_overlap, counted by
 * unmap_mapping_range from the file's faults_in_window), and a fault that leaves it holding a
 * page truncate has taken out of the page cache, which it will map (fl_orphan_pte; not for a
 * private write, which maps a copy).
 */
static inline void race_window(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	if (race_window_ticks)
		race_window_sleep(vma, vmf);
}

/* The hash table; the disk_latency_us, race_window_us and legacy_nopage parameters. */
void filemap_init(void);
/* Sleep until the page is unlocked, then lock it. */
void lock_page(struct page *page);
/* Unlock it and wake everyone waiting in lock_page. */
void unlock_page(struct page *page);

/* The cached page of mapping at index with a reference taken, or NULL. */
struct page *find_get_page(struct address_space *mapping, unsigned long index);
/* The same, or if absent a new page put in the cache and read by mapping->a_ops->readpage(f,
 * page) (*major then true; f may be NULL). NULL when out of memory. The page comes back
 * unlocked, not PG_uptodate only if the read failed. */
struct page *find_or_read_page(struct file *f, struct address_space *mapping,
			       unsigned long index, bool *major);

/* The page up to date with a reference, read if need be (a failed read tried once more): 0,
 * -ENOMEM or -EIO. */
int read_mapping_page(struct file *f, struct address_space *mapping, unsigned long index,
		      struct page **pagep);
/* The page locked with a reference, a new one allocated with gfp (contents not read) if it
 * was not cached. NULL when out of memory. */
struct page *find_or_create_page(struct address_space *mapping, unsigned long index, gfp_t gfp);
/* The same for write(), which fills it through a_ops->prepare_write. */
static inline struct page *grab_cache_page(struct address_space *mapping, unsigned long index)
{
	return find_or_create_page(mapping, index, GFP_HIGHUSER);
}
/* a_ops->set_page_dirty of the page's mapping. */
int set_page_dirty(struct page *page);
/* The set_page_dirty of a file system that never writes back: PG_dirty only. */
int __set_page_dirty_no_writeback(struct page *page);

/* Put a new, locked page into mapping's cache at index; the cache holds its own reference.
 * -EEXIST when another CPU put one there first (the caller drops its page and looks again). */
int add_to_page_cache(struct page *page, struct address_space *mapping, unsigned long index);
/* Reclaim: drop a clean, unmapped page from mapping's cache when only the cache and the
 * caller hold it (the caller's reference then frees it). 1 done, 0 kept (someone looked it
 * up meanwhile, it is dirty, or truncate took it). */
int remove_mapping(struct address_space *mapping, struct page *page);
/* Take a locked page out of the cache and drop the cache's reference (truncate's way: dirty
 * or not). */
void remove_from_page_cache(struct page *page);
/* The cache's hash table has PAGE_HASH_SIZE chains: a truncate of a range much longer than
 * that scans the table instead of looking every index up. */
#define PAGE_HASH_BITS 10
#define PAGE_HASH_SIZE (1U << PAGE_HASH_BITS)
/* Some cached page of mapping at index first or later, with a reference; NULL if none (a
 * scan of the whole table). */
struct page *find_get_page_from(struct address_space *mapping, unsigned long first);

/* mm/truncate.c. Take a page found with a reference out of mapping's cache under its lock
 * (unmapping it first if a fault mapped it), then drop that reference. */
void truncate_page(struct address_space *mapping, struct page *page);
/* Drop the pages of [start, end] that nobody needs: clean, unmapped, not locked, their buffers
 * free (2.6.23's invalidate_mapping_pages; the others stay). How many went. */
unsigned long invalidate_mapping_pages(struct address_space *mapping, unsigned long start,
				       unsigned long end);
/* A file VMA's open and close: a reference to vm_file, a place on the i_mmap list. */
void filemap_vma_open(struct vm_area_struct *vma);
void filemap_vma_close(struct vm_area_struct *vma);

extern const struct vm_operations_struct generic_file_vm_ops;
int filemap_fault(struct vm_area_struct *vma, struct vm_fault *vmf);
/* The same file mappings through the legacy nopage() interface (2.6.22's filemap_nopage). */
extern const struct vm_operations_struct legacy_file_vm_ops;
struct page *filemap_nopage(struct vm_area_struct *vma, unsigned long address, int *type);

/* Zap every PTE that maps file page first or later, in every VMA of mapping. */
void unmap_mapping_range(struct address_space *mapping, unsigned long first);
/* mm/truncate.c. Remove every cached page past new_size under its page lock (those before old_size,
 * the old end, are looked up by index; any beyond it by a scan) and zero the rest of the page
 * new_size falls in. new_size 0: every page of the file goes. */
void truncate_inode_pages(struct inode *ino, uint64_t new_size, uint64_t old_size);
/* ftruncate: set the size; shrinking unmaps and removes the pages in 2.6.23's order. */
int vmtruncate(struct inode *ino, uint64_t new_size);

/* mm/readahead.c: reading a file's pages before they are asked for. */
/* ra from the device under mapping (how far it may read ahead), at open. */
void file_ra_state_init(struct file_ra_state *ra, struct address_space *mapping);
/* Pages [offset, offset + nr_to_read) of the file that are not cached, put in the cache and
 * read (a_ops->readpages); the one lookahead_size from the end marked PG_readahead. The
 * pages read; they are unlocked once read. */
unsigned long __do_page_cache_readahead(struct address_space *mapping, struct file *f,
					unsigned long offset, unsigned long nr_to_read,
					unsigned long lookahead_size);
/* A read of req_size pages at offset missed the cache: read ahead as ra's history says. */
void page_cache_sync_readahead(struct address_space *mapping, struct file_ra_state *ra,
			       struct file *f, unsigned long offset, unsigned long req_size);
/* A read reached page, marked PG_readahead: read the next window (the mark goes). */
void page_cache_async_readahead(struct address_space *mapping, struct file_ra_state *ra,
				struct file *f, struct page *page, unsigned long offset,
				unsigned long req_size);

/* mm/page-writeback.c: a mapping's dirty pages written back (kernel/fs/writeback.h says how) */
/* Write the dirty pages of mapping in wbc's range through a_ops->writepage (2.6.23's
 * write_cache_pages): 0 or the first error, which also stays in mapping->flags for fsync. */
int do_writepages(struct address_space *mapping, struct writeback_control *wbc);
/* Every dirty page of mapping written and waited for; then the error a write met since the
 * last call (AS_EIO, AS_ENOSPC), cleared: 0, -EIO, -ENOSPC. */
int filemap_write_and_wait(struct address_space *mapping);
/* The same for bytes [start, end] only (msync of a range). */
int filemap_write_and_wait_range(struct address_space *mapping, uint64_t start, uint64_t end);
/* The locked dirty page written now (PG_dirty cleared first), and waited for: 0 or -errno.
 * Unlocks it. */
int write_one_page(struct page *page, int wait);
/* The bytes [start, end] of f's file written and waited for (WB_SYNC_ALL); then the writeback
 * error met since f last asked (file_check_and_advance_wb_err): 0, -EIO, -ENOSPC. fsync's and
 * msync's (today's Linux's). */
int file_write_and_wait_range(struct file *f, uint64_t start, uint64_t end);
/* A writeback error (-EIO, -ENOSPC; 0 nothing) on mapping: in its wb_err, for each open file's
 * next fsync or msync, in its file system's s_wb_err for syncfs, and in its AS_EIO/AS_ENOSPC
 * bits for filemap_write_and_wait. */
void mapping_set_error(struct address_space *mapping, int err);
/* A new open file's cursor into mapping's wb_err (errseq_sample). */
errseq_t filemap_sample_wb_err(struct address_space *mapping);
/* The writeback error of f's file since f last asked, once for each open file: -EIO, -ENOSPC,
 * or 0 (Linux 4.13's). The mapping's AS_EIO and AS_ENOSPC bits are cleared too. */
int file_check_and_advance_wb_err(struct file *f);
/* Does mapping write its pages back (a_ops->writepage: a block device, a disk file system, not
 * ramfs or tmpfs)? Then its dirty pages are counted, and its shared writable mappings notify
 * it of their stores (2.6.23's mapping_cap_account_dirty). */
bool mapping_cap_account_dirty(const struct address_space *mapping);
/* Before a locked page is written: every PTE mapping it made clean and read-only (page_mkclean,
 * so the next store faults and dirties it again), then PG_dirty cleared. 1 if it was dirty. */
int clear_page_dirty_for_io(struct page *page);
/* set_page_dirty from a store through a mapping, then balance_dirty_pages_ratelimited. */
void set_page_dirty_balance(struct page *page);
/* A writer that dirtied pages of mapping: above dirty_ratio of memory dirty, it writes some of
 * them back itself before it goes on (2.6.23's balance_dirty_pages). Big kernel lock held. */
void balance_dirty_pages_ratelimited(struct address_space *mapping);
/* Dirty pages of mappings that write back, and pages being written: /proc/meminfo, vmstat. */
unsigned long global_dirty_pages(void);
extern long nr_writeback;
/* The writeback tunables (/proc/sys/vm), in centiseconds and percent (mm/pdflush.c). */
extern int dirty_writeback_centisecs, dirty_expire_centisecs, vm_dirty_ratio;
/* A new dirty_writeback_centisecs: the next pass comes the new interval from now (0: none). */
void pdflush_set_interval(int centisecs);
/* Periodic writeback from now on (a read-write disk mount, a write-notify mmap). */
void wb_timer_start(void);
/* The timer tick's look at whether a writeback pass is due (kernel/time/tick-common.c). */
void wb_timer_tick(void);

#endif
