/* The page cache: every page of a file that anyone has read, written or mapped, found by
 * (address_space, index) in a hash table. read(), write() and file mappings all use these same
 * pages, so they always agree. A page not in the cache is read by the file system's
 * a_ops->readpage (ramfs: from the ramdisk, "the disk"), a major fault; nothing is written
 * back. */
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vma.h"
#include "mm/vmstat.h"


/* Cached pages hang off page_hash[] in chains linked by page->next_hash (page->lru is the
 * reclaim lists'). Invariant: a page is in the hash exactly when page->mapping is set. */
static struct page *page_hash[PAGE_HASH_SIZE];
static uint64_t disk_latency_ticks;
unsigned long nr_pagecache;
bool legacy_nopage;
uint64_t race_window_ticks;

/* tree_lock: 2.6.23 has one per address_space (mapping->tree_lock); here the hash is shared
 * by every file, so one lock guards it, page->mapping/index of cached pages and the counts. */
static DEFINE_SPINLOCK(tree_lock);

/* The page lock's sleepers, hashed by page over a table of queues as in Linux (each queue
 * has its own spinlock): a waiter re-checks its own page after each wake-up. */
#define PAGE_WAIT_TABLE_BITS 6
static struct wait_queue_head page_wait_table[1U << PAGE_WAIT_TABLE_BITS];

static struct wait_queue_head *page_waitqueue(struct page *page)
{
	uint64_t key = (uint64_t)page_to_pfn(page) * 0x9e3779b97f4a7c15ULL;

	return &page_wait_table[key >> (64 - PAGE_WAIT_TABLE_BITS)];
}

void filemap_init(void)
{
	long us = cmdline_get_long("disk_latency_us", 0);
	long window_us = cmdline_get_long("race_window_us", 0);

	for (unsigned int i = 0; i < ARRAY_SIZE(page_wait_table); i++)
		init_waitqueue_head(&page_wait_table[i]);
	/* The timer is the only clock that can sleep: round the latency up to whole ticks. */
	if (us > 0)
		disk_latency_ticks = ((uint64_t)us * HZ + 999999) / 1000000;
	if (window_us > 0)
		race_window_ticks = ((uint64_t)window_us * HZ + 999999) / 1000000;
	legacy_nopage = cmdline_has("legacy_nopage");
	if (legacy_nopage)
		printk("filemap: legacy_nopage: file mappings use filemap_nopage (the nopage() "
		       "interface, no truncate guarantee)\n");
}

static struct page **hash_head(struct address_space *mapping, unsigned long index)
{
	uint64_t key = ((uint64_t)mapping >> 4) ^ (index * 0x9e3779b97f4a7c15ULL);

	return &page_hash[(key >> 20) & (PAGE_HASH_SIZE - 1)];
}

/* PG_locked is taken with an atomic test-and-set: on any CPU, one task gets it. */
void lock_page(struct page *page)
{
	struct wait_queue_head *q;
	struct wait_queue_entry w;

	if (!TestSetPageLocked(page))
		return;
	q = page_waitqueue(page);
	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(q, &w, TASK_UNINTERRUPTIBLE);
		if (!TestSetPageLocked(page))
			break;
		schedule();
	}
	finish_wait(q, &w);
}

void unlock_page(struct page *page)
{
	struct wait_queue_head *q = page_waitqueue(page);

	ClearPageFlag(page, PG_locked); /* a locked and: also a full barrier */
	/* Nobody queued (the common case): skip the queue's lock. A waiter queues itself
	 * before it tests the bit again, so it either sees the bit clear or is seen here. */
	if (!list_empty(&q->task_list))
		wake_up(q);
}

/* The page of (mapping, index) in the hash, or NULL; tree_lock held. */
static struct page *__find_page(struct address_space *mapping, unsigned long index)
{
	struct page *page = *hash_head(mapping, index);

	while (page && (page->mapping != mapping || page->index != index))
		page = page->next_hash;
	return page;
}

struct page *find_get_page(struct address_space *mapping, unsigned long index)
{
	struct page *page;
	uint64_t flags;

