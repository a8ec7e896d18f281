/* The swap cache (Linux 2.6.23's mm/swap_state.c): anonymous pages found by their swap entry
 * while they are on their way to the disk, on it with some PTEs mapping them again, or on their
 * way back. Hashed by entry through page->next_hash, as the page cache is by (file, index). */
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/locking/spinlock.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/vmstat.h"

#define SWAP_HASH_BITS 9
#define SWAP_READAHEAD_MAX 8 /* 2^page_cluster: valid_swaphandles offers no more */
_Static_assert(SWAP_READAHEAD_MAX <= SWAP_IO_MAX, "a readahead run is one request");
#define SWAP_HASH_SIZE (1U << SWAP_HASH_BITS)

/* swap_cache_lock (2.6.23: swapper_space.tree_lock): the hash, PG_swapcache, page->private of
 * cached pages and the count. Inside the page lock; nothing is taken under it but swap_lock. */
static DEFINE_SPINLOCK(swap_cache_lock);
static struct page *swap_hash[SWAP_HASH_SIZE];
unsigned long total_swapcache_pages;

static struct page **swap_hash_head(swp_entry_t entry)
{
	return &swap_hash[(entry.val * 0x9e3779b97f4a7c15ULL) >> (64 - SWAP_HASH_BITS)];
}

static struct page *__lookup(swp_entry_t entry)
{
	struct page *page = *swap_hash_head(entry);

	while (page && page->private != entry.val)
		page = page->next_hash;
	return page;
}

struct page *lookup_swap_cache(swp_entry_t entry)
{
	struct page *page;

	spin_lock(&swap_cache_lock);
	page = __lookup(entry);
	if (page)
		get_page(page);
	spin_unlock(&swap_cache_lock);
	return page;
}

/* Put a locked page in the cache as entry's, whose count the caller has already taken for
 * the cache. -EEXIST when another page caches entry already. */
static int __add_to_swap_cache(struct page *page, swp_entry_t entry)
{
	struct page **head = swap_hash_head(entry);

	BUG_ON(!PageLocked(page) || PageSwapCache(page));
	spin_lock(&swap_cache_lock);
	if (__lookup(entry)) {
		spin_unlock(&swap_cache_lock);
		return -EEXIST;
	}
	get_page(page);
	page->private = entry.val;
	SetPageFlag(page, PG_swapcache);
	page->next_hash = *head;
	*head = page;
	total_swapcache_pages++;
	spin_unlock(&swap_cache_lock);
	return 0;
}

/* Unlink a cached page: swap_cache_lock held. Its reference and slot count are the caller's to
 * drop. */
static void __delete_from_swap_cache(struct page *page)
{
	struct page **link = swap_hash_head((swp_entry_t){ page->private });

	while (*link != page)
		link = &(*link)->next_hash;
	*link = page->next_hash;
	page->next_hash = NULL;
	ClearPageFlag(page, PG_swapcache);
	page->private = 0;
	total_swapcache_pages--;
}

int add_to_swap(struct page *page)
{
	swp_entry_t entry = get_swap_page(); /* its count of 1 is the cache's */

	BUG_ON(!PageLocked(page) || !PageAnon(page));
	if (!entry.val)
		return 0;
	if (__add_to_swap_cache(page, entry)) { /* a fresh slot: nobody else can cache it */
		swap_free(entry);
		return 0;
	}
	/* The slot holds nothing yet: the page must be written. Uptodate: RAM has the data, so
	 * a fault that finds it in the cache before it is written maps it (only a failed read
	 * from the disk leaves a swap-cache page not uptodate). */
	SetPageFlag(page, PG_uptodate);
	SetPageFlag(page, PG_dirty);
	return 1;
}

void delete_from_swap_cache(struct page *page)
{
	swp_entry_t entry = { page->private };

	BUG_ON(!PageLocked(page) || !PageSwapCache(page));
	spin_lock(&swap_cache_lock);
	__delete_from_swap_cache(page);
	spin_unlock(&swap_cache_lock);
	swap_free(entry);
	put_page(page);
}

int remove_swap_mapping(struct page *page)
{
	swp_entry_t entry = { page->private };

	spin_lock(&swap_cache_lock);
	/* Someone who looked it up meanwhile (a swap-in) keeps it; so does a write since. */
	if (!PageSwapCache(page) || page_count(page) != 2 || PageDirty(page) ||
	    page_mapped(page)) {
		spin_unlock(&swap_cache_lock);
		return 0;
	}
	__delete_from_swap_cache(page);
	spin_unlock(&swap_cache_lock);
	swap_free(entry); /* the PTEs keep theirs: the data stays on the disk for them */
	put_page(page);
	return 1;
}

