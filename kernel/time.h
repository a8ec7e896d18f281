/* The kernel's clock: jiffies, the timer ticks since boot, HZ of them a second. The timer
 * interrupt (drivers/pit.c) counts them; sleeping and time calls read them. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "kernel/compiler.h"

#define HZ 100
extern volatile uint64_t jiffies;

#endif
