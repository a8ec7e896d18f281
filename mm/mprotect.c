/* mprotect: change the permissions of every page in a range, splitting VMAs at its ends and
 * joining them again where neighbours become alike (Linux's mm/mprotect.c). */
#include "kernel/errno.h"
#include "kernel/process/personality.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/filemap.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/vma.h"

/* Give the present PTEs the VMA's new protection. Private writable pages stay read-only:
 * the next write goes through do_wp_page, which reuses a page nobody else maps. */
static int change_pte(pte_t *pte, uint64_t va, void *arg)
{
	(void)va; /* mprotect_fixup flushes the whole range afterwards */
	if (pte_present(*pte)) {
		pte_t prot = *(pte_t *)arg;

		if (!pte_write(*pte))
			prot &= ~_PAGE_RW; /* never make a COW or zero-page PTE writable here */
		*pte = (*pte & (PTE_PFN_MASK | _PAGE_ACCESSED | _PAGE_DIRTY)) | prot;
	}
	return 0;
}

/* One VMA exactly covering the part of the range it is in, with its new flags. */
static int mprotect_fixup(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t start,
			  uint64_t end, unsigned long newflags)
{
	unsigned long charged = 0, uncharged = 0;
	struct vm_area_struct *prev;
	pte_t prot, cache;

	/* A private mapping becoming writable is promised now. One made read-only again keeps
	 * its promise once it has pages of its own (an anon_vma); an anonymous one never written
	 * gives it back (today's Linux's mprotect_fixup), so making it writable charges again. */
	if ((newflags & VM_WRITE) &&
	    !(vma->vm_flags & (VM_ACCOUNT | VM_WRITE | VM_SHARED | VM_NORESERVE))) {
		charged = (end - start) >> PAGE_SHIFT;
		if (security_vm_enough_memory_mm(mm, (long)charged))
			return -ENOMEM;
		newflags |= VM_ACCOUNT;
	} else if (!(newflags & VM_WRITE) && (vma->vm_flags & VM_ACCOUNT) && !vma->vm_file &&
		   !vma->anon_vma) {
		newflags &= ~VM_ACCOUNT;
		uncharged = (end - start) >> PAGE_SHIFT;
	}
	/* The head of a VMA becoming what the VMA before it is: move the boundary. */
	if (start == vma->vm_start && (prev = vma_merge_prev_head(mm, vma, end, newflags))) {
		vma = prev;
	} else if ((start > vma->vm_start && split_vma(mm, vma, start, 1)) ||
		   (end < vma->vm_end && split_vma(mm, vma, end, 0))) {
		vm_unacct_memory((long)charged);
		return -ENOMEM;
	}
	vma->vm_flags = newflags;
	vm_unacct_memory((long)uncharged);
	/* A device's caching bits stay, as Linux's vm_pgprot_modify keeps them; PROT_NONE
	 * (no bits at all) must stay 0, or it would look like an accessible mapping. */
	cache = vma->vm_page_prot & (_PAGE_PCD | _PAGE_PWT);
	vma->vm_page_prot = vm_get_page_prot(newflags);
	if (vma->vm_page_prot)
		vma->vm_page_prot |= cache;
	if (vma_wants_writenotify(vma)) { /* stores keep reaching writeback (2.6.23) */
		vma->vm_page_prot &= ~_PAGE_RW;
		wb_timer_start();
	}
	prot = vma->vm_page_prot;
	/* Write permission in a private mapping is granted per page, by the write fault. */
	if (!(newflags & VM_SHARED))
		prot &= ~_PAGE_RW;
	if (prot) {
		spin_lock(&mm->page_table_lock);
		walk_page_range(mm, start, end, change_pte, &prot); /* file PTEs stay as they are */
		spin_unlock(&mm->page_table_lock);
		flush_tlb_range(vma, start, end); /* once, after every PTE is downgraded */
	} else if (newflags & VM_NONLINEAR) { /* PROT_NONE: back to file PTEs, layout kept */
		zap_nonlinear_range(vma, 0);
	} else {
		zap_page_range(mm, start, end); /* PROT_NONE: no access, nothing stays mapped */
	}
	vma_merge_neighbours(mm, vma);
	return 0;
}

static long do_mprotect_locked(uint64_t start, uint64_t len, uint64_t prot)
{
	uint64_t grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP), end, next;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	/* Linux's order: the GROWS bits, alignment, an empty range (success whatever prot
	 * says), overflow, then the PROT_ bits (PROT_SEM is accepted and means nothing). */
	prot &= ~(uint64_t)(PROT_GROWSDOWN | PROT_GROWSUP);
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	end = start + ALIGN_UP(len, PAGE_SIZE);
	if (end <= start)
		return -ENOMEM;
	if (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;
	if (end > USER_TOP)
		return -ENOMEM;
	prot &= ~(uint64_t)PROT_SEM;
	if (grows) {
		/* PROT_GROWSDOWN: the range reaches down to the start of the first VMA in it,
		 * which must grow down; nothing on x86 grows up (PROT_GROWSUP). */
		vma = find_vma(mm, start);
		if (!vma || vma->vm_start >= end)
			return -ENOMEM;
		if ((grows & PROT_GROWSUP) && vma->vm_start > start)
			return -ENOMEM;
		if ((grows & PROT_GROWSUP) || !(vma->vm_flags & VM_GROWSDOWN))
			return -EINVAL;
		start = vma->vm_start;
	}
	/* The whole range must be mapped, with no holes (else -ENOMEM, as Linux). */
	for (uint64_t a = start; a < end; a = vma->vm_end) {
		vma = find_vma(mm, a);
		if (!vma || vma->vm_start > a)
			return -ENOMEM;
		if (((prot & PROT_WRITE) && !(vma->vm_flags & VM_MAYWRITE)) ||
		    ((prot & PROT_READ) && !(vma->vm_flags & VM_MAYREAD)) ||
		    ((prot & PROT_EXEC) && !(vma->vm_flags & VM_MAYEXEC)))
			return -EACCES;
	}
	for (uint64_t a = start; a < end; a = next) {
		unsigned long flags;
		uint64_t p = prot;

		vma = find_vma(mm, a);
		next = MIN(end, vma->vm_end);
		/* personality(READ_IMPLIES_EXEC): readable means runnable where it may run */
		if ((p & PROT_READ) && (current->personality & READ_IMPLIES_EXEC) &&
		    (vma->vm_flags & VM_MAYEXEC))
			p |= PROT_EXEC;
		/* The VMA's flags but for the access bits, which come from prot. */
		flags = (vma->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) |
			(calc_vm_flags(p, 0) & (VM_READ | VM_WRITE | VM_EXEC));
		if (mprotect_fixup(mm, vma, a, next, flags))
			return -ENOMEM;
	}
	return 0;
}

long sys_mprotect(uint64_t start, uint64_t len, uint64_t prot)
{
	return mmap_write_locked(current->mm, do_mprotect_locked(start, len, prot));
}
