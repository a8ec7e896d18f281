/* Self-tests of the fault core on an address space built by hand (not current's): the zero
 * page, write faults, copy-on-write after dup_mm, reuse of a page mapped once, munmap giving
 * frames and page tables back, and stack growth limits. */
#include "kernel/arch/cpu.h"
#include "kernel/errno.h"
#include "kernel/test/ktest.h"
#include "tests/ktest/mm_helpers.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/uaccess.h"
#include "mm/anon.h"
#include "mm/fault.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/vma.h"

#define A 0x10000000UL /* where the tests map */

KTEST(anon_zero_page_then_write)
{
	unsigned long before = nr_free_pages();
	struct mm_struct *mm = mm_alloc();
	pte_t pte;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	KT_CHECK(do_mmap(mm, NULL, A, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0) == (long)A);
	KT_CHECK(pte_of(mm, A) == 0); /* mapping costs nothing */
	KT_CHECK(fault(mm, A, false) == VM_FAULT_MINOR);
	pte = pte_of(mm, A);
	KT_CHECK(pte_present(pte) && !pte_write(pte) && pte_pfn(pte) == page_to_pfn(zero_page));
	KT_CHECK(mm->rss == 0);
	/* A write to the zero page: do_wp_page gives a zeroed page of its own. */
	KT_CHECK(fault(mm, A, true) == VM_FAULT_WRITE);
	pte = pte_of(mm, A);
	KT_CHECK(pte_present(pte) && pte_write(pte) && pte_pfn(pte) != page_to_pfn(zero_page));
	KT_CHECK(mm->rss == 1);
	/* A first write goes straight to a new page. */
	KT_CHECK(fault(mm, A + PAGE_SIZE, true) == VM_FAULT_MINOR);
	KT_CHECK(pte_write(pte_of(mm, A + PAGE_SIZE)) && mm->rss == 2);
	/* Outside the VMA there is nothing to fault. */
	KT_CHECK(fault(mm, A + 4 * PAGE_SIZE, false) == -1);
	mmput(mm);
	KT_CHECK(nr_free_pages() == before);
}

