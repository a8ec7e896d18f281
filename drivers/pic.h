/* The two 8259A interrupt controllers, remapped to vectors 32..47 and all lines masked until
 * a driver registers a handler. */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H

#include "kernel/compiler.h"

void pic_init(void);
void pic_unmask(int irq);
void pic_mask(int irq);
void pic_eoi(int irq);
bool pic_is_spurious(int irq);

void pit_init(unsigned int hz); /* timer on IRQ 0 */
void pit_udelay(unsigned int us); /* busy-wait on PIT channel 2, us <= 54925 */
void mdelay(unsigned int ms);

/* What an interrupt controller does for the legacy IRQs 0..15 (vectors IRQ_BASE + irq):
 * the 8259 pair (pic_chip) or the I/O APIC (ioapic_chip, drivers/apic/ioapic.c). */
struct irq_chip {
	const char *name;
	void (*unmask)(int irq);
	void (*mask)(int irq);
	void (*eoi)(int irq);
	bool (*is_spurious)(int irq); /* a ghost interrupt, to be dropped without a handler */
};
extern const struct irq_chip pic_chip, ioapic_chip;
/* Move every registered line to chip (masking them on the old one); kernel/arch/trap.c. */
void irq_set_chip(const struct irq_chip *chip);
/* Mask all 16 lines of the 8259s (when the I/O APIC takes over). */
void pic_mask_all(void);

#endif
