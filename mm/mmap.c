/* The address-space calls, on VMAs, as Linux's mm/mmap.c has them: mmap (anonymous, shared
 * anonymous through shmem, or a file), munmap, brk (mremap has mm/mremap.c). Nothing is mapped
 * here: pages arrive through faults (except with MAP_POPULATE or a lock). mprotect and madvise
 * have files of their own. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/process/personality.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/shmem.h"
#include "mm/vma.h"

#define HEAP_MAX (1UL << 32) /* a heap larger than 4 GiB is refused */
/* The lowest address a mapping, or a stack growing down, may reach: pages below it stay
 * unmapped so that a NULL pointer (plus an offset) always faults. Linux's default on Debian;
 * faultline has no CAP_SYS_RAWIO to let a process below it. */
const unsigned long mmap_min_addr = 0x10000;

unsigned long calc_vm_flags(uint64_t prot, uint64_t flags)
{
	unsigned long vm = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;

	if (prot & PROT_READ)
		vm |= VM_READ;
	if (prot & PROT_WRITE)
		vm |= VM_WRITE;
	if (prot & PROT_EXEC)
		vm |= VM_EXEC;
	if (flags & MAP_SHARED)
		vm |= VM_SHARED | VM_MAYSHARE;
	if (flags & MAP_GROWSDOWN)
		vm |= VM_GROWSDOWN;
	if (flags & MAP_LOCKED)
		vm |= VM_LOCKED;
	return vm;
}

/* The highest free range of len bytes inside [low, high), or 0 if there is none. */
static uint64_t unmapped_area_topdown(struct mm_struct *mm, uint64_t len, uint64_t low,
				      uint64_t high)
{
	struct vm_area_struct *vma, *last = NULL;
	uint64_t end = high;

	for_each_vma(vma, mm)
		last = vma;
	for (vma = last; vma && vma->vm_start >= end; vma = vma_prev(mm, vma))
		; /* skip what lies above high (the stack) */
	for (;;) {
		uint64_t lo = vma ? MAX(vma->vm_end, low) : low;

		if (lo <= end && end - lo >= len)
			return end - len;
		if (!vma || vma->vm_end <= low)
			return 0;
		end = MIN(end, vma->vm_start);
		vma = vma_prev(mm, vma);
	}
}

static bool range_free(struct mm_struct *mm, uint64_t addr, uint64_t len, uint64_t low,
		       uint64_t high)
{
	return addr && addr >= low && addr + len <= high && addr + len > addr &&
	       !find_vma_intersection(mm, addr, addr + len);
}

uint64_t get_unmapped_area(struct mm_struct *mm, uint64_t addr, uint64_t len)
{
	if (range_free(mm, addr, len, mmap_min_addr, USER_TOP))
		return addr;
	return unmapped_area_topdown(mm, len, mmap_min_addr, mm->mmap_base);
}

/* MAP_32BIT: x86-64 Linux places it in the second GiB, [1 GiB, 2 GiB), hint or not. */
static uint64_t get_unmapped_area_32bit(struct mm_struct *mm, uint64_t addr, uint64_t len)
{
	if (range_free(mm, addr, len, MAP_32BIT_LOW, MAP_32BIT_HIGH))
		return addr;
	return unmapped_area_topdown(mm, len, MAP_32BIT_LOW, MAP_32BIT_HIGH);
}

int make_pages_present(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t start,
		       uint64_t end)
{
	unsigned int flags = (vma->vm_flags & VM_WRITE) ? FAULT_FLAG_WRITE : 0;

	/* A PROT_NONE VMA gets no pages (2.6.23's get_user_pages refuses it): its
	 * vm_page_prot is 0, so a PTE made now would hold a frame without being present. */
	if (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return 0;
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		int ret = handle_mm_fault(mm, vma, va, flags, NULL);

		if (ret & VM_FAULT_OOM)
			return -ENOMEM;
		if (ret & VM_FAULT_SIGBUS) /* past the end of the file, or a userfaultfd's */
			break;	   /* missing page: those pages stay unmapped */
	}
	return 0;
}