	spin_lock_irqsave(&tree_lock, flags);
	page = __find_page(mapping, index);
	if (page)
		get_page(page);
	spin_unlock_irqrestore(&tree_lock, flags);
	return page;
}

/* Put a new, locked page into the cache; the cache holds its own reference. The look-up
 * and the insertion are one step under tree_lock, so two CPUs that both missed the page
 * cannot both add one (2.6.23's radix_tree_insert fails the same way). */
int add_to_page_cache(struct page *page, struct address_space *mapping, unsigned long index)
{
	struct page **head = hash_head(mapping, index);
	uint64_t flags;

	spin_lock_irqsave(&tree_lock, flags);
	if (__find_page(mapping, index)) {
		spin_unlock_irqrestore(&tree_lock, flags);
		return -EEXIST;
	}
	get_page(page);
	page->mapping = mapping;
	page->index = index;
	page->next_hash = *head;
	*head = page;
	mapping->nrpages++;
	nr_pagecache++;
	spin_unlock_irqrestore(&tree_lock, flags);
	lru_cache_add(page);
	return 0;
}

/* Unlink page from its hash chain; tree_lock held. */
static void __remove_from_hash(struct page *page)
{
	struct page **link = hash_head(page->mapping, page->index);

	while (*link != page)
		link = &(*link)->next_hash;
	*link = page->next_hash;
	page->next_hash = NULL;
}

void remove_from_page_cache(struct page *page)
{
	uint64_t flags;

	spin_lock_irqsave(&tree_lock, flags);
	__remove_from_hash(page);
	page->mapping->nrpages--;
	nr_pagecache--;
	page->mapping = NULL;
	spin_unlock_irqrestore(&tree_lock, flags);
	ClearPageFlag(page, PG_dirty);
	put_page(page);
}

int remove_mapping(struct address_space *mapping, struct page *page)
{
	uint64_t flags;

	spin_lock_irqsave(&tree_lock, flags);
	/* The cache's reference and the caller's, nobody else's: a look-up that got it
	 * meanwhile (find_get_page) keeps it, as in 2.6.23. Dirty: written, and the cache page
	 * is the only copy (nothing is written back to the ramdisk). */
	if (page->mapping != mapping || page_count(page) != 2 || PageDirty(page)) {
		spin_unlock_irqrestore(&tree_lock, flags);
		return 0;
	}
	__remove_from_hash(page);
	mapping->nrpages--;
	nr_pagecache--;
	page->mapping = NULL;
	spin_unlock_irqrestore(&tree_lock, flags);
	put_page(page);
	return 1;
}

void race_window_sleep(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct address_space *mapping = vma->vm_file ? vma->vm_file->f_inode->i_mapping : NULL;
	bool copy = (vmf->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_SHARED);

	if (mapping)
		__atomic_add_fetch(&mapping->faults_in_window, 1, __ATOMIC_SEQ_CST);
	current->state = TASK_UNINTERRUPTIBLE;
	schedule_timeout(race_window_ticks);
	if (!mapping)
		return;
	__atomic_sub_fetch(&mapping->faults_in_window, 1, __ATOMIC_SEQ_CST);
	if (!copy && READ_ONCE(vmf->page->mapping) != mapping)
		count_vm_event(FL_ORPHAN_PTE); /* truncate took it before lock_page */
}

/*
 * The page of mapping at index with a reference: the cached one, or a new page put in the
 * cache locked and filled by the file system's readpage (2.6.23's page_cache_read), which
 * unlocks it (*major then true). The page comes back unlocked; not PG_uptodate if readpage
 * failed (the caller reads it again or gives up). NULL when out of memory.
 */
struct page *find_or_read_page(struct file *f, struct address_space *mapping,
			       unsigned long index, bool *major)
{
	struct page *page;

	*major = false;
	for (;;) {
		page = find_get_page(mapping, index);
		if (page)
			return page;
		page = alloc_page(GFP_HIGHUSER);
		if (!page)
			return NULL;
		/* Locked and in the cache before the (maybe slow) read: others find it and
		 * wait. A fault on another CPU may have added it since our look-up. */
		SetPageFlag(page, PG_locked);
		if (!add_to_page_cache(page, mapping, index))
			break;
		ClearPageFlag(page, PG_locked);
		put_page(page);
	}
	if (disk_latency_ticks) { /* a slow disk: the page stays locked meanwhile */
		current->state = TASK_UNINTERRUPTIBLE;
		schedule_timeout(disk_latency_ticks);
	}
	mapping->a_ops->readpage(f, page);
	*major = true;
	return page;
}

