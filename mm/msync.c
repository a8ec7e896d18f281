/* msync: MS_SYNC writes the file pages of each shared file mapping in the range to their store
 * and waits (today's Linux: vfs_fsync_range of that part of the file); MS_ASYNC has nothing to
 * start, as stores already marked their pages dirty for the periodic writeback. Linux's checking
 * of the call: the flags, the alignment, the range mapped, and MS_INVALIDATE on locked pages. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/mm_types.h"
#include "kernel/syscalls.h"
#include "mm/vma.h"

#define MS_ASYNC 1
#define MS_INVALIDATE 2
#define MS_SYNC 4

/* The bytes of vma's file that [start, end) (inside it) maps, written and waited for, and the
 * writeback error of the file since the mapping's open file last asked (today's Linux's
 * vfs_fsync_range on vm_file: an fsync through the same open file has heard of it then). */
static int msync_vma(struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	uint64_t fstart = ((uint64_t)vma->vm_pgoff << PAGE_SHIFT) + (start - vma->vm_start);

	/* A nonlinear VMA maps any page of the file anywhere: all of it (Linux's whole fsync). */
	if (vma->vm_flags & VM_NONLINEAR)
		return file_write_and_wait_range(vma->vm_file, 0, ~0ULL);
	return file_write_and_wait_range(vma->vm_file, fstart, fstart + (end - start) - 1);
}

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
	/* Every VMA in the range is looked at; a hole anywhere makes the answer -ENOMEM. A
	 * write error ends the call with it (the later VMAs are not written). mmap_sem stays
	 * held while the writes sleep: the VMAs cannot change under the walk. */
	for (uint64_t a = start; a < end;) {
		struct vm_area_struct *vma = find_vma(mm, a);
		uint64_t to;

		if (!vma || vma->vm_start >= end)
			return -ENOMEM;
		if (vma->vm_start > a) {
			if (flags == MS_SYNC)
				return -ENOMEM; /* Linux's: nothing more is written */
			err = -ENOMEM;
			a = vma->vm_start;
		}
		if ((flags & MS_INVALIDATE) && (vma->vm_flags & VM_LOCKED))
			return -EBUSY;
		to = MIN(end, vma->vm_end);
		if ((flags & MS_SYNC) && vma->vm_file && (vma->vm_flags & VM_SHARED)) {
			int r = msync_vma(vma, a, to);

			if (r)
				return r;
		}
		a = to;
	}
	return err;
}

long sys_msync(uint64_t start, uint64_t len, uint64_t flags)
{
	return mmap_write_locked(current->mm, do_msync_locked(start, len, flags));
}
