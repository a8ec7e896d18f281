/* The local APIC of each CPU: its two access modes (xAPIC MMIO, x2APIC MSRs) as struct apic
 * tables, its set-up (spurious vector, LINT0/1, error vector), its timer calibrated against
 * the PIT and used as every CPU's tick, and the IPI send. Intel SDM vol. 3, chapter 11. */
#include "drivers/acpi_madt.h"
#include "drivers/apic/apic.h"
#include "drivers/pic.h"
#include "drivers/pit.h"
#include "kernel/arch/percpu.h"
#include "kernel/arch/x86.h"
#include "kernel/irq.h"
#include "kernel/lib/cmdline.h"
#include "kernel/printk/printk.h"
#include "kernel/time/tick.h"
#include "kernel/time/time.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define CPUID1_EDX_APIC (1u << 9)
#define CPUID1_ECX_X2APIC (1u << 21)
#define CALIBRATE_US 1000 /* 1 ms, to 0.1 % (the PIT counts in 838 ns): boot time matters */

const struct apic *apic;
static volatile uint32_t *xapic_mmio;
static uint32_t timer_count; /* the timer's initial count for one tick (divide by 16) */
static bool lint0_extint;    /* the 8259 stays the device interrupt source: LINT0 is ExtINT */

/* xAPIC: 32-bit registers every 16 bytes in one uncached 4 KiB page. */
static uint32_t xapic_read(uint32_t reg)
{
	return xapic_mmio[reg / 4];
}

static void xapic_write(uint32_t reg, uint32_t v)
{
	xapic_mmio[reg / 4] = v;
}

static void xapic_send_ipi(uint32_t apicid, uint32_t icr)
{
	while (xapic_read(APIC_ICR) & APIC_ICR_BUSY)
		asm volatile("pause");
	xapic_write(APIC_ICR2, apicid << 24);
	xapic_write(APIC_ICR, icr); /* the write of the low half sends it */
}

static uint32_t xapic_read_id(void)
{
	return xapic_read(APIC_ID) >> 24;
}

static void xapic_enable(void)
{
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	wrmsr(MSR_IA32_APICBASE, base | MSR_IA32_APICBASE_ENABLE);
}

const struct apic apic_xapic = {
	.name = "xAPIC",
	.read = xapic_read,
	.write = xapic_write,
	.send_ipi = xapic_send_ipi,
	.read_id = xapic_read_id,
	.enable = xapic_enable,
};

/* x2APIC: each register is MSR 0x800 + offset / 16; the ICR is one 64-bit MSR whose write
 * sends at once (no delivery-status bit to wait on), the destination in its high half. */
static uint32_t x2apic_read(uint32_t reg)
{
	return (uint32_t)rdmsr(0x800 + reg / 16);
}

static void x2apic_write(uint32_t reg, uint32_t v)
{
	wrmsr(0x800 + reg / 16, v);
}

static void x2apic_send_ipi(uint32_t apicid, uint32_t icr)
{
	/* An x2APIC MSR write is not serializing: the stores the IPI announces (a call slot)
	 * must be visible before it leaves (Linux's weak_wrmsr_fence). */
	asm volatile("mfence; lfence" ::: "memory");
	wrmsr(0x800 + APIC_ICR / 16, (uint64_t)apicid << 32 | icr);
}

static uint32_t x2apic_read_id(void)
{
	return x2apic_read(APIC_ID);
}

static void x2apic_enable(void)
{
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	/* xAPIC must be on before x2APIC (the SDM's state machine forbids disabled -> x2APIC). */
	wrmsr(MSR_IA32_APICBASE, base | MSR_IA32_APICBASE_ENABLE);
	wrmsr(MSR_IA32_APICBASE, base | MSR_IA32_APICBASE_ENABLE | MSR_IA32_APICBASE_EXTD);
}

const struct apic apic_x2apic = {
	.name = "x2APIC",
	.read = x2apic_read,
	.write = x2apic_write,
	.send_ipi = x2apic_send_ipi,
	.read_id = x2apic_read_id,
	.enable = x2apic_enable,
};

/* Interrupts off around it: an interrupt handler sending its own IPI between the xAPIC's two
 * ICR writes would leave this one with the handler's destination. */
void apic_send_ipi(uint32_t apicid, uint32_t icr)
{
	uint64_t flags = local_irq_save();

	apic->send_ipi(apicid, icr);
	local_irq_restore(flags);
}

/* Every CPU's timer interrupt: its running task's time; the boot CPU's also keeps the clock. */
static void local_timer_interrupt(struct pt_regs *regs)
{
	struct percpu *p = this_cpu_ptr();

	p->ticks++;
	apic_eoi();
	if (p->cpu == 0)
		tick_periodic(regs);
	else
		update_process_times(regs);
}

/* The APIC's own spurious vector: no EOI (the SDM: it sets no in-service bit). */
static void spurious_interrupt(struct pt_regs *regs)
{
	(void)regs;
}

