/* Bringing up the application processors (APs): the real-mode trampoline page below 1 MiB,
 * each AP's stacks and idle task, INIT-SIPI-SIPI, and the AP's first C code, which ends in
 * the AP's idle loop: from then on it runs tasks like the boot CPU (docs/smp.md). */
#include "drivers/acpi_madt.h"
#include "drivers/apic/apic.h"
#include "drivers/pit.h"
#include "kernel/lib/cmdline.h"
#include "kernel/arch/multiboot2.h"
#include "kernel/arch/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/arch/smp.h"
#include "mm/tlbflush.h"
#include "kernel/lib/string.h"
#include "kernel/syscall.h"
#include "kernel/arch/x86.h"
#include "mm/bootmem.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"
#include "mm/slab.h"

#define TRAMPOLINE_PAGES 4 /* the code, then the temporary PML4, PDPT and PD */
#define AP_STACKS_ORDER 4  /* 64 KiB: a 16 KiB kernel stack, then the three IST stacks */
#define CALLIN_WAIT_MS 1000

extern char trampoline_start[], trampoline_end[], secondary_startup_64[];
extern uint64_t trampoline_cr3, trampoline_kernel_cr3, trampoline_entry, trampoline_stack,
	trampoline_arg;
extern struct boot_info boot_info;

static uint64_t tramp_pa;           /* the trampoline page's physical address */
static void *ap_stacks[NR_CPUS];    /* each AP's AP_STACKS_ORDER block */
static struct task_struct *ap_idle[NR_CPUS]; /* each AP's idle task (pid 0, as Linux's) */
static uint64_t boot_cr0, boot_cr4; /* the boot CPU's control registers, copied onto APs */

/* Does [pa, pa + len) overlap something GRUB left in low memory that is still read? */
static bool low_range_taken(uint64_t pa, uint64_t len)
{
	const struct boot_info *bi = &boot_info;

	if (pa < bi->info_phys + bi->info_size && bi->info_phys < pa + len)
		return true;
	for (int i = 0; i < bi->nr_modules; i++)
		if (pa < bi->modules[i].end && bi->modules[i].start < pa + len)
			return true;
	for (uint64_t p = pa; p < pa + len; p += PAGE_SIZE)
		if (!bootmem_is_ram(p))
			return true;
	return false;
}

/* The first run of TRAMPOLINE_PAGES free RAM pages from 0x1000 to the EBDA's 0x9f000 (a SIPI
 * vector is a page number below 1 MiB). Under UEFI GRUB's info and module sit near 0xe000:
 * skipped. 0 when there is none. */
static uint64_t find_trampoline_page(void)
{
	for (uint64_t pa = 0x1000; pa + TRAMPOLINE_PAGES * PAGE_SIZE <= 0x9f000; pa += PAGE_SIZE)
		if (!low_range_taken(pa, TRAMPOLINE_PAGES * PAGE_SIZE))
			return pa;
	return 0;
}

/* Copy the trampoline and build its page table: the first 2 MiB identity-mapped and
 * executable (the AP fetches its next instruction there right after paging goes on), and
 * the kernel's half of kernel_pgd, where secondary_startup_64 and the AP's stack live. */
static void setup_trampoline(void)
{
	uint8_t *page = __va(tramp_pa);
	uint64_t *pml4 = (uint64_t *)(page + PAGE_SIZE), *pdpt = pml4 + 512, *pd = pdpt + 512;

	memset(page, 0, TRAMPOLINE_PAGES * PAGE_SIZE);
	memcpy(page, trampoline_start, (size_t)(trampoline_end - trampoline_start));
	pd[0] = 0 | _PAGE_PRESENT | _PAGE_RW | _PAGE_PSE;
	pdpt[0] = (tramp_pa + 3 * PAGE_SIZE) | _PAGE_PRESENT | _PAGE_RW;
	pml4[0] = (tramp_pa + 2 * PAGE_SIZE) | _PAGE_PRESENT | _PAGE_RW;
	for (int i = 256; i < 512; i++)
		pml4[i] = ((uint64_t *)kernel_pgd)[i];
}

/* A field of the copied trampoline, found by its offset in the original. */
static uint64_t *tramp_field(uint64_t *sym)
{
	return (uint64_t *)((uint8_t *)__va(tramp_pa) + ((char *)sym - trampoline_start));
}

/*
 * The AP's first C code, on its own stack, on kernel_pgd, interrupts off: its per-CPU area,
 * GDT/TSS, IDT, control registers and system-call MSRs, its APIC and timer; then it calls in
 * (its bit in cpu_online_mask) and becomes its idle task, taking tasks from the run queue.
 */
