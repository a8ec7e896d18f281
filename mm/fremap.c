/* remap_file_pages: make a shared file mapping nonlinear, its pages in any order of the
 * file, without a VMA per run of pages (Linux 2.6.23's mm/fremap.c). Each rearranged page's
 * PTE becomes a file PTE holding its file offset; the fault reads the offset from there. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/vma.h"

#define MAP_NONBLOCK 0x10000 /* do not fault the pages in now */

/* Point the PTE at address to file page pgoff: drop what is mapped there now. */
static int install_file_pte(struct mm_struct *mm, uint64_t address, unsigned long pgoff)
{
	struct page *page;
	pte_t *pte;

	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, address, true);
	if (!pte) {
		spin_unlock(&mm->page_table_lock);
		return -ENOMEM;
	}
	page = vm_normal_page(*pte);
	*pte = pgoff_to_pte(pgoff);
	flush_tlb_mm_range(mm, address, address + PAGE_SIZE); /* before the page can be freed */
	if (page) {
		page_remove_rmap(page);
		put_page(page);
		mm->rss--;
	}
	spin_unlock(&mm->page_table_lock);
	return 0;
}

static long do_remap_file_pages_locked(uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
			  uint64_t flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct address_space *mapping;
	uint64_t end = start + size;

	if (prot || (start & ~PAGE_MASK) || (size & ~PAGE_MASK) || !size || end < start)
		return -EINVAL;
	if (flags & ~(uint64_t)MAP_NONBLOCK)
		return -EINVAL;
	/* The file offsets must fit in a file PTE. */
	if (pgoff + (size >> PAGE_SHIFT) < pgoff || pgoff + (size >> PAGE_SHIFT) >
	    (1UL << PTE_FILE_MAX_BITS))
		return -EINVAL;
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start > start || end > vma->vm_end)
		return -EINVAL; /* the range must lie inside one VMA */
	if (!(vma->vm_flags & VM_SHARED) || !(vma->vm_flags & VM_CAN_NONLINEAR) || !vma->vm_file)
		return -EINVAL; /* shared file mappings whose op takes any pgoff, only */
	/* Already where a linear mapping puts it: nothing to do. */
	if (!(vma->vm_flags & VM_NONLINEAR) &&
	    pgoff == linear_page_index(vma, start))
		return 0;
	if (!(vma->vm_flags & VM_NONLINEAR)) {
		mapping = vma->vm_file->f_inode->i_mapping;
		vma->vm_flags |= VM_NONLINEAR;
		list_del(&vma->shared);
		list_add_tail(&vma->shared, &mapping->i_mmap_nonlinear);
	}
	for (uint64_t a = start; a < end; a += PAGE_SIZE)
		if (install_file_pte(mm, a, pgoff + ((a - start) >> PAGE_SHIFT)))
			return -ENOMEM;
	/* Prefault (read faults), as 2.6.23 did; errors stay for the access. Not in a PROT_NONE
	 * VMA: 2.6.23's make_pages_present faults nothing in there, the file PTEs stay, and a
	 * page installed with its vm_page_prot of 0 would be a frame in a non-present PTE. */
	if (!(flags & MAP_NONBLOCK) && (vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		for (uint64_t a = start; a < end; a += PAGE_SIZE)
			if (handle_mm_fault(mm, vma, a, 0, NULL) & VM_FAULT_OOM)
				return -ENOMEM;
	return 0;
}

long sys_remap_file_pages(uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
			  uint64_t flags)
{
	return mmap_write_locked(current->mm,
				 do_remap_file_pages_locked(start, size, prot, pgoff, flags));
}
