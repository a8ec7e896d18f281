/* Self-tests of the reverse map (mm/rmap.c) on address spaces built by hand: anonymous pages
 * found through their anon_vma across fork, split, COW and mremap; page_referenced testing and
 * clearing accessed bits (the CPU's own among them); try_to_unmap of a file page mapped four
 * times in each of two processes, and of an anonymous page, which cannot go before swap exists. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/test/ktest.h"
#include "tests/ktest/mm_helpers.h"
#include "kernel/arch/percpu.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/tlbflush.h"
#include "mm/vma.h"

#define A 0x30000000UL		  /* the anonymous mapping */
#define M (A + 0x100000UL)	  /* where mremap moves half of it */
#define F 0x31000000UL		  /* the file mappings: F, F + FGAP, F + 2 FGAP */
#define FGAP 0x100000UL
#define P(n) ((uint64_t)(n) * PAGE_SIZE)
#define EFAULT_ADDR ((unsigned long)-EFAULT)

static struct page *page_at(struct mm_struct *mm, uint64_t va)
{
	return vm_normal_page(pte_of(mm, va));
}

static int list_length(struct anon_vma *av)
{
	struct vm_area_struct *vma;
	int n = 0;

	list_for_each_entry(vma, &av->head, anon_vma_node)
		n++;
	return n;
}

/* Read va through mm's page tables on this CPU, as a user access would: the CPU itself sets
 * the PTE's accessed bit. (Interrupts off: no switch away while CR3 is mm's.) */
static long touch(struct mm_struct *mm, uint64_t va)
{
	uint64_t flags = local_irq_save(), v;
	long ret;

	switch_mm(mm);
	ret = copy_from_user(&v, va, sizeof(v));
	leave_mm(smp_processor_id());
	local_irq_restore(flags);
	return ret;
}

