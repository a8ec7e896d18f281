/* Lab fault_lock (docs/exercises.md): filemap_fault that returns its page unlocked. Built in
 * by `make EXERCISE=fault_lock`, it replaces the real one in mm/filemap.c. Write your code here. */
#include "kernel/fs/fdtable.h"
#include "mm/filemap.h"
#include "mm/vma.h"
#include "mm/vmstat.h"

int filemap_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct address_space *mapping = vma->vm_file->f_inode->i_mapping;
	struct inode *ino = mapping->host;
	struct page *page;
	bool major;

	if (vmf->pgoff >= ALIGN_UP(ino->i_size, PAGE_SIZE) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = find_or_read_page(vma->vm_file, mapping, vmf->pgoff, &major);
	if (!page)
		return VM_FAULT_OOM;
	/* Return the page locked (VM_FAULT_LOCKED), still in the page cache and inside i_size,
	 * both checked under the lock. As it is, this is nopage() again: __do_fault locks the
	 * page itself, too late. */
	vmf->page = page;
	if (major)
		count_vm_event(PGMAJFAULT); /* /proc/vmstat's count: the fault op's to keep */
	return major ? VM_FAULT_MAJOR : 0;
}
