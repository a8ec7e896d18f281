/* TLB shootdown: local flushes, the INVALIDATE_TLB_VECTOR IPI that flushes the other CPUs in
 * an mm's cpu_vm_mask and waits for each to acknowledge (2.6.23's flush_tlb_others), lazy TLB
 * for tasks without an mm, and the mmu_gather batch that frees zapped pages after the flush. */
#include "drivers/apic/apic.h"
#include "kernel/arch/smp.h"
#include "kernel/arch/trap.h"
#include "kernel/arch/x86.h"
#include "kernel/bug.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"
#include "mm/swap.h"
#include "mm/tlbflush.h"
#include "mm/vma.h"

struct tlb_state cpu_tlbstate[NR_CPUS];
unsigned long tlb_single_page_flush_ceiling = 20;
bool tlb_shootdown_disabled;

/* The one flush in flight (Linux 2.6.23 has the same single set under tlbstate_lock), claimed
 * with an atomic exchange. Not static: the lab tlb_shootdown's flush_tlb_others sets them. */
int flush_claim;
uint64_t flush_cpumask; /* the targets that have not acknowledged yet */
struct mm_struct *flush_mm; /* NULL: kernel mappings, every CPU flushes */
unsigned long flush_start, flush_end;

#define FLUSH_ALL_GLOBAL 1UL
#define CR4_PGE (1UL << 7) /* global pages enabled */

struct page *tlb_watch_page;
int tlb_watch_count = -1; /* flush_start's value for flush_tlb_all */

/* This CPU: [start, end) by INVLPG when few pages, else the whole non-global TLB. */
static void local_flush_range(unsigned long start, unsigned long end)
{
	if ((end - start) >> PAGE_SHIFT > tlb_single_page_flush_ceiling) {
		write_cr3(read_cr3());
		return;
	}
	for (unsigned long va = start; va < end; va += PAGE_SIZE)
		flush_tlb_one(va);
}

/* Everything, global (kernel) entries included: toggling CR4.PGE flushes them too. */
static void local_flush_tlb_all(void)
{
	uint64_t cr4 = read_cr4();

	if (cr4 & CR4_PGE) {
		asm volatile("mov %0, %%cr4" : : "r"(cr4 & ~CR4_PGE) : "memory");
		asm volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");
	} else {
		write_cr3(read_cr3());
	}
}

void leave_mm(int cpu)
{
	struct tlb_state *ts = &cpu_tlbstate[cpu];

	if (ts->active_mm)
		__atomic_fetch_and(&ts->active_mm->cpu_vm_mask, ~(1UL << cpu), __ATOMIC_RELEASE);
	ts->active_mm = NULL;
	ts->state = TLBSTATE_OK;
	write_cr3(__pa(kernel_pgd));
}

void switch_mm(struct mm_struct *next)
{
	int cpu = smp_processor_id();
	struct tlb_state *ts = &cpu_tlbstate[cpu];
	struct mm_struct *prev = ts->active_mm;

	ts->state = TLBSTATE_OK;
	if (prev == next)
		return; /* back from lazy mode: the mask kept this CPU, flushes reached it */
	if (prev)
		__atomic_fetch_and(&prev->cpu_vm_mask, ~(1UL << cpu), __ATOMIC_RELEASE);
	ts->active_mm = next;
	/* In the mask before CR3 points at next: a flush that misses the bit happened before
	 * the CR3 write, which empties the TLB anyway. */
	__atomic_fetch_or(&next->cpu_vm_mask, 1UL << cpu, __ATOMIC_SEQ_CST);
	write_cr3(__pa(next->pgd));
}

void enter_lazy_tlb(void)
{
	struct tlb_state *ts = &cpu_tlbstate[smp_processor_id()];

	if (ts->active_mm)
		ts->state = TLBSTATE_LAZY;
}

/* INVALIDATE_TLB_VECTOR: flush what flush_tlb_others asked, or leave the mm if lazy. */
static void invalidate_interrupt(struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct tlb_state *ts = &cpu_tlbstate[cpu];
	uint64_t bit = 1UL << cpu;

	(void)regs;
	apic_eoi();
	if (!(__atomic_load_n(&flush_cpumask, __ATOMIC_ACQUIRE) & bit))
		return; /* not for this CPU (a flush it already answered) */
	if (!flush_mm) {
		if (flush_start == FLUSH_ALL_GLOBAL)
			local_flush_tlb_all();
		else
			local_flush_range(flush_start, flush_end);
	} else if (flush_mm == ts->active_mm) {
		if (ts->state == TLBSTATE_OK)
			local_flush_range(flush_start, flush_end);
		else
			leave_mm(cpu); /* lazy: no user access here, so stop taking flushes */
	}
	if (tlb_watch_page && tlb_watch_count < 0) /* the first flush (the zap's) only */
		tlb_watch_count = page_count(tlb_watch_page);
	__atomic_fetch_and(&flush_cpumask, ~bit, __ATOMIC_RELEASE);
}

