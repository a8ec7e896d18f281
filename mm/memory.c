/* The fault core and whole-range page-table work, with Linux 2.6.23's names: handle_mm_fault
 * and the handlers it picks (__do_fault for a VMA with a fault() op, do_wp_page for COW), fork's
 * copy_page_range, and zap_page_range for munmap, execve and exit. */
#include "kernel/arch/atomic.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/userfaultfd_k.h"
#include "kernel/lib/string.h"
#include "kernel/locking/smp_lock.h"
#include "mm/anon.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/swap.h"
#include "mm/tlbflush.h"
#include "mm/vma.h"
#include "mm/vmstat.h"

/* Call fn on every present leaf PTE of the level-`level` table whose first entry maps base,
 * for addresses in [start, end). Stops at the first non-zero return and returns it. */
static int walk_user_ptes(uint64_t *table, int level, uint64_t base, uint64_t start,
			  uint64_t end, int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg)
{
	uint64_t size = 1UL << (PAGE_SHIFT + 9 * (level - 1));

	for (int i = 0; i < PTRS_PER_TABLE; i++) {
		uint64_t lo = base + i * size;
		int err;

		if (lo + size <= start || lo >= end || !table[i])
			continue;
		if (level == 1)
			err = fn(&table[i], lo, arg);
		else if (table[i] & _PAGE_PRESENT)
			err = walk_user_ptes(__va(table[i] & PTE_PFN_MASK), level - 1, lo, start,
					     end, fn, arg);
		else
			err = 0;
		if (err)
			return err;
	}
	return 0;
}

int walk_page_range(struct mm_struct *mm, uint64_t start, uint64_t end,
		    int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg)
{
	return walk_user_ptes(mm->pgd, 4, 0, start, MIN(end, USER_TOP), fn, arg);
}

struct page *vm_normal_page(pte_t pte)
{
	uint64_t pfn = pte_pfn(pte);
	struct page *page;

	if (!pte_present(pte) || pfn >= max_pfn)
		return NULL;
	page = pfn_to_page(pfn);
	return PageReserved(page) ? NULL : page; /* the zero page is reserved too */
}

/* A private mapping that can be written: its pages are shared copy-on-write across fork. */
static bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

struct copy_args {
	struct mm_struct *dst;
	struct vm_area_struct *vma;
};

static int copy_one_pte(pte_t *src_pte, uint64_t va, void *arg)
{
	struct copy_args *a = arg;
	struct page *page = vm_normal_page(*src_pte);
	pte_t *dst_pte = walk_page_table(a->dst->pgd, va, true), pte = *src_pte;

	if (!dst_pte)
		return -ENOMEM;
	/* A swapped-out page: the child's PTE is one more user of its slot. */
	if (is_swap_pte(pte)) {
		int in_use = swap_duplicate(pte_to_swp_entry(pte));

		BUG_ON(!in_use); /* a PTE's own count keeps its slot in use */
		*dst_pte = pte;
		a->dst->swapents++;
		return 0;
	}
	if (pte_present(pte) && is_cow_mapping(a->vma->vm_flags) && pte_write(pte)) {
		*src_pte = pte_wrprotect(pte); /* the parent's TLB is flushed after the copy */
		pte = *src_pte;
	}
	if (page) {
		page_dup_rmap(page);
		a->dst->rss++;
	}
	*dst_pte = pte; /* a device frame, the zero page or a file PTE: just the entry */
	return 0;
}

int copy_page_range(struct mm_struct *dst, struct mm_struct *src, struct vm_area_struct *vma)
{
	struct copy_args a = { dst, vma };
	int err;

	/* The child is not visible to anyone: only the parent's lock is needed. */
	spin_lock(&src->page_table_lock);
	err = walk_page_range(src, vma->vm_start, vma->vm_end, copy_one_pte, &a);
	spin_unlock(&src->page_table_lock);
	return err;
}

/* A file page whose PTE is going was written through it: its file learns of it (the inode goes
 * on the dirty list), not just PG_dirty (2.6.23's zap_pte_range). */