/*
 * The checks of a file mapping, in Linux's order (do_mmap): the offset must fit a file;
 * MAP_SHARED ignores flags it does not know, MAP_SHARED_VALIDATE refuses them (-EOPNOTSUPP);
 * a shared mapping that may write needs a file open for writing, every mapping one open for
 * reading; the file must be of a kind that maps, and no file mapping grows down.
 */
bool vma_wants_writenotify(const struct vm_area_struct *vma)
{
	const struct address_space *mapping;

	if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) != (VM_WRITE | VM_SHARED))
		return false;
	if (vma->vm_ops && vma->vm_ops->page_mkwrite)
		return true;
	/* A driver's frames, or caching bits a driver set: not a file's pages. */
	if ((vma->vm_flags & VM_PFNMAP) || (vma->vm_page_prot & (_PAGE_PCD | _PAGE_PWT)) ||
	    !vma->vm_file)
		return false;
	mapping = vma->vm_file->f_inode->i_mapping;
	return mapping && mapping_cap_account_dirty(mapping);
}

static long mmap_file_check(struct file *file, uint64_t prot, uint64_t flags, uint64_t len,
			    uint64_t pgoff, unsigned long *vm_flags)
{
	const uint64_t maxsize = INT64_MAX; /* Linux's MAX_LFS_FILESIZE */

	if (pgoff > (maxsize >> PAGE_SHIFT) || len > maxsize - (pgoff << PAGE_SHIFT))
		return -EOVERFLOW;
	switch (flags & MAP_TYPE) {
	case MAP_SHARED_VALIDATE:
		if (flags & ~(uint64_t)(LEGACY_MAP_MASK | MAP_32BIT))
			return -EOPNOTSUPP;
		/* fall through */
	case MAP_SHARED:
		if ((prot & PROT_WRITE) && !(file->f_mode & FMODE_WRITE))
			return -EACCES;
		if (!(file->f_mode & FMODE_WRITE))
			*vm_flags &= ~VM_MAYWRITE; /* nor may mprotect make it writable later */
		/* fall through */
	case MAP_PRIVATE:
		if (!(file->f_mode & FMODE_READ))
			return -EACCES;
		if (file->f_inode->i_sb->s_flags & MS_NOEXEC) { /* nor may mprotect add it */
			if (prot & PROT_EXEC)
				return -EPERM;
			*vm_flags &= ~VM_MAYEXEC;
		}
		if (!file->f_op || !file->f_op->mmap)
			return -ENODEV;
		if (flags & MAP_GROWSDOWN)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* An anonymous mapping is private, or shared (MAP_SHARED_VALIDATE is refused for it, as in
 * Linux); a shared one cannot grow down. */
static long mmap_anon_check(uint64_t flags)
{
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		return 0;
	if ((flags & MAP_TYPE) == MAP_SHARED && !(flags & MAP_GROWSDOWN))
		return 0;
	return -EINVAL;
}

/* Pages of [start, end) that VM_ACCOUNT VMAs of mm cover: what a MAP_FIXED mapping replaces
 * that was promised already. */
static unsigned long accounted_pages(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct vm_area_struct *vma;
	unsigned long n = 0;

	for (vma = find_vma(mm, start); vma && vma->vm_start < end; vma = vma_next(mm, vma))
		if (vma->vm_flags & VM_ACCOUNT)
			n += (MIN(vma->vm_end, end) - MAX(vma->vm_start, start)) >> PAGE_SHIFT;
	return n;
}

/* Bytes of [start, end) that VMAs of mm cover. */
static uint64_t mapped_bytes(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct vm_area_struct *vma;
	uint64_t n = 0;

	list_for_each_entry(vma, &mm->mmap, vm_list)
		if (vma->vm_start < end && vma->vm_end > start)
			n += MIN(vma->vm_end, end) - MAX(vma->vm_start, start);
	return n;
}

long do_mmap(struct mm_struct *mm, struct file *file, uint64_t addr, uint64_t len,
	     uint64_t prot, uint64_t flags, uint64_t pgoff)
{
	unsigned long vm_flags, nr_accounted = 0, charged = 0;
	struct vm_area_struct *vma, *prev, *merged;
	long err;

	/* personality(READ_IMPLIES_EXEC): what may be read may run, but on a noexec mount */
	if ((prot & PROT_READ) && mm == current->mm &&
	    (current->personality & READ_IMPLIES_EXEC) &&
	    !(file && (file->f_inode->i_sb->s_flags & MS_NOEXEC)))
		prot |= PROT_EXEC;
	vm_flags = calc_vm_flags(prot, flags) | mm->def_flags;
	/* MAP_NORESERVE is honoured unless the policy is strict (Linux's do_mmap). */
	if ((flags & MAP_NORESERVE) && READ_ONCE(sysctl_overcommit_memory) != OVERCOMMIT_NEVER)
		vm_flags |= VM_NORESERVE;

	if (!len)
		return -EINVAL;
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len || len > USER_TOP)
		return -ENOMEM;
	if (pgoff + (len >> PAGE_SHIFT) < pgoff)
		return -EOVERFLOW;
	/* Too many mappings? (As Linux, the test lets one more than vm.max_map_count be made.) */
	if (mm->map_count > READ_ONCE(sysctl_max_map_count))
		return -ENOMEM;
	if (flags & MAP_FIXED) {
		if (addr & ~PAGE_MASK)
			return -EINVAL;
		if (addr + len > USER_TOP || addr + len < addr)
			return -ENOMEM;
		if (addr < mmap_min_addr)
			return -EPERM;
		if ((flags & MAP_FIXED_NOREPLACE) && find_vma_intersection(mm, addr, addr + len))
			return -EEXIST;
	} else {
		addr = (flags & MAP_32BIT) ?
			       get_unmapped_area_32bit(mm, ALIGN_DOWN(addr, PAGE_SIZE), len) :
			       get_unmapped_area(mm, ALIGN_DOWN(addr, PAGE_SIZE), len);
		if (!addr)
			return -ENOMEM;
	}
	if ((flags & MAP_LOCKED) && !can_do_mlock())
		return -EPERM;
	if (!mlock_future_ok(mm, vm_flags, len))
		return -EAGAIN; /* RLIMIT_MEMLOCK */
	/* RLIMIT_AS and RLIMIT_DATA count what a fixed mapping replaces only once. */
	if (!may_expand_vm(mm, vm_flags,
			   len - ((flags & MAP_FIXED) ? mapped_bytes(mm, addr, addr + len) : 0)))
		return -ENOMEM;
	err = file ? mmap_file_check(file, prot, flags, len, pgoff, &vm_flags)
		   : mmap_anon_check(flags);
	if (err)
		return err;
	/* Private writable memory is promised now, whatever backs it (Linux's
	 * accountable_mapping). As today's Linux, what a fixed mapping replaces that was promised
	 * already is not asked for again, and a refusal leaves the old mapping in place. */
	if ((vm_flags & (VM_NORESERVE | VM_SHARED | VM_WRITE)) == VM_WRITE) {
		if (flags & MAP_FIXED)
			nr_accounted = accounted_pages(mm, addr, addr + len);
		charged = (len >> PAGE_SHIFT) - nr_accounted;
		if (charged && security_vm_enough_memory_mm(mm, (long)charged))
			return -ENOMEM;
		vm_flags |= VM_ACCOUNT;
	}
	if ((flags & MAP_FIXED) && (err = do_munmap(mm, addr, len))) {
		vm_unacct_memory((long)charged);
		return err;
	}
	/* (do_munmap gave back the replaced pages: they are the new mapping's now.) */
	if (nr_accounted) {
		vm_acct_memory((long)nr_accounted);
		charged += nr_accounted;
	}
	if (!file)
		pgoff = (flags & MAP_SHARED) ? 0 : addr >> PAGE_SHIFT;

	find_vma_prev(mm, addr, &prev);
	if (!file && !(flags & MAP_SHARED) &&
	    (vma = vma_merge(mm, prev, addr, addr + len, vm_flags, NULL, pgoff, NULL)))
		goto populate;
	vma = vma_alloc(mm, addr, addr + len, vm_flags, vm_get_page_prot(vm_flags));
	if (!vma) {
		err = -ENOMEM;
		goto unacct;
	}
	vma->vm_pgoff = pgoff;
	vma->vm_file = file;
	if (file) {
		/* The file says how it is mapped: its vm_ops, flags and page protection. */
		err = file->f_op->mmap(file, vma);
		if (err) {
			vma->vm_ops = NULL; /* never opened: vma_free must not close it */
			vma_free(vma);
			goto unacct;
		}
		/* Its stores must reach writeback: each page's first one faults. */
		if (vma_wants_writenotify(vma)) {
			vma->vm_page_prot &= ~_PAGE_RW;
			wb_timer_start(); /* someone must write them back */
		}
		/* A device's VMA (VM_PFNMAP) counts its mappings in open/close: never merged. */
		merged = (vma->vm_flags & VM_PFNMAP) ? NULL :
			 vma_merge(mm, prev, addr, addr + len, vma->vm_flags, file, pgoff,
				   vma->vm_ops);
		if (merged) {
			vma->vm_ops = NULL;
			vma_free(vma);
			vma = merged;
			goto populate;
		}
	}
	/* Shared anonymous memory is a file too: shmem's, with no name (Linux's mmap_region). */
	if (!file && (flags & MAP_SHARED) && (err = shmem_zero_setup(vma))) {
		vma_free(vma);
		goto unacct;
	}
	if (vma->vm_ops && vma->vm_ops->open)
		vma->vm_ops->open(vma);
	/* A file the mapping made itself (shmem_zero_setup, here or in /dev/zero's mmap): the
	 * VMA's open holds it now, so the reference setup handed over goes. */
	if (vma->vm_file && vma->vm_file != file)
		fput(vma->vm_file);
	if (insert_vm_struct(mm, vma)) {
		vma_free(vma); /* closes it */
		err = -ENOMEM;
		goto unacct;
	}
populate:
	if ((flags & MAP_POPULATE) || ((vm_flags & VM_LOCKED) && !(vm_flags & VM_LOCKONFAULT))) {
		if (make_pages_present(mm, vma, addr, addr + len)) {
			do_munmap(mm, addr, len); /* (gives the pages back) */
			return -ENOMEM;
		}
	}
	return (long)addr;
unacct:
	vm_unacct_memory((long)charged);
	return err;
}

static long do_mmap_locked(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, int64_t fd,
	      uint64_t off)
{
	struct file *file = NULL;

	/* Unknown PROT_ bits and MAP_ flags are ignored, as Linux ignores them (only
	 * MAP_SHARED_VALIDATE refuses unknown flags); the mapping type is checked in do_mmap. */
	if (off & ~PAGE_MASK)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		file = fget((uint64_t)fd);
		if (!file)
			return -EBADF;
	}
	return do_mmap(current->mm, file, addr, len, prot, flags, off >> PAGE_SHIFT);
}