void __noreturn start_secondary(uint64_t cpu);
void __noreturn start_secondary(uint64_t cpu)
{
	uint8_t *stacks = ap_stacks[cpu];
	uint64_t top = (uint64_t)stacks + KSTACK_SIZE;

	asm volatile("mov %0, %%cr0; mov %1, %%cr4" ::"r"(boot_cr0), "r"(boot_cr4) : "memory");
	percpu_init_cpu((int)cpu, ap_idle[cpu]);
	gdt_init_cpu((int)cpu, stacks + KSTACK_SIZE);
	trap_load_idt();
	syscall_init();
	tss_set_rsp0(top);
	this_cpu_ptr()->kernel_rsp = top;
	apic_init_ap();
	__atomic_or_fetch(&cpu_online_mask, 1ULL << cpu, __ATOMIC_RELEASE);
	cpu_idle(); /* from here it takes tasks from the run queue like the boot CPU */
}

/* INIT, then two start-up IPIs at the trampoline's page, with the SDM's waits. */
static void wakeup_secondary_cpu(uint32_t apicid)
{
	uint32_t vector = (uint32_t)(tramp_pa >> 12);

	apic_send_ipi(apicid, APIC_DM_INIT | APIC_INT_LEVELTRIG | APIC_INT_ASSERT);
	if (apic == &apic_xapic) /* x2APIC has no INIT level de-assert */
		apic_send_ipi(apicid, APIC_DM_INIT | APIC_INT_LEVELTRIG);
	mdelay(10);
	for (int i = 0; i < 2; i++) {
		apic_send_ipi(apicid, APIC_DM_STARTUP | vector);
		pit_udelay(200);
	}
}

/* Start CPU cpu (APIC id apicid); true once it has called in. */
static bool do_boot_cpu(int cpu, uint32_t apicid)
{
	struct page *pg = alloc_pages(__GFP_ZERO, AP_STACKS_ORDER);
	struct task_struct *idle = kzalloc(sizeof(*idle));

	if (!pg || !idle) {
		printk("smp: no memory for CPU %d's stacks and idle task\n", cpu);
		return false;
	}
	ap_stacks[cpu] = page_address(pg);
	idle->state = TASK_RUNNING;
	idle->on_cpu = true;
	idle->cpu = cpu;
	idle->cpus_allowed = 1UL << cpu;
	idle->lock_depth = -1;
	idle->stack = ap_stacks[cpu];
	snprintf(idle->comm, sizeof(idle->comm), "swapper/%d", cpu);
	ap_idle[cpu] = idle;
	cpu_data[cpu].apic_id = apicid;
	*tramp_field(&trampoline_stack) = (uint64_t)ap_stacks[cpu] + KSTACK_SIZE;
	*tramp_field(&trampoline_arg) = (uint64_t)cpu;
	wakeup_secondary_cpu(apicid);
	for (int ms = 0; ms < CALLIN_WAIT_MS; ms++) {
		if (cpu_online(cpu))
			return true;
		pit_udelay(1000);
	}
	printk("smp: CPU %d (APIC id %u) did not call in after %d ms\n", cpu, apicid,
	       CALLIN_WAIT_MS);
	return false; /* its stacks stay allocated: it may still wake up and use them */
}

/* Start the MADT's other enabled CPUs in table order, one at a time (they share the
 * trampoline's fields), up to maxcpus= (nosmp: none); print one line each and the total. */
void smp_boot_cpus(void)
{
	uint32_t me = this_cpu_ptr()->apic_id;
	long max = cmdline_get_long("maxcpus", NR_CPUS);
	int next = 1;

	smp_init_ipis();
	tlb_init_ipi();
	if (cmdline_has("nosmp"))
		max = 1;
	if (!apic || madt.nr_cpus < 2 || max < 2) {
		printk("smp: 1 CPU online (%s)\n", !apic ? "no local APIC" :
		       madt.nr_cpus < 2 ? "the MADT lists one" : "nosmp or maxcpus=1");
		return;
	}
	tramp_pa = find_trampoline_page();
	if (!tramp_pa) {
		printk("smp: no free page below 1 MiB for the trampoline: 1 CPU online\n");
		return;
	}
	asm volatile("mov %%cr0, %0; mov %%cr4, %1" : "=r"(boot_cr0), "=r"(boot_cr4));
	setup_trampoline();
	*tramp_field(&trampoline_cr3) = tramp_pa + PAGE_SIZE;
	*tramp_field(&trampoline_kernel_cr3) = __pa(kernel_pgd);
	*tramp_field(&trampoline_entry) = (uint64_t)secondary_startup_64;
	printk("smp: CPU 0 (APIC id %u) is the boot CPU; trampoline at %lx\n", me, tramp_pa);
	for (int i = 0; i < madt.nr_cpus && next < max && next < NR_CPUS; i++) {
		if (madt.cpus[i].apic_id == me)
			continue;
		if (do_boot_cpu(next, madt.cpus[i].apic_id))
			printk("smp: CPU %d (APIC id %u) up\n", next, madt.cpus[i].apic_id);
		next++; /* a CPU that did not call in keeps its number: it may still wake up */
	}
	nr_cpu_ids = next;
	printk("smp: %d CPUs online\n", num_online_cpus());
}