static void zap_dirty_file_page(struct page *page, pte_t pteval)
{
	if (pte_dirty(pteval) && !PageAnon(page) && page->mapping)
		set_page_dirty(page);
}

static int zap_one_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct mmu_gather *tlb = arg;
	struct page *page = vm_normal_page(*pte);
	bool present = pte_present(*pte);
	pte_t pteval;

	if (is_swap_pte(*pte)) {
		free_swap_and_cache(pte_to_swp_entry(*pte));
		tlb->mm->swapents--;
	}
	pteval = xchg(pte, 0); /* atomic: another CPU may be setting the dirty bit */
	if (present)
		tlb_remove_tlb_entry(tlb, va);
	if (page) {
		zap_dirty_file_page(page, pteval);
		page_remove_rmap(page);
		tlb_remove_page(tlb, page); /* put_page after the range's flush */
		tlb->mm->rss--;
	}
	return 0;
}

void zap_page_range(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	/* truncate zaps other processes' PTEs without their mmap_sem: the lock is needed. */
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, mm);
	spin_lock(&mm->page_table_lock);
	walk_page_range(mm, start, end, zap_one_pte, &tlb);
	spin_unlock(&mm->page_table_lock);
	tlb_finish_mmu(&tlb); /* flush every CPU, then free the pages */
}

unsigned long count_pt_pages(struct mm_struct *mm)
{
	unsigned long n = 0;

	for (int i = 0; i < 256; i++) {
		uint64_t *pud;

		if (!(mm->pgd[i] & _PAGE_PRESENT))
			continue;
		n++;
		pud = __va(mm->pgd[i] & PTE_PFN_MASK);
		for (int j = 0; j < PTRS_PER_TABLE; j++) {
			uint64_t *pmd;

			if (!(pud[j] & _PAGE_PRESENT))
				continue;
			n++;
			pmd = __va(pud[j] & PTE_PFN_MASK);
			for (int k = 0; k < PTRS_PER_TABLE; k++)
				n += (pmd[k] & _PAGE_PRESENT) != 0;
		}
	}
	return n;
}

/*
 * The legacy nopage() op's answer, turned into what fault() would have said: the page comes
 * back unlocked with the VM_FAULT_* bits of its type, or the error. 2.6.23's compat branch.
 * __weak: the lab nopage_compat (docs/exercises.md) links its stub instead.
 */
__weak int do_nopage(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	int type = VM_FAULT_MINOR;

	vmf->page = vma->vm_ops->nopage(vma, (unsigned long)vmf->virtual_address, &type);
	if (vmf->page == NOPAGE_SIGBUS)
		return VM_FAULT_SIGBUS;
	if (vmf->page == NOPAGE_OOM)
		return VM_FAULT_OOM;
	return type;
}

/*
 * Faults whose fault() op returned a locked page that a truncate already took out of the page
 * cache (it was past the end of the file then), which the op's checks under the page lock must
 * prevent. FL_CHECK reports the count (file-race fails on any). Not a test of i_size: on
 * several CPUs a truncate sets i_size at any moment, and then waits for this page's lock
 * before it unmaps and removes the page, which is correct.
 */
unsigned long nr_fault_past_eof;

static void check_locked_page(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	if (WARN_ON_ONCE(vmf->page->mapping != vma->vm_file->f_inode->i_mapping))
		nr_fault_past_eof++;
}

/*
 * A shared writable VMA whose file writes back starts with read-only PTEs (vma_wants_writenotify
 * took _PAGE_RW out of vm_page_prot), so that the first store to each page faults here. Tested
 * on vm_page_prot, which the fault has at hand: ramfs and tmpfs keep RW and never come here.
 */
static inline bool vma_write_notify(const struct vm_area_struct *vma)
{
	return !(vma->vm_page_prot & _PAGE_RW);
}

/* The file system's page_mkwrite, under the big kernel lock its code assumes: 0 or -errno. */
static int do_page_mkwrite(struct vm_area_struct *vma, struct page *page)
{
	int err;

	lock_kernel();
	err = vma->vm_ops->page_mkwrite(vma, page);
	unlock_kernel();
	return err;
}

