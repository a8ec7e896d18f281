/* kcheck: the kernel checks its own memory bookkeeping against the page tables. Every
 * struct page's map count must equal the PTEs that map it, its reference count must cover
 * those PTEs (and the page cache's own reference), every page-cache page must be findable
 * in its address_space, device frames (no struct page in use) must never be counted, and a
 * not-present PTE must be empty or a file PTE. shmem pages are page-cache pages like any other
 * (counted on their own): their address_space must be their live inode's, which holds them. */
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/shmem.h"
#include "mm/slab.h"

extern struct list_head all_tasks;

/* PTEs found per frame, for the pass over mem_map. One byte a frame (2 MiB at 8 GiB: kmalloc's
 * largest block is 4 MiB); a frame mapped 255 times or more is not compared. */
static uint8_t *seen;

/* Not-present PTEs that are neither empty nor a file PTE: nothing should make them (a frame
 * in one is invisible to every count; a prefaulted PROT_NONE VMA once made them). */
static unsigned long strange;

static int count_pte(pte_t *pte, uint64_t va, void *arg)
{
	(void)arg;
	if (!pte_present(*pte) && !pte_file(*pte)) {
		if (strange++ < 8)
			printk("kcheck: unknown non-present PTE %016lx at %016lx\n", *pte, va);
		return 0;
	}
	if (pte_present(*pte) && pte_pfn(*pte) < max_pfn && seen[pte_pfn(*pte)] < UINT8_MAX)
		seen[pte_pfn(*pte)]++;
	return 0;
}

static unsigned long complain(unsigned long bad, const char *what, unsigned long pfn, long a,
			      long b)
{
	if (bad < 8) /* the first few, then just the count */
		printk("kcheck: frame %lx: %s (%ld, expected %ld)\n", pfn, what, a, b);
	return bad + 1;
}

unsigned long kcheck(void)
{
	unsigned long bad = 0, pages = 0, ptes = 0, shmem = 0;
	struct list_head *pos;

	seen = kzalloc(max_pfn * sizeof(*seen));
	if (!seen) {
		printk("kcheck: no memory for the check\n");
		return 1;
	}
	strange = 0;
	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->mm)
			walk_page_range(t->mm, 0, USER_TOP, count_pte, NULL);
	}
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		long mapped = seen[pfn];

		ptes += (unsigned long)mapped;
		if (PageReserved(page)) { /* device memory, the zero page, the kernel */
			if (page->_mapcount != -1)
				bad = complain(bad, "reserved frame with a map count", pfn,
					       page->_mapcount + 1, 0);
			continue;
		}
		if (PageBuddy(page) || page->_count == 0) {
			if (mapped)
				bad = complain(bad, "free frame still mapped", pfn, mapped, 0);
			continue;
		}
		if (PageSlab(page)) { /* kmalloc keeps its object count in _mapcount */
			if (mapped)
				bad = complain(bad, "kmalloc frame mapped to user space", pfn, mapped,
					       0);
			continue;
		}
		pages++;
		if (mapped == UINT8_MAX)
			continue; /* too many mappings to count in a byte */
		if (page->_mapcount + 1 != mapped)
			bad = complain(bad, "map count differs from the PTEs", pfn,
				       page->_mapcount + 1, mapped);
		if (page->_count < mapped + (page->mapping ? 1 : 0))
			bad = complain(bad, "fewer references than PTEs and cache", pfn,
				       page->_count, mapped + (page->mapping ? 1 : 0));
		if (page->mapping) {
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
	bad += strange;
	printk("kcheck: %lu PTEs, %lu shmem pages, %lu pages in use checked: %lu mismatches\n",
	       ptes, shmem, pages, bad);
	return bad;
}