long sys_mmap(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, int64_t fd,
	      uint64_t off)
{
	return mmap_write_locked(current->mm, do_mmap_locked(addr, len, prot, flags, fd, off));
}

/* munmap of one VMA: zap [start, end), then free page-table pages left empty in [floor,
 * ceiling) (the gap between the neighbouring VMAs). */
static void unmap_region(struct mm_struct *mm, uint64_t start, uint64_t end, uint64_t floor,
			 uint64_t ceiling)
{
	LIST_HEAD(freed);

	zap_page_range(mm, start, end);
	/* Free the page-table pages left empty anywhere between the neighbouring VMAs: no other
	 * VMA lies there, and free_pgd_range frees only tables that map nothing. */
	spin_lock(&mm->page_table_lock);
	free_pgd_range(mm->pgd, floor, ceiling, &freed);
	spin_unlock(&mm->page_table_lock);
	if (list_empty(&freed))
		return;
	/* Another CPU running this mm may still hold the freed tables' entries in its paging-
	 * structure caches, and walk a page reused for something else. One INVLPG drops every
	 * such cached entry (SDM vol. 3, 4.10.4.1), so a one-page shootdown is enough. */
	flush_tlb_mm_range(mm, start, start + PAGE_SIZE);
	while (!list_empty(&freed)) {
		struct page *page = list_first_entry(&freed, struct page, lru);

		list_del(&page->lru);
		__free_page(page);
	}
}

