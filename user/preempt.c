/* preempt: child A spins forever without system calls while child B does a bounded amount of CPU
 * work; on one CPU B can only finish if the timer preempts A. Then A is killed with SIGKILL. */
#define UTEST_NAME "preempt"
#include "utest.h"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORK 50000000UL

int main(void)
{
	volatile unsigned long n;
	pid_t a, b;
	int st = -1;

	a = fork();
	if (a == 0) {
		for (n = 0;; n++)
			;
	}
	CHECK(a > 0);
	b = fork();
	if (b == 0) {
		for (n = 0; n < WORK; n++)
			;
		_exit(n == WORK ? 0 : 1);
	}
	CHECK(b > 0);
	CHECK_EQ(wait4(b, &st, 0, NULL), b);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	CHECK_EQ(kill(a, SIGKILL), 0);
	st = -1;
	CHECK_EQ(wait4(a, &st, 0, NULL), a);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	return utest_done();
}