/*
 * A store through a write-notify PTE made the page writable: the page is dirty for its file
 * (set_page_dirty puts the inode on its super block's dirty list, for the periodic writeback),
 * the writer may have to write some back itself (balance_dirty_pages), and the file's mtime
 * and ctime change (file_update_time). Drops the caller's reference. A truncate may have taken
 * the page out of its file meanwhile: then there is nothing to tell.
 */
static __attribute__((noinline)) void fault_dirty_page(struct vm_area_struct *vma,
						       struct page *page)
{
	lock_kernel();
	if (page->mapping && !PageAnon(page))
		set_page_dirty_balance(page);
	file_update_time(vma->vm_file);
	unlock_kernel();
	put_page(page);
}

/*
 * A fault on a PTE that is empty (linear) or a file PTE (nonlinear) in a VMA with a fault()
 * op: ask the op for the page, then install it. The page stays locked from the op's return
 * until its PTE is in place, so truncate cannot slip in between (the race fault() closed).
 * A legacy nopage() op (linear only) gets no such guarantee: see do_nopage.
 */
static int __do_fault(struct mm_struct *mm, struct vm_area_struct *vma, struct vm_fault *vmf,
		      pte_t orig_pte)
{
	bool write = vmf->flags & FAULT_FLAG_WRITE, anon = false, installed = false;
	struct page *page, *dirty_page = NULL;
	int ret;

	if (vma->vm_ops->fault) {
		ret = vma->vm_ops->fault(vma, vmf);
		if (ret & (VM_FAULT_ERROR | VM_FAULT_NOPAGE | VM_FAULT_RETRY))
			return ret; /* (RETRY: shmem_fault's userfault) */
		if ((ret & VM_FAULT_LOCKED) && vma->vm_file)
			check_locked_page(vma, vmf);
	} else {
		/* Its page comes back unlocked and nothing below re-checks page->mapping:
		 * truncate may take the page out of the page cache before lock_page, and the
		 * PTE then maps an orphan. */
		ret = do_nopage(vma, vmf);
		if (ret & VM_FAULT_ERROR)
			return ret;
	}
	race_window(vma, vmf);
	if (!(ret & VM_FAULT_LOCKED))
		lock_page(vmf->page);
	page = vmf->page;
	if (write && !(vma->vm_flags & VM_SHARED)) {
		/* A private write: the process gets its own copy; the file page stays clean. */
		if (unlikely(anon_vma_prepare(vma))) {
			ret = VM_FAULT_OOM;
			goto out;
		}
		page = alloc_page(GFP_HIGHUSER);
		if (!page) {
			ret = VM_FAULT_OOM;
			goto out;
		}
		copy_page(page_address(page), page_address(vmf->page));
		anon = true;
	} else if (write && unlikely(vma_write_notify(vma)) && vma->vm_ops->page_mkwrite) {
		/* The file system prepares the page for the store, unlocked (2.6.23). */
		struct address_space *mapping = page->mapping;
		int err;

		unlock_page(page);
		err = do_page_mkwrite(vma, page);
		lock_page(page);
		if (err || page->mapping != mapping) { /* no room; or truncated: fault again */
			ret = err ? VM_FAULT_SIGBUS : VM_FAULT_MINOR;
			goto out;
		}
	}
	spin_lock(&mm->page_table_lock);
	if (*vmf->pte == orig_pte) { /* nobody filled it while the op may have slept */
		install_pte(mm, vma, vmf->pte, page, write);
		installed = true;
		if (anon) {
			page_add_new_anon_rmap(page, vma, (uint64_t)vmf->virtual_address);
		} else {
			page_add_file_rmap(page);
			if (write && unlikely(vma_write_notify(vma))) {
				dirty_page = page;
				get_page(page); /* a zap may take the PTE's once unlocked */
			} else if (write) {
				SetPageFlag(page, PG_dirty);
			}
		}
	}
	spin_unlock(&mm->page_table_lock);
	if (!installed && anon)
		put_page(page); /* lost the race: the copy is not needed */
out:
	unlock_page(vmf->page);
	/* The op's reference becomes the PTE's, unless a copy was mapped instead. */
	if (anon || !installed)
		put_page(vmf->page);
	if (unlikely(dirty_page))
		fault_dirty_page(vma, dirty_page);
	return ret & ~VM_FAULT_LOCKED;
}

