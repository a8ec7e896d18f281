/* Device memory (a framebuffer, /dev/kmsgbuf): frames with no struct page the allocator owns.
 * A driver's fault() op computes the frame and installs the PTE with vmf_insert_pfn,
 * returning VM_FAULT_NOPAGE, so __do_fault never sees a page; vm_normal_page() returns NULL
 * for these PTEs, so fork, munmap and exit never touch a reference or map count for them. */
#include "kernel/errno.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/pfnmap.h"
#include "mm/vma.h"

/* Map frame pfn through pte, an entry of vma's page tables, with the VMA's protection (which
 * carries the device's caching bits, set by the driver's mmap). */
static int insert_pfn(struct vm_area_struct *vma, pte_t *pte, uint64_t pfn)
{
	if (!pte)
		return -ENOMEM;
	if (!pte_none(*pte))
		return 0; /* filled meanwhile: nothing to do */
	*pte = pfn_pte(pfn, vma->vm_page_prot) | _PAGE_ACCESSED;
	/* (No TLB flush: x86 caches no translation for a PTE that was not present.) */
	return 0;
}

int vm_insert_pfn(struct vm_area_struct *vma, uint64_t addr, uint64_t pfn)
{
	return insert_pfn(vma, walk_page_table(vma->vm_mm->pgd, ALIGN_DOWN(addr, PAGE_SIZE), true),
			  pfn);
}

/* From a fault, the PTE was just found: it is used, not walked for again through the four
 * levels on every device fault (docs/bench.md, "Design choices, measured"). */
int vmf_insert_pfn(struct vm_area_struct *vma, struct vm_fault *vmf, uint64_t pfn)
{
	if (vmf->pte)
		return insert_pfn(vma, vmf->pte, pfn);
	return vm_insert_pfn(vma, (uint64_t)vmf->virtual_address, pfn);
}