/*
 * The page of mapping at index, up to date, with a reference (2.6.23's read_mapping_page): a
 * page whose read failed is read once more. 0, -ENOMEM, or -EIO if the file system could
 * not read it.
 */
int read_mapping_page(struct file *f, struct address_space *mapping, unsigned long index,
		      struct page **pagep)
{
	struct page *page;
	bool major;

retry:
	page = find_or_read_page(f, mapping, index, &major);
	if (!page)
		return -ENOMEM;
	if (!PageUptodate(page)) {
		lock_page(page);
		if (page->mapping != mapping) { /* truncated meanwhile */
			unlock_page(page);
			put_page(page);
			goto retry;
		}
		if (!PageUptodate(page)) {
			mapping->a_ops->readpage(f, page);
			lock_page(page);
		}
		unlock_page(page);
		if (!PageUptodate(page)) {
			put_page(page);
			return -EIO;
		}
	}
	*pagep = page;
	return 0;
}

/* The page of mapping at index, locked and with a reference, to be written: the cached one,
 * or a new one allocated with gfp and put in the cache, its contents left to the caller
 * (a_ops->prepare_write, a buffer's read). NULL when out of memory. */
struct page *find_or_create_page(struct address_space *mapping, unsigned long index, gfp_t gfp)
{
	struct page *page;

	for (;;) {
		page = find_get_page(mapping, index);
		if (page) {
			lock_page(page);
			if (page->mapping == mapping)
				return page;
			unlock_page(page); /* truncated while we waited */
			put_page(page);
			continue;
		}
		page = alloc_page(gfp);
		if (!page)
			return NULL;
		SetPageFlag(page, PG_locked);
		if (!add_to_page_cache(page, mapping, index))
			return page;
		ClearPageFlag(page, PG_locked); /* another CPU added one: take that */
		put_page(page);
	}
}

/* Mark a page written, the way its file system wants (a_ops->set_page_dirty). */
int set_page_dirty(struct page *page)
{
	if (unlikely(PageFlag(page, PG_anon) || !page->mapping)) { /* no file to tell */
		if (PageDirty(page))
			return 0;
		SetPageFlag(page, PG_dirty);
		return 1;
	}
	return page->mapping->a_ops->set_page_dirty(page);
}

/* set_page_dirty of a file system that never writes back (ramfs, tmpfs): only the flag; the
 * page then stays in the cache, which holds the only copy. 1 if it was clean. */
int __set_page_dirty_no_writeback(struct page *page)
{
	if (PageDirty(page))
		return 0;
	SetPageFlag(page, PG_dirty);
	return 1;
}

#define MMAP_LOTSAMISS 100 /* faults that missed the cache before read-around stops */

/*
 * A fault missed the cache of a file on a disk (2.6.23's filemap_fault): a mapping madvised
 * MADV_SEQUENTIAL reads ahead as read() does; MADV_RANDOM reads the one page; any other reads
 * the ra_pages around the fault (read-around: a program's text is faulted in no order, but
 * near where it last was), unless most faults lately missed anyway. Out of line: a cached
 * page's fault never comes here.
 */
static __attribute__((noinline)) void filemap_readahead(struct vm_area_struct *vma,
							 struct address_space *mapping,
							 unsigned long pgoff)
{
	struct file_ra_state *ra = &vma->vm_file->f_ra;
	unsigned long start = 0;

	if (vma->vm_flags & VM_SEQ_READ) {
		page_cache_sync_readahead(mapping, ra, vma->vm_file, pgoff, 1);
		return;
	}
	if ((vma->vm_flags & VM_RAND_READ) || ++ra->mmap_miss > MMAP_LOTSAMISS)
		return;
	if (pgoff > ra->ra_pages / 2)
		start = pgoff - ra->ra_pages / 2;
	__do_page_cache_readahead(mapping, vma->vm_file, start, ra->ra_pages, 0);
}