long do_munmap(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	struct vm_area_struct *vma, *prev, *next;
	uint64_t end;

	if ((start & ~PAGE_MASK) || !len || start >= USER_TOP || len > USER_TOP - start)
		return -EINVAL;
	end = start + ALIGN_UP(len, PAGE_SIZE);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end)
		return 0; /* nothing mapped there: not an error */
	/* Isolate [start, end): split the VMAs that reach past either end. As Linux, only a hole
	 * in the middle of one VMA, which leaves one more, is refused at vm.max_map_count. */
	if (vma->vm_start < start && end < vma->vm_end &&
	    mm->map_count >= READ_ONCE(sysctl_max_map_count))
		return -ENOMEM;
	if (vma->vm_start < start && __split_vma(mm, vma, start, 1))
		return -ENOMEM;
	vma = find_vma(mm, start);
	next = find_vma(mm, end - 1);
	if (next && next->vm_start < end && next->vm_end > end && __split_vma(mm, next, end, 1))
		return -ENOMEM;

	find_vma_prev(mm, start, &prev);
	while ((vma = find_vma(mm, start)) && vma->vm_start < end) {
		kcheck_vma(vma); /* (only with the kcheck parameter: its rmap before it goes) */
		if (vma->vm_flags & VM_ACCOUNT)
			vm_unacct_memory((long)vma_pages(vma));
		vma_unlink(mm, vma);
		next = find_vma(mm, vma->vm_end);
		unmap_region(mm, vma->vm_start, vma->vm_end, prev ? prev->vm_end : 0,
			     next ? next->vm_start : USER_TOP);
		vma_free(vma);
	}
	return 0;
}

