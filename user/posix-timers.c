/* posix-timers: timer_create, timer_settime, timer_gettime, timer_getoverrun and timer_delete
 * as Linux answers them on CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME and the process's
 * and the thread's CPU time (running only while the program does): each process's ids from 0,
 * SIGEV_SIGNAL's siginfo (SI_TIMER, the id, the value), SIGALRM without a sigevent,
 * SIGEV_NONE, SIGEV_THREAD_ID, one-shot and periodic timers, TIMER_ABSTIME, the overrun of a
 * blocked periodic timer, and the errors. Times are checked within a tick or two: faultline's
 * timers run on a 100 Hz tick. By number: musl's SIGEV_THREAD starts threads. */
#define _GNU_SOURCE
#define UTEST_NAME "posix-timers"
#include "utest.h"
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define SIGEV_THREAD_ID_ 4
#define SI_TIMER_ (-2)
#define MS 1000000L

struct ksigevent { /* the kernel's struct sigevent */
	union sigval value;
	int signo, notify, tid, pad[11];
};

static int tcreate(long clock, struct ksigevent *ev)
{
	int id = -1;

	return syscall(SYS_timer_create, clock, ev, &id) ? -1 : id;
}

static long tset(int id, int flags, long value_ns, long interval_ns, struct itimerspec *old)
{
	struct itimerspec its = { { interval_ns / 1000000000, interval_ns % 1000000000 },
				  { value_ns / 1000000000, value_ns % 1000000000 } };

	return syscall(SYS_timer_settime, id, flags, &its, old);
}

/* it_value of timer_gettime in ns (interval in *interval), or -1 */
static long long tget(int id, long long *interval)
{
	struct itimerspec its;

	if (syscall(SYS_timer_gettime, id, &its))
		return -1;
	if (interval)
		*interval = its.it_interval.tv_sec * 1000000000LL + its.it_interval.tv_nsec;
	return its.it_value.tv_sec * 1000000000LL + its.it_value.tv_nsec;
}

static volatile int hits, overruns, last_code, last_timerid, last_overrun;
static void *volatile last_ptr;
static volatile long last_int;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	hits++;
	last_code = si->si_code;
	last_timerid = si->si_timerid;
	last_overrun = si->si_overrun;
	overruns += si->si_overrun; /* periods that sent no signal of their own */
	last_ptr = si->si_value.sival_ptr;
	last_int = si->si_value.sival_int;
}

static void handle(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_timer, .sa_flags = SA_SIGINFO };

	sigaction(sig, &sa, NULL);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* sleep ms by the clock, whatever signals cut the sleeps short */
static void sleep_ms(long ms)
{
	long long end = now_ns() + ms * MS;

	for (long long left; (left = end - now_ns()) > 0;) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };

		nanosleep(&ts, NULL);
	}
}

/* the signals timer id sends in wait_ms once set (flags) to fire in value_ns, once */
static int fire_once(int id, int flags, long value_ns, long wait_ms)
{
	hits = 0;
	if (tset(id, flags, value_ns, 0, NULL))
		return -1;
	sleep_ms(wait_ms);
	return hits;
}

/* a one-shot timer with a value, a periodic one, SIGALRM without a sigevent */
static void signals(void)
{
	struct ksigevent ev = { .value.sival_ptr = (void *)&hits, .signo = SIGRTMIN + 1 };
	long long iv, t0, periods;
	int id, alrm;

	handle(SIGRTMIN + 1);
	handle(SIGALRM);
	id = tcreate(CLOCK_MONOTONIC, &ev);
	CHECK(id >= 0);
	CHECK_EQ(fire_once(id, 0, 20 * MS, 150), 1);
	CHECK_EQ(last_code, SI_TIMER_);
	CHECK_EQ(last_timerid, id);
	CHECK(last_ptr == &hits);
	CHECK_EQ(last_overrun, 0);
	CHECK_EQ(tget(id, &iv), 0); /* one-shot, done: disarmed */
	CHECK_EQ(iv, 0);
	/* periodic: 30 ms for at least 310 ms; a signal late by a period stands for both, and
	 * there are never more expiries than whole periods elapsed (a loaded host may wake the
	 * sleep late: the bound is the time that really passed) */
	hits = overruns = 0;
	t0 = now_ns();
	CHECK_EQ(tset(id, 0, 30 * MS, 30 * MS, NULL), 0);
	sleep_ms(310);
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
	periods = (now_ns() - t0) / (30 * MS);
	if (!CHECK(hits >= 4 && hits + overruns >= 8 && hits + overruns <= periods))
		fprintf(stderr, "%s:   %d signals, %d overruns in %lld periods\n", UTEST_NAME, hits,
			overruns, periods);
	iv = hits;
	sleep_ms(100);
	CHECK_EQ(hits, iv); /* deleted: no more */
	/* no sigevent: SIGALRM, si_value the id */
	alrm = tcreate(CLOCK_REALTIME, NULL);
	CHECK(alrm >= 0);
	CHECK_EQ(fire_once(alrm, 0, 10 * MS, 100), 1);
	CHECK_EQ(last_int, alrm);
	CHECK_EQ(last_timerid, alrm);
	CHECK_EQ(syscall(SYS_timer_delete, alrm), 0);
}

