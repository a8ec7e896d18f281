/* sched-affinity: sched_setaffinity(2), sched_getaffinity(2) and getcpu(2) as Linux answers
 * them: the mask of every online CPU, a thread moved at once onto the CPU its new mask allows,
 * the mask inherited by a child, and each call's errors (EINVAL, EFAULT, ESRCH). */
#define _GNU_SOURCE
#define UTEST_NAME "sched-affinity"
#include "utest.h"
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long getaff(long pid, unsigned long len, void *mask)
{
	return syscall(SYS_sched_getaffinity, pid, len, mask);
}

static long setaff(long pid, unsigned long len, const void *mask)
{
	return syscall(SYS_sched_setaffinity, pid, len, mask);
}

static int cpu_now(void)
{
	unsigned int cpu = ~0u, node = ~0u;

	CHECK_EQ(syscall(SYS_getcpu, &cpu, &node, NULL), 0);
	CHECK_EQ(node, 0);
	return (int)cpu;
}

int main(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long all = 0, m = 0, one;
	int status;
	pid_t pid;

	CHECK(n >= 1 && n <= 64);
	/* The raw call returns the bytes written: one unsigned long for len 8. */
	CHECK_EQ(getaff(0, sizeof(all), &all), sizeof(all));
	CHECK_EQ(__builtin_popcountl(all), n);
	CHECK_EQ(getaff(getpid(), sizeof(m), &m), sizeof(m));
	CHECK_EQ(m, all);
	CHECK_ERR(getaff(0, 4, &m), EINVAL); /* not a multiple of sizeof(long) */
	CHECK_ERR(getaff(0, 0, &m), EINVAL); /* too short for the CPUs there are */
	CHECK_ERR(getaff(0, sizeof(m), (void *)8), EFAULT);
	CHECK_ERR(getaff(-1, sizeof(m), &m), ESRCH);
	CHECK_ERR(getaff(0x3fffffff, sizeof(m), &m), ESRCH);

	/* Onto the last CPU alone: the call returns there. */
	one = 1UL << (n - 1);
	CHECK_EQ(setaff(0, sizeof(one), &one), 0);
	CHECK_EQ(cpu_now(), n - 1);
	CHECK_EQ(getaff(0, sizeof(m), &m), sizeof(m));
	CHECK_EQ(m, one);
	CHECK_EQ(sched_getcpu(), n - 1);
	/* A child inherits the mask. */
	pid = fork();
	if (pid == 0) {
		unsigned long cm = 0;

		_exit(getaff(0, sizeof(cm), &cm) == sizeof(cm) && cm == one && cpu_now() == n - 1
			      ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
	/* Onto CPU 0, through a 4-byte mask (shorter masks are zero-extended). */
	{
		unsigned int cpu0 = 1;

		CHECK_EQ(setaff(0, sizeof(cpu0), &cpu0), 0);
		CHECK_EQ(cpu_now(), 0);
	}
	/* Errors: no online CPU in the mask, a bad pointer, no such thread. */
	m = 1UL << 63;
	if (n < 64)
		CHECK_ERR(setaff(0, sizeof(m), &m), EINVAL);
	m = 0;
	CHECK_ERR(setaff(0, sizeof(m), &m), EINVAL);
	CHECK_ERR(setaff(0, sizeof(m), (void *)8), EFAULT);
	CHECK_ERR(setaff(-1, sizeof(all), &all), ESRCH);
	CHECK_ERR(setaff(0x3fffffff, sizeof(all), &all), ESRCH);
	/* getcpu: either pointer may be NULL; a bad one is EFAULT. */
	CHECK_EQ(syscall(SYS_getcpu, NULL, NULL, NULL), 0);
	CHECK_ERR(syscall(SYS_getcpu, (void *)8, NULL, NULL), EFAULT);
	CHECK_ERR(syscall(SYS_getcpu, NULL, (void *)8, NULL), EFAULT);
	CHECK_EQ(setaff(0, sizeof(all), &all), 0);
	CHECK_EQ(getaff(0, sizeof(m), &m), sizeof(m));
	CHECK_EQ(m, all);
	return utest_done();
}
