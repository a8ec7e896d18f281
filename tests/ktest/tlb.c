/* Self-tests of the TLB shootdown (mm/tlbflush.c): an AP caches a translation of a test mm,
 * CPU 0 changes it through munmap, mprotect or a COW break, and the AP, which never flushes
 * on its own, must see the change; plus the lazy-TLB exit. They need an AP (KTEST_SMP). The
 * cost figures are benchmarks (ktest=bench, make bench). */
#include "kernel/arch/smp.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/test/ktest.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/tlbflush.h"
#include "mm/vma.h"

#define A 0x20000000UL /* where the tests map */

static long probe_ret;
static uint64_t probe_val;

/* On an AP, in its IPI handler: run on mm's tables as an active user (TLBSTATE_OK). */
static void ap_use_mm(void *mm)
{
	switch_mm(mm);
}

/* ...or as a lazy one: a kernel thread that kept the previous task's tables. */
static void ap_lazy_mm(void *mm)
{
	switch_mm(mm);
	enter_lazy_tlb();
}

static void ap_leave_mm(void *unused)
{
	(void)unused;
	leave_mm(smp_processor_id());
}

/* Fault-tolerant probes of A through the exception table: 0 or -EFAULT. */
static void ap_read(void *unused)
{
	(void)unused;
	probe_val = 0;
	probe_ret = copy_from_user(&probe_val, A, sizeof(probe_val));
}

static void ap_write(void *unused)
{
	uint64_t v = 0x77;

	(void)unused;
	probe_ret = copy_to_user(A, &v, sizeof(v));
}

static pte_t pte_of(struct mm_struct *mm, uint64_t va)
{
	pte_t *p = walk_page_table(mm->pgd, va, false);

	return p ? *p : 0;
}

/* A test mm with A..A+n pages mapped read-write and faulted in; A holds val. */
static struct mm_struct *test_mm(unsigned long n, uint64_t val)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm)
		return NULL;
	do_mmap(mm, NULL, A, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
	for (unsigned long i = 0; i < n; i++)
		handle_mm_fault(mm, find_vma(mm, A), A + i * PAGE_SIZE, true, NULL);
	*(uint64_t *)__va(pte_of(mm, A) & PTE_PFN_MASK) = val;
	return mm;
}

/* Every AP leaves mm, then mm goes. */
static void put_test_mm(struct mm_struct *mm)
{
	smp_call_function(ap_leave_mm, NULL, true);
	mmput(mm);
}

/*
 * munmap: each AP uses the mm and reads A (its TLB now maps it); CPU 0 unmaps A; each AP's
 * next read must fault. The page must still be held when an AP answers the flush (mmu_gather
 * frees it after the flush). tlb_shootdown_disabled shows the probe can see staleness.
 */
static void munmap_case(bool shootdown)
{
	struct mm_struct *mm = test_mm(1, 0x5a);
	struct page *page;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	page = vm_normal_page(pte_of(mm, A));
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_use_mm, mm, true);
		smp_call_function_single(cpu, ap_read, NULL, true);
		KT_CHECK(probe_ret == 0 && probe_val == 0x5a);
		KT_CHECK(mm->cpu_vm_mask & (1UL << cpu));
	}
	tlb_shootdown_disabled = !shootdown;
	tlb_watch_page = page;
	tlb_watch_count = -1;
	get_page(page); /* keep the frame ours whatever happens, to read it stale safely */
	KT_CHECK(do_munmap(mm, A, PAGE_SIZE) == 0);
	tlb_watch_page = NULL;
	if (shootdown)
		KT_CHECK(tlb_watch_count == 2); /* mapped (ours + the gather's) at the flush */
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_read, NULL, true);
		if (shootdown)
			KT_CHECK(probe_ret == -EFAULT);
		else /* the stale entry still reads the old frame: what the IPI prevents */
			KT_CHECK(probe_ret == 0 && probe_val == 0x5a);
	}
	tlb_shootdown_disabled = false;
	put_page(page);
	put_test_mm(mm);
}

KTEST_SMP(tlb_shootdown_munmap, 2)
{
	munmap_case(true);
}

/* The same with the IPI left out: the APs must still read the unmapped page (the test sees
 * the bug it guards against; a QEMU whose TLB dropped the entry would fail here). */
KTEST_SMP(tlb_shootdown_munmap_stale_without_ipi, 2)
{
	munmap_case(false);
}

/* mprotect(PROT_READ): an AP that wrote A (a writable, dirty TLB entry) must fault now. */
KTEST_SMP(tlb_shootdown_mprotect, 2)
{
	struct mm_struct *mm = test_mm(1, 0x5a), *saved = current->mm;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_use_mm, mm, true);
		smp_call_function_single(cpu, ap_write, NULL, true);
		KT_CHECK(probe_ret == 0);
	}
	current->mm = mm; /* sys_mprotect works on current's mm */
	KT_CHECK(sys_mprotect(A, PAGE_SIZE, PROT_READ) == 0);
	current->mm = saved;
	KT_CHECK(!pte_write(pte_of(mm, A)));
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_write, NULL, true);
		KT_CHECK(probe_ret == -EFAULT);
		smp_call_function_single(cpu, ap_read, NULL, true);
		KT_CHECK(probe_ret == 0 && probe_val == 0x77);
	}
	put_test_mm(mm);
}

/* COW break: the APs read A; fork shares it read-only; CPU 0's write fault gives the parent a
 * new frame, which then holds 0x9999: the APs must read the new frame, not the old one. */
