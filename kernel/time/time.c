/* The wall clock: the RTC read once at boot, then the timer tick; CLOCK_REALTIME is the boot's
 * wall-clock second plus jiffies, to the tick's 10 ms. gettimeofday lives here too. */
#include "drivers/rtc.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"

static int64_t boot_seconds; /* the wall clock at jiffies 0 */

void time_init(void)
{
	int64_t now = rtc_read_seconds();

	boot_seconds = now ? now - (int64_t)(jiffies / HZ) : 0;
	if (!now)
		printk("time: no RTC: the wall clock starts at 1970-01-01\n");
}

void ktime_get_ts64(struct timespec64 *ts)
{
	uint64_t j = jiffies;

	ts->tv_sec = (int64_t)(j / HZ);
	ts->tv_nsec = (long)(j % HZ) * (1000000000L / HZ);
}

void ktime_get_real_ts64(struct timespec64 *ts)
{
	ktime_get_ts64(ts);
	ts->tv_sec += boot_seconds;
}

uint64_t realtime_ticks_to_jiffies(uint64_t ticks)
{
	uint64_t boot = (uint64_t)boot_seconds * HZ;

	return ticks > boot ? ticks - boot : 0;
}

/* gettimeofday(tv, tz): the wall clock in microseconds; tz, obsolete, reads as UTC. */
long sys_gettimeofday(uint64_t utv, uint64_t utz)
{
	struct timespec64 now;
	int64_t tv[2];
	int32_t tz[2] = { 0, 0 };

	ktime_get_real_ts64(&now);
	tv[0] = now.tv_sec;
	tv[1] = now.tv_nsec / 1000;
	if (utv && copy_to_user(utv, tv, sizeof(tv)))
		return -EFAULT;
	if (utz && copy_to_user(utz, tz, sizeof(tz)))
		return -EFAULT;
	return 0;
}
