/* sched-rt: SCHED_FIFO scheduled as Linux does, on one CPU: a higher priority preempts a lower
 * task that spins (woken, raised, or the running one lowered), one priority runs in arrival
 * order, sched_yield goes behind its equals, and the real-time bandwidth (sched_rt_runtime_us,
 * its checks) lets an ordinary task run beside a spinning FIFO one. Root. */
#define _GNU_SOURCE
#define UTEST_NAME "sched-rt"
#include "utest.h"
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define OTHER 0
#define FIFO 1
#define RR 2
#define RESET_ON_FORK 0x40000000
#define RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define PERIOD "/proc/sys/kernel/sched_rt_period_us"

/* What the tasks share: a log of who ran in which order, and flags. */
struct shared {
	volatile int len;
	volatile char log[64];
	volatile long count;
	volatile int flag;
};
static struct shared *sh;

/* by number: musl's sched_setscheduler() is ENOSYS */
static long setsched(long pid, long policy, int prio)
{
	return syscall(SYS_sched_setscheduler, pid, policy, &prio);
}

static long setparam(long pid, int prio)
{
	return syscall(SYS_sched_setparam, pid, &prio);
}

static void note(char c)
{
	sh->log[sh->len] = c;
	sh->len = sh->len + 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Spin until sh->flag is set, for at most ms: did it get set? A FIFO task spinning here gives
 * the CPU up only to a higher priority (or to the bandwidth limit, after much longer). */
static int spin_for_flag(long ms)
{
	long end = now_ms() + ms;

	while (!sh->flag && now_ms() < end)
		;
	return sh->flag;
}

static void reap(pid_t pid)
{
	int st;

	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void reset(void)
{
	sh->len = 0;
	sh->flag = 0;
	sh->count = 0;
	memset((void *)sh->log, 0, sizeof(sh->log));
}

/* A higher FIFO task woken from a sleep preempts the lower one spinning, while a task of the
 * spinner's priority waits (round robin would run it at the end of a time slice). */
static void wake_preempts(void)
{
	pid_t pid, equal;

	reset();
	pid = fork();
	if (pid == 0) {
		setsched(0, FIFO, 20);
		nanosleep(&(struct timespec){ 0, 30000000 }, NULL);
		note('w'); /* while the parent spins */
		sh->flag = 1;
		_exit(0);
	}
	CHECK_EQ(sched_yield(), 0); /* it runs (its priority is still the parent's) and sleeps */
	equal = fork();
	if (equal == 0) {
		note('e');
		_exit(0);
	}
	note('s');
	CHECK(spin_for_flag(500));
	CHECK(!strcmp((const char *)sh->log, "sw"));
	reap(pid);
	reap(equal);
	CHECK(!strcmp((const char *)sh->log, "swe"));
}

/* Children of a FIFO parent wait behind it (the same priority) and run in the order they were
 * made, the first one to the end of a spin longer than a time slice; each one's sched_yield
 * lets the next one go first. */
static void fifo_order(void)
{
	pid_t pid[3];

	reset();
	for (int i = 0; i < 3; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			note((char)('a' + i));
			if (i == 0) {
				spin_for_flag(60);
				note('!');
			}
			sched_yield();
			note((char)('A' + i));
			_exit(0);
		}
	}
	CHECK_EQ(sh->len, 0); /* not one has run: the parent keeps the CPU */
	for (int i = 0; i < 3; i++)
		reap(pid[i]);
	CHECK(!strcmp((const char *)sh->log, "a!bcABC"));
}

/* A queued child of the parent's priority runs as soon as it is above the parent: raised, or
 * the parent lowered. And the parent's sched_yield lets it run first. */
static void priority_changes(void)
{
	pid_t pid;

	reset();
	pid = fork();
	if (pid == 0) {
		note('r');
		_exit(0);
	}
	CHECK_EQ(sh->len, 0);
	CHECK_EQ(setparam(pid, 10), 0); /* the same priority: nothing changes */
	CHECK_EQ(sh->len, 0);
	CHECK_EQ(setparam(pid, 30), 0);
	CHECK_EQ(sh->len, 1); /* it ran before the call returned */
	reap(pid);

	reset();
	pid = fork();
	if (pid == 0) {
		note('l');
		_exit(0);
	}
	CHECK_EQ(sh->len, 0);
	CHECK_EQ(setparam(0, 5), 0);
	CHECK_EQ(sh->len, 1);
	CHECK_EQ(setparam(0, 10), 0);
	reap(pid);

	reset();
	pid = fork();
	if (pid == 0) {
		note('y');
		_exit(0);
	}
	CHECK_EQ(sh->len, 0);
	CHECK_EQ(sched_yield(), 0);
	CHECK_EQ(sh->len, 1);
	reap(pid);
}

static int write_num(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY), n = snprintf(buf, sizeof(buf), "%ld\n", v), r;

	if (fd < 0)
		return -1;
	r = (int)write(fd, buf, (size_t)n);
	close(fd);
	return r == n ? 0 : -1;
}

static long read_num(const char *path)
{
	char buf[32];

	return utest_slurp(path, buf, sizeof(buf)) > 0 ? atol(buf) : -100;
}

/* A FIFO task that spins leaves an ordinary one its share: 20 ms of every 100 here. */
static void bandwidth(void)
{
	long runtime = read_num(RUNTIME), period = read_num(PERIOD);
	pid_t pid;

	CHECK_EQ(runtime, 950000); /* Linux's defaults */
	CHECK_EQ(period, 1000000);
	CHECK_ERR(write_num(RUNTIME, period + 1), EINVAL); /* more than the period */
	CHECK_ERR(write_num(RUNTIME, -2), EINVAL);
	CHECK_ERR(write_num(PERIOD, 0), EINVAL);
	if (write_num(RUNTIME, 20000)) {
		/* Linux whose real-time groups hold runtime of their own (as a container's
		 * host may) refuses to lower it below theirs */
		CHECK_EQ(errno, EBUSY);
		fprintf(stderr, "%s: the runtime is held by real-time groups: not lowered\n",
			UTEST_NAME);
		return;
	}
	CHECK_EQ(write_num(PERIOD, 100000), 0);
	CHECK_ERR(write_num(PERIOD, 10000), EINVAL); /* below the runtime */
	CHECK_EQ(read_num(RUNTIME), 20000);

	reset();
	CHECK_EQ(setsched(0, FIFO | RESET_ON_FORK, 10), 0);
	pid = fork();
	if (pid == 0) { /* SCHED_OTHER */
		sh->flag = 1;
		_exit(0);
	}
	CHECK(spin_for_flag(1000)); /* (without the limit it would spin to the end) */
	reap(pid);
	CHECK_EQ(setsched(0, FIFO, 10), 0);

	CHECK_EQ(write_num(PERIOD, period), 0);
	CHECK_EQ(write_num(RUNTIME, runtime), 0);
	CHECK_EQ(read_num(RUNTIME), 950000);
}

int main(void)
{
	cpu_set_t one;
	struct timespec ts;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(sh != MAP_FAILED))
		return utest_done();
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CHECK_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
	CHECK_EQ(setsched(0, RR, 10), 0);
	CHECK_EQ(syscall(SYS_sched_rr_get_interval, 0, &ts), 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 100000000); /* Linux's 100 ms */
	CHECK_EQ(setsched(0, FIFO, 10), 0);
	CHECK_EQ(syscall(SYS_sched_rr_get_interval, 0, &ts), 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0);
	wake_preempts();
	fifo_order();
	priority_changes();
	bandwidth();
	CHECK_EQ(setsched(0, OTHER, 0), 0);
	return utest_done();
}
