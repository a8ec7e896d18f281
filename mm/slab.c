/* kmalloc: small objects in power-of-two size classes carved out of single frames, requests
 * over 2048 bytes straight from the buddy allocator. A much simplified Linux SLUB. */

#include "kernel/lib/string.h"
#include "kernel/locking/spinlock.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/slab.h"

/*
 * A slab page is one frame cut into PAGE_SIZE / size objects of one size class. It keeps its
 * own bookkeeping in its struct page, in fields that mean nothing for a frame that is neither
 * mapped into user space nor in the page cache (Linux 2.6.23's SLUB used the same fields):
 *   flags      PG_slab
 *   private    the index of its size class in kmalloc_caches[]
 *   index      the address of its first free object, 0 when every object is in use
 *   _mapcount  how many of its objects are handed out (-1 again once the frame is freed)
 *   lru        its link on the class's partial list
 * The first word of a free object points to the next free object of the same page.
 *
 * Invariants: a slab page is on its class's partial list exactly when it has a free object
 * and an object in use. A page whose objects are all free goes straight back to the buddy
 * allocator, so kmalloc never sits on idle memory (a real kernel keeps a few such pages to
 * avoid freeing and reallocating them in a loop).
 *
 * Large allocations are whole buddy blocks: the head frame has PG_head and private = order.
 */

#define NR_KMALLOC_CACHES 8 /* 16, 32, ..., 2048 bytes */

struct free_object {
	struct free_object *next;
};

struct kmalloc_cache {
	unsigned int size;	     /* bytes per object, a power of two */
	struct list_head partial;    /* slab pages with a free object */
	unsigned long nr_pages;	     /* slab pages of this class, partial or full */
	unsigned long nr_objects;    /* objects handed out */
};

#define KMALLOC_CACHE(i)                                                    \
	{                                                                   \
		.size = KMALLOC_MIN_SIZE << (i),                            \
		.partial = LIST_HEAD_INIT(kmalloc_caches[i].partial),      \
	}

static struct kmalloc_cache kmalloc_caches[NR_KMALLOC_CACHES] = {
	KMALLOC_CACHE(0), KMALLOC_CACHE(1), KMALLOC_CACHE(2), KMALLOC_CACHE(3),
	KMALLOC_CACHE(4), KMALLOC_CACHE(5), KMALLOC_CACHE(6), KMALLOC_CACHE(7),
};

static unsigned long nr_large_pages; /* frames in large allocations */
/* slab_lock: every size class's lists and counts (2.6.23 has one per cache and CPU; one for
 * all is enough here). Taken irqsave; the buddy allocator's zone_lock nests inside it. */
static DEFINE_SPINLOCK(slab_lock);

static struct free_object *slab_freelist(const struct page *page)
{
	return (struct free_object *)page->index;
}

static void set_slab_freelist(struct page *page, struct free_object *obj)
{
	page->index = (unsigned long)obj;
}

/* The index of the smallest size class that holds size bytes (size <= 2048). */
static unsigned int size_class(size_t size)
{
	unsigned int i = 0;

	while ((size_t)(KMALLOC_MIN_SIZE << i) < size)
		i++;
	return i;
}

/* Add a fresh frame, all of its objects free, to class ci's partial list. NULL if no memory. */
static struct page *new_slab(unsigned int ci)
{
	struct kmalloc_cache *cache = &kmalloc_caches[ci];
	struct page *page = alloc_page(GFP_KERNEL);
	struct free_object *head = NULL;
	char *base;
	int i;

	if (!page)
		return NULL;
	SetPageFlag(page, PG_slab);
	page->private = ci;
	/* Build the free list from the top down so that it runs in address order. */
	base = page_address(page);
	for (i = PAGE_SIZE / cache->size - 1; i >= 0; i--) {
		struct free_object *obj = (struct free_object *)(base + i * cache->size);

		obj->next = head;
		head = obj;
	}
	set_slab_freelist(page, head);
	page->_mapcount = 0;
	list_add(&page->lru, &cache->partial);
	cache->nr_pages++;
	return page;
}

