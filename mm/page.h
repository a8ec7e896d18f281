/* struct page: one per physical frame of RAM, in the mem_map array indexed by frame number.
 * Fields are named as in Linux 2.6.23 so the fault code reads the same as Linux's. */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "kernel/lib/list.h"
#include "mm/mmu.h"

struct address_space;

/* Bits in page->flags. */
enum pageflags {
	PG_locked,   /* I/O or truncate in progress; lock_page() sleeps on it */
	PG_uptodate, /* the contents are valid (page cache) */
	PG_dirty,    /* written through a mapping or write(); must reach the file */
	PG_reserved, /* never allocatable: firmware, kernel image, modules, holes */
	PG_buddy,    /* free and the head of a free block in the buddy allocator */
	PG_slab,     /* owned by kmalloc's size classes */
	PG_anon,     /* an anonymous page (mapping is the anon owner, not a file) */
	PG_zero,     /* the shared zero page */
	PG_head,     /* first frame of a multi-frame kmalloc allocation */
	PG_lru,      /* on the reclaim policy's lists (page->lru links it there) */
	PG_active,   /* on the active list (the LRU policy) */
	PG_referenced, /* read()/write() touched it since reclaim looked (mark_page_accessed) */
	PG_swapcache, /* in the swap cache: private holds its swap entry */
	PG_error,    /* the last I/O on it failed (a swap-in read: the page is not uptodate) */
	PG_private,  /* private: its buffer heads (kernel/fs/buffer.c), which hold a reference */
	PG_readahead, /* read ahead of need: a reader reaching it reads the next window */
	NR_PAGEFLAGS
};

struct page {
	unsigned long flags;           /* PG_* bits */
	int _count;                    /* references: 0 means free */
	int _mapcount;                 /* PTEs mapping the page, minus one (-1: none) */
	unsigned long private;         /* buddy: order; slab: size class; swap cache: its entry */
	struct address_space *mapping; /* page cache owner (file pages), anon_vma (anonymous) */
	unsigned long index;           /* offset in mapping, in pages */
	struct list_head lru;          /* buddy free list, slab list, or the reclaim lists */
	struct page *next_hash;        /* the next page in its page-cache or swap-cache chain */
} __attribute__((aligned(64))); /* 64 bytes, as Linux's: page_to_pfn and pfn_to_page are shifts
				 * (56 bytes made them a multiply, several on every fault;
				 * docs/bench.md, "Design choices, measured") */

extern struct page *mem_map;  /* struct page for every frame below max_pfn */
extern unsigned long max_pfn; /* one past the highest frame of RAM */

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline void *page_address(const struct page *page)
{
	return __va(PFN_PHYS(page_to_pfn(page)));
}

static inline struct page *virt_to_page(const void *va)
{
	return pfn_to_page(PFN_DOWN(__pa(va)));
}

/*
 * Zero or copy one page 8 bytes at a time, as Linux's clear_page/copy_page on CPUs without
 * ERMS: under QEMU -icount a rep string instruction counts once per iteration, so rep
 * stosb/movsb would count every byte of the page (docs/bench.md, "Design choices,
 * measured").
 */
static inline void clear_page(void *page)
{
	uint64_t n = PAGE_SIZE / 8;

	asm volatile("rep stosq" : "+D"(page), "+c"(n) : "a"(0UL) : "memory");
}

static inline void copy_page(void *dst, const void *src)
{
	uint64_t n = PAGE_SIZE / 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static inline bool PageFlag(const struct page *p, int bit)
{
	return (p->flags >> bit) & 1;
}
/* Atomic (a locked or/and): lock_page sets PG_locked with a locked bit test-and-set, and a
 * plain read-modify-write of another bit on another CPU could undo it. */
static inline void SetPageFlag(struct page *p, int bit)
{
	__atomic_fetch_or(&p->flags, 1UL << bit, __ATOMIC_SEQ_CST);
}
static inline void ClearPageFlag(struct page *p, int bit)
{
	__atomic_fetch_and(&p->flags, ~(1UL << bit), __ATOMIC_SEQ_CST);
}
/* Set PG_locked; true when it was set already (someone else holds the page lock). */
static inline bool TestSetPageLocked(struct page *p)
{
	return __atomic_fetch_or(&p->flags, 1UL << PG_locked, __ATOMIC_ACQUIRE) &
	       (1UL << PG_locked);
}

#define PageReserved(p) PageFlag(p, PG_reserved)
#define PageBuddy(p) PageFlag(p, PG_buddy)
#define PageSlab(p) PageFlag(p, PG_slab)
#define PageLocked(p) PageFlag(p, PG_locked)
#define PageLRU(p) PageFlag(p, PG_lru)
#define PageActive(p) PageFlag(p, PG_active)
#define PageSwapCache(p) PageFlag(p, PG_swapcache)
#define PageDirty(p) PageFlag(p, PG_dirty)
#define PageUptodate(p) PageFlag(p, PG_uptodate)
#define PagePrivate(p) PageFlag(p, PG_private)

static inline int page_count(const struct page *p)
{
	return p->_count;
}
/* References are taken and dropped on any CPU: atomic (__free_pages drops them). */
static inline void get_page(struct page *p)
{
	__atomic_add_fetch(&p->_count, 1, __ATOMIC_RELAXED);
}

#endif
