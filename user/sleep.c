/* sleep: nanosleep(50 ms) lasts at least 50 ms of CLOCK_MONOTONIC; two children sleeping 200 ms
 * at once are done in well under 400 ms (sleepers wait side by side and leave the CPU to others);
 * bad timespecs give EINVAL and bad pointers EFAULT. */
#define UTEST_NAME "sleep"
#include "utest.h"
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000LL

/* CLOCK_MONOTONIC in ns, by the raw system call */
static long long mono_ns(void)
{
	struct timespec ts = {0, 0};

	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0);
	CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000 * MS);
	return ts.tv_sec * 1000 * MS + ts.tv_nsec;
}

static long sys_nanosleep(const struct timespec *req, struct timespec *rem)
{
	return syscall(SYS_nanosleep, req, rem);
}

int main(void)
{
	struct timespec t50 = {0, 50 * MS}, t200 = {0, 200 * MS}, t1s = {1, 0}, zero = {0, 0};
	struct timespec bad_ns = {0, 1000000000}, neg_ns = {0, -1}, neg_s = {-1, 0};
	long long t0, t1, dt;
	volatile unsigned long n;
	pid_t pid[2];
	int i, st;

	t0 = mono_ns();
	CHECK_EQ(sys_nanosleep(&t50, NULL), 0);
	t1 = mono_ns();
	dt = t1 - t0;
	if (!CHECK(dt >= 50 * MS && dt < 1000 * MS))
		fprintf(stderr, "sleep: 50 ms sleep took %lld us\n", dt / 1000);

	t0 = mono_ns();
	CHECK_EQ(sys_nanosleep(&zero, NULL), 0);
	CHECK(mono_ns() - t0 < 50 * MS);

	/* tv_sec counts too */
	t0 = mono_ns();
	CHECK_EQ(sys_nanosleep(&t1s, NULL), 0);
	dt = mono_ns() - t0;
	if (!CHECK(dt >= 1000 * MS && dt < 2000 * MS))
		fprintf(stderr, "sleep: 1 s sleep took %lld us\n", dt / 1000);

	/* two children sleep 200 ms each at the same time, while the parent spins a little */
	fflush(stdout);
	t0 = mono_ns();
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(sys_nanosleep(&t200, NULL) == 0 ? 0 : 1);
		CHECK(pid[i] > 0);
	}
	for (n = 0; n < 1000000; n++) /* the CPU is free for this while they sleep */
		;
	for (i = 0; i < 2; i++) {
		st = -1;
		CHECK_EQ(wait4(pid[i], &st, 0, NULL), pid[i]);
		CHECK_EQ(st, 0);
	}
	dt = mono_ns() - t0;
	if (!CHECK(dt >= 200 * MS && dt < 390 * MS))
		fprintf(stderr, "sleep: two 200 ms sleeps side by side took %lld us\n", dt / 1000);

	/* invalid times are refused at once */
	t0 = mono_ns();
	CHECK_ERR(sys_nanosleep(&bad_ns, NULL), EINVAL);
	CHECK_ERR(sys_nanosleep(&neg_ns, NULL), EINVAL);
	CHECK_ERR(sys_nanosleep(&neg_s, NULL), EINVAL);
	CHECK_ERR(sys_nanosleep((const struct timespec *)1, NULL), EFAULT);
	CHECK_ERR(sys_nanosleep(NULL, NULL), EFAULT);
	CHECK_ERR(sys_nanosleep((const struct timespec *)0xffffffff80000000UL, NULL), EFAULT);
	CHECK(mono_ns() - t0 < 50 * MS);
	return utest_done();
}
