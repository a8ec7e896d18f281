/* The local APIC (drivers/apic/lapic.c), reached in one of two ways behind one operation table
 * (struct apic, as Linux's): xAPIC registers in an uncached MMIO page, or x2APIC MSRs. Also
 * the vectors the kernel gives its own interrupts, and the I/O APIC (drivers/apic/ioapic.c). */
#ifndef DRIVERS_APIC_APIC_H
#define DRIVERS_APIC_APIC_H

#include "kernel/compiler.h"

/* Local APIC registers, as xAPIC MMIO offsets; x2APIC MSR = 0x800 + (offset >> 4). */
#define APIC_ID 0x20
#define APIC_LVR 0x30
#define APIC_TASKPRI 0x80
#define APIC_EOI 0xb0
#define APIC_SPIV 0xf0
#define APIC_ESR 0x280
#define APIC_ICR 0x300  /* low half; x2APIC: the whole 64-bit register */
#define APIC_ICR2 0x310 /* xAPIC only: destination in bits 31:24 */
#define APIC_LVTT 0x320
#define APIC_LVT0 0x350
#define APIC_LVT1 0x360
#define APIC_LVTERR 0x370
#define APIC_TMICT 0x380
#define APIC_TMCCT 0x390
#define APIC_TDCR 0x3e0

#define APIC_SPIV_ENABLE (1u << 8)
#define APIC_LVT_MASKED (1u << 16)
#define APIC_LVT_TIMER_PERIODIC (1u << 17)
#define APIC_DM_FIXED 0x000u
#define APIC_DM_NMI 0x400u
#define APIC_DM_INIT 0x500u
#define APIC_DM_STARTUP 0x600u
#define APIC_DM_EXTINT 0x700u
#define APIC_ICR_BUSY (1u << 12) /* xAPIC: delivery pending */
#define APIC_INT_ASSERT (1u << 14)
#define APIC_INT_LEVELTRIG (1u << 15)
#define APIC_TDR_DIV_16 0x3u

/* The kernel's own vectors (Linux's numbers), above the 16 legacy IRQs at 32..47. */
#define LOCAL_TIMER_VECTOR 0xec
#define CALL_FUNCTION_VECTOR 0xfb
#define INVALIDATE_TLB_VECTOR 0xfd /* TLB shootdown (mm/tlbflush.c) */
#define RESCHEDULE_VECTOR 0xfc     /* look at the run queue (smp_send_reschedule) */
#define ERROR_APIC_VECTOR 0xfe
#define SPURIOUS_APIC_VECTOR 0xff

#define MSR_IA32_APICBASE 0x1b
#define MSR_IA32_APICBASE_BSP (1u << 8)
#define MSR_IA32_APICBASE_EXTD (1u << 10) /* x2APIC mode */
#define MSR_IA32_APICBASE_ENABLE (1u << 11)

struct apic {
	const char *name;
	uint32_t (*read)(uint32_t reg);
	void (*write)(uint32_t reg, uint32_t v);
	/* Send the IPI whose ICR low word is icr (vector, delivery mode, level) to apicid. */
	void (*send_ipi)(uint32_t apicid, uint32_t icr);
	uint32_t (*read_id)(void); /* this CPU's APIC id */
	void (*enable)(void);      /* put this CPU's APIC in this mode (the APIC base MSR) */
};

extern const struct apic *apic; /* NULL until apic_init found one */
extern const struct apic apic_xapic, apic_x2apic;

static inline void apic_eoi(void)
{
	apic->write(APIC_EOI, 0);
}

/* Boot CPU: choose the mode, enable the APIC, calibrate its timer against the PIT and make
 * it the tick (HZ), route device IRQs through the I/O APIC when the MADT lists one. false
 * when the CPU has no APIC: the PIT and the 8259 then stay the tick and interrupt source. */
bool apic_init(void);
/* An AP: enable its APIC in the boot CPU's mode and start its timer at the same rate. */
void apic_init_ap(void);
/* Wait for the previous IPI to leave (xAPIC's delivery status); then send another. */
void apic_send_ipi(uint32_t apicid, uint32_t icr);

/* The I/O APIC (drivers/apic/ioapic.c): map it, mask every pin; false if it cannot be used.
 * Then ioapic_chip takes the legacy lines over from the 8259 (irq_set_chip, kernel/irq.h). */
bool ioapic_init(uint64_t phys, uint32_t gsi_base, uint32_t dest_apicid);
struct irq_chip;
extern const struct irq_chip ioapic_chip;

#endif