/* A fault on an empty PTE of a VMA with an op: the file page is the one the address gives. */
static int do_linear_fault(struct mm_struct *mm, struct vm_area_struct *vma,
			   struct vm_fault *vmf)
{
	return __do_fault(mm, vma, vmf, 0);
}

/*
 * A fault on a file PTE, left by remap_file_pages in a nonlinear VMA: the file page comes
 * from the PTE, not from the address, and then it is the same __do_fault as a linear fault.
 * Only an op that looks at nothing but pgoff may see this (VM_CAN_NONLINEAR).
 * noinline: inlined, gcc merged its __do_fault call with the linear one, so a breakpoint
 * here also stopped for linear faults (the gdb walkthrough caught it).
 */
static __attribute__((noinline)) int do_nonlinear_fault(struct mm_struct *mm,
							struct vm_area_struct *vma,
							struct vm_fault *vmf, pte_t orig_pte)
{
	/* remap_file_pages makes file PTEs only in VMAs whose op takes them. */
	BUG_ON(!(vma->vm_flags & VM_CAN_NONLINEAR) || !vma->vm_ops || !vma->vm_ops->fault);
	vmf->pgoff = pte_to_pgoff(orig_pte);
	vmf->flags |= FAULT_FLAG_NONLINEAR;
	return __do_fault(mm, vma, vmf, orig_pte);
}

/*
 * May a write reuse an anonymous page only this PTE maps? Yes, unless it is in the swap cache
 * and a swapped-out sharer's PTE still holds its slot (that sharer must read the old data):
 * 2.6.23's can_share_swap_page. The page lock is needed to look, and is only tried here,
 * under page_table_lock: a page someone holds locked is copied instead.
 */
static bool can_reuse(struct page *page)
{
	bool reuse;

	if (likely(!PageSwapCache(page)))
		return true;
	if (TestSetPageLocked(page))
		return false;
	reuse = reuse_swap_page(page);
	unlock_page(page);
	return reuse;
}

/* do_wp_page when the copy's allocation may have to reclaim (and so sleep): without the lock,
 * then the PTE is checked again, as 2.6.23 always did. Called with page_table_lock held. */
static int do_wp_page_reclaim(struct mm_struct *mm, struct vm_area_struct *vma,
			      uint64_t address, pte_t *pte, pte_t orig)
{
	bool from_zero = pte_pfn(orig) == page_to_pfn(zero_page);
	struct page *old = vm_normal_page(orig), *new;

	if (old)
		get_page(old); /* the PTE may go while we sleep */
	spin_unlock(&mm->page_table_lock);
	new = alloc_page(GFP_HIGHUSER | (from_zero ? __GFP_ZERO : 0));
	if (new && !from_zero)
		copy_page(page_address(new), __va(orig & PTE_PFN_MASK));
	spin_lock(&mm->page_table_lock);
	if (*pte != orig) { /* another fault broke it meanwhile */
		spin_unlock(&mm->page_table_lock);
		if (new)
			put_page(new);
		if (old)
			put_page(old);
		return VM_FAULT_MINOR;
	}
	if (!new) {
		spin_unlock(&mm->page_table_lock);
		if (old)
			put_page(old);
		return VM_FAULT_OOM;
	}
	install_pte(mm, vma, pte, new, true);
	flush_tlb_page(vma, address);
	page_add_new_anon_rmap(new, vma, address);
	if (old) {
		page_remove_rmap(old);
		put_page(old);
		mm->rss--;
	}
	spin_unlock(&mm->page_table_lock);
	if (old)
		free_page_and_swap_cache(old); /* our own reference */
	return VM_FAULT_WRITE;
}

