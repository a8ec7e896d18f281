/* mremap: shrink a mapping, grow it in place, or move it (MREMAP_MAYMOVE, MREMAP_FIXED,
 * MREMAP_DONTUNMAP) by moving its page-table entries, as Linux's mm/mremap.c does: the pages
 * themselves are never copied, so anonymous, file and copy-on-write pages keep their frames. */
#include "kernel/errno.h"
#include "kernel/sched/sched.h"
#include "kernel/bug.h"
#include "kernel/syscalls.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/vma.h"

#define MREMAP_MAYMOVE	 1
#define MREMAP_FIXED	 2
#define MREMAP_DONTUNMAP 4

struct move_args {
	struct mm_struct *mm;
	uint64_t old_addr, new_addr;
	int err;
};

/* Move one entry (a present PTE or a nonlinear file PTE) to the same offset of the new range.
 * The frame's counts do not change: the same one mapping now sits at another address. */
static int move_one_pte(pte_t *old_pte, uint64_t va, void *arg)
{
	struct move_args *a = arg;
	pte_t *new_pte = walk_page_table(a->mm->pgd, va - a->old_addr + a->new_addr, true);

	if (!new_pte) {
		a->err = -ENOMEM;
		return -ENOMEM;
	}
	BUG_ON(!pte_none(*new_pte)); /* the target range was emptied by the caller */
	*new_pte = *old_pte;
	*old_pte = 0; /* move_page_tables flushes the old range once */
	return 0;
}

/*
 * Move the page-table entries of [old_addr, old_addr + len) to new_addr (Linux's
 * move_page_tables). The two ranges do not overlap and the new one maps nothing. Returns
 * 0, or -ENOMEM when a page-table page for the new range could not be had; what was moved
 * by then stays moved and move_back() puts it back.
 */
static int move_page_tables(struct mm_struct *mm, uint64_t old_addr, uint64_t new_addr,
			    uint64_t len)
{
	struct move_args a = { mm, old_addr, new_addr, 0 };

	spin_lock(&mm->page_table_lock);
	walk_page_range(mm, old_addr, old_addr + len, move_one_pte, &a);
	spin_unlock(&mm->page_table_lock);
	flush_tlb_mm_range(mm, old_addr, old_addr + len);
	return a.err;
}

/* A copy of vma's attributes (file, ops, private data, flags, anon_vma) over [addr, addr + len)
 * whose first page is page pgoff of the backing, inserted into mm and opened; NULL without
 * memory. */
static struct vm_area_struct *copy_vma(struct mm_struct *mm, struct vm_area_struct *vma,
				       uint64_t addr, uint64_t len, unsigned long pgoff)
{
	struct vm_area_struct *new_vma = kmalloc(sizeof(*new_vma));

	if (!new_vma)
		return NULL;
	*new_vma = *vma;
	new_vma->vm_start = addr;
	new_vma->vm_end = addr + len;
	new_vma->vm_pgoff = pgoff;
	INIT_LIST_HEAD(&new_vma->vm_list);
	RB_CLEAR_NODE(&new_vma->vm_rb);
	if (insert_vm_struct(mm, new_vma)) {
		kfree(new_vma);
		return NULL;
	}
	anon_vma_link(new_vma); /* its pages, moved, are still found through the anon_vma */
	if (new_vma->vm_ops && new_vma->vm_ops->open)
		new_vma->vm_ops->open(new_vma);
	return new_vma;
}

/* The PTEs of a shared mapping's [addr, addr + len) copied to new_addr, each page gaining a
 * mapping: old_len 0 duplicates a shared mapping, and anonymous shared pages have no file to
 * be found in again, so the new range must map the same frames now. */
struct dup_args {
	struct mm_struct *mm;
	uint64_t old_addr, new_addr;
};