KTEST(cow_after_dup_mm)
{
	unsigned long before = nr_free_pages();
	struct mm_struct *parent = mm_alloc(), *child;
	struct page *page;
	pte_t pp, cp;

	KT_CHECK(parent != NULL);
	if (!parent)
		return;
	do_mmap(parent, NULL, A, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	fault(parent, A, true);
	*(uint64_t *)__va(pte_of(parent, A) & PTE_PFN_MASK) = 0x1234;
	child = dup_mm(parent);
	KT_CHECK(child != NULL);
	if (!child) {
		mmput(parent);
		return;
	}
	pp = pte_of(parent, A);
	cp = pte_of(child, A);
	page = vm_normal_page(pp);
	/* Shared, read-only in both, one reference and one map count per PTE. */
	KT_CHECK(pte_pfn(pp) == pte_pfn(cp) && !pte_write(pp) && !pte_write(cp));
	KT_CHECK(page && page_count(page) == 2 && page->_mapcount == 1);
	/* The child writes: it gets a copy with the same contents; the parent keeps the old. */
	KT_CHECK(fault(child, A, true) == VM_FAULT_WRITE);
	cp = pte_of(child, A);
	KT_CHECK(pte_pfn(cp) != pte_pfn(pp) && pte_write(cp));
	KT_CHECK(*(uint64_t *)__va(cp & PTE_PFN_MASK) == 0x1234);
	KT_CHECK(page_count(page) == 1 && page->_mapcount == 0);
	/* Now the parent's page is mapped once: its write fault reuses it, no copy. */
	KT_CHECK(fault(parent, A, true) == VM_FAULT_WRITE);
	KT_CHECK(pte_pfn(pte_of(parent, A)) == page_to_pfn(page) && pte_write(pte_of(parent, A)));
	mmput(child);
	mmput(parent);
	KT_CHECK(nr_free_pages() == before);
}

KTEST(munmap_frees_pages_and_tables)
{
	unsigned long before = nr_free_pages(), tables;
	struct mm_struct *mm = mm_alloc();
	uint64_t far = A + (1UL << 30); /* its own PUD entry's range: its own tables */

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	tables = count_pt_pages(mm);
	do_mmap(mm, NULL, far, 8 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	for (int i = 0; i < 8; i++)
		fault(mm, far + i * PAGE_SIZE, true);
	KT_CHECK(mm->rss == 8 && count_pt_pages(mm) == tables + 3);
	/* A hole in the middle: two VMAs, the hole's frames back, the tables stay. */
	KT_CHECK(do_munmap(mm, far + 2 * PAGE_SIZE, 2 * PAGE_SIZE) == 0);
	KT_CHECK(mm->map_count == 2 && mm->rss == 6 && pte_of(mm, far + 2 * PAGE_SIZE) == 0);
	KT_CHECK(vma_verify(mm) == 0);
	/* Everything: the page-table pages go too. */
	KT_CHECK(do_munmap(mm, far, 8 * PAGE_SIZE) == 0);
	KT_CHECK(mm->map_count == 0 && mm->rss == 0 && count_pt_pages(mm) == tables);
	KT_CHECK(do_munmap(mm, far + 1, PAGE_SIZE) == -EINVAL);
	mmput(mm);
	KT_CHECK(nr_free_pages() == before);
}

KTEST(stack_growth_limits)
{
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *stack;
	uint64_t top = 0x7fff00000000UL;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	do_mmap(mm, NULL, top - PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, 0);
	stack = find_vma(mm, top - PAGE_SIZE);
	KT_CHECK(stack && (stack->vm_flags & VM_GROWSDOWN));
	if (!stack) {
		mmput(mm);
		return;
	}
	KT_CHECK(expand_stack(stack, top - 5 * PAGE_SIZE) == 0);
	KT_CHECK(stack->vm_start == top - 5 * PAGE_SIZE);
	KT_CHECK(expand_stack(stack, top - STACK_LIMIT - PAGE_SIZE) == -ENOMEM);
	/* A mapping just below: the guard gap stops the stack short of it. */
	do_mmap(mm, NULL, top - (1UL << 20) - 16 * PAGE_SIZE, PAGE_SIZE, PROT_READ,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	KT_CHECK(expand_stack(stack, top - (1UL << 20)) == -ENOMEM);
	KT_CHECK(vma_verify(mm) == 0);
	mmput(mm);
}

/* kcheck sees a map count that disagrees with the page tables (and is quiet otherwise). */
KTEST(kcheck_finds_a_bad_map_count)
{
	struct mm_struct *mm = mm_alloc();
	struct page *page;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	do_mmap(mm, NULL, A, PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	fault(mm, A, true);
	page = vm_normal_page(pte_of(mm, A));
	KT_CHECK(page != NULL);
	if (!page) {
		mmput(mm);
		return;
	}
	current->mm = mm; /* kcheck walks the address spaces of tasks */
	KT_CHECK(kcheck() == 0);
	page->_mapcount++;
	KT_CHECK(kcheck() >= 1);
	page->_mapcount--;
	KT_CHECK(kcheck() == 0);
	current->mm = NULL;
	mmput(mm);
}

/* kcheck passes over a free buddy block in one step: a PTE that maps a frame inside one (not
 * its head) must still be reported, and nothing once the PTE is gone. */
KTEST(kcheck_finds_a_mapped_frame_in_a_free_block)
{
	struct mm_struct *mm = mm_alloc();
	struct page *block = alloc_pages(GFP_KERNEL, 9);
	pte_t *pte = NULL;

	KT_CHECK(mm != NULL && block != NULL);
	if (mm && block) {
		/* two pages, the first faulted in: the second's PTE is in the same table */
		do_mmap(mm, NULL, A, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
		fault(mm, A, true);
		pte = walk_page_table(mm->pgd, A + PAGE_SIZE, false);
		KT_CHECK(pte && !pte_present(*pte));
	}
	if (block)
		__free_pages(block, 9); /* a free block of order 9 or more from here on */
	if (pte && !pte_present(*pte)) {
		current->mm = mm;
		KT_CHECK(kcheck() == 0);
		*pte = pfn_pte(page_to_pfn(block) + 77, vm_get_page_prot(VM_READ));
		KT_CHECK(kcheck() >= 1);
		*pte = 0;
		KT_CHECK(kcheck() == 0);
		current->mm = NULL;
	}
	if (mm)
		mmput(mm);
}

static void read_user(void *p)
{
	(void)*(volatile uint64_t *)p;
}

/* With SMAP (CPUID leaf 7, e.g. QEMU -cpu max) the kernel cannot touch a user page directly:
 * only copy_from_user, between stac and clac, can. Without SMAP both work. */
KTEST(smap_user_access_only_through_uaccess)
{
	struct mm_struct *mm = mm_alloc();
	struct fault_catch fc;
	uint64_t v = 1, old_cr3 = read_cr3();

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	do_mmap(mm, NULL, A, PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	fault(mm, A, true);
	current->mm = mm;
	write_cr3(__pa(mm->pgd));
	KT_CHECK(copy_from_user(&v, A, sizeof(v)) == 0 && v == 0);
	if (smap_enabled) {
		KT_CHECK(fault_catch_call(read_user, (void *)A, &fc) == 1);
		KT_CHECK(fc.vector == X86_TRAP_PF && (fc.error_code & PF_PROT) && fc.cr2 == A);
	} else {
		KT_CHECK(fault_catch_call(read_user, (void *)A, &fc) == 0);
	}
	write_cr3(old_cr3);
	current->mm = NULL;
	mmput(mm);
}
