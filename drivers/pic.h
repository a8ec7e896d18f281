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

#endif
