/* rusage: getrusage (self, thread, children, errors), times, clock_getres, the CPU-time clocks
 * and uname's release, as Linux answers them: CPU time spent shows as user time, the peak
 * resident set survives unmapping, children's usage arrives when they are reaped. */
#define _GNU_SOURCE
#define UTEST_NAME "rusage"
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define MS 1000000L

static long ms_of(struct timeval tv)
{
	return tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static long now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / MS;
}

/* Spin in user mode until this thread has run for ms more milliseconds: its own CPU time, not
 * the wall clock's, so that a busy machine (other processes on the CPUs) changes nothing. */
static void burn(long ms)
{
	long end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms;
	volatile unsigned long x = 0;

	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			x += i;
}

/* Touch len bytes of fresh memory, then give it back. */
static void touch(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
}

static void self(void)
{
	struct rusage a, b, t;
	long cpu0, cpu1;

	CHECK_EQ(getrusage(RUSAGE_SELF, &a), 0);
	cpu0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	burn(300);
	touch(8 << 20);
	CHECK_EQ(getrusage(RUSAGE_SELF, &b), 0);
	cpu1 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	CHECK(ms_of(b.ru_utime) - ms_of(a.ru_utime) >= 150); /* most of the 300 ms */
	CHECK(ms_of(b.ru_utime) + ms_of(b.ru_stime) >= ms_of(a.ru_utime) + ms_of(a.ru_stime));
	CHECK(b.ru_utime.tv_usec >= 0 && b.ru_utime.tv_usec < 1000000);
	CHECK(b.ru_maxrss >= 7 * 1024); /* KiB: the 8 MiB left but still count */
	CHECK(b.ru_minflt >= a.ru_minflt + 2048);
	CHECK(cpu1 - cpu0 >= 150);
	CHECK(labs(cpu1 - (ms_of(b.ru_utime) + ms_of(b.ru_stime))) <= 50);
	CHECK(now_ms(CLOCK_THREAD_CPUTIME_ID) >= 150);
	CHECK_EQ(getrusage(RUSAGE_THREAD, &t), 0);
	CHECK(ms_of(t.ru_utime) >= ms_of(b.ru_utime));
	CHECK(t.ru_maxrss >= b.ru_maxrss);

	usleep(20000); /* sleeping is a voluntary switch */
	CHECK_EQ(getrusage(RUSAGE_SELF, &a), 0);
	CHECK(a.ru_nvcsw > b.ru_nvcsw);

	CHECK_ERR(getrusage(2, &a), EINVAL);
	CHECK_ERR(getrusage(-2, &a), EINVAL);
	CHECK_ERR(syscall(SYS_getrusage, RUSAGE_SELF, (void *)8), EFAULT);
}

static void children(void)
{
	struct rusage before, ru, after;
	struct tms t0, t1;
	clock_t c0, c1;
	int st;
	pid_t pid;

	CHECK_EQ(getrusage(RUSAGE_CHILDREN, &before), 0);
	c0 = times(&t0);
	CHECK(c0 != (clock_t)-1);
	pid = fork();
	if (pid == 0) {
		burn(200);
		touch(4 << 20); /* small enough for the 32 MiB boot */
		_exit(0);
	}
	CHECK_EQ(wait4(pid, &st, 0, &ru), pid);
	CHECK_EQ(st, 0);
	c1 = times(&t1);
	CHECK(ms_of(ru.ru_utime) >= 100);
	CHECK(ru.ru_maxrss >= 3 * 1024);
	CHECK(ru.ru_minflt >= 1024);
	CHECK_EQ(getrusage(RUSAGE_CHILDREN, &after), 0);
	CHECK(ms_of(after.ru_utime) - ms_of(before.ru_utime) >= ms_of(ru.ru_utime) - 10);
	CHECK(after.ru_maxrss >= ru.ru_maxrss);
	CHECK(after.ru_minflt >= before.ru_minflt + ru.ru_minflt);
	/* times: clock ticks of 1/100 s; the wall-clock count moved by the child's 200 ms. */
	CHECK_EQ(sysconf(_SC_CLK_TCK), 100);
	CHECK(c1 - c0 >= 15 && c1 - c0 < 1000);
	CHECK(t1.tms_cutime - t0.tms_cutime >= 10);
	CHECK(t1.tms_utime >= 15); /* self() burned 300 ms */
	CHECK(syscall(SYS_times, NULL) >= c1);
	CHECK_ERR(syscall(SYS_times, (void *)8), EFAULT);
}

static void clocks(void)
{
	static const clockid_t ok[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
					CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW,
					CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
					CLOCK_BOOTTIME };
	struct timespec res;

	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		res.tv_sec = res.tv_nsec = -1;
		CHECK_EQ(clock_getres(ok[i], &res), 0);
		CHECK(res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 10 * MS);
	}
	CHECK_EQ(syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL), 0);
	CHECK_ERR(syscall(SYS_clock_getres, 10, &res), EINVAL);
	CHECK_ERR(syscall(SYS_clock_getres, 16, &res), EINVAL);
	CHECK_ERR(syscall(SYS_clock_getres, 1000, &res), EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, 10, &res), EINVAL);
	CHECK_ERR(syscall(SYS_clock_getres, CLOCK_MONOTONIC, (void *)8), EFAULT);
}

/* The release is a Linux version that programs checking for a minimum kernel accept. */
static void release(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	CHECK_EQ(uname(&u), 0);
	CHECK_EQ(sscanf(u.release, "%d.%d", &major, &minor), 2);
	CHECK(major > 3 || (major == 3 && minor >= 2)); /* glibc's minimum */
	CHECK(major >= 6);
}

int main(void)
{
	self();
	children();
	clocks();
	release();
	return utest_done();
}
