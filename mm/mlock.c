/* mlock, mlock2, munlock, mlockall, munlockall: VM_LOCKED on a range's VMAs, their pages
 * faulted in at once (or, with MLOCK_ONFAULT, as they are touched). Nothing reclaims pages
 * yet, so a lock changes nothing more today. RLIMIT_MEMLOCK bounds the bytes locked (EPERM
 * when it is 0, ENOMEM past it) unless the task has CAP_IPC_LOCK, as on Linux. */
#include "kernel/errno.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/vma.h"

#define MLOCK_ONFAULT 0x01
#define MCL_CURRENT 1
#define MCL_FUTURE 2
#define MCL_ONFAULT 4

/* Set (lock) or clear the lock flags on [start, end), which must be mapped without holes
 * (-ENOMEM); fault the pages in when locking without VM_LOCKONFAULT. */
static long apply_vma_lock_flags(uint64_t start, uint64_t end, unsigned long lock)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	for (uint64_t a = start; a < end; a = vma->vm_end) {
		vma = find_vma(mm, a);
		if (!vma || vma->vm_start > a)
			return -ENOMEM;
	}
	for (uint64_t a = start, next; a < end; a = next) {
		unsigned long flags;

		vma = find_vma(mm, a);
		next = MIN(end, vma->vm_end);
		flags = (vma->vm_flags & ~(VM_LOCKED | VM_LOCKONFAULT)) | lock;
		vma = vma_modify_flags(mm, vma, a, next, flags);
		if (!vma)
			return -ENOMEM;
		if ((lock & VM_LOCKED) && !(lock & VM_LOCKONFAULT) &&
		    !(vma->vm_flags & (VM_PFNMAP | VM_IO)) && make_pages_present(mm, vma, a, next))
			return -ENOMEM;
	}
	return 0;
}

/* The page-aligned range an mlock call covers: -EINVAL if it wraps. */
static long lock_range(uint64_t addr, uint64_t len, uint64_t *start, uint64_t *end)
{
	*start = ALIGN_DOWN(addr, PAGE_SIZE);
	*end = ALIGN_UP(addr + len, PAGE_SIZE);
	if (addr + len < addr || *end < *start)
		return -EINVAL;
	if (*end > USER_TOP)
		return -ENOMEM;
	return 0;
}

static long do_mlock2_locked(uint64_t addr, uint64_t len, uint64_t flags)
{
	uint64_t start, end;
	long err;

	if (flags & ~(uint64_t)MLOCK_ONFAULT)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	err = lock_range(addr, len, &start, &end);
	if (err)
		return err;
	/* What is locked already within the range is not counted twice. */
	if (!capable(CAP_IPC_LOCK) &&
	    mm_locked_bytes(current->mm, 0, ~0UL) + (end - start) -
			    mm_locked_bytes(current->mm, start, end) > rlimit(RLIMIT_MEMLOCK))
		return -ENOMEM;
	return apply_vma_lock_flags(start, end,
				    VM_LOCKED | ((flags & MLOCK_ONFAULT) ? VM_LOCKONFAULT : 0));
}

long sys_mlock2(uint64_t addr, uint64_t len, uint64_t flags)
{
	return mmap_write_locked(current->mm, do_mlock2_locked(addr, len, flags));
}

long sys_mlock(uint64_t addr, uint64_t len)
{
	return sys_mlock2(addr, len, 0);
}

static long do_munlock_locked(uint64_t addr, uint64_t len)
{
	uint64_t start, end;
	long err = lock_range(addr, len, &start, &end);

	return err ? err : apply_vma_lock_flags(start, end, 0);
}

long sys_munlock(uint64_t addr, uint64_t len)
{
	return mmap_write_locked(current->mm, do_munlock_locked(addr, len));
}

/* mlockall: MCL_CURRENT locks every VMA now, MCL_FUTURE every one made later (do_mmap adds
 * mm->def_flags); MCL_ONFAULT makes either lock as pages fault in. */
static long do_mlockall_locked(uint64_t flags)
{
	struct mm_struct *mm = current->mm;
	unsigned long lock = VM_LOCKED | ((flags & MCL_ONFAULT) ? VM_LOCKONFAULT : 0);
	struct vm_area_struct *vma;

	if (!flags || (flags & ~(uint64_t)(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
	    flags == MCL_ONFAULT)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	if ((flags & MCL_CURRENT) && !capable(CAP_IPC_LOCK)) {
		uint64_t total = 0;

		list_for_each_entry(vma, &mm->mmap, vm_list)
			total += vma->vm_end - vma->vm_start;
		if (total > rlimit(RLIMIT_MEMLOCK))
			return -ENOMEM;
	}
	mm->def_flags = (flags & MCL_FUTURE) ? lock : 0;
	if (!(flags & MCL_CURRENT))
		return 0;
	for (uint64_t a = 0, end; (vma = find_vma(mm, a)); a = end) {
		end = vma->vm_end; /* (vma itself may be merged away) */
		if (apply_vma_lock_flags(vma->vm_start, end, lock))
			return -ENOMEM;
	}
	return 0;
}

long sys_mlockall(uint64_t flags)
{
	return mmap_write_locked(current->mm, do_mlockall_locked(flags));
}

static long do_munlockall_locked(void)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	mm->def_flags = 0;
	for (uint64_t a = 0, end; (vma = find_vma(mm, a)); a = end) {
		end = vma->vm_end;
		if (apply_vma_lock_flags(vma->vm_start, end, 0))
			return -ENOMEM;
	}
	return 0;
}

long sys_munlockall(void)
{
	return mmap_write_locked(current->mm, do_munlockall_locked());
}