KTEST_SMP(tlb_shootdown_cow_break, 2)
{
	struct mm_struct *mm = test_mm(1, 0x1234), *child;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_use_mm, mm, true);
		smp_call_function_single(cpu, ap_read, NULL, true);
		KT_CHECK(probe_ret == 0 && probe_val == 0x1234);
	}
	child = dup_mm(mm);
	KT_CHECK(child != NULL);
	if (!child) {
		put_test_mm(mm);
		return;
	}
	KT_CHECK(handle_mm_fault(mm, find_vma(mm, A), A, true, NULL) == VM_FAULT_WRITE);
	KT_CHECK(pte_pfn(pte_of(mm, A)) != pte_pfn(pte_of(child, A)));
	*(uint64_t *)__va(pte_of(mm, A) & PTE_PFN_MASK) = 0x9999;
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_read, NULL, true);
		KT_CHECK(probe_ret == 0 && probe_val == 0x9999);
	}
	mmput(child);
	put_test_mm(mm);
}

/* Lazy TLB: an AP that only keeps the mm loaded leaves it at the first shootdown (its bit
 * goes, kernel_pgd in CR3), so the next flush does not interrupt it. */
KTEST_SMP(tlb_lazy_leaves_at_first_flush, 2)
{
	struct mm_struct *mm = test_mm(2, 0);

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		smp_call_function_single(cpu, ap_lazy_mm, mm, true);
		KT_CHECK(cpu_tlbstate[cpu].state == TLBSTATE_LAZY);
		KT_CHECK(cpu_tlbstate[cpu].active_mm == mm);
	}
	KT_CHECK(do_munmap(mm, A, PAGE_SIZE) == 0);
	KT_CHECK((mm->cpu_vm_mask & ~1UL) == 0);
	for (int cpu = 1; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu))
			KT_CHECK(cpu_tlbstate[cpu].active_mm == NULL);
	put_test_mm(mm);
}

/*
 * The cost of a munmap of one page that shoots down 0..3 other CPUs (active users of the
 * mm): the mean TSC cycles of 20, which under --icount are guest instructions of all CPUs.
 * A benchmark (ktest=bench): its checks make sure each figure is of real munmaps, each of
 * which found n other CPUs to shoot down.
 */
KTEST_BENCH(tlb_munmap_cost, 2)
{
	struct mm_struct *mm = test_mm(1, 0);

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	for (int n = 0, last = 0; n <= 3 && n < num_online_cpus(); n++) {
		uint64_t sum = 0;
		int timed = 0, tries = 0;

		if (n) /* one more AP holds the mm */
			while (!cpu_online(++last))
				;
		while (timed < 20 && tries++ < 100) {
			uint64_t t, mask;
			long r;

			KT_CHECK(do_mmap(mm, NULL, A, PAGE_SIZE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0) == (long)A);
			handle_mm_fault(mm, find_vma(mm, A), A, true, NULL);
			KT_CHECK(pte_present(pte_of(mm, A)));
			/* each AP an active user again: a kernel thread that ran there since made
			 * it lazy, and a lazy CPU leaves the mm at the first flush */
			for (int cpu = 1; cpu <= last; cpu++)
				if (cpu_online(cpu))
					smp_call_function_single(cpu, ap_use_mm, mm, true);
			t = rdtsc();
			r = do_munmap(mm, A, PAGE_SIZE);
			t = rdtsc() - t;
			KT_CHECK(r == 0);
			/* n shootdowns only if the flush found every AP still in the mask: one
			 * that went lazy in between (the other kernel threads run there) left */
			mask = __atomic_load_n(&mm->cpu_vm_mask, __ATOMIC_ACQUIRE) & ~1UL;
			for (int cpu = 1; cpu <= last; cpu++)
				if (cpu_online(cpu) && !(mask & (1UL << cpu)))
					mask = 0;
			if (n && !mask)
				continue;
			sum += t;
			timed++;
		}
		KT_CHECK(timed == 20);
		printk("tlb: munmap of one page, %d other CPUs: %lu cycles\n", n, sum / 20);
		if (tries > timed)
			printk("# tlb: %d munmaps left out: an AP had left\n", tries - timed);
	}
	put_test_mm(mm);
}

/* Read one byte of each of n pages from A (the TLB refill after a flush). */
static void touch(unsigned long n)
{
	uint8_t b;

	for (unsigned long i = 0; i < n; i++)
		(void)copy_from_user(&b, A + i * PAGE_SIZE, 1);
}

/*
 * The range-flush threshold: on CPU 0 with a test mm's tables, the cost of flushing n pages
 * by INVLPG and touching them again, against a CR3 reload and the same touches (the reload
 * also drops the kernel's entries, which are not global). Prints both for each n. A benchmark
 * (ktest=bench): nothing here can tell a right figure from a wrong one.
 */
KTEST_BENCH(tlb_flush_threshold, 1)
{
	static const unsigned long ns[] = { 1, 8, 16, 24, 32, 48, 64, 128 };
	struct mm_struct *mm = test_mm(128, 0);
	uint64_t flags, old;

	KT_CHECK(mm != NULL);
	if (!mm)
		return;
	flags = local_irq_save();
	old = read_cr3();
	write_cr3(__pa(mm->pgd));
	for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint64_t inv = 0, rel = 0, t;

		for (int r = 0; r < 10; r++) {
			touch(ns[i]);
			t = rdtsc();
			for (unsigned long va = A; va < A + ns[i] * PAGE_SIZE; va += PAGE_SIZE)
				flush_tlb_one(va);
			touch(ns[i]);
			inv += rdtsc() - t;
			touch(ns[i]);
			t = rdtsc();
			write_cr3(read_cr3());
			touch(ns[i]);
			rel += rdtsc() - t;
		}
		printk("tlb: flush %lu pages: invlpg %lu, cr3 reload %lu cycles\n", ns[i],
		       inv / 10, rel / 10);
	}
	write_cr3(old);
	local_irq_restore(flags);
	mmput(mm);
}