static void error_interrupt(struct pt_regs *regs)
{
	uint32_t esr;

	(void)regs;
	apic->write(APIC_ESR, 0); /* latch the errors, then read them */
	esr = apic->read(APIC_ESR);
	apic_eoi();
	printk("apic: CPU %d: APIC error, ESR %x\n", smp_processor_id(), esr);
}

/* This CPU's APIC: on, nothing held back by priority, LINT0/LINT1 wired as the boot CPU's
 * (ExtINT from the 8259 when it is the interrupt source, NMI) or masked on an AP. */
static void setup_local_apic(bool bsp)
{
	apic->enable();
	apic->write(APIC_TASKPRI, 0);
	apic->write(APIC_SPIV, APIC_SPIV_ENABLE | SPURIOUS_APIC_VECTOR);
	apic->write(APIC_LVT0, bsp && lint0_extint ? APIC_DM_EXTINT : APIC_LVT_MASKED);
	apic->write(APIC_LVT1, bsp ? APIC_DM_NMI : APIC_LVT_MASKED);
	apic->write(APIC_LVTERR, ERROR_APIC_VECTOR);
	apic->write(APIC_ESR, 0);
	apic->write(APIC_ESR, 0);
	apic->write(APIC_TDCR, APIC_TDR_DIV_16);
}

static void start_local_timer(void)
{
	apic->write(APIC_LVTT, LOCAL_TIMER_VECTOR | APIC_LVT_TIMER_PERIODIC);
	apic->write(APIC_TMICT, timer_count);
}

/* The timer's count over CALIBRATE_US of PIT channel 2, scaled to one tick (1/HZ s). The
 * least of three: a delay between the PIT's end and the read (a busy host under QEMU) can
 * only add counts. */
static uint32_t calibrate_timer(void)
{
	uint32_t best = 0xffffffff;

	apic->write(APIC_LVTT, APIC_LVT_MASKED); /* one-shot, no interrupt */
	for (int i = 0; i < 3; i++) {
		uint32_t n;

		apic->write(APIC_TMICT, 0xffffffff);
		pit_udelay(CALIBRATE_US);
		n = 0xffffffffu - apic->read(APIC_TMCCT);
		if (n < best)
			best = n;
	}
	apic->write(APIC_TMICT, 0);
	return (uint32_t)((uint64_t)best * (1000000 / HZ) / CALIBRATE_US);
}

/* Map the xAPIC page at its direct-map address, uncached (it is a device, not RAM). */
static bool map_xapic(uint64_t pa)
{
	uint64_t va = (uint64_t)__va(pa);

	if (!kernel_addr_mapped(va) &&
	    map_page(kernel_pgd, va, pa, PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT))
		return false;
	xapic_mmio = (volatile uint32_t *)va;
	return true;
}

bool apic_init(void)
{
	uint32_t a, b, c, d;
	uint64_t base;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_APIC) || cmdline_has("noapic")) {
		printk("apic: %s: the PIT and the 8259 PIC\n",
		       d & CPUID1_EDX_APIC ? "noapic" : "this CPU has no local APIC");
		return false;
	}
	base = rdmsr(MSR_IA32_APICBASE) & ~0xfffULL & ((1ULL << 52) - 1);
	if (madt.lapic_addr)
		base = madt.lapic_addr;
	if ((c & CPUID1_ECX_X2APIC) && !cmdline_has("nox2apic")) {
		apic = &apic_x2apic;
	} else {
		if (!map_xapic(base)) {
			printk("apic: cannot map the local APIC at %lx\n", base);
			return false;
		}
		apic = &apic_xapic;
	}
	set_vector_handler(LOCAL_TIMER_VECTOR, local_timer_interrupt);
	set_vector_handler(SPURIOUS_APIC_VECTOR, spurious_interrupt);
	set_vector_handler(ERROR_APIC_VECTOR, error_interrupt);
	apic->enable();
	this_cpu_ptr()->apic_id = apic->read_id();
	/* The device IRQs go to the boot CPU through the I/O APIC when the MADT has one. */
	lint0_extint = !(madt.nr_ioapics && !cmdline_has("noioapic") &&
			 ioapic_init(madt.ioapics[0].addr, madt.ioapics[0].gsi_base,
				     this_cpu_ptr()->apic_id));
	setup_local_apic(true);
	if (!lint0_extint) {
		pic_mask_all();
		irq_set_chip(&ioapic_chip);
	}
	timer_count = calibrate_timer();
	printk("apic: %s mode, id %u, timer %u counts a tick (bus %lu kHz), device IRQs "
	       "through the %s\n", apic->name, this_cpu_ptr()->apic_id, timer_count,
	       (uint64_t)timer_count * 16 * HZ / 1000, lint0_extint ? "8259" : "I/O APIC");
	start_local_timer();
	return true;
}

void apic_init_ap(void)
{
	setup_local_apic(false);
	this_cpu_ptr()->apic_id = apic->read_id();
	start_local_timer();
}