static int dup_one_pte(pte_t *old_pte, uint64_t va, void *arg)
{
	struct dup_args *a = arg;
	pte_t *new_pte = walk_page_table(a->mm->pgd, va - a->old_addr + a->new_addr, true);
	struct page *page = vm_normal_page(*old_pte);

	if (!new_pte)
		return -ENOMEM;
	if (page) {
		page_dup_rmap(page);
		a->mm->rss++;
	}
	*new_pte = *old_pte;
	return 0;
}

/*
 * Give [old_addr, old_addr + old_len) of vma a new home of new_len bytes at new_addr (free,
 * not overlapping it): a copy of the VMA there, the page-table entries moved over, then the
 * old range unmapped, or with MREMAP_DONTUNMAP left mapped and empty (a later access faults
 * in zero pages, or the file's). old_len 0 (shared mappings only) makes a second mapping of
 * the same pages. Returns new_addr or -ENOMEM (nothing changed).
 */
static long move_vma(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t old_addr,
		     uint64_t old_len, uint64_t new_len, uint64_t new_addr, uint64_t flags)
{
	unsigned long pgoff = vma->vm_pgoff + ((old_addr - vma->vm_start) >> PAGE_SHIFT);
	unsigned long vm_flags = vma->vm_flags, charged = 0;
	struct vm_area_struct *new_vma;

	/* As Linux: room for the copy and the splits of both ranges (vm.max_map_count). */
	if (mm->map_count >= READ_ONCE(sysctl_max_map_count) - 3)
		return -ENOMEM;
	/* Promised memory: the growth, or with MREMAP_DONTUNMAP (the old range stays mapped) the
	 * whole new range (today's Linux's vrm_calc_charge). */
	if (vm_flags & VM_ACCOUNT) {
		charged = (flags & MREMAP_DONTUNMAP) ? new_len : new_len - MIN(old_len, new_len);
		charged >>= PAGE_SHIFT;
		if (charged && security_vm_enough_memory_mm(mm, (long)charged))
			return -ENOMEM;
	}
	/* An anonymous VMA with pages keeps their layout: their index gives their address in
	 * the copy through its vm_pgoff (vma_address). One with none yet is as if new: vm_pgoff
	 * is its start, so it merges like a new mapping (2.6.23's copy_vma). */
	if (!vma->vm_file && !vma->anon_vma)
		pgoff = new_addr >> PAGE_SHIFT;
	new_vma = copy_vma(mm, vma, new_addr, new_len, pgoff);
	if (!new_vma) {
		vm_unacct_memory((long)charged);
		return -ENOMEM;
	}
	if (!old_len) {
		struct dup_args d = { mm, old_addr, new_addr };
		uint64_t end = MIN(vma->vm_end, old_addr + new_len);

		int err;

		spin_lock(&mm->page_table_lock);
		err = walk_page_range(mm, old_addr, end, dup_one_pte, &d);
		spin_unlock(&mm->page_table_lock);
		if (err) {
			do_munmap(mm, new_addr, new_len);
			return -ENOMEM;
		}
		return (long)new_addr;
	}
	if (move_page_tables(mm, old_addr, new_addr, old_len)) {
		/* Put back what was moved, into tables that exist already, then drop the copy. */
		move_page_tables(mm, new_addr, old_addr, old_len);
		do_munmap(mm, new_addr, new_len); /* gives back new_len, of which charged is new */
		if (vm_flags & VM_ACCOUNT)
			vm_acct_memory((long)((new_len >> PAGE_SHIFT) - charged));
		return -ENOMEM;
	}
	if (flags & MREMAP_DONTUNMAP) {
		/* The old range stays, empty, and not locked (its pages went with the move). */
		if (vm_flags & VM_LOCKED)
			vma_modify_flags(mm, vma, old_addr, old_addr + old_len,
					 vm_flags & ~(VM_LOCKED | VM_LOCKONFAULT));
	} else {
		do_munmap(mm, old_addr, old_len);
		/* Its pages moved, and their promise with them: the copy's VMA holds it now. */
		if (vm_flags & VM_ACCOUNT)
			vm_acct_memory((long)(old_len >> PAGE_SHIFT));
	}
	/* The moved range is no userfaultfd's any more (Linux's, without
	 * UFFD_FEATURE_EVENT_REMAP): the handler would not know its new address. Then join
	 * compatible neighbours at the new place, as Linux's copy_vma merges. */
	new_vma = find_vma(mm, new_addr);
	if (unlikely(new_vma->vm_userfaultfd_ctx.ctx))
		new_vma = vma_modify_flags_uffd(mm, new_vma, new_vma->vm_start, new_vma->vm_end,
						new_vma->vm_flags & ~VM_UFFD_MISSING, NULL);
	new_vma = vma_merge_neighbours(mm, new_vma);
	if ((vm_flags & VM_LOCKED) && !(vm_flags & VM_LOCKONFAULT) && new_len > old_len)
		make_pages_present(mm, new_vma, new_addr + old_len, new_addr + new_len);
	return (long)new_addr;
}

