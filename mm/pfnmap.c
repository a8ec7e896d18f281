/* Device memory (a framebuffer, /dev/kmsgbuf): frames with no struct page the allocator owns.
 * The fault() op computes the frame from pgoff and installs the PTE itself, returning
 * VM_FAULT_NOPAGE, so __do_fault never sees a page; vm_normal_page() returns NULL for these
 * PTEs, so fork, munmap and exit never touch a reference or map count for them. */
#include "kernel/errno.h"
#include "kernel/file.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/pfnmap.h"
#include "mm/vma.h"

/* Map frame pfn through pte, an entry of vma's page tables. */
static int insert_pfn(struct vm_area_struct *vma, pte_t *pte, uint64_t pfn)
{
	const struct device_ops *dev = vma->vm_private_data;

	if (!pte)
		return -ENOMEM;
	if (!pte_none(*pte))
		return 0; /* filled meanwhile: nothing to do */
	*pte = pfn_pte(pfn, vma->vm_page_prot | dev->pte_cache) | _PAGE_ACCESSED;
	/* (No TLB flush: x86 caches no translation for a PTE that was not present.) */
	return 0;
}

int vm_insert_pfn(struct vm_area_struct *vma, uint64_t addr, uint64_t pfn)
{
	return insert_pfn(vma, walk_page_table(vma->vm_mm->pgd, ALIGN_DOWN(addr, PAGE_SIZE), true),
			  pfn);
}

/* From a fault, the PTE was just found: walking the four levels again cost ~90 of the ~640
 * guest instructions of a device fault (make bench, device_nopage_read). */
int vmf_insert_pfn(struct vm_area_struct *vma, struct vm_fault *vmf, uint64_t pfn)
{
	if (vmf->pte)
		return insert_pfn(vma, vmf->pte, pfn);
	return vm_insert_pfn(vma, (uint64_t)vmf->virtual_address, pfn);
}

static int pfnmap_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	const struct device_ops *dev = vma->vm_private_data;

	if (((uint64_t)vmf->pgoff << PAGE_SHIFT) >= dev->size)
		return VM_FAULT_SIGBUS;
	if (vmf_insert_pfn(vma, vmf, (dev->phys >> PAGE_SHIFT) + vmf->pgoff))
		return VM_FAULT_OOM;
	return VM_FAULT_NOPAGE;
}

/* Count the VMAs mapping each device, so it knows when user space owns its memory. */
static int nr_mapped_fb; /* only one device cares today: the framebuffer console */

static void pfnmap_open(struct vm_area_struct *vma)
{
	const struct device_ops *dev = vma->vm_private_data;

	get_file(vma->vm_file);
	if (dev->mapped && nr_mapped_fb++ == 0)
		dev->mapped(true);
}

static void pfnmap_close(struct vm_area_struct *vma)
{
	const struct device_ops *dev = vma->vm_private_data;

	if (dev->mapped && --nr_mapped_fb == 0)
		dev->mapped(false);
	fput(vma->vm_file);
}

/* No VM_CAN_NONLINEAR: this op uses the address, not only pgoff, so remap_file_pages
 * cannot rearrange its pages. */
const struct vm_operations_struct pfnmap_vm_ops = {
	.open = pfnmap_open,
	.close = pfnmap_close,
	.fault = pfnmap_fault,
	.name = "device",
};
