/* printk: format into a buffer with vsnprintf and hand it to every console. Interrupts are
 * held off while writing so lines from an interrupt handler never land inside another line. */
#include "drivers/console.h"
#include "kernel/printk.h"
#include "kernel/x86.h"

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	uint64_t flags = local_irq_save();

	console_write(buf, len);
	local_irq_restore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
