/* File pages for mappings. Until the page-cache issue (5) there is no cache: each fault
 * copies the page from the ramdisk into a new frame, which is a major fault (I/O), and only
 * private or read-only mappings exist, since every file is read-only so far. */
#include "kernel/file.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/vma.h"

/* One queue for every page lock (Linux hashes pages over a table of queues): a waiter
 * re-checks its own page after each wake-up. */
static struct wait_queue_head page_wait = { LIST_HEAD_INIT(page_wait.task_list) };

void lock_page(struct page *page)
{
	struct wait_queue_entry w;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&page_wait, &w, TASK_UNINTERRUPTIBLE);
		if (!PageLocked(page))
			break;
		schedule();
	}
	finish_wait(&page_wait, &w);
	SetPageFlag(page, PG_locked);
}

void unlock_page(struct page *page)
{
	ClearPageFlag(page, PG_locked);
	wake_up(&page_wait);
}

/*
 * The fault() op of a file mapping: page vmf->pgoff of the file. Past the end of the file
 * (pgoff >= ceil(i_size / PAGE_SIZE)) is SIGBUS; the part of the last page past i_size reads
 * as zeroes. Returns the page locked, with one reference for the caller.
 */
int filemap_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct inode *ino = vma->vm_file->f_inode;
	uint64_t size = ino->i_size, off = (uint64_t)vmf->pgoff << PAGE_SHIFT;
	struct page *page;

	if (off >= ALIGN_UP(size, PAGE_SIZE))
		return VM_FAULT_SIGBUS;
	page = alloc_page(0);
	if (!page)
		return VM_FAULT_OOM;
	SetPageFlag(page, PG_locked);
	memcpy(page_address(page), ino->i_data + off, MIN(PAGE_SIZE, size - off));
	if (size - off < PAGE_SIZE)
		memset((uint8_t *)page_address(page) + (size - off), 0, PAGE_SIZE - (size - off));
	SetPageFlag(page, PG_uptodate);
	vmf->page = page;
	return VM_FAULT_MAJOR | VM_FAULT_LOCKED;
}

/* Each VMA of a file holds a reference to its struct file (split and fork call open). */
static void filemap_vma_open(struct vm_area_struct *vma)
{
	get_file(vma->vm_file);
}

static void filemap_vma_close(struct vm_area_struct *vma)
{
	fput(vma->vm_file);
}

const struct vm_operations_struct generic_file_vm_ops = {
	.open = filemap_vma_open,
	.close = filemap_vma_close,
	.fault = filemap_fault,
	.name = "file",
};
