/* sched-param: sched_getparam(2) as Linux answers it for a SCHED_OTHER thread: priority 0 for
 * the caller, its parent and a child, only the 4 bytes of struct sched_param written, pid as a
 * pid_t (the low 32 bits), and the errors in Linux's order: EINVAL (no param, pid < 0), ESRCH
 * (no such thread), EFAULT (a bad param). By number: musl's sched_getparam() is ENOSYS. */
#define UTEST_NAME "sched-param"
#include "utest.h"
#include <sys/syscall.h>
#include <sys/wait.h>

static long getparam(long pid, void *param)
{
	return syscall(SYS_sched_getparam, pid, param);
}

int main(void)
{
	struct {
		int prio;
		int after; /* what the call must not touch */
	} p = { -1, 0x5a5a5a5a };
	int fds[2], status;
	pid_t child;
	char c;

	CHECK_EQ(getparam(0, &p), 0);
	CHECK_EQ(p.prio, 0);
	CHECK_EQ(p.after, 0x5a5a5a5a);
	p.prio = -1;
	CHECK_EQ(getparam(getpid(), &p), 0);
	CHECK_EQ(p.prio, 0);
	p.prio = -1;
	CHECK_EQ(getparam(getppid(), &p), 0);
	CHECK_EQ(p.prio, 0);
	/* A child, alive until the pipe closes. */
	CHECK_EQ(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 0 ? 0 : 1);
	}
	CHECK(child > 0);
	p.prio = -1;
	CHECK_EQ(getparam(child, &p), 0);
	CHECK_EQ(p.prio, 0);
	close(fds[1]);
	CHECK_EQ(waitpid(child, &status, 0), child);
	CHECK_EQ(status, 0);
	/* pid is a pid_t: 1 << 32 is 0 (the caller), 0xffffffff is -1. */
	p.prio = -1;
	CHECK_EQ(getparam(1L << 32, &p), 0);
	CHECK_EQ(p.prio, 0);
	CHECK_ERR(getparam(0xffffffffL, &p), EINVAL);
	/* The errors, each before the next: EINVAL, then ESRCH, then EFAULT. */
	CHECK_ERR(getparam(0, NULL), EINVAL);
	CHECK_ERR(getparam(-1, &p), EINVAL);
	CHECK_ERR(getparam(-1, (void *)8), EINVAL);
	CHECK_ERR(getparam(0x3fffffff, NULL), EINVAL);
	CHECK_ERR(getparam(0x3fffffff, &p), ESRCH);
	CHECK_ERR(getparam(0x3fffffff, (void *)8), ESRCH);
	CHECK_ERR(getparam(0, (void *)8), EFAULT);
	CHECK_ERR(getparam(0, (void *)0xffff800000000000UL), EFAULT);
	return utest_done();
}
