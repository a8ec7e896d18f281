/* TLB shootdown (Linux 2.6.23's asm/tlbflush.h and asm-generic/tlb.h): flushing a changed
 * translation on every CPU that may cache it (mm->cpu_vm_mask), the lazy-TLB state of each
 * CPU, and the mmu_gather batch that frees a zapped range's pages only after the flush. */
#ifndef MM_TLBFLUSH_H
#define MM_TLBFLUSH_H

#include "kernel/arch/percpu.h"
#include "mm/mm_types.h"
#include "mm/pgtable.h"
#include "mm/vma.h"

struct vm_area_struct;
struct page;

/*
 * What a CPU's TLB holds for user addresses: active_mm is the mm whose tables CR3 points to
 * (NULL: kernel_pgd). TLBSTATE_OK: a task of active_mm runs here, flush on request.
 * TLBSTATE_LAZY: a kernel thread or the idle task runs on the previous task's tables without
 * touching user memory; the first shootdown for that mm makes this CPU leave it (leave_mm).
 */
#define TLBSTATE_OK 1
#define TLBSTATE_LAZY 2

struct tlb_state {
	struct mm_struct *active_mm;
	int state;
};

extern struct tlb_state cpu_tlbstate[NR_CPUS];

/*
 * Above this many pages a range flush reloads CR3 (the whole TLB) instead of one INVLPG per
 * page. ktest=tlb_flush_threshold (flush n pages, then touch them again) under QEMU's TCG:
 * INVLPG wins up to 16 pages, the reload from 24 on (three runs); under --icount the reload
 * always wins, because a TLB refill is no instruction. Hence 20 (docs/smp.md).
 */
extern unsigned long tlb_single_page_flush_ceiling;

/* The flush in flight, set by flush_tlb_others and read by each target's interrupt handler:
 * the claim (0 free, 1 taken), the CPUs yet to acknowledge, the mm (NULL: kernel mappings)
 * and the range ([FLUSH_ALL_GLOBAL, 0): everything, global entries too). */
extern int flush_claim;
extern uint64_t flush_cpumask;
extern struct mm_struct *flush_mm;
extern unsigned long flush_start, flush_end;

/* Test switch: when set, flushes stay on this CPU (no IPI), to show a ktest can fail. */
extern bool tlb_shootdown_disabled;
/* ktest hook: when set, a CPU answering a shootdown records tlb_watch_page's reference
 * count in tlb_watch_count if it is still -1 (a zapped page must still be held then: freed
 * after the flush). */
extern struct page *tlb_watch_page;
extern int tlb_watch_count;

/* Switch this CPU to next's tables (context switch, execve): it joins next->cpu_vm_mask. */
void switch_mm(struct mm_struct *next);
/* A task without an mm runs next: keep the tables loaded, lazily (no CR3 write). */
void enter_lazy_tlb(void);
/* This CPU stops using its active_mm: kernel_pgd in CR3, its bit out of the mm's mask. */
void leave_mm(int cpu);
/* Before freeing mm's tables: every CPU still holding them (lazily) leaves them. */
void tlb_mm_release(struct mm_struct *mm);

/* The whole of mm's user translations, on every CPU in its mask. */
void flush_tlb_mm(struct mm_struct *mm);
/* [start, end) of mm (INVLPG per page up to the ceiling, else CR3 reload), every CPU. */
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
/*
 * The CPUs of mask other than this one flush [start, end) of mm (mm NULL: kernel mappings);
 * returns once each has acknowledged (2.6.23's flush_tlb_others).
 */
void flush_tlb_others(uint64_t mask, struct mm_struct *mm, unsigned long start,
		      unsigned long end);

/*
 * One page of vma's mm. Inline, on every fault that installs a PTE: the local INVLPG is
 * unconditional (as before there were other CPUs: a useless one costs less than the test),
 * the IPI only when another CPU is in the mask. Out of line, every such fault would pay for
 * a call and a frame (docs/bench.md, "Design choices, measured").
 */
static inline void flush_tlb_page(struct vm_area_struct *vma, unsigned long va)
{
	struct mm_struct *mm = vma->vm_mm;

	flush_tlb_one(va);
	if (__atomic_load_n(&mm->cpu_vm_mask, __ATOMIC_RELAXED) & ~(1UL << smp_processor_id()))
		flush_tlb_others(mm->cpu_vm_mask, mm, va, va + PAGE_SIZE);
}
/* Kernel mappings (the kernel half, shared by every pgd): every online CPU. */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);
/* Everything, global entries included, on every online CPU. */
void flush_tlb_all(void);
/* The IPI's vector and handler, on the boot CPU before any AP starts. */
void tlb_init_ipi(void);

/*
 * The zap batch (mmu_gather): the PTEs of a range are cleared first, the range is flushed on
 * every CPU once, and only then are the pages freed: a page must not be reused while another
 * CPU can still reach it through a stale TLB entry.
 */
#define MMU_GATHER_PAGES 64

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end; /* the PTEs cleared since the last flush ([0, 0): none) */
	unsigned int nr;
	struct page *pages[MMU_GATHER_PAGES]; /* to put_page after the flush */
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
/* A present PTE of va was cleared or downgraded: va joins the range to flush. */
static inline void tlb_remove_tlb_entry(struct mmu_gather *tlb, unsigned long va)
{
	if (tlb->start == tlb->end) {
		tlb->start = va;
		tlb->end = va + PAGE_SIZE;
	} else {
		tlb->start = va < tlb->start ? va : tlb->start;
		tlb->end = va + PAGE_SIZE > tlb->end ? va + PAGE_SIZE : tlb->end;
	}
}
/* Drop one reference to page after the flush (now, after a flush, if the batch is full). */
void tlb_remove_page(struct mmu_gather *tlb, struct page *page);
/* Flush what was gathered, then free the pages. */
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_finish_mmu(struct mmu_gather *tlb);

#endif
