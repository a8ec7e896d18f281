/* File pages (mm/filemap.c): page locks and the fault() op of file mappings. */
#ifndef MM_FILEMAP_H
#define MM_FILEMAP_H

#include "mm/page.h"

struct vm_area_struct;
struct vm_fault;
struct vm_operations_struct;

/* Sleep until the page is unlocked, then lock it. */
void lock_page(struct page *page);
/* Unlock it and wake everyone waiting in lock_page. */
void unlock_page(struct page *page);

extern const struct vm_operations_struct generic_file_vm_ops;
int filemap_fault(struct vm_area_struct *vma, struct vm_fault *vmf);

#endif
