/* itimer-cpu: the two interval timers that count CPU time. ITIMER_VIRTUAL counts only the
 * process's user time (SIGVTALRM), ITIMER_PROF user and system time (SIGPROF); sleeping
 * counts for neither; an interval rearms; a fork child starts with none; the errors. */
#define UTEST_NAME "itimer-cpu"
#include "utest.h"
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t vt, prof;

static void on_vt(int sig)
{
	(void)sig;
	vt++;
}

static void on_prof(int sig)
{
	(void)sig;
	prof++;
}

/* Spin in ring 3 until cond's counter reaches n, or about 5 s of wall time have passed. */
static void spin_until(volatile sig_atomic_t *counter, int n)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (*counter < n && t.tv_sec - t0.tv_sec < 5);
}

static long usec_of(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

int main(void)
{
	struct itimerval one = { { 0, 0 }, { 0, 50000 } }, old, cur, off = { { 0, 0 }, { 0, 0 } };
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, bad = { { 0, 0 }, { 0, 1000000 } };
	struct timespec nap = { 0, 200000000 };
	int st;
	pid_t c;

	signal(SIGVTALRM, on_vt);
	signal(SIGPROF, on_prof);

	/* Nothing armed: all zero. */
	CHECK_EQ(getitimer(ITIMER_VIRTUAL, &cur), 0);
	CHECK_EQ(usec_of(&cur.it_value) + usec_of(&cur.it_interval), 0);

	/* Sleeping uses no CPU: a virtual timer does not move, and never fires. */
	CHECK_EQ(setitimer(ITIMER_VIRTUAL, &one, NULL), 0);
	nanosleep(&nap, NULL);
	CHECK_EQ(vt, 0);
	CHECK_EQ(getitimer(ITIMER_VIRTUAL, &cur), 0);
	/* (Linux adds one tick to what was asked: the tick now under way does not count.) */
	CHECK(usec_of(&cur.it_value) > 30000 && usec_of(&cur.it_value) <= 60000);
	CHECK_EQ(usec_of(&cur.it_interval), 0);

	/* Spinning in ring 3 uses it up: one SIGVTALRM, then it is disarmed. */
	spin_until(&vt, 1);
	CHECK_EQ(vt, 1);
	CHECK_EQ(getitimer(ITIMER_VIRTUAL, &cur), 0);
	CHECK_EQ(usec_of(&cur.it_value), 0);

	/* An interval rearms it: several signals, and the old value comes back from setitimer. */
	CHECK_EQ(setitimer(ITIMER_PROF, &every, NULL), 0);
	spin_until(&prof, 3);
	CHECK(prof >= 3);
	CHECK_EQ(setitimer(ITIMER_PROF, &off, &old), 0);
	CHECK_EQ(usec_of(&old.it_interval), 20000);
	CHECK(usec_of(&old.it_value) > 0 && usec_of(&old.it_value) <= 30000);
	CHECK_EQ(getitimer(ITIMER_PROF, &cur), 0);
	CHECK_EQ(usec_of(&cur.it_value), 0);

	/* A fork child does not inherit the parent's timers. */
	CHECK_EQ(setitimer(ITIMER_VIRTUAL, &one, NULL), 0);
	c = fork();
	if (c == 0) {
		struct itimerval v;

		_exit(getitimer(ITIMER_VIRTUAL, &v) == 0 && usec_of(&v.it_value) == 0 ? 0 : 1);
	}
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(setitimer(ITIMER_VIRTUAL, &off, NULL), 0);

	/* The errors: an unknown timer, microseconds out of range. */
	CHECK_ERR(setitimer(3, &one, NULL), EINVAL);
	CHECK_ERR(getitimer(3, &cur), EINVAL);
	CHECK_ERR(setitimer(ITIMER_PROF, &bad, NULL), EINVAL);
	return utest_done();
}
