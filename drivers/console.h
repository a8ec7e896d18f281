/* Consoles are the places printk writes to: COM1 always, then the VGA text screen when GRUB
 * left the machine in text mode, or the framebuffer console (drivers/fbcon.c, drivers/fb.h). */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H

#include "kernel/compiler.h"

struct console {
	const char *name;
	void (*write)(const char *s, size_t n);
	/* The bytes exactly as a terminal's output gives them (its own \r\n): NULL when write
	 * already does no translation (the screens). */
	void (*write_raw)(const char *s, size_t n);
	bool screen; /* a display: tty1 writes here */
	struct console *next;
};

void register_console(struct console *con);
/* Every write to the consoles holds this lock (interrupts off), so lines from two CPUs never
 * mix; after a panic began it is not waited for (a stopped CPU may hold it). */
uint64_t console_lock_irqsave(void);
void console_unlock_irqrestore(uint64_t flags);
void console_write(const char *s, size_t n);
/* A terminal's output (drivers/tty/): to every console, or to the screens only. */
void console_write_raw(const char *s, size_t n);
void console_write_screen(const char *s, size_t n);
bool serial_port_present(void);

void serial_init(void);
void vga_init(uint64_t phys, uint32_t cols, uint32_t rows);

#endif
