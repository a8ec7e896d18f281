/* The kernel's clock: jiffies, the timer ticks since boot, HZ of them a second. The boot
 * CPU's timer interrupt (its local APIC timer, else the PIT) counts them (kernel/time/tick.h);
 * sleeping and time calls read them, and the wall clock is the RTC's time at boot plus them. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "kernel/compiler.h"

#define HZ 100
extern volatile uint64_t jiffies; /* kernel/time/timer.c */

struct timespec64 {
	int64_t tv_sec;
	long tv_nsec;
};

/* kernel/time/time.c: the wall clock, read from the RTC once at boot and kept by the tick. */
void time_init(void);
void ktime_get_real_ts64(struct timespec64 *ts); /* CLOCK_REALTIME */
void ktime_get_ts64(struct timespec64 *ts);      /* CLOCK_MONOTONIC: since boot */
/* An absolute CLOCK_REALTIME time, in ticks since 1970, as jiffies (0 if it is before boot). */
uint64_t realtime_ticks_to_jiffies(uint64_t ticks);

/* Now, for a file's time stamps (Linux's current_time). */
static inline struct timespec64 current_time(void)
{
	struct timespec64 t;

	ktime_get_real_ts64(&t);
	return t;
}

#endif