/*
 * A store to a page of a write-notify VMA whose PTE is read-only (never written since it was
 * mapped, or since writeback cleaned it: page_mkclean): page_mkwrite if the file system has
 * one, then the PTE becomes writable and dirty and the page dirty for its file, as 2.6.23's
 * do_wp_page. Called with page_table_lock held; returns with it dropped.
 */
static __attribute__((noinline)) int do_wp_page_notify(struct mm_struct *mm,
						       struct vm_area_struct *vma,
						       uint64_t address, pte_t *pte, pte_t orig,
						       struct page *old)
{
	get_page(old); /* the PTE may go while page_mkwrite sleeps */
	if (vma->vm_ops && vma->vm_ops->page_mkwrite) {
		spin_unlock(&mm->page_table_lock);
		if (do_page_mkwrite(vma, old)) {
			put_page(old);
			return VM_FAULT_SIGBUS;
		}
		spin_lock(&mm->page_table_lock);
		if (*pte != orig) { /* another fault, or a zap, got there meanwhile */
			spin_unlock(&mm->page_table_lock);
			put_page(old);
			return VM_FAULT_MINOR;
		}
	}
	*pte = pte_mkyoung(pte_mkdirty(pte_mkwrite(orig)));
	flush_tlb_page(vma, address);
	spin_unlock(&mm->page_table_lock);
	fault_dirty_page(vma, old);
	return VM_FAULT_WRITE;
}

/*
 * A write to a present read-only page of a VMA that allows writes: copy-on-write. A page
 * only this PTE maps (anonymous, _mapcount 0) is simply made writable; a shared writable
 * mapping too; otherwise the writer gets a copy (of the zero page: a zeroed page).
 * noinline: a real function, as Linux's, so that gdb can stop in it (docs/gdb.md, COW).
 * __weak: the lab cow_reuse (docs/exercises.md) links its stub instead.
 */