/*
 * The fault() op of a file mapping (Linux's filemap_fault): page vmf->pgoff of the file.
 * Past the end of the file (pgoff >= ceil(i_size / PAGE_SIZE)) is SIGBUS. Otherwise find the
 * page in the cache or read it, with the pages around it of a file on a disk
 * (VM_FAULT_MAJOR), lock it, and check i_size again under the lock: a truncate may have run
 * while we slept. Returns the page locked, with a reference.
 * __weak: the lab fault_lock (docs/exercises.md) links its stub instead.
 */
__weak int filemap_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct address_space *mapping = vma->vm_file->f_inode->i_mapping;
	struct inode *ino = mapping->host;
	struct page *page;
	bool major;

retry:
	if (vmf->pgoff >= ALIGN_UP(ino->i_size, PAGE_SIZE) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = find_get_page(mapping, vmf->pgoff);
	major = false;
	if (!page) {
		bool read_ahead = vma->vm_file->f_ra.ra_pages != 0;

		if (read_ahead)
			filemap_readahead(vma, mapping, vmf->pgoff);
		page = find_or_read_page(vma->vm_file, mapping, vmf->pgoff, &major);
		if (!page)
			return VM_FAULT_OOM;
		major |= read_ahead;
	} else if (PageFlag(page, PG_readahead) && (vma->vm_flags & VM_SEQ_READ)) {
		page_cache_async_readahead(mapping, &vma->vm_file->f_ra, vma->vm_file, page,
					   vmf->pgoff, 1);
	}
	lock_page(page);
	if (page->mapping != mapping) { /* truncated while we waited for the lock */
		unlock_page(page);
		put_page(page);
		goto retry;
	}
	if (!PageUptodate(page))
		goto page_not_uptodate;
uptodate:
	if (vmf->pgoff >= ALIGN_UP(ino->i_size, PAGE_SIZE) >> PAGE_SHIFT) {
		unlock_page(page);
		put_page(page);
		return VM_FAULT_SIGBUS;
	}
	vmf->page = page;
	if (major)
		count_vm_event(PGMAJFAULT);
	return VM_FAULT_LOCKED | (major ? VM_FAULT_MAJOR : 0);

page_not_uptodate:
	/* The read failed (or raced with one that did): read it once more, as 2.6.23 does,
	 * and give up with SIGBUS if that fails too. */
	major = true;
	mapping->a_ops->readpage(vma->vm_file, page);
	lock_page(page);
	if (PageUptodate(page) && page->mapping == mapping)
		goto uptodate;
	unlock_page(page);
	put_page(page);
	return VM_FAULT_SIGBUS;
}

/*
 * The file op through the legacy interface (the legacy_nopage parameter), as Linux 2.6.22's
 * filemap_nopage: the page at address, found in the cache or read (*type VM_FAULT_MAJOR),
 * returned unlocked with a reference. i_size is checked only before the look-up. Once the
 * page is returned nothing holds it until __do_fault locks it, and that code never asks
 * whether it is still in the page cache: truncate can remove it in between.
 */
struct page *filemap_nopage(struct vm_area_struct *vma, unsigned long address, int *type)
{
	struct address_space *mapping = vma->vm_file->f_inode->i_mapping;
	struct inode *ino = mapping->host;
	unsigned long pgoff = linear_page_index(vma, address);
	struct page *page;
	bool major, gone, uptodate;

retry:
	if (pgoff >= ALIGN_UP(ino->i_size, PAGE_SIZE) >> PAGE_SHIFT)
		return NOPAGE_SIGBUS;
	page = find_or_read_page(vma->vm_file, mapping, pgoff, &major);
	if (!page)
		return NOPAGE_OOM;
	if (!PageFlag(page, PG_uptodate)) {
		/* Another fault is still reading it: wait for the data (as 2.6.22 did, looking
		 * again if a truncate took it meanwhile). This is the only check of mapping. */
		lock_page(page);
		gone = page->mapping != mapping;
		uptodate = PageUptodate(page);
		unlock_page(page);
		if (gone) {
			put_page(page);
			goto retry;
		}
		if (!uptodate) { /* the read failed */
			put_page(page);
			return NOPAGE_SIGBUS;
		}
	}
	if (major)
		count_vm_event(PGMAJFAULT);
	if (type)
		*type = major ? VM_FAULT_MAJOR : VM_FAULT_MINOR;
	return page;
}

