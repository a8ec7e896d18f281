/* kcheck: the kernel checks its own memory bookkeeping against the page tables. Every
 * struct page's map count must equal the PTEs that map it, its reference count must cover
 * those PTEs (and the page cache's own reference), every page-cache page must be findable
 * in its address_space, device frames (no struct page in use) must never be counted, and a
 * not-present PTE must be empty or a file PTE. shmem pages are page-cache pages like any other
 * (counted on their own): their address_space must be their live inode's, which holds them.
 * The reverse map too: an anonymous page must be findable from every PTE that maps it (its
 * mapping is the VMA's anon_vma, its index gives the PTE's address), and each anon_vma's list
 * must hold exactly the live VMAs that point to it. Swap: every slot's count must equal the swap
 * PTEs holding it plus one if the swap cache has its page, and the reclaim lists' counts the
 * pages marked PG_lru. A page with buffer heads (PG_private) must be cut into them whole, in
 * order, each naming it, and hold one more reference for them. */
#include "kernel/fs/buffer_head.h"
#include "kernel/lib/cmdline.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/reclaim.h"
#include "mm/slab.h"
#include "mm/swap.h"

extern struct list_head all_tasks;

/* PTEs found per frame, for the pass over mem_map. One byte a frame (2 MiB at 8 GiB: kmalloc's
 * largest block is 4 MiB); a frame mapped 255 times or more is not compared. */
static uint8_t *seen;

/* Not-present PTEs that are neither empty, a file PTE nor a swap entry of a slot in use:
 * nothing should make them (a frame in one is invisible to every count; a prefaulted
 * PROT_NONE VMA once made them). */
static unsigned long strange;

/* Swap PTEs and swap-cache pages found per slot of each area (NULL: no area there). */
static uint16_t *swap_seen[MAX_SWAPFILES];
static unsigned long swap_ptes;

static int count_pte(pte_t *pte, uint64_t va, void *arg)
{
	(void)arg;
	if (is_swap_pte(*pte)) {
		swp_entry_t entry = pte_to_swp_entry(*pte);
		uint16_t *seen_slots = swap_seen[swp_type(entry)];

		if (swap_count(entry) <= 0 || !seen_slots) {
			if (strange++ < 8)
				printk("kcheck: swap PTE %016lx at %016lx names no slot in use\n",
				       *pte, va);
			return 0;
		}
		seen_slots[swp_offset(entry)]++;
		swap_ptes++;
		return 0;
	}
	if (!pte_present(*pte) && !pte_file(*pte)) {
		if (strange++ < 8)
			printk("kcheck: unknown non-present PTE %016lx at %016lx\n", *pte, va);
		return 0;
	}
	if (pte_present(*pte) && pte_pfn(*pte) < max_pfn && seen[pte_pfn(*pte)] < UINT8_MAX)
		seen[pte_pfn(*pte)]++;
	return 0;
}

/* Does any PTE map a frame of [pfn, pfn + n)? n is a power of two and pfn a multiple of it (a
 * buddy block), so from 8 frames on seen[] is read a word at a time. */
static bool seen_any(unsigned long pfn, unsigned long n)
{
	if (n < sizeof(uint64_t)) {
		for (unsigned long i = 0; i < n; i++)
			if (seen[pfn + i])
				return true;
		return false;
	}
	for (const uint64_t *w = (const uint64_t *)(seen + pfn); n; n -= sizeof(*w), w++)
		if (*w)
			return true;
	return false;
}

static unsigned long complain(unsigned long bad, const char *what, unsigned long pfn, long a,
			      long b)
{
	if (bad < 8) /* the first few, then just the count */
		printk("kcheck: frame %lx: %s (%ld, expected %ld)\n", pfn, what, a, b);
	return bad + 1;
}

/* ---------------------------------------------------------------- the reverse map */

/* Distinct from every earlier pass: marks the anon_vmas whose list this pass has walked. */
static unsigned long check_pass;
/* Mismatches kcheck_mm and kcheck_vma found in what went away, since the last kcheck(). */
static unsigned long exit_bad, exit_mms;

struct rmap_check {
	struct vm_area_struct *vma;
	unsigned long anon_pages, bad;
};