__weak __attribute__((noinline)) int do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma,
					       uint64_t address, pte_t *pte)
{
	struct page *old, *new;
	bool from_zero;
	pte_t orig;

	/* A copy needs the VMA's anon_vma, whose lock comes before page_table_lock. (A shared
	 * VMA never copies.) */
	if (unlikely(!vma->anon_vma) && !(vma->vm_flags & VM_SHARED) && __anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	spin_lock(&mm->page_table_lock);
	orig = *pte;
	if (!pte_present(orig) || pte_write(orig)) { /* another fault got here first */
		spin_unlock(&mm->page_table_lock);
		return VM_FAULT_MINOR;
	}
	old = vm_normal_page(orig);
	from_zero = pte_pfn(orig) == page_to_pfn(zero_page);
	/* (A shared mapping's page, or device frame, is written in place: never copied.) */
	if (unlikely(vma->vm_flags & VM_SHARED) && vma_write_notify(vma) && old && !from_zero)
		return do_wp_page_notify(mm, vma, address, pte, orig, old);
	if ((!from_zero && (vma->vm_flags & VM_SHARED)) ||
	    (old && PageFlag(old, PG_anon) && old->_mapcount == 0 && can_reuse(old))) {
		*pte = pte_mkyoung(pte_mkdirty(pte_mkwrite(orig)));
		flush_tlb_page(vma, address);
		if (old)
			SetPageFlag(old, PG_dirty);
		spin_unlock(&mm->page_table_lock);
		return VM_FAULT_WRITE;
	}
	/*
	 * The copy is made with the lock held, unlike 2.6.23 (which drops it, allocates, takes
	 * it again and re-checks pte_same): this way the PTE cannot change under us and the old
	 * page needs no extra reference, which every COW fault paid for the other way
	 * (docs/bench.md, "Design choices, measured"). Only when free frames are short does the
	 * allocation have to reclaim, which may sleep: then it is 2.6.23's way.
	 */
	new = alloc_page(from_zero ? __GFP_ZERO : 0);
	if (unlikely(!new) || unlikely(nr_free_pages() < pages_min)) {
		if (new)
			put_page(new); /* (below the minimum: the reserve is the kernel's) */
		return do_wp_page_reclaim(mm, vma, address, pte, orig);
	}
	if (!from_zero)
		copy_page(page_address(new), __va(orig & PTE_PFN_MASK));
	install_pte(mm, vma, pte, new, true);
	flush_tlb_page(vma, address); /* the old entry was present: every CPU drops it */
	page_add_new_anon_rmap(new, vma, address);
	if (old) { /* only now: no CPU's TLB reaches it through the old entry any more */
		page_remove_rmap(old);
		free_page_and_swap_cache(old);
		mm->rss--;
	}
	spin_unlock(&mm->page_table_lock);
	return VM_FAULT_WRITE;
}

/*
 * Present and allowed: another path mapped it first, or the TLB was stale. Marks it young
 * (and dirty for a write) unless it changed meanwhile. Out of line: inlined, its lock made
 * handle_mm_fault save two more registers on every fault (docs/bench.md, "Design choices,
 * measured").
 */
static __attribute__((noinline)) int pte_spurious_fault(struct mm_struct *mm, pte_t *pte,
							pte_t orig, pte_t entry, uint64_t address)
{
	spin_lock(&mm->page_table_lock);
	if (*pte == orig)
		*pte = pte_mkyoung(entry);
	spin_unlock(&mm->page_table_lock);
	flush_tlb_one(address);
	return VM_FAULT_MINOR;
}

/* Look at the PTE for address and pick the handler, as Linux's handle_pte_fault does. */
static int handle_pte_fault(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
			    struct vm_fault *vmf)
{
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	pte_t *pte = vmf->pte, entry = *pte, orig = entry;

	if (!pte_present(entry)) {
		if (pte_none(entry)) {
			const struct vm_operations_struct *ops = vma->vm_ops;

			if (ops && (ops->fault || ops->nopage)) {
				count_vm_event(ops->fault ? FL_FAULT_FILE : FL_FAULT_NOPAGE);
				return do_linear_fault(mm, vma, vmf);
			}
			count_vm_event(write ? FL_FAULT_ANON : FL_FAULT_ZERO);
			/* A registered range's missing page comes from its userfaultfd (Linux
			 * asks in do_anonymous_page; here before it, which the lab replaces). */
			if (unlikely(userfaultfd_missing(vma)))
				return handle_userfault(vmf, address, VM_UFFD_MISSING);
			return do_anonymous_page(mm, vma, address, pte, write);
		}
		if (pte_file(entry)) {
			count_vm_event(FL_FAULT_NONLINEAR);
			return do_nonlinear_fault(mm, vma, vmf, entry);
		}
		count_vm_event(FL_FAULT_SWAP);
		return do_swap_page(mm, vma, address, pte, entry, write);
	}
	if (write) {
		if (!pte_write(entry)) {
			count_vm_event(FL_FAULT_COW);
			return do_wp_page(mm, vma, address, pte);
		}
		entry = pte_mkdirty(entry);
	}
	count_vm_event(FL_FAULT_SPURIOUS);
	return pte_spurious_fault(mm, pte, orig, entry, address);
}

/*
 * The PTE for a user address, making missing page-table levels. The levels are walked
 * unrolled when they exist (the common case): the generic walk_page_table loop works out
 * each level's shift and checks its bounds, on every fault (docs/bench.md, "Design choices,
 * measured").
 */
static pte_t *pte_alloc_slow(struct mm_struct *mm, uint64_t address)
{
	pte_t *pte;

	spin_lock(&mm->page_table_lock); /* two faults must not both add a table */
	pte = walk_page_table(mm->pgd, address, true);
	spin_unlock(&mm->page_table_lock);
	return pte;
}

static pte_t *pte_alloc_map(struct mm_struct *mm, uint64_t address)
{
	uint64_t *pud, *pmd, *pte, *pgd = mm->pgd;

	if (!(pgd[pgd_index(address)] & _PAGE_PRESENT))
		return pte_alloc_slow(mm, address);
	pud = __va(pgd[pgd_index(address)] & PTE_PFN_MASK);
	if (!(pud[pud_index(address)] & _PAGE_PRESENT))
		return pte_alloc_slow(mm, address);
	pmd = __va(pud[pud_index(address)] & PTE_PFN_MASK);
	if (!(pmd[pmd_index(address)] & _PAGE_PRESENT))
		return pte_alloc_slow(mm, address);
	pte = __va(pmd[pmd_index(address)] & PTE_PFN_MASK);
	return &pte[pte_index(address)];
}

/*
 * The caller has checked that vma allows the access: do_page_fault's access check, and every
 * kernel caller (make_pages_present, remap_file_pages, copy_to_mm) skips a VMA that allows
 * none, whose vm_page_prot of 0 would give a frame-holding entry that is not present (kcheck
 * reports one). Not checked again here, where every fault would pay for it (docs/bench.md,
 * "Design choices, measured").
 */
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		    unsigned int flags, struct vm_fault *vmf)
{
	uint64_t page_addr = ALIGN_DOWN(address, PAGE_SIZE);
	struct vm_fault local;

	if (!vmf)
		vmf = &local;
	vmf->vma = vma;
	vmf->flags = flags;
	vmf->pgoff = linear_page_index(vma, page_addr); /* do_nonlinear_fault may change it */
	vmf->virtual_address = (void *)page_addr;
	vmf->page = NULL; /* the op's answer */
	vmf->pte = pte_alloc_map(mm, page_addr);
	if (!vmf->pte)
		return VM_FAULT_OOM; /* no frame for a page-table page */
	return handle_pte_fault(mm, vma, address, vmf);
}