struct page *read_swap_cache_async(swp_entry_t entry)
{
	struct page *page;
	int err;

	for (;;) {
		page = lookup_swap_cache(entry);
		if (page)
			return page;
		page = alloc_page(GFP_HIGHUSER);
		if (!page)
			return NULL;
		SetPageFlag(page, PG_locked); /* others find it and wait in lock_page */
		/* The cache's count on the slot; 0 when the slot was freed since the PTE was read
		 * (its owner exited or swapped it in and freed it): the caller looks again. */
		if (!swap_duplicate(entry)) {
			ClearPageFlag(page, PG_locked);
			put_page(page);
			return NULL;
		}
		err = __add_to_swap_cache(page, entry);
		if (!err)
			break;
		swap_free(entry); /* another fault cached it first: use that one */
		ClearPageFlag(page, PG_locked);
		put_page(page);
	}
	lru_cache_add_active(page);
	if (swap_readpage(entry, page)) {
		SetPageFlag(page, PG_error);
	} else {
		SetPageFlag(page, PG_uptodate);
		count_vm_event(PSWPIN);
	}
	unlock_page(page);
	return page;
}

/* Read the run pages[0..n) (slots from first) and let the pages go: uptodate, or PG_error. */
static void read_run(swp_entry_t first, struct page **pages, int n)
{
	int err;

	if (!n)
		return;
	err = swap_readpages(first, pages, n);
	for (int i = 0; i < n; i++) {
		SetPageFlag(pages[i], err ? PG_error : PG_uptodate);
		unlock_page(pages[i]);
		put_page(pages[i]); /* the cache keeps its own */
	}
	if (!err)
		count_vm_events(PSWPIN, (unsigned long)n);
}

void swapin_readahead(swp_entry_t entry)
{
	struct page *run[SWAP_READAHEAD_MAX];
	unsigned long first, start = 0;
	int nr = valid_swaphandles(entry, &first), n = 0;

	for (int i = 0; i < nr && i < (int)ARRAY_SIZE(run); i++) {
		swp_entry_t e = swp_entry(swp_type(entry), first + (unsigned long)i);
		struct page *page = NULL;

		/* Speculation: no frame of the reserve, no reclaim for it. */
		if (nr_free_pages() > pages_low && !(page = lookup_swap_cache(e)))
			page = alloc_page(0);
		else if (page) {
			put_page(page); /* cached already: the run ends here */
			page = NULL;
		}
		if (page) {
			SetPageFlag(page, PG_locked);
			if (!swap_duplicate(e)) {
				ClearPageFlag(page, PG_locked);
				put_page(page);
				page = NULL;
			} else if (__add_to_swap_cache(page, e)) {
				swap_free(e);
				ClearPageFlag(page, PG_locked);
				put_page(page);
				page = NULL;
			} else {
				lru_cache_add(page);
			}
		}
		if (page) {
			if (!n)
				start = first + (unsigned long)i;
			run[n++] = page;
			continue;
		}
		read_run(swp_entry(swp_type(entry), start), run, n);
		n = 0;
		if (nr_free_pages() <= pages_low)
			break;
	}
	read_run(swp_entry(swp_type(entry), start), run, n);
}

void free_swap_and_cache(swp_entry_t entry)
{
	struct page *page;

	swap_free(entry);
	if (swap_count(entry) != 1) /* other PTEs hold it, or no cache does */
		return;
	page = lookup_swap_cache(entry);
	if (!page)
		return;
	if (!TestSetPageLocked(page)) { /* (a locked page: its holder or reclaim will see) */
		if (PageSwapCache(page) && page->private == entry.val &&
		    swap_count(entry) == 1) {
			delete_from_swap_cache(page);
			SetPageFlag(page, PG_dirty); /* if mapped, RAM has the only copy now */
		}
		unlock_page(page);
	}
	put_page(page);
}

void free_page_and_swap_cache(struct page *page)
{
	if (PageSwapCache(page) && !page_mapped(page) && !TestSetPageLocked(page)) {
		if (PageSwapCache(page) && !page_mapped(page) &&
		    swap_count((swp_entry_t){ page->private }) == 1)
			delete_from_swap_cache(page);
		unlock_page(page);
	}
	put_page(page);
}

bool reuse_swap_page(struct page *page)
{
	BUG_ON(!PageLocked(page));
	if (page->_mapcount > 0)
		return false;
	if (!PageSwapCache(page))
		return true;
	if (swap_count((swp_entry_t){ page->private }) != 1)
		return false; /* a sharer's PTE still holds the entry: it must read the old data */
	delete_from_swap_cache(page);
	SetPageFlag(page, PG_dirty);
	return true;
}
