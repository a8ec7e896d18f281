/* The 8253/8254 programmable interval timer (drivers/pit.c): the tick without a local APIC,
 * and the busy-wait delays of boot code (the APIC timer's calibration, the SMP bring-up). */
#ifndef DRIVERS_PIT_H
#define DRIVERS_PIT_H

void pit_init(unsigned int hz);   /* channel 0 on IRQ 0: the tick, hz a second */
void pit_udelay(unsigned int us); /* busy-wait on channel 2, us <= 54925 */
void mdelay(unsigned int ms);

#endif
