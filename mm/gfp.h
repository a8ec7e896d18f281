/* The buddy frame allocator's interface (mm/page_alloc.c). Names follow Linux. */
#ifndef MM_GFP_H
#define MM_GFP_H

#include "mm/page.h"

#define MAX_ORDER 11 /* blocks of 1 .. 2^(MAX_ORDER-1) frames (4 KiB .. 4 MiB) */

typedef unsigned int gfp_t;
#define GFP_KERNEL 0u
#define __GFP_ZERO 1u /* fill the block with zeroes */
/* The caller may sleep (task context, no spinlock held): below pages_min the allocation
 * reclaims first (mm/vmscan.c), and it never takes the last pages_min frames, which are left
 * for the kernel's own allocations, reclaim's included. Without it an allocation never waits
 * and may take every frame. */
#define __GFP_WAIT 2u
/* Its reclaim may call into a file system: write a file's dirty pages through the file
 * system's writepage. A file system's own allocations, made under its locks (ext2's
 * truncate_mutex), leave it out: that writepage may need the same lock. */
#define __GFP_FS 4u
#define GFP_NOFS __GFP_WAIT
/* a page for user space: anonymous, page cache, swap cache */
#define GFP_HIGHUSER (__GFP_WAIT | __GFP_FS)

/* Boot: mem_map covers frames [0, max_pfn), every frame starts PG_reserved. */
void free_area_init(struct page *map, unsigned long max_pfn);
/* Boot: give frames [start, end) to the allocator (they become free). */
void free_area_add_range(unsigned long start_pfn, unsigned long end_pfn);

/* 2^order contiguous frames, naturally aligned, _count = 1; NULL when none is left. */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
/* Drop one reference; the block returns to the allocator when the count reaches zero. */
void __free_pages(struct page *page, unsigned int order);

static inline struct page *alloc_page(gfp_t gfp)
{
	return alloc_pages(gfp, 0);
}
static inline void __free_page(struct page *page)
{
	__free_pages(page, 0);
}
/* put_page: release a reference to a single frame (frees it at zero). */
static inline void put_page(struct page *page)
{
	__free_pages(page, 0);
}

unsigned long nr_free_pages(void);    /* frames free now */
unsigned long nr_managed_pages(void); /* frames ever handed to the allocator */
/* printk the number of free blocks of each order. */
void dump_free_areas(void);

#endif