/*
 * The VMA holding [addr, addr + old_len), checked for a resize to new_len (Linux's
 * vma_to_resize): -EINVAL to duplicate a private mapping (old_len 0) or for DONTUNMAP on a
 * device mapping, -EFAULT for a range past the VMA's end or for growing a device mapping.
 * Growing it must stay within RLIMIT_MEMLOCK when it is locked (-EAGAIN) and within
 * RLIMIT_AS and RLIMIT_DATA (-ENOMEM).
 */
static struct vm_area_struct *vma_to_resize(struct mm_struct *mm, uint64_t addr,
					    uint64_t old_len, uint64_t new_len, uint64_t flags,
					    long *err)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	*err = -EFAULT;
	if (!vma || vma->vm_start > addr)
		return NULL;
	*err = -EINVAL;
	if (!old_len && !(vma->vm_flags & (VM_SHARED | VM_MAYSHARE)))
		return NULL;
	if ((flags & MREMAP_DONTUNMAP) && (vma->vm_flags & VM_PFNMAP))
		return NULL;
	*err = -EFAULT;
	if (old_len > vma->vm_end - addr)
		return NULL;
	if (new_len > old_len && (vma->vm_flags & VM_PFNMAP))
		return NULL;
	*err = -EAGAIN;
	if (new_len > old_len && !mlock_future_ok(mm, vma->vm_flags, new_len - old_len))
		return NULL;
	*err = -ENOMEM;
	if (new_len > old_len && !may_expand_vm(mm, vma->vm_flags, new_len - old_len))
		return NULL;
	*err = 0;
	return vma;
}

/*
 * MREMAP_FIXED without resizing, of a range that spans several VMAs (and the gaps between
 * them, Linux 6.17's multi-VMA move): each VMA's part moves to the same offset from new_addr,
 * which the caller has emptied. Returns new_addr, or the first part's error (the parts moved
 * before it stay moved, as in Linux).
 */
static long move_vmas(struct mm_struct *mm, uint64_t addr, uint64_t len, uint64_t flags,
		      uint64_t new_addr)
{
	struct vm_area_struct *vma;
	uint64_t end = addr + len;

	for (uint64_t a = addr; (vma = find_vma(mm, a)) && vma->vm_start < end;) {
		uint64_t s = MAX(a, vma->vm_start), e = MIN(end, vma->vm_end);
		long err;

		if ((flags & MREMAP_DONTUNMAP) && (vma->vm_flags & VM_PFNMAP))
			return -EINVAL;
		err = move_vma(mm, vma, s, e - s, e - s, new_addr + (s - addr), flags);
		if (err < 0)
			return err;
		a = e;
	}
	return (long)new_addr;
}

/* MREMAP_FIXED or MREMAP_DONTUNMAP: the move to new_addr (exactly, with FIXED, replacing
 * what is there; a hint without it). The ranges were checked not to overlap. */