KTEST(rmap_anon_fork_split_mremap)
{
	unsigned long before = nr_free_pages();
	struct mm_struct *parent = mm_alloc(), *child = NULL;
	struct vm_area_struct *vma, *upper, *cv, *nv;
	struct page *page[8], *copy;
	struct anon_vma *av;

	KT_CHECK(parent != NULL);
	if (!parent)
		return;
	KT_CHECK(do_mmap(parent, NULL, A, P(8), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0) == (long)A);
	vma = find_vma(parent, A);
	KT_CHECK(vma->anon_vma == NULL); /* none until the first page */
	/* A read maps the zero page: still none. */
	KT_CHECK(fault(parent, A, false) == VM_FAULT_MINOR && vma->anon_vma == NULL);
	for (int i = 0; i < 8; i++)
		fault(parent, A + P(i), true);
	av = vma->anon_vma;
	KT_CHECK(av != NULL && list_length(av) == 1);
	if (!av)
		goto out;
	for (int i = 0; i < 8; i++) {
		page[i] = page_at(parent, A + P(i));
		KT_CHECK(page[i] && PageAnon(page[i]) && page_anon_vma(page[i]) == av);
		KT_CHECK(page[i]->index == (A >> PAGE_SHIFT) + i);
		KT_CHECK(vma_address(page[i], vma) == A + P(i));
	}

	/* fork: the child's VMA joins the anon_vma; its PTEs only add map counts. */
	child = dup_mm(parent);
	KT_CHECK(child != NULL);
	if (!child)
		goto out;
	cv = find_vma(child, A);
	KT_CHECK(cv->anon_vma == av && list_length(av) == 2);
	KT_CHECK(page[0]->_mapcount == 1 && page_anon_vma(page[0]) == av);
	KT_CHECK(page_address_in_vma(page[0], cv) == A);

	/* Both PTEs are young (a fault maps a page accessed): counted and cleared, then none. */
	KT_CHECK(page_referenced(page[0], 0) == 2);
	KT_CHECK(page_referenced(page[0], 0) == 0);
	KT_CHECK(!(pte_of(parent, A) & _PAGE_ACCESSED) && !(pte_of(child, A) & _PAGE_ACCESSED));
	/* The child reads it through the MMU: the CPU sets that one PTE's bit again. */
	KT_CHECK(touch(child, A) == 0);
	KT_CHECK(page_referenced(page[0], 0) == 1);
	KT_CHECK(page_referenced(page[0], 0) == 0);

	/* Not in the swap cache: an anonymous page cannot leave its PTEs. */
	lock_page(page[2]);
	KT_CHECK(try_to_unmap(page[2], 0) == SWAP_FAIL);
	unlock_page(page[2]);
	KT_CHECK(page[2]->_mapcount == 1 && pte_pfn(pte_of(child, A + P(2))) ==
						   page_to_pfn(page[2]));

	/* A COW break in the child: the copy is anonymous on the same anon_vma, same index. */
	KT_CHECK(fault(child, A + P(1), true) == VM_FAULT_WRITE);
	copy = page_at(child, A + P(1));
	KT_CHECK(copy && copy != page[1] && page_anon_vma(copy) == av);
	KT_CHECK(copy->index == page[1]->index && vma_address(copy, cv) == A + P(1));
	KT_CHECK(page[1]->_mapcount == 0);

	/* split: both halves on the anon_vma; each page's address is found only in its own. */
	KT_CHECK(split_vma(parent, vma, A + P(4), 0) == 0);
	upper = find_vma(parent, A + P(4));
	KT_CHECK(upper != vma && upper->anon_vma == av && list_length(av) == 3);
	KT_CHECK(vma_address(page[5], upper) == A + P(5));
	KT_CHECK(page_address_in_vma(page[5], vma) == EFAULT_ADDR);

	/* mremap moves the upper half: the copy keeps the anon_vma and vm_pgoff, so the moved
	 * pages' index still gives their new address. */
	KT_CHECK(do_mremap(parent, A + P(4), P(4), P(4), 3 /* MAYMOVE | FIXED */, M) == (long)M);
	nv = find_vma(parent, M);
	KT_CHECK(nv && nv->vm_start == M && nv->anon_vma == av);
	KT_CHECK(nv && nv->vm_pgoff == (A >> PAGE_SHIFT) + 4);
	KT_CHECK(nv && vma_address(page[5], nv) == M + P(1));
	KT_CHECK(pte_pfn(pte_of(parent, M + P(1))) == page_to_pfn(page[5]));
	KT_CHECK(list_length(av) == 3); /* the old upper half went */
	KT_CHECK(page_referenced(page[5], 0) == 2); /* the moved PTE and the child's */

	/* ...and back: it merges with the lower half again (same anon_vma, pgoff runs on). */
	KT_CHECK(do_mremap(parent, M, P(4), P(4), 3, A + P(4)) == (long)(A + P(4)));
	vma = find_vma(parent, A);
	KT_CHECK(vma->vm_start == A && vma->vm_end == A + P(8) && list_length(av) == 2);
	KT_CHECK(vma_address(page[7], vma) == A + P(7));
out:
	if (child)
		mmput(child);
	mmput(parent); /* the last VMA of the anon_vma goes, and the anon_vma with it */
	KT_CHECK(nr_free_pages() == before);
}

/* A moved VMA that never had a page is as if new: it merges with anonymous neighbours at its
 * new place; one with pages keeps its layout and does not merge with a new neighbour. */
KTEST(rmap_mremap_pgoff)
{
	unsigned long before = nr_free_pages();
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *vma;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	do_mmap(mm, NULL, A, P(2), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		0);
	do_mmap(mm, NULL, M, P(2), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		0);
	KT_CHECK(do_mremap(mm, M, P(2), P(2), 3, A + P(2)) == (long)(A + P(2)));
	vma = find_vma(mm, A);
	KT_CHECK(vma->vm_end == A + P(4) && vma->anon_vma == NULL); /* merged */
	fault(mm, A, true);
	do_mmap(mm, NULL, M, P(2), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		0);
	fault(mm, M, true);
	KT_CHECK(do_mremap(mm, M, P(2), P(2), 3, A + P(4)) == (long)(A + P(4)));
	vma = find_vma(mm, A + P(4));
	KT_CHECK(vma->vm_start == A + P(4) && vma->vm_pgoff == M >> PAGE_SHIFT);
	KT_CHECK(vma->anon_vma && vma->anon_vma != find_vma(mm, A)->anon_vma);
	KT_CHECK(vma_address(page_at(mm, A + P(4)), vma) == A + P(4));
	mmput(mm);
	KT_CHECK(nr_free_pages() == before);
}

