/* mincore: which pages of a range are in memory, one byte each (bit 0). A mapped page is; an
 * unmapped page of a file mapping is if the file's page is in the page cache (Linux asks the
 * cache too, so a page another process read counts); an untouched anonymous page is not. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/uaccess.h"
#include "mm/swap.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "kernel/syscalls.h"
#include "mm/vma.h"

/* Is page pgoff of vma's file in the page cache? */
static bool in_page_cache(struct vm_area_struct *vma, unsigned long pgoff)
{
	struct page *page;

	if (!vma->vm_file || !vma->vm_file->f_inode->i_mapping)
		return false;
	page = find_get_page(vma->vm_file->f_inode->i_mapping, pgoff);
	if (page)
		put_page(page);
	return page != NULL;
}

static uint8_t page_incore(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t addr)
{
	pte_t *ptep = walk_page_table(mm->pgd, addr, false);
	pte_t pte = ptep ? *ptep : 0;

	if (pte_present(pte))
		return 1;
	if (is_swap_pte(pte)) { /* swapped out: in core while the swap cache still has it */
		struct page *page = lookup_swap_cache(pte_to_swp_entry(pte));

		if (page)
			put_page(page);
		return page != NULL;
	}
	if (pte_file(pte)) /* a nonlinear mapping's page, not mapped now */
		return in_page_cache(vma, pte_to_pgoff(pte));
	if (vma->vm_flags & (VM_PFNMAP | VM_IO))
		return 0;
	return in_page_cache(vma, linear_page_index(vma, addr));
}

long sys_mincore(uint64_t start, uint64_t len, uint64_t uvec)
{
	struct mm_struct *mm = current->mm;
	uint64_t pages = ALIGN_UP(len, PAGE_SIZE) / PAGE_SIZE;
	uint8_t chunk[256];

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!access_ok(start, len))
		return -ENOMEM;
	if (!access_ok(uvec, pages))
		return -EFAULT;
	/* As Linux: a chunk at a time is gathered under mmap_sem into a kernel buffer, and
	 * copied out after up_read, since the copy may fault and the fault takes mmap_sem. */
	for (uint64_t done = 0; done < pages;) {
		uint64_t n = MIN(pages - done, sizeof(chunk)), i;

		down_read(&mm->mmap_sem);
		for (i = 0; i < n; i++) {
			uint64_t addr = start + (done + i) * PAGE_SIZE;
			struct vm_area_struct *vma = find_vma(mm, addr);

			if (!vma || vma->vm_start > addr) /* a hole: what came before is written */
				break;
			chunk[i] = page_incore(mm, vma, addr);
		}
		up_read(&mm->mmap_sem);
		if (i < n)
			return copy_to_user(uvec + done, chunk, i) ? -EFAULT : -ENOMEM;
		if (copy_to_user(uvec + done, chunk, n))
			return -EFAULT;
		done += n;
	}
	return 0;
}
