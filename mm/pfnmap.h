/* Device memory mappings (mm/pfnmap.c): VM_PFNMAP VMAs whose fault() installs the PTE itself. */
#ifndef MM_PFNMAP_H
#define MM_PFNMAP_H

#include "kernel/compiler.h"

struct vm_area_struct;
struct vm_fault;

/* Map frame pfn at addr of vma (a VM_PFNMAP VMA) with its vm_page_prot: 0 or -ENOMEM. */
int vm_insert_pfn(struct vm_area_struct *vma, uint64_t addr, uint64_t pfn);
/* The same from a fault() op: through vmf->pte, the entry the fault path found, when set. */
int vmf_insert_pfn(struct vm_area_struct *vma, struct vm_fault *vmf, uint64_t pfn);

#endif
