/* printk: format into a buffer with vsnprintf and hand it to every console (under the console
 * lock, so lines from an interrupt handler or another CPU never land inside another line). */
#include "drivers/console.h"
#include "kernel/arch/x86.h"
#include "kernel/printk/printk.h"

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	console_write(buf, len);
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
