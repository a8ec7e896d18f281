/* tty1, the screen's terminal (drivers/tty/vt.c): what the keyboard typed goes in here. */
#ifndef DRIVERS_TTY_VT_H
#define DRIVERS_TTY_VT_H

#include "kernel/compiler.h"

/* Bytes typed on the keyboard (interrupt context), for tty1's line discipline. */
void vt_receive(const char *s, size_t n);

#endif
