/* Interrupts, as a driver sees them (Linux's include/linux/interrupt.h and irq.h): a handler
 * registered for a legacy line or for a vector of its own, and the interrupt controller a
 * driver provides as a struct irq_chip. kernel/arch/trap.c keeps the tables and dispatches. */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include "kernel/compiler.h"

#define IRQ_BASE 32 /* the legacy lines 0..15 arrive as vectors 32..47 */

struct pt_regs;
typedef void (*irq_handler_t)(struct pt_regs *regs);

/* Legacy line irq (0..15) -> fn, the line unmasked on the interrupt controller (once there is
 * one: a line registered before is unmasked when it comes, by irq_set_chip). */
void irq_register(int irq, irq_handler_t fn);
/* A kernel vector above the legacy IRQs (an APIC interrupt or IPI) -> fn, which does its EOI. */
void set_vector_handler(int vector, irq_handler_t fn);

/* What an interrupt controller does for the legacy IRQs 0..15 (vectors IRQ_BASE + irq):
 * the 8259 pair (drivers/pic.c) or the I/O APIC (drivers/apic/ioapic.c). */
struct irq_chip {
	const char *name;
	void (*unmask)(int irq);
	void (*mask)(int irq);
	void (*eoi)(int irq);
	bool (*is_spurious)(int irq); /* a ghost interrupt, to be dropped without a handler */
};
/* Make chip the controller of the legacy lines: every line registered so far is masked on the
 * old one (if any) and unmasked on chip. The 8259's set-up calls it first, the I/O APIC's
 * when it takes over. */
void irq_set_chip(const struct irq_chip *chip);

#endif
