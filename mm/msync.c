/* msync: the page cache is the only copy of a file here (nothing is written back to the
 * ramdisk), so MS_SYNC and MS_ASYNC have nothing to wait for; what is left is Linux's checking
 * of the call: the flags, the alignment, the range mapped, and MS_INVALIDATE on locked pages. */
#include "kernel/errno.h"
#include "kernel/sched/sched.h"
#include "mm/mm_types.h"
#include "kernel/syscalls.h"
#include "mm/vma.h"

#define MS_ASYNC 1
#define MS_INVALIDATE 2
#define MS_SYNC 4

static long do_msync_locked(uint64_t start, uint64_t len, uint64_t flags)
{
	struct mm_struct *mm = current->mm;
	uint64_t end;
	long err = 0;

	if (flags & ~(uint64_t)(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	end = start + ALIGN_UP(len, PAGE_SIZE);
	if (end < start)
		return -ENOMEM;
	/* Every VMA in the range is looked at; a hole anywhere makes the answer -ENOMEM. */
	for (uint64_t a = start; a < end;) {
		struct vm_area_struct *vma = find_vma(mm, a);

		if (!vma || vma->vm_start >= end)
			return -ENOMEM;
		if (vma->vm_start > a)
			err = -ENOMEM;
		if ((flags & MS_INVALIDATE) && (vma->vm_flags & VM_LOCKED))
			return -EBUSY;
		a = vma->vm_end;
	}
	return err;
}

long sys_msync(uint64_t start, uint64_t len, uint64_t flags)
{
	return mmap_write_locked(current->mm, do_msync_locked(start, len, flags));
}
