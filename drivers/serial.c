/* The 16550 UART on COM1, 115200 baud 8N1: the console every test reads, so it is
 * initialised first and written by polling (it works with interrupts off and in a panic).
 * Its receive side is the tty ttyS0 (drivers/tty/8250.c). */
#include "drivers/console.h"
#include "kernel/arch/x86.h"

#define COM1 0x3f8
#define UART_THR 0 /* transmit holding register (DLAB=0) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define LSR_THRE 0x20 /* transmitter holding register empty */

static bool serial_present;

static void serial_putc(char c)
{
	/* Bounded wait: a missing or stuck UART must not hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		;
	outb(COM1 + UART_THR, (uint8_t)c);
}

static void serial_write(const char *s, size_t n)
{
	if (!serial_present)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

/* A terminal's output: its line discipline already turned \n into \r\n (ONLCR) or not. */
static void serial_write_raw(const char *s, size_t n)
{
	if (!serial_present)
		return;
	for (size_t i = 0; i < n; i++)
		serial_putc(s[i]);
}

bool serial_port_present(void)
{
	return serial_present;
}

static struct console serial_console = {
	.name = "ttyS0", .write = serial_write, .write_raw = serial_write_raw
};

void serial_init(void)
{
	/* The scratch register holds what we write only if a UART is there. */
	outb(COM1 + UART_SCR, 0x5a);
	if (inb(COM1 + UART_SCR) != 0x5a)
		return;
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80); /* DLAB on: program the baud divisor */
	outb(COM1 + UART_DLL, 1);    /* 115200 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, 0x03); /* 8 bits, no parity, one stop bit */
	outb(COM1 + UART_FCR, 0xc7); /* FIFOs on and cleared */
	outb(COM1 + UART_MCR, 0x0b); /* DTR, RTS, OUT2 (which gates the IRQ line to the PIC) */
	serial_present = true;
	register_console(&serial_console);
}
