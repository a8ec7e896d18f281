/* ttyS0: the 16550 UART on COM1 as a terminal (Linux's drivers/serial/8250.c). Its receive
 * interrupt (IRQ 4, FIFO on) hands each byte to the line discipline. It is the boot console,
 * so what it writes every console shows, as printk's text (the screen mirrors the serial line). */
#include "drivers/console.h"
#include "drivers/tty/tty.h"
#include "kernel/arch/x86.h"
#include "kernel/fs/fs.h"
#include "kernel/initcall.h"
#include "kernel/irq.h"

#define COM1	  0x3f8
#define COM1_IRQ  4
#define UART_RX	  0 /* receive buffer (DLAB=0) */
#define UART_IER  1
#define UART_IIR  2
#define UART_LSR  5
#define IER_RDI	  0x01 /* interrupt when a byte arrives (or the FIFO times out) */
#define LSR_DR	  0x01 /* a received byte is waiting */
#define TTY_MAJOR 4

static struct tty_struct serial_tty;

static int serial_tty_write(struct tty_struct *tty, const uint8_t *buf, size_t n)
{
	(void)tty;
	console_write_raw((const char *)buf, n);
	return (int)n;
}

static int serial_tty_put_char(struct tty_struct *tty, uint8_t c)
{
	return serial_tty_write(tty, &c, 1);
}

static const struct tty_operations serial_tty_ops = {
	.write = serial_tty_write,
	.put_char = serial_tty_put_char,
};

/* Drain the FIFO: every waiting byte to the flip buffer (bounded, should the line be stuck
 * asserting data), for the line discipline to take in task context. */
static void serial_interrupt(struct pt_regs *regs)
{
	(void)regs;
	for (int i = 0; i < 256 && (inb(COM1 + UART_LSR) & LSR_DR); i++)
		tty_insert_flip_char(&serial_tty, inb(COM1 + UART_RX));
	(void)inb(COM1 + UART_IIR);
	tty_flip_buffer_push(&serial_tty);
}

static void serial_tty_init(void)
{
	struct ktermios t = { .c_iflag = TTY_STD_IFLAG,
			      .c_oflag = TTY_STD_OFLAG,
			      .c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL,
			      .c_lflag = TTY_STD_LFLAG,
			      .c_cc = INIT_C_CC };

	if (!serial_port_present())
		return;
	tty_register(&serial_tty, "ttyS0", MKDEV(TTY_MAJOR, 64), &serial_tty_ops, &t);
	tty_set_console(&serial_tty, true);
	irq_register(COM1_IRQ, serial_interrupt);
	while (inb(COM1 + UART_LSR) & LSR_DR) /* what came before anyone listened */
		(void)inb(COM1 + UART_RX);
	outb(COM1 + UART_IER, IER_RDI);
}
device_initcall(serial_tty_init);
