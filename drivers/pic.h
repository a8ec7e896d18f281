/* The two 8259A interrupt controllers, remapped to vectors 32..47 and all lines masked until
 * a driver registers a handler; the first struct irq_chip (kernel/irq.h). */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H

/* Remap the pair, open the cascade line, and become the legacy lines' irq_chip. */
void pic_init(void);
/* Mask all 16 lines of the 8259s (when the I/O APIC takes over). */
void pic_mask_all(void);

#endif