/* An anonymous page mapped at va of c->vma: can rmap get from the page back to this PTE? */
static int check_anon_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct rmap_check *c = arg;
	struct page *page = vm_normal_page(*pte);
	unsigned long pfn = pte_pfn(*pte);

	if (!page || (!PageFlag(page, PG_anon) && !PageAnon(page)))
		return 0;
	c->anon_pages++;
	if (PageFlag(page, PG_anon) != PageAnon(page))
		c->bad = complain(c->bad, "PG_anon and an anon_vma mapping disagree", pfn,
				  PageFlag(page, PG_anon), PageAnon(page));
	else if (c->vma->anon_vma && page_anon_vma(page) != c->vma->anon_vma)
		c->bad = complain(c->bad, "anonymous page's anon_vma is not its VMA's", pfn,
				  (long)page_anon_vma(page), (long)c->vma->anon_vma);
	else if (c->vma->anon_vma && vma_address(page, c->vma) != va)
		c->bad = complain(c->bad, "anonymous page's index gives another address", pfn,
				  (long)vma_address(page, c->vma), (long)va);
	return 0;
}

/*
 * One VMA of a live mm (its mmap_sem held, or nothing running): each anonymous page it maps
 * leads back to its PTE, the VMA has an anon_vma if it maps any, and is on that anon_vma's
 * list. The list walk stops after max_steps nodes (a corrupt list may not end).
 */
static unsigned long check_vma_rmap(struct vm_area_struct *vma, unsigned long bad,
				    unsigned long *anon_pages, unsigned long max_steps)
{
	struct rmap_check c = { vma, 0, bad };
	struct anon_vma *av = vma->anon_vma;
	struct vm_area_struct *e;
	unsigned long steps = 0;
	bool found = false;

	spin_lock(&vma->vm_mm->page_table_lock); /* (truncate may zap it from another CPU) */
	walk_page_range(vma->vm_mm, vma->vm_start, vma->vm_end, check_anon_pte, &c);
	spin_unlock(&vma->vm_mm->page_table_lock);
	bad = c.bad;
	*anon_pages += c.anon_pages;
	if (!av) {
		if (c.anon_pages)
			bad = complain(bad, "VMA with anonymous pages has no anon_vma",
				       vma->vm_start >> PAGE_SHIFT, (long)c.anon_pages, 0);
		return bad;
	}
	spin_lock(&av->lock);
	list_for_each_entry(e, &av->head, anon_vma_node) {
		if (e == vma)
			found = true;
		if (found || ++steps > max_steps)
			break;
	}
	spin_unlock(&av->lock);
	if (!found)
		bad = complain(bad, "VMA not on its anon_vma's list", vma->vm_start >> PAGE_SHIFT,
			       (long)steps, 0);
	return bad;
}

static bool kcheck_enabled(void)
{
	static int enabled = -1;

	if (enabled < 0)
		enabled = cmdline_has("kcheck");
	return enabled;
}

void kcheck_vma(struct vm_area_struct *vma)
{
	unsigned long anon_pages = 0, bad;

	if (!kcheck_enabled())
		return;
	bad = check_vma_rmap(vma, 0, &anon_pages, 1UL << 20);
	__atomic_add_fetch(&exit_bad, bad, __ATOMIC_RELAXED);
}

static int count_swap_pte(pte_t *pte, uint64_t va, void *arg)
{
	(void)va;
	*(unsigned long *)arg += is_swap_pte(*pte);
	return 0;
}

/* mm's swap PTEs against its count of them (mm->swapents, the OOM report's swapents). */
static unsigned long check_swapents(struct mm_struct *mm, unsigned long bad)
{
	unsigned long n = 0;

	walk_page_range(mm, 0, USER_TOP, count_swap_pte, &n);
	if (n != mm->swapents)
		bad = complain(bad, "mm's swapents is not its swap PTEs", 0, (long)mm->swapents,
			       (long)n);
	return bad;
}

void kcheck_mm(struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	if (!kcheck_enabled())
		return;
	for_each_vma(vma, mm)
		kcheck_vma(vma);
	__atomic_add_fetch(&exit_bad, check_swapents(mm, 0), __ATOMIC_RELAXED);
	__atomic_add_fetch(&exit_mms, 1, __ATOMIC_RELAXED);
}

/* Does some task use mm, and is vma one of its VMAs? (A tree walk that leaves mmap_cache as it
 * is: a freed VMA on a list must not be dereferenced beyond this.) */
static bool vma_is_live(struct vm_area_struct *vma)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;
	struct rb_node *node;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->mm && t->mm == vma->vm_mm)
			mm = t->mm;
	if (!mm)
		return false;
	for (node = mm->mm_rb.rb_node; node;) {
		struct vm_area_struct *v = rb_entry(node, struct vm_area_struct, vm_rb);

		if (v == vma)
			return true;
		node = v->vm_end > vma->vm_start ? node->rb_left : node->rb_right;
	}
	return false;
}

/* True when a task before t in all_tasks has t's mm (threads): each mm is checked once. */
static bool mm_checked_before(struct task_struct *t)
{
	struct task_struct *u;

	list_for_each_entry(u, &all_tasks, tasks) {
		if (u == t)
			return false;
		if (u->mm == t->mm)
			return true;
	}
	return false;
}

