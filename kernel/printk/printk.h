/* Formatted output: vsnprintf (kernel/lib/vsprintf.c, pure and host-tested) and printk, which
 * writes to every console (serial and screen). panic() prints and stops the machine. */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include "kernel/compiler.h"

/* Formats: %d %i %u %x %X %o %c %s %p %% with flags '-', '0', '+', ' ', width (number or
 * '*'), precision (for %s and integers), and length modifiers h hh l ll z. No '#', no %n.
 * Returns the length the full output would have had (C99); the buffer
 * is always NUL-terminated when size > 0. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

int vprintk(const char *fmt, va_list ap);
int printk(const char *fmt, ...) __printf(1, 2);
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

#endif
