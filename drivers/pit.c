/* The 8253/8254 programmable interval timer: channel 0 on IRQ 0 is the tick when the CPU has
 * no local APIC; channel 2, polled through port 0x61, is the delay the APIC timer is
 * calibrated against and the SDM's INIT/SIPI waits are timed with. */
#include "drivers/pit.h"
#include "kernel/arch/x86.h"
#include "kernel/irq.h"
#include "kernel/time/tick.h"

#define PIT_FREQ 1193182
#define PIT_CH0 0x40
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_PORT_B 0x61 /* bit 0: channel 2 gate, bit 1: speaker, bit 5: channel 2 output */

static void pit_tick(struct pt_regs *regs)
{
	tick_periodic(regs);
}

void pit_init(unsigned int hz)
{
	unsigned int divisor = PIT_FREQ / hz;

	outb(PIT_CMD, 0x34); /* channel 0, lobyte/hibyte, mode 2 (rate generator) */
	outb(PIT_CH0, (uint8_t)divisor);
	outb(PIT_CH0, (uint8_t)(divisor >> 8));
	irq_register(0, pit_tick);
}

/*
 * Busy-wait us microseconds (at most 54925: the 16-bit count) on channel 2 in mode 0: its
 * output goes high when the count reaches zero. Needs no interrupt, so it works before the
 * tick runs and with interrupts off; not reentrant (one caller at a time: boot code).
 */
void pit_udelay(unsigned int us)
{
	unsigned int count = (unsigned int)((uint64_t)us * PIT_FREQ / 1000000);
	uint8_t b = inb(PIT_PORT_B);

	if (count < 2)
		count = 2;
	if (count > 0xffff)
		count = 0xffff;
	outb(PIT_PORT_B, (b & ~0x02) | 0x01); /* gate on, speaker off */
	outb(PIT_CMD, 0xb0);                  /* channel 2, lobyte/hibyte, mode 0 */
	outb(PIT_CH2, (uint8_t)count);
	outb(PIT_CH2, (uint8_t)(count >> 8));
	while (!(inb(PIT_PORT_B) & 0x20))
		asm volatile("pause");
}

void mdelay(unsigned int ms)
{
	while (ms--)
		pit_udelay(1000);
}