static long mremap_to(struct mm_struct *mm, uint64_t addr, uint64_t old_len, uint64_t new_len,
		      uint64_t flags, uint64_t new_addr)
{
	struct vm_area_struct *vma;
	long err;

	if (flags & MREMAP_FIXED) {
		if (new_addr < mmap_min_addr)
			return -EPERM;
		err = do_munmap(mm, new_addr, new_len);
		if (err)
			return err;
	}
	if (old_len > new_len) {
		err = do_munmap(mm, addr + new_len, old_len - new_len);
		if (err)
			return err;
		old_len = new_len;
	}
	vma = find_vma(mm, addr);
	if ((flags & MREMAP_FIXED) && old_len == new_len && vma && vma->vm_start <= addr &&
	    old_len > vma->vm_end - addr)
		return move_vmas(mm, addr, old_len, flags, new_addr);
	vma = vma_to_resize(mm, addr, old_len, new_len, flags, &err);
	if (!vma)
		return err;
	if (!(flags & MREMAP_FIXED)) {
		new_addr = get_unmapped_area(mm, new_addr, new_len);
		if (!new_addr)
			return -ENOMEM;
	}
	return move_vma(mm, vma, addr, old_len, new_len, new_addr, flags);
}

/*
 * mremap(addr, old_len, new_len, flags, new_addr), with Linux's checks in its order: the
 * arguments (-EINVAL), then the VMA at addr (-EFAULT when none holds it, or the old range
 * runs past its end). Shrinking unmaps the tail; growing extends the VMA when the pages
 * above are free, else moves it with MREMAP_MAYMOVE, else fails with -ENOMEM.
 */
long do_mremap(struct mm_struct *mm, uint64_t addr, uint64_t old_len, uint64_t new_len,
	       uint64_t flags, uint64_t new_addr)
{
	struct vm_area_struct *vma;
	uint64_t end;
	long err;

	if (flags & ~(uint64_t)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if (addr & ~PAGE_MASK)
		return -EINVAL;
	if (old_len > USER_TOP || new_len > USER_TOP)
		return -EINVAL;
	old_len = ALIGN_UP(old_len, PAGE_SIZE);
	new_len = ALIGN_UP(new_len, PAGE_SIZE);
	if (!new_len)
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		if ((new_addr & ~PAGE_MASK) || new_addr > USER_TOP - new_len)
			return -EINVAL;
		if (addr + old_len > new_addr && new_addr + new_len > addr)
			return -EINVAL; /* the two ranges overlap */
	}
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr)
		return -EFAULT;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return mremap_to(mm, addr, old_len, new_len, flags, new_addr);
	if (old_len >= new_len) {
		if (old_len > new_len && (err = do_munmap(mm, addr + new_len, old_len - new_len)))
			return err;
		return (long)addr;
	}
	vma = vma_to_resize(mm, addr, old_len, new_len, flags, &err);
	if (!vma)
		return err;
	/* Grow in place: the old range ends the VMA and the gap above is free. */
	end = addr + new_len;
	if (old_len == vma->vm_end - addr && end <= USER_TOP && end > addr &&
	    !find_vma_intersection(mm, vma->vm_end, end)) {
		uint64_t old_end = vma->vm_end;

		if ((vma->vm_flags & VM_ACCOUNT) &&
		    security_vm_enough_memory_mm(mm, (long)((new_len - old_len) >> PAGE_SHIFT)))
			return -ENOMEM;
		vma->vm_end = end; /* into the free gap above: the tree's order is unchanged */
		vma = vma_merge_neighbours(mm, vma);
		if ((vma->vm_flags & VM_LOCKED) && !(vma->vm_flags & VM_LOCKONFAULT))
			make_pages_present(mm, vma, old_end, end);
		return (long)addr;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	new_addr = get_unmapped_area(mm, 0, new_len);
	if (!new_addr)
		return -ENOMEM;
	return move_vma(mm, vma, addr, old_len, new_len, new_addr, flags);
}

long sys_mremap(uint64_t addr, uint64_t old_len, uint64_t new_len, uint64_t flags,
		uint64_t new_addr)
{
	return mmap_write_locked(current->mm,
				 do_mremap(current->mm, addr, old_len, new_len, flags, new_addr));
}