/* a periodic timer whose signal is blocked: the periods missed are the overrun */
static void overrun(void)
{
	struct ksigevent ev = { .signo = SIGUSR1 };
	sigset_t set;
	int id = tcreate(CLOCK_MONOTONIC, &ev);

	handle(SIGUSR1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	hits = 0;
	CHECK_EQ(tset(id, 0, 10 * MS, 10 * MS, NULL), 0);
	sleep_ms(200);
	CHECK_EQ(hits, 0);
	CHECK_EQ(syscall(SYS_timer_getoverrun, id), 0); /* nothing delivered yet */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	CHECK(hits >= 1);
	CHECK(last_overrun >= 15 && last_overrun <= 21);
	CHECK_EQ(syscall(SYS_timer_getoverrun, id), last_overrun);
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
}

/* timer_gettime and the old value, disarming, SIGEV_NONE, TIMER_ABSTIME */
static void times(void)
{
	struct ksigevent none = { .notify = SIGEV_NONE };
	struct ksigevent ev = { .signo = SIGRTMIN + 1 };
	struct itimerspec old;
	struct timespec now;
	long long v, iv;
	int id = tcreate(CLOCK_BOOTTIME, &none);

	CHECK_EQ(tset(id, 0, 1000 * MS, 500 * MS, NULL), 0);
	v = tget(id, &iv);
	CHECK(v > 950 * MS && v <= 1000 * MS);
	CHECK_EQ(iv, 500 * MS);
	CHECK_EQ(tset(id, 0, 0, 200 * MS, &old), 0); /* disarm: the old value comes back */
	CHECK_EQ(old.it_interval.tv_nsec, 500 * MS);
	v = old.it_value.tv_sec * 1000000000LL + old.it_value.tv_nsec;
	CHECK(v > 900 * MS && v <= 1000 * MS);
	v = tget(id, &iv);
	CHECK_EQ(iv, 0); /* a disarmed timer has no interval */
	CHECK(v > 900 * MS && v <= 1000 * MS); /* Linux's SIGEV_NONE: still the old expiry */
	/* SIGEV_NONE: nothing is sent, the time still runs */
	CHECK_EQ(tset(id, 0, 20 * MS, 0, NULL), 0);
	sleep_ms(60);
	CHECK_EQ(tget(id, NULL), 0); /* a one-shot, expired */
	CHECK_EQ(tset(id, 0, 20 * MS, 50 * MS, NULL), 0);
	sleep_ms(100);
	v = tget(id, NULL); /* the next period */
	CHECK(v > 0 && v <= 50 * MS);
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
	/* a signalling timer disarmed: 0 */
	handle(SIGRTMIN + 1);
	id = tcreate(CLOCK_MONOTONIC, &ev);
	CHECK_EQ(tset(id, 0, 1000 * MS, 0, NULL), 0);
	CHECK(tget(id, NULL) > 900 * MS);
	CHECK_EQ(tset(id, 0, 0, 0, NULL), 0);
	CHECK_EQ(tget(id, &iv), 0);
	/* TIMER_ABSTIME on CLOCK_MONOTONIC: 50 ms from now, and a time passed already */
	clock_gettime(CLOCK_MONOTONIC, &now);
	hits = 0;
	CHECK_EQ(tset(id, TIMER_ABSTIME, now.tv_sec * 1000000000L + now.tv_nsec + 50 * MS, 0,
		      NULL), 0);
	v = tget(id, NULL);
	CHECK(v > 30 * MS && v <= 50 * MS);
	sleep_ms(120);
	CHECK_EQ(hits, 1);
	CHECK_EQ(fire_once(id, TIMER_ABSTIME, 1 * MS, 50), 1); /* long past: at once */
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
}

/* SIGEV_THREAD_ID: a thread of the caller's process, no other */
static void thread_id(void)
{
	struct ksigevent ev = { .signo = SIGRTMIN + 2, .notify = SIGEV_THREAD_ID_,
				.tid = (int)syscall(SYS_gettid) };
	int id;

	handle(SIGRTMIN + 2);
	id = tcreate(CLOCK_MONOTONIC, &ev);
	CHECK(id >= 0);
	CHECK_EQ(fire_once(id, 0, 10 * MS, 80), 1);
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
	ev.tid = getppid(); /* another process */
	CHECK_ERR(tcreate(CLOCK_MONOTONIC, &ev), EINVAL);
	ev.tid = 0x7ffffff0;
	CHECK_ERR(tcreate(CLOCK_MONOTONIC, &ev), EINVAL);
}

static int child_ids(void)
{
	int id;

	if (tget(0, NULL) != -1 || errno != EINVAL) /* the parent's are not inherited */
		return 1;
	id = tcreate(CLOCK_MONOTONIC, NULL);
	return id == 0 ? 0 : 2;
}

static long long cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CPU-time clocks: sleeping does not bring the timer closer, spinning does */
static void cpu_time(void)
{
	struct ksigevent ev = { .signo = SIGRTMIN + 3 };
	clockid_t clocks[2] = { CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };

	handle(SIGRTMIN + 3);
	for (int i = 0; i < 2; i++) {
		int id = tcreate(clocks[i], &ev);
		long long start, wall, v;

		CHECK(id >= 0);
		hits = 0;
		CHECK_EQ(tset(id, 0, 50 * MS, 0, NULL), 0);
		sleep_ms(100);
		CHECK_EQ(hits, 0);
		v = tget(id, NULL);
		CHECK(v > 30 * MS && v <= 50 * MS);
		start = cpu_ns(clocks[i]);
		wall = now_ns();
		while (!hits && now_ns() - wall < 2000 * MS)
			;
		CHECK_EQ(hits, 1);
		CHECK(cpu_ns(clocks[i]) - start >= 30 * MS); /* the rest of the 50 ms spun */
		/* periodic: 20 ms of CPU time for 200 ms of spinning (a signal late by a period,
		 * its rearming later: the overrun counts it) */
		hits = overruns = 0;
		CHECK_EQ(tset(id, 0, 20 * MS, 20 * MS, NULL), 0);
		start = cpu_ns(clocks[i]);
		wall = now_ns();
		while (cpu_ns(clocks[i]) - start < 200 * MS && now_ns() - wall < 4000 * MS)
			;
		CHECK_EQ(syscall(SYS_timer_delete, id), 0);
		if (!CHECK(hits >= 4 && hits + overruns >= 8 && hits + overruns <= 11))
			fprintf(stderr, "%s:   %d signals, %d overruns\n", UTEST_NAME, hits,
				overruns);
	}
}

/* ids: the process's own count; a failed create after the id is taken uses it up */
static void ids_errors(void)
{
	struct ksigevent ev = { .signo = 0 };
	struct itimerspec its = { { 0, 0 }, { 0, 1000000000 } };
	int a, b, status, id;
	pid_t pid;

	a = tcreate(CLOCK_MONOTONIC, NULL);
	CHECK(a >= 0);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, (int *)8), EFAULT);
	CHECK_ERR(tcreate(CLOCK_MONOTONIC, &ev), EINVAL); /* signal 0 */
	ev.signo = 65;
	CHECK_ERR(tcreate(CLOCK_MONOTONIC, &ev), EINVAL);
	ev.signo = SIGUSR1;
	ev.notify = 3;
	CHECK_ERR(tcreate(CLOCK_MONOTONIC, &ev), EINVAL);
	b = tcreate(CLOCK_MONOTONIC, NULL);
	CHECK_EQ(b, a + 5); /* every one of the four took an id */
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)8, &id), EFAULT);
	CHECK_ERR(syscall(SYS_timer_create, 10, NULL, &id), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, 99, NULL, &id), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC_RAW, NULL, &id), EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_REALTIME_COARSE, NULL, &id), EOPNOTSUPP);
	CHECK_EQ(tcreate(CLOCK_MONOTONIC, NULL), b + 1); /* those took none */
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, NULL, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, (void *)8, NULL), EFAULT);
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, &its, NULL), EINVAL); /* 10^9 ns */
	its.it_value = (struct timespec){ -1, 0 };
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, &its, NULL), EINVAL);
	its.it_value = (struct timespec){ 1, 0 };
	its.it_interval.tv_nsec = -1;
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, &its, NULL), EINVAL);
	its.it_interval.tv_nsec = 0;
	CHECK_ERR(syscall(SYS_timer_settime, 9999, 0, &its, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_timer_settime, -1, 0, &its, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_timer_settime, a, 0, &its, (void *)8), EFAULT); /* but set */
	CHECK(tget(a, NULL) > 0);
	CHECK_ERR(syscall(SYS_timer_gettime, a, (void *)8), EFAULT);
	CHECK_ERR(syscall(SYS_timer_gettime, 9999, &its), EINVAL);
	CHECK_ERR(syscall(SYS_timer_getoverrun, 9999), EINVAL);
	CHECK_EQ(syscall(SYS_timer_delete, a), 0);
	CHECK_ERR(syscall(SYS_timer_delete, a), EINVAL);
	CHECK_ERR(syscall(SYS_timer_gettime, a, &its), EINVAL);
	CHECK_EQ(syscall(SYS_timer_delete, b), 0);
	pid = fork();
	if (pid == 0)
		_exit(child_ids());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	CHECK_EQ(tcreate(CLOCK_MONOTONIC, NULL), 0); /* a process's first timer is 0 */
	CHECK_EQ(syscall(SYS_timer_delete, 0), 0);
	signals();
	overrun();
	times();
	thread_id();
	cpu_time();
	ids_errors();
	return utest_done();
}