long copy_to_mm(struct mm_struct *mm, uint64_t va, const void *src, size_t n)
{
	while (n) {
		struct vm_area_struct *vma = find_vma(mm, va);
		size_t chunk = MIN(n, PAGE_SIZE - (va & ~PAGE_MASK));
		uint64_t pa;
		int ret;

		if (!vma || vma->vm_start > va || !(vma->vm_flags & VM_WRITE))
			return -EFAULT;
		ret = handle_mm_fault(mm, vma, va, FAULT_FLAG_WRITE, NULL);
		if (ret & VM_FAULT_ERROR)
			return (ret & VM_FAULT_OOM) ? -ENOMEM : -EFAULT;
		pa = translate(mm->pgd, va, NULL);
		if (src) {
			memcpy(__va(pa), src, chunk);
			src = (const uint8_t *)src + chunk;
		} else {
			memset(__va(pa), 0, chunk);
		}
		va += chunk;
		n -= chunk;
	}
	return 0;
}

struct zap_nl_args {
	struct mmu_gather tlb;
	unsigned long first;
};

/* truncate in a nonlinear VMA: a present page at or past first becomes a file PTE again (the
 * layout stays; the next touch sees the new EOF and gets SIGBUS), file PTEs stay as they are. */
static int zap_nl_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct zap_nl_args *a = arg;
	struct page *page = vm_normal_page(*pte);

	if (!pte_present(*pte) || !page || PageFlag(page, PG_anon) || page->index < a->first)
		return 0;
	zap_dirty_file_page(page, xchg(pte, pgoff_to_pte(page->index)));
	tlb_remove_tlb_entry(&a->tlb, va);
	page_remove_rmap(page);
	tlb_remove_page(&a->tlb, page);
	a->tlb.mm->rss--;
	return 0;
}

void zap_nonlinear_range(struct vm_area_struct *vma, unsigned long first)
{
	struct zap_nl_args a = { .first = first };

	tlb_gather_mmu(&a.tlb, vma->vm_mm);
	spin_lock(&vma->vm_mm->page_table_lock);
	walk_page_range(vma->vm_mm, vma->vm_start, vma->vm_end, zap_nl_pte, &a);
	spin_unlock(&vma->vm_mm->page_table_lock);
	tlb_finish_mmu(&a.tlb);
}
