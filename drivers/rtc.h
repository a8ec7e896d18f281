/* The PC's CMOS real-time clock (drivers/rtc.c), read once at boot for the wall-clock time. */
#ifndef DRIVERS_RTC_H
#define DRIVERS_RTC_H

#include "kernel/compiler.h"

/* Seconds since 1970-01-01 00:00 UTC as the RTC says now (it is kept in UTC, as on Linux
 * machines and in QEMU), or 0 if it cannot be read. */
int64_t rtc_read_seconds(void);

#endif
