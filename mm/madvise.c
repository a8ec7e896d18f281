/* madvise: advice on a range, with Linux's answers. DONTNEED and FREE drop the pages (anonymous
 * memory then reads back as zeroes, a file mapping as the file); REMOVE punches a hole in
 * shmem; DONTFORK/DOFORK and
 * WIPEONFORK/KEEPONFORK set what fork does with the VMA; WILLNEED and POPULATE_* fault pages
 * in; the hints faultline has no use for are accepted; the rest is -EINVAL. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/sched/sched.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "kernel/syscalls.h"
#include "mm/vma.h"

enum {
	MADV_NORMAL = 0, MADV_RANDOM = 1, MADV_SEQUENTIAL = 2, MADV_WILLNEED = 3,
	MADV_DONTNEED = 4, MADV_FREE = 8, MADV_REMOVE = 9, MADV_DONTFORK = 10, MADV_DOFORK = 11,
	MADV_MERGEABLE = 12, MADV_UNMERGEABLE = 13, MADV_HUGEPAGE = 14, MADV_NOHUGEPAGE = 15,
	MADV_DONTDUMP = 16, MADV_DODUMP = 17, MADV_WIPEONFORK = 18, MADV_KEEPONFORK = 19,
	MADV_COLD = 20, MADV_PAGEOUT = 21, MADV_POPULATE_READ = 22, MADV_POPULATE_WRITE = 23,
};

#define VM_SPECIAL (VM_PFNMAP | VM_IO)

/* Advice that only changes the VMA's flags: the flags it sets and clears, 0/0 if none. */
static bool flag_advice(uint64_t advice, unsigned long *set, unsigned long *clear)
{
	*set = *clear = 0;
	switch (advice) {
	case MADV_NORMAL: *clear = VM_SEQ_READ | VM_RAND_READ; return true;
	case MADV_RANDOM: *set = VM_RAND_READ, *clear = VM_SEQ_READ; return true;
	case MADV_SEQUENTIAL: *set = VM_SEQ_READ, *clear = VM_RAND_READ; return true;
	case MADV_DONTFORK: *set = VM_DONTCOPY; return true;
	case MADV_DOFORK: *clear = VM_DONTCOPY; return true;
	case MADV_WIPEONFORK: *set = VM_WIPEONFORK; return true;
	case MADV_KEEPONFORK: *clear = VM_WIPEONFORK; return true;
	}
	return false;
}

/* Is advice something this VMA may be given? -EINVAL where Linux refuses it. */
static long advice_allowed(const struct vm_area_struct *vma, uint64_t advice)
{
	bool anon_private = !vma->vm_file && !(vma->vm_flags & VM_SHARED);

	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
		if (vma->vm_flags & (VM_LOCKED | VM_SPECIAL))
			return -EINVAL;
		return advice == MADV_FREE && !anon_private ? -EINVAL : 0;
	case MADV_WIPEONFORK:
		return anon_private ? 0 : -EINVAL;
	case MADV_DONTFORK:
		return (vma->vm_flags & VM_IO) ? -EINVAL : 0;
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return (vma->vm_flags & VM_SPECIAL) ? -EINVAL : 0;
	case MADV_REMOVE:
		/* Only shared memory of a file system that punches holes (shmem). */
		if (vma->vm_flags & VM_LOCKED)
			return -EINVAL;
		return !(vma->vm_flags & VM_SHARED) ? -EINVAL : 0;
	}
	return 0;
}

static bool known_advice(uint64_t advice)
{
	unsigned long s, c;

	return flag_advice(advice, &s, &c) || advice == MADV_WILLNEED ||
	       advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE ||
	       (advice >= MADV_MERGEABLE && advice <= MADV_DODUMP) ||
	       (advice >= MADV_COLD && advice <= MADV_POPULATE_WRITE);
}

/*
 * MADV_REMOVE (Linux 2.6.23's madvise_remove): the file pages behind [start, end) go from
 * the file itself, through its inode's truncate_range op, so every sharer then reads zeroes.
 * A file whose inode cannot punch holes is -EOPNOTSUPP; one not open for writing, -EACCES.
 */
static long madvise_remove(struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	struct inode *inode = vma->vm_file ? vma->vm_file->f_inode : NULL;
	unsigned long first = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT);

	if (!inode || !inode->i_mapping || (vma->vm_flags & VM_NONLINEAR))
		return -EINVAL;
	if (!(vma->vm_flags & VM_MAYWRITE))
		return -EACCES;
	if (!inode->i_op || !inode->i_op->truncate_range)
		return -EOPNOTSUPP;
	inode->i_op->truncate_range(inode, first, first + ((end - start) >> PAGE_SHIFT));
	return 0;
}

static long madvise_vma(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t start,
			uint64_t end, uint64_t advice)
{
	unsigned long set, clear;
	long err = advice_allowed(vma, advice);

	if (err)
		return err;
	if (flag_advice(advice, &set, &clear))
		return vma_modify_flags(mm, vma, start, end, (vma->vm_flags & ~clear) | set) ?
			       0 : -ENOMEM;
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE: /* freed at once: Linux may keep them until memory is short */
		zap_page_range(mm, start, end);
		return 0;
	case MADV_REMOVE:
		return madvise_remove(vma, start, end);
	case MADV_WILLNEED:
		return vma->vm_file && !(vma->vm_flags & VM_SPECIAL) ?
			       make_pages_present(mm, vma, start, end) : 0;
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		if (advice == MADV_POPULATE_WRITE && !(vma->vm_flags & VM_WRITE))
			return -EFAULT;
		if (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
			return -EFAULT; /* PROT_NONE: no page can be faulted in */
		return make_pages_present(mm, vma, start, end);
	}
	return 0; /* a hint faultline has no use for */
}

static long do_madvise_locked(uint64_t start, uint64_t len, uint64_t advice)
{
	struct mm_struct *mm = current->mm;
	uint64_t end = start + ALIGN_UP(len, PAGE_SIZE);
	long err = 0;

	if (!known_advice(advice))
		return -EINVAL;
	if ((start & ~PAGE_MASK) || (len && end == start) || end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	/* As Linux: the advice goes to every VMA of the range; a hole makes it -ENOMEM. */
	for (uint64_t a = start, next; a < end; a = next) {
		struct vm_area_struct *vma = find_vma(mm, a);
		long r;

		if (!vma || vma->vm_start >= end)
			return -ENOMEM;
		if (vma->vm_start > a) {
			err = -ENOMEM;
			a = vma->vm_start;
		}
		next = MIN(end, vma->vm_end);
		r = madvise_vma(mm, vma, a, next, advice);
		if (r)
			return r;
	}
	return err;
}

long sys_madvise(uint64_t start, uint64_t len, uint64_t advice)
{
	return mmap_write_locked(current->mm, do_madvise_locked(start, len, advice));
}