/*
 * Every live VMA as check_vma_rmap; every anon_vma they reach holds live VMAs only, each
 * pointing back to it; and no other anon_vma exists (one no live VMA reaches is a leak, kept
 * by a VMA freed without leaving its list). Then what kcheck_mm found at exits.
 */
static unsigned long check_rmap(unsigned long bad, unsigned long *anon_pages,
				unsigned long *anon_vmas)
{
	unsigned long vmas = 0;
	struct task_struct *t;
	struct vm_area_struct *vma;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->mm && !mm_checked_before(t))
			vmas += (unsigned long)t->mm->map_count;
	check_pass++;
	list_for_each_entry(t, &all_tasks, tasks) {
		if (!t->mm || mm_checked_before(t))
			continue;
		bad = check_swapents(t->mm, bad);
		for_each_vma(vma, t->mm) {
			struct anon_vma *av = vma->anon_vma;
			struct vm_area_struct *e;
			unsigned long steps = 0;

			bad = check_vma_rmap(vma, bad, anon_pages, vmas);
			if (!av || av->check_mark == check_pass)
				continue;
			av->check_mark = check_pass;
			(*anon_vmas)++;
			list_for_each_entry(e, &av->head, anon_vma_node) {
				if (++steps > vmas) {
					bad = complain(bad, "anon_vma list longer than the VMAs",
						       0, (long)steps, (long)vmas);
					break;
				}
				if (!vma_is_live(e))
					bad = complain(bad, "anon_vma list holds a dead VMA",
						       e->vm_start >> PAGE_SHIFT, 0, 0);
				else if (e->anon_vma != av)
					bad = complain(bad, "VMA on another anon_vma's list",
						       e->vm_start >> PAGE_SHIFT, 0, 0);
			}
		}
	}
	if (*anon_vmas != (unsigned long)nr_anon_vmas)
		bad = complain(bad, "anon_vmas no live VMA uses", 0, nr_anon_vmas,
			       (long)*anon_vmas);
	if (exit_bad)
		printk("kcheck: %lu mismatches in VMAs as they ended\n", exit_bad);
	bad += __atomic_exchange_n(&exit_bad, 0, __ATOMIC_RELAXED);
	return bad;
}

/* A page's buffer heads (kernel/fs/buffer.c): a ring of PAGE_SIZE / b_size of them, each
 * naming the page, whose b_data slices it in order from its start, none with a negative
 * count. */
static unsigned long check_buffers(struct page *page, unsigned long bad)
{
	struct buffer_head *head = page_buffers(page), *bh = head;
	char *data = page_address(page);
	size_t n = 0, size = head ? head->b_size : 0;

	do {
		if (!bh || bh->b_page != page || bh->b_size != size || bh->b_data != data ||
		    bh->b_count < 0 || ++n > PAGE_SIZE / 512) /* 512: the smallest block */
			return complain(bad, "buffer heads that do not slice their page",
					page_to_pfn(page), (long)n, (long)size);
		data += size;
		bh = bh->b_this_page;
	} while (bh != head);
	if (n * size != PAGE_SIZE)
		bad = complain(bad, "buffer heads that do not cover their page", page_to_pfn(page),
			       (long)n, (long)size);
	return bad;
}

/* ---------------------------------------------------------------- swap */

/* A swap-cache page must be the one its entry finds, and counts once on its slot. */
static unsigned long check_swap_cache_page(struct page *page, unsigned long bad)
{
	swp_entry_t entry = { page->private };
	uint16_t *seen_slots = swap_seen[swp_type(entry)];
	struct page *found = lookup_swap_cache(entry);

	if (found != page)
		bad = complain(bad, "swap-cache page not found by its entry", page_to_pfn(page),
			       (long)entry.val, 0);
	if (found)
		put_page(found);
	if (!seen_slots || swap_count(entry) <= 0)
		bad = complain(bad, "swap-cache page of no slot in use", page_to_pfn(page),
			       (long)entry.val, 0);
	else
		seen_slots[swp_offset(entry)]++;
	return bad;
}

/* Every slot of every area: its count is the PTEs and the cache page found for it. */
static unsigned long check_swap_counts(unsigned long bad, unsigned long *cached)
{
	*cached = total_swapcache_pages;
	for (int type = 0; type < MAX_SWAPFILES; type++) {
		uint16_t *seen_slots = swap_seen[type];

		if (!seen_slots)
			continue;
		for (unsigned long off = 1; off < swap_info[type].max; off++) {
			int count = swap_count(swp_entry(type, off));

			if (count >= 0 && count != SWAP_MAP_BAD && count != seen_slots[off] &&
			    bad++ < 8)
				printk("kcheck: swap slot %d:%lu: count %d, expected %u (PTEs and "
				       "cache)\n", type, off, count, seen_slots[off]);
		}
		kfree(seen_slots);
		swap_seen[type] = NULL;
	}
	return bad;
}

