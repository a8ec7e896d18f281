/* The CMOS real-time clock (MC146818 and its successors): date and time in registers behind
 * ports 0x70/0x71, in BCD or binary and 12- or 24-hour form as status register B says. Read
 * twice until two reads agree, so an update in between cannot tear the value. */
#include "drivers/rtc.h"
#include "kernel/arch/x86.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71
#define RTC_UIP 0x80    /* status A: an update is in progress */
#define RTC_BINARY 0x04 /* status B: values are binary, not BCD */
#define RTC_24H 0x02    /* status B: 24-hour clock */

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

struct rtc_time {
	unsigned int sec, min, hour, mday, mon, year;
};

static void rtc_read_raw(struct rtc_time *t)
{
	while (cmos_read(0x0a) & RTC_UIP)
		;
	*t = (struct rtc_time){ cmos_read(0x00), cmos_read(0x02), cmos_read(0x04),
				cmos_read(0x07), cmos_read(0x08), cmos_read(0x09) };
}

static unsigned int bcd2bin(unsigned int v)
{
	return (v & 0x0f) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to year-mon-mday (the proleptic Gregorian calendar). */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int64_t rtc_read_seconds(void)
{
	struct rtc_time a, b;
	uint8_t status;
	bool pm;

	rtc_read_raw(&a);
	do {
		b = a;
		rtc_read_raw(&a);
	} while (a.sec != b.sec || a.min != b.min || a.hour != b.hour || a.mday != b.mday ||
		 a.mon != b.mon || a.year != b.year);
	status = cmos_read(0x0b);
	pm = a.hour & 0x80;
	a.hour &= 0x7f;
	if (!(status & RTC_BINARY)) {
		a.sec = bcd2bin(a.sec), a.min = bcd2bin(a.min), a.hour = bcd2bin(a.hour);
		a.mday = bcd2bin(a.mday), a.mon = bcd2bin(a.mon), a.year = bcd2bin(a.year);
	}
	if (!(status & RTC_24H))
		a.hour = a.hour % 12 + (pm ? 12 : 0);
	if (a.mon < 1 || a.mon > 12 || a.mday < 1 || a.mday > 31 || a.hour > 23 || a.min > 59 ||
	    a.sec > 59)
		return 0; /* no RTC, or garbage in it */
	/* A two-digit year: 70-99 are the 1900s, the rest this century (Linux's rule too). */
	return days_from_civil(a.year + (a.year < 70 ? 2000 : 1900), a.mon, a.mday) * 86400 +
	       a.hour * 3600 + a.min * 60 + a.sec;
}