void exit_mmap(struct mm_struct *mm)
{
	zap_page_range(mm, 0, USER_TOP);
	spin_lock(&mm->page_table_lock); /* (a checker may be walking it: vm_check_all) */
	free_pgd_range(mm->pgd, 0, USER_TOP, NULL); /* (no task runs mm any more) */
	spin_unlock(&mm->page_table_lock);
}

static long do_munmap_locked(uint64_t addr, uint64_t len)
{
	acct_update_maxrss(current); /* the peak before the pages go */
	return do_munmap(current->mm, addr, len);
}

long sys_munmap(uint64_t addr, uint64_t len)
{
	return mmap_write_locked(current->mm, do_munmap_locked(addr, len));
}

/* brk(addr): move the end of the heap to addr and return the new end; on failure (or for
 * addr 0) return the current end unchanged, as Linux does. The heap is one anonymous VMA
 * [start_brk, brk), faulted in like any other. */
static long do_brk_locked(uint64_t addr)
{
	struct mm_struct *mm = current->mm;
	uint64_t old_end = ALIGN_UP(mm->brk, PAGE_SIZE), new_end = ALIGN_UP(addr, PAGE_SIZE);

	if (addr < mm->start_brk || addr > mm->start_brk + HEAP_MAX)
		return (long)mm->brk;
	/* Growing, RLIMIT_DATA bounds the heap itself (Linux's check_data_rlimit). */
	if (addr > mm->brk && addr - mm->start_brk > rlimit(RLIMIT_DATA))
		return (long)mm->brk;
	if (new_end < old_end) {
		if (do_munmap(mm, new_end, old_end - new_end))
			return (long)mm->brk;
	} else if (new_end > old_end) {
		if (find_vma_intersection(mm, old_end, new_end + PAGE_SIZE))
			return (long)mm->brk; /* would run into a mapping (one page kept free) */
		if (do_mmap(mm, NULL, old_end, new_end - old_end, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0) < 0)
			return (long)mm->brk;
	}
	mm->brk = addr;
	return (long)addr;
}

long sys_brk(uint64_t addr)
{
	return mmap_write_locked(current->mm, do_brk_locked(addr));
}