/*
 * One file page (shmem's) mapped six times: shared at F and at F + FGAP and privately (read,
 * so the page-cache page itself) at F + 2 FGAP, in a parent and in its fork child.
 * try_to_unmap refuses while a PTE is young; after page_referenced it clears all six, and the
 * next access faults the same page-cache page back in.
 */
KTEST(rmap_file_unmap_every_mapping)
{
	unsigned long before = nr_free_pages();
	struct file *f = shmem_file_setup("ktest-rmap", P(2), 0);
	struct mm_struct *parent = mm_alloc(), *child = NULL;
	uint64_t where[6] = { F, F + FGAP, F + 2 * FGAP, F, F + FGAP, F + 2 * FGAP };
	struct mm_struct *mms[6];
	unsigned long rss_parent, rss_child;
	struct page *page;
	int ret;

	KT_CHECK(f != NULL && parent != NULL);
	if (!f || !parent)
		goto out;
	KT_CHECK(do_mmap(parent, f, F, P(2), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, 0) ==
		 (long)F);
	KT_CHECK(do_mmap(parent, f, F + FGAP, P(2), PROT_READ, MAP_SHARED | MAP_FIXED, 0) ==
		 (long)(F + FGAP));
	KT_CHECK(do_mmap(parent, f, F + 2 * FGAP, P(2), PROT_READ, MAP_PRIVATE | MAP_FIXED, 0) ==
		 (long)(F + 2 * FGAP));
	fault(parent, F, true); /* a shared write: the page is dirty */
	fault(parent, F + FGAP, false);
	fault(parent, F + 2 * FGAP, false);
	child = dup_mm(parent);
	KT_CHECK(child != NULL);
	if (!child)
		goto out;
	mms[0] = mms[1] = mms[2] = parent;
	mms[3] = mms[4] = mms[5] = child;
	page = page_at(parent, F);
	KT_CHECK(page && !PageAnon(page) && page->mapping == f->f_inode->i_mapping);
	if (!page)
		goto out;
	for (int i = 0; i < 6; i++)
		KT_CHECK(page_at(mms[i], where[i]) == page);
	KT_CHECK(page->_mapcount == 5);
	rss_parent = parent->rss;
	rss_child = child->rss;

	lock_page(page);
	/* Young PTEs: refused (the first one's bit is cleared on the way: 2.6.23's second
	 * chance), the page stays mapped six times. */
	KT_CHECK(try_to_unmap(page, 0) == SWAP_FAIL && page->_mapcount == 5);
	KT_CHECK(page_referenced(page, 1) == 5);
	KT_CHECK(page_referenced(page, 1) == 0);
	ClearPageFlag(page, PG_dirty);
	ret = try_to_unmap(page, 0);
	KT_CHECK(ret == SWAP_SUCCESS);
	KT_CHECK(page->_mapcount == -1 && !page_mapped(page));
	for (int i = 0; i < 6; i++)
		KT_CHECK(pte_of(mms[i], where[i]) == 0);
	KT_CHECK(parent->rss == rss_parent - 3 && child->rss == rss_child - 3);
	KT_CHECK(PageFlag(page, PG_dirty)); /* the shared write's dirty bit reached the page */
	KT_CHECK(page_referenced(page, 1) == 0);
	unlock_page(page);
	KT_CHECK(page->mapping == f->f_inode->i_mapping); /* still in the page cache */

	/* The next access faults the same page back. */
	KT_CHECK(fault(child, F, false) == VM_FAULT_MINOR);
	KT_CHECK(page_at(child, F) == page && page->_mapcount == 0);
	KT_CHECK(page_referenced(page, 0) == 1);
out:
	if (child)
		mmput(child);
	if (parent)
		mmput(parent);
	if (f)
		fput(f); /* the inode and its pages go */
	KT_CHECK(nr_free_pages() >= before); /* (the slab may give a frame back too) */
}
