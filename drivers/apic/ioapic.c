/* The I/O APIC: one redirection entry per input pin says which vector, which CPU, which
 * polarity and trigger. The legacy IRQs 0..15 keep their vectors (IRQ_BASE + irq) and reach
 * the boot CPU; the MADT's overrides say which pin each arrives on (IRQ0 on pin 2 on a PC). */
#include "drivers/acpi_madt.h"
#include "drivers/apic/apic.h"
#include "kernel/irq.h"
#include "kernel/printk/printk.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define IOAPIC_REGSEL 0
#define IOAPIC_WINDOW 4 /* in 32-bit words: offset 0x10 */
#define IOAPIC_VER 1
#define IOAPIC_REDTBL(pin) (0x10 + 2 * (pin))

#define IOAPIC_POLARITY_LOW (1u << 13)
#define IOAPIC_LEVEL (1u << 15)
#define IOAPIC_MASKED (1u << 16)

static volatile uint32_t *ioapic_mmio;
static uint32_t ioapic_gsi_base, ioapic_pins, ioapic_dest;

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic_mmio[IOAPIC_REGSEL] = reg;
	return ioapic_mmio[IOAPIC_WINDOW];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic_mmio[IOAPIC_REGSEL] = reg;
	ioapic_mmio[IOAPIC_WINDOW] = v;
}

/* The pin ISA IRQ irq arrives on, with its entry's low word (masked or not) in *low. */
static int irq_pin(int irq, uint32_t *low)
{
	uint16_t flags;
	uint32_t gsi = madt_irq_to_gsi(&madt, irq, &flags);

	*low = (uint32_t)(IRQ_BASE + irq);
	if ((flags & MPS_POLARITY_MASK) == MPS_POLARITY_LOW)
		*low |= IOAPIC_POLARITY_LOW;
	if ((flags & MPS_TRIGGER_MASK) == MPS_TRIGGER_LEVEL)
		*low |= IOAPIC_LEVEL;
	if (gsi < ioapic_gsi_base || gsi - ioapic_gsi_base >= ioapic_pins)
		return -1;
	return (int)(gsi - ioapic_gsi_base);
}

static void ioapic_unmask(int irq)
{
	uint32_t low;
	int pin = irq_pin(irq, &low);

	if (pin < 0) {
		printk("ioapic: IRQ %d has no pin on this I/O APIC\n", irq);
		return;
	}
	ioapic_write(IOAPIC_REDTBL(pin) + 1, ioapic_dest << 24); /* physical destination */
	ioapic_write(IOAPIC_REDTBL(pin), low);
}

static void ioapic_mask(int irq)
{
	uint32_t low;
	int pin = irq_pin(irq, &low);

	if (pin >= 0)
		ioapic_write(IOAPIC_REDTBL(pin), low | IOAPIC_MASKED);
}

/* Edge or level, the local APIC's EOI ends it (a level pin gets the EOI broadcast). */
static void ioapic_eoi(int irq)
{
	(void)irq;
	apic_eoi();
}

static bool ioapic_is_spurious(int irq)
{
	(void)irq;
	return false;
}

const struct irq_chip ioapic_chip = {
	.name = "IO-APIC",
	.unmask = ioapic_unmask,
	.mask = ioapic_mask,
	.eoi = ioapic_eoi,
	.is_spurious = ioapic_is_spurious,
};

bool ioapic_init(uint64_t phys, uint32_t gsi_base, uint32_t dest_apicid)
{
	uint64_t va = (uint64_t)__va(phys);

	if (dest_apicid > 255) {
		printk("ioapic: boot CPU's APIC id %u does not fit a physical destination\n",
		       dest_apicid);
		return false;
	}
	if (!kernel_addr_mapped(va) &&
	    map_page(kernel_pgd, ALIGN_DOWN(va, PAGE_SIZE), ALIGN_DOWN(phys, PAGE_SIZE),
		     PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT))
		return false;
	ioapic_mmio = (volatile uint32_t *)va;
	ioapic_gsi_base = gsi_base;
	ioapic_pins = ((ioapic_read(IOAPIC_VER) >> 16) & 0xff) + 1;
	ioapic_dest = dest_apicid;
	for (uint32_t pin = 0; pin < ioapic_pins; pin++)
		ioapic_write(IOAPIC_REDTBL(pin), IOAPIC_MASKED);
	printk("ioapic: at %lx, %u pins from GSI %u\n", phys, ioapic_pins, gsi_base);
	return true;
}