unsigned long kcheck(void)
{
	unsigned long bad = 0, pages = 0, ptes = 0, shmem = 0, anon_pages = 0, anon_vmas = 0;
	unsigned long lru_pages = 0, swap_cached = 0;
	struct list_head *pos;

	seen = kzalloc(max_pfn * sizeof(*seen));
	if (!seen) {
		printk("kcheck: no memory for the check\n");
		return 1;
	}
	strange = 0;
	swap_ptes = 0;
	for (int type = 0; type < MAX_SWAPFILES; type++)
		if (swap_info[type].flags & SWP_USED)
			swap_seen[type] = kzalloc(swap_info[type].max * sizeof(uint16_t));
	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->mm)
			walk_page_range(t->mm, 0, USER_TOP, count_pte, NULL);
	}
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		long mapped = seen[pfn], cached, held;

		ptes += (unsigned long)mapped;
		if (PageReserved(page)) { /* device memory, the zero page, the kernel */
			if (page->_mapcount != -1)
				bad = complain(bad, "reserved frame with a map count", pfn,
					       page->_mapcount + 1, 0);
			continue;
		}
		/*
		 * A free block in one step: its frames past the head are free by the buddy
		 * allocator's invariants (_count 0, never PG_buddy; tests/host/test_page_alloc.c
		 * checks them), so all that is left is that no PTE maps any of them. With 8 GiB
		 * most of mem_map is free blocks of 4 MiB, read here a word of seen[] per 8.
		 */
		if (PageBuddy(page)) {
			unsigned long order = page->private, n = 1UL << order;

			if (order < MAX_ORDER && !(pfn & (n - 1)) && pfn + n <= max_pfn &&
			    !seen_any(pfn, n)) {
				pfn += n - 1;
				continue;
			}
		}
		if (PageBuddy(page) || page->_count == 0) {
			if (mapped)
				bad = complain(bad, "free frame still mapped", pfn, mapped, 0);
			continue;
		}
		if (PageSlab(page)) { /* kmalloc keeps its object count in _mapcount */
			if (mapped)
				bad = complain(bad, "kmalloc frame mapped to user space", pfn,
					       mapped, 0);
			continue;
		}
		pages++;
		lru_pages += PageLRU(page);
		if (PageSwapCache(page))
			bad = check_swap_cache_page(page, bad);
		if (PagePrivate(page))
			bad = check_buffers(page, bad);
		if (mapped == UINT8_MAX)
			continue; /* too many mappings to count in a byte */
		if (page->_mapcount + 1 != mapped)
			bad = complain(bad, "map count differs from the PTEs", pfn,
				       page->_mapcount + 1, mapped);
		cached = page->mapping && !PageAnon(page);
		held = cached + PageSwapCache(page) + PagePrivate(page); /* + the buffers' */
		if (page->_count < mapped + held)
			bad = complain(bad, "fewer references than PTEs and cache", pfn,
				       page->_count, mapped + held);
		if (cached) {
			struct page *found = find_get_page(page->mapping, page->index);

			if (found != page)
				bad = complain(bad, "page-cache page not found in its mapping", pfn,
					       (long)page->index, 0);
			if (found)
				put_page(found);
			if (page->mapping->host->i_mapping != page->mapping ||
			    !page->mapping->nrpages)
				bad = complain(bad, "page-cache page of no live inode", pfn,
					       (long)page->index, 0);
			else if (shmem_mapping(page->mapping))
				shmem++;
		}
	}
	kfree(seen);
	bad = check_swap_counts(bad, &swap_cached);
	if (lru_pages != nr_active + nr_inactive)
		bad = complain(bad, "pages on the reclaim lists differ from their counts", 0,
			       (long)lru_pages, (long)(nr_active + nr_inactive));
	bad += strange;
	bad = check_rmap(bad, &anon_pages, &anon_vmas);
	printk("kcheck: %lu PTEs, %lu swap PTEs, %lu swap-cache pages, %lu shmem pages, "
	       "%lu anonymous pages on %lu anon_vmas (and %lu address spaces as they ended), "
	       "%lu pages in use checked: %lu mismatches\n", ptes, swap_ptes, swap_cached, shmem,
	       anon_pages, anon_vmas, __atomic_exchange_n(&exit_mms, 0, __ATOMIC_RELAXED), pages,
	       bad);
	return bad;
}