/*
 * Offline CPUs are dropped from mask. On return no CPU can use a translation the caller
 * removed. Interrupts must be on (below). __weak: the lab tlb_shootdown (docs/exercises.md)
 * links its stub instead.
 */
__weak void flush_tlb_others(uint64_t mask, struct mm_struct *mm, unsigned long start,
		      unsigned long end)
{
	mask &= __atomic_load_n(&cpu_online_mask, __ATOMIC_ACQUIRE) &
		~(1UL << smp_processor_id());
	if (!mask || tlb_shootdown_disabled)
		return;
	/* A CPU waiting here with interrupts off would never answer the flush another CPU
	 * sends it while this one waits for that CPU: both would wait forever. */
	BUG_ON(irqs_disabled());
	while (__atomic_exchange_n(&flush_claim, 1, __ATOMIC_ACQUIRE))
		asm volatile("pause");
	flush_mm = mm;
	flush_start = start;
	flush_end = end;
	__atomic_store_n(&flush_cpumask, mask, __ATOMIC_RELEASE);
	for (uint64_t m = mask; m; m &= m - 1)
		apic_send_ipi(cpu_data[__builtin_ctzll(m)].apic_id,
			      APIC_DM_FIXED | APIC_INT_ASSERT | INVALIDATE_TLB_VECTOR);
	while (__atomic_load_n(&flush_cpumask, __ATOMIC_ACQUIRE))
		asm volatile("pause");
	__atomic_store_n(&flush_claim, 0, __ATOMIC_RELEASE);
}

void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	int cpu = smp_processor_id();

	if (start >= end)
		return;
	if (cpu_tlbstate[cpu].active_mm == mm)
		local_flush_range(start, end);
	flush_tlb_others(__atomic_load_n(&mm->cpu_vm_mask, __ATOMIC_ACQUIRE), mm, start, end);
}

void flush_tlb_mm(struct mm_struct *mm)
{
	flush_tlb_mm_range(mm, 0, USER_TOP);
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	flush_tlb_mm_range(vma->vm_mm, start, end);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	/* Kernel pages may be global: INVLPG drops those too, a CR3 reload does not. */
	if ((end - start) >> PAGE_SHIFT > tlb_single_page_flush_ceiling) {
		flush_tlb_all();
		return;
	}
	for (unsigned long va = start; va < end; va += PAGE_SIZE)
		flush_tlb_one(va);
	flush_tlb_others(~0UL, NULL, start, end);
}

void flush_tlb_all(void)
{
	local_flush_tlb_all();
	flush_tlb_others(~0UL, NULL, FLUSH_ALL_GLOBAL, 0);
}

void tlb_mm_release(struct mm_struct *mm)
{
	int cpu = smp_processor_id();

	if (cpu_tlbstate[cpu].active_mm == mm)
		leave_mm(cpu);
	flush_tlb_mm(mm); /* the lazy CPUs leave it */
	/* A CPU still in the mask would run a task of a freed mm. */
	BUG_ON(__atomic_load_n(&mm->cpu_vm_mask, __ATOMIC_ACQUIRE) && !tlb_shootdown_disabled);
}

void tlb_init_ipi(void)
{
	set_vector_handler(INVALIDATE_TLB_VECTOR, invalidate_interrupt);
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->start = tlb->end = 0;
	tlb->nr = 0;
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	flush_tlb_mm_range(tlb->mm, tlb->start, tlb->end);
	tlb->start = tlb->end = 0;
	/* Every CPU has acknowledged the flush: none can reach these frames any more. A page
	 * swapped in whose slot nobody else holds leaves the swap cache with its last PTE. */
	for (unsigned int i = 0; i < tlb->nr; i++)
		free_page_and_swap_cache(tlb->pages[i]);
	tlb->nr = 0;
}

void tlb_remove_page(struct mmu_gather *tlb, struct page *page)
{
	if (tlb->nr == MMU_GATHER_PAGES)
		tlb_flush_mmu(tlb);
	tlb->pages[tlb->nr++] = page;
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
}