/* Zap the PTEs of every VMA of mapping that map file pages >= first (private COW copies
 * included, as 2.6.23's vmtruncate does: their file page is gone). */
void unmap_mapping_range(struct address_space *mapping, unsigned long first)
{
	struct list_head *pos;

	int in_window = __atomic_load_n(&mapping->faults_in_window, __ATOMIC_SEQ_CST);

	if (in_window) /* race_window_us: faults this truncate overlaps (mm/filemap.h) */
		count_vm_events(FL_TRUNCATE_OVERLAP, (unsigned long)in_window);
	list_for_each(pos, &mapping->i_mmap) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, shared);
		uint64_t start;

		if (vma->vm_pgoff + vma_pages(vma) <= first)
			continue;
		start = vma->vm_start;
		if (first > vma->vm_pgoff)
			start += (first - vma->vm_pgoff) << PAGE_SHIFT;
		zap_page_range(vma->vm_mm, start, vma->vm_end);
	}
	list_for_each(pos, &mapping->i_mmap_nonlinear)
		zap_nonlinear_range(list_entry(pos, struct vm_area_struct, shared), first);
}

/* Some cached page of mapping at index first or later, with a reference; NULL if none. A
 * whole-table scan: for truncating a huge, sparse file (a fuzzer's ftruncate to 1 TiB and
 * back), where trying every index in the range would take minutes. */
struct page *find_get_page_from(struct address_space *mapping, unsigned long first)
{
	uint64_t flags;

	spin_lock_irqsave(&tree_lock, flags);
	for (unsigned int i = 0; i < PAGE_HASH_SIZE; i++) {
		for (struct page *page = page_hash[i]; page; page = page->next_hash) {
			if (page->mapping == mapping && page->index >= first) {
				get_page(page);
				spin_unlock_irqrestore(&tree_lock, flags);
				return page;
			}
		}
	}
	spin_unlock_irqrestore(&tree_lock, flags);
	return NULL;
}

/* Each VMA of a file holds a reference to its struct file and is on the file's i_mmap list
 * (split and fork call open for each copy, so every VMA gets one close). */
void filemap_vma_open(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_inode->i_mapping;

	get_file(vma->vm_file);
	list_add_tail(&vma->shared, (vma->vm_flags & VM_NONLINEAR) ? &mapping->i_mmap_nonlinear
								     : &mapping->i_mmap);
}

void filemap_vma_close(struct vm_area_struct *vma)
{
	list_del(&vma->shared);
	fput(vma->vm_file);
}

const struct vm_operations_struct generic_file_vm_ops = {
	.open = filemap_vma_open,
	.close = filemap_vma_close,
	.fault = filemap_fault,
	.name = "file",
};

/* legacy_nopage: the same file mappings through nopage(). No VM_CAN_NONLINEAR (mmap sets it
 * only for fault()): 2.6.23 let only fault() ops take nonlinear faults. */
const struct vm_operations_struct legacy_file_vm_ops = {
	.open = filemap_vma_open,
	.close = filemap_vma_close,
	.nopage = filemap_nopage,
	.name = "file-nopage",
};

/* A mapping of a file with a page cache: its faults go to filemap_fault (or, with the
 * legacy_nopage teaching knob, to filemap_nopage, linear only, as 2.6.22 had it). */
int generic_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	file_accessed(f);
	if (legacy_nopage) {
		vma->vm_ops = &legacy_file_vm_ops;
	} else {
		vma->vm_ops = &generic_file_vm_ops;
		vma->vm_flags |= VM_CAN_NONLINEAR;
	}
	return 0;
}