/* Take one object from class ci: from a partial page, or from a new page if there is none. */
static void *slab_alloc(unsigned int ci)
{
	struct kmalloc_cache *cache = &kmalloc_caches[ci];
	struct free_object *obj;
	struct page *page;

	if (list_empty(&cache->partial) && !new_slab(ci))
		return NULL;
	page = list_first_entry(&cache->partial, struct page, lru);
	obj = slab_freelist(page);
	set_slab_freelist(page, obj->next);
	page->_mapcount++;
	if (!slab_freelist(page))
		list_del(&page->lru); /* full: nothing left to hand out */
	cache->nr_objects++;
	return obj;
}

/* Give object p back to its slab page, and the page back to the buddy allocator if empty. */
static void slab_free(struct page *page, void *p)
{
	struct kmalloc_cache *cache = &kmalloc_caches[page->private];
	unsigned long offset = (unsigned long)((char *)p - (char *)page_address(page));
	struct free_object *obj = p, *f;

	if (offset % cache->size)
		panic("kfree: %p is inside a %u-byte object, not at its start", p, cache->size);
	/* Double frees are the classic slab bug; a page has at most 256 objects to look at. */
	for (f = slab_freelist(page); f; f = f->next)
		if (f == obj)
			panic("kfree: double free of %p (%u-byte object)", p, cache->size);

	if (!slab_freelist(page))
		list_add(&page->lru, &cache->partial); /* was full, now has room */
	obj->next = slab_freelist(page);
	set_slab_freelist(page, obj);
	cache->nr_objects--;
	if (--page->_mapcount > 0)
		return;

	list_del(&page->lru);
	ClearPageFlag(page, PG_slab);
	page->private = 0;
	page->index = 0;
	page->_mapcount = -1;
	cache->nr_pages--;
	__free_page(page);
}

/* A block of whole frames, big enough for size bytes. */
static void *kmalloc_large(size_t size)
{
	unsigned int order = 0;
	struct page *page;

	while ((PAGE_SIZE << order) < size)
		if (++order >= MAX_ORDER)
			return NULL;
	page = alloc_pages(GFP_KERNEL, order);
	if (!page)
		return NULL;
	SetPageFlag(page, PG_head);
	page->private = order;
	nr_large_pages += 1UL << order;
	return page_address(page);
}

void *kmalloc(size_t size)
{
	uint64_t flags;
	void *p;

	spin_lock_irqsave(&slab_lock, flags);
	p = size > KMALLOC_MAX_CACHE_SIZE ? kmalloc_large(size) : slab_alloc(size_class(size));
	spin_unlock_irqrestore(&slab_lock, flags);
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	unsigned long pfn;
	struct page *page;
	uint64_t flags;

	if (!p)
		return;
	pfn = PFN_DOWN(__pa(p));
	if ((uintptr_t)p < PAGE_OFFSET || pfn >= max_pfn)
		panic("kfree: %p is not a kmalloc pointer (not in the direct map)", p);
	page = pfn_to_page(pfn);
	spin_lock_irqsave(&slab_lock, flags);
	if (PageSlab(page)) {
		slab_free(page, p);
	} else if (PageFlag(page, PG_head)) {
		unsigned int order = page->private;

		if (p != page_address(page))
			panic("kfree: %p is inside a %lu-byte kmalloc block, not at its start", p,
			      PAGE_SIZE << order);
		ClearPageFlag(page, PG_head);
		page->private = 0;
		nr_large_pages -= 1UL << order;
		__free_pages(page, order);
	} else {
		panic("kfree: %p is not a kmalloc pointer (frame %lu is not kmalloc's)", p, pfn);
	}
	spin_unlock_irqrestore(&slab_lock, flags);
}

void kmalloc_stats(void)
{
	unsigned int i;

	printk("kmalloc:\n");
	for (i = 0; i < NR_KMALLOC_CACHES; i++) {
		struct kmalloc_cache *c = &kmalloc_caches[i];

		printk("  %4u bytes: %lu pages, %lu objects in use of %lu\n", c->size, c->nr_pages,
		       c->nr_objects, c->nr_pages * (PAGE_SIZE / c->size));
	}
	printk("  large: %lu pages\n", nr_large_pages);
}
