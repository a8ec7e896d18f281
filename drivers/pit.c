/* The 8253/8254 programmable interval timer, channel 0 on IRQ 0: the kernel's clock tick. */
#include "drivers/pic.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/x86.h"

#define PIT_FREQ 1193182
#define PIT_CH0 0x40
#define PIT_CMD 0x43

volatile uint64_t jiffies;

static void pit_tick(struct pt_regs *regs)
{
	jiffies++;
	account_process_tick(regs->cs & 3);
	scheduler_tick();
}

void pit_init(unsigned int hz)
{
	unsigned int divisor = PIT_FREQ / hz;

	outb(PIT_CMD, 0x34); /* channel 0, lobyte/hibyte, mode 2 (rate generator) */
	outb(PIT_CH0, (uint8_t)divisor);
	outb(PIT_CH0, (uint8_t)(divisor >> 8));
	irq_register(0, pit_tick);
}
