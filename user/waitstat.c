/* waitstat: wait4 semantics: exit(0/7/255) status encoding, wait4(-1) reaps any child, wait4 for
 * one pid, WNOHANG while a child runs and once it has exited, ECHILD with no (such) children,
 * getppid in fork and vfork children, and an orphaned grandchild that does not hang anyone. */
#define _GNU_SOURCE
#define UTEST_NAME "waitstat"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	syscall(SYS_nanosleep, &ts, NULL);
}

int main(void)
{
	static const int codes[] = {0, 7, 255};
	pid_t self = getpid(), pid[3], p, q;
	int i, j, st, seen[3] = {0, 0, 0};

	fflush(stdout);
	/* exit() (not _exit) from three children; wait4(-1) reaps them in any order */
	for (i = 0; i < 3; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			exit(codes[i]);
		CHECK(pid[i] > 0);
	}
	for (i = 0; i < 3; i++) {
		st = -1;
		p = wait4(-1, &st, 0, NULL);
		for (j = 0; j < 3 && pid[j] != p; j++)
			;
		if (!CHECK(j < 3)) {
			fprintf(stderr, "waitstat: wait4(-1) gave %d\n", (int)p);
			continue;
		}
		seen[j]++;
		CHECK(WIFEXITED(st) && !WIFSIGNALED(st));
		CHECK_EQ(WEXITSTATUS(st), codes[j]);
		CHECK_EQ(st, codes[j] << 8); /* the raw encoding */
	}
	CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD);
	CHECK_ERR(wait4(-1, &st, WNOHANG, NULL), ECHILD);

	/* wait4 for one pid leaves the other child alone; a NULL status is fine */
	p = fork();
	if (p == 0) {
		nap_ms(30);
		_exit(1);
	}
	q = fork();
	if (q == 0)
		_exit(getppid() == self ? 2 : 3);
	CHECK(p > 0 && q > 0);
	st = -1;
	CHECK_EQ(wait4(q, &st, 0, NULL), q);
	CHECK_EQ(st, 2 << 8);
	CHECK_ERR(wait4(q, &st, 0, NULL), ECHILD);   /* already reaped */
	CHECK_ERR(wait4(self, &st, 0, NULL), ECHILD); /* not a child */
	CHECK_EQ(wait4(p, NULL, 0, NULL), p);

	/* WNOHANG: 0 while the child runs, its pid once it has exited */
	p = fork();
	if (p == 0) {
		nap_ms(100);
		_exit(5);
	}
	CHECK(p > 0);
	st = -1;
	CHECK_EQ(wait4(p, &st, WNOHANG, NULL), 0);
	CHECK_EQ(wait4(-1, &st, WNOHANG, NULL), 0);
	CHECK_EQ(st, -1); /* untouched */
	for (i = 0; i < 300 && (q = wait4(p, &st, WNOHANG, NULL)) == 0; i++)
		nap_ms(10);
	CHECK_EQ(q, p);
	CHECK_EQ(st, 5 << 8);

	/* killed children: the signal in the low 7 bits, no core flag */
	p = fork();
	if (p == 0)
		for (;;)
			nap_ms(1000);
	CHECK(p > 0);
	CHECK_EQ(kill(p, SIGKILL), 0);
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
	CHECK_EQ(st, SIGKILL);

	/* the orphan: the child exits at once, its child outlives it */
	p = fork();
	if (p == 0) {
		pid_t parent = getpid();

		if (fork() == 0) {
			nap_ms(50);
			_exit(getppid() != parent ? 0 : 1); /* reparented */
		}
		_exit(4);
	}
	CHECK(p > 0);
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
	CHECK_EQ(st, 4 << 8);
	if (self == 1) { /* as pid 1 the orphan may be handed to us, or reaped elsewhere */
		st = 0;
		errno = 0;
		q = wait4(-1, &st, 0, NULL);
		CHECK((q > 0 && st == 0) || (q == -1 && errno == ECHILD));
	}
	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD); /* it is not ours */

	/* vfork + _exit: the parent resumes when the child exits */
	for (i = 0; i < 3; i++) {
		p = vfork();
		if (p == 0)
			_exit(getppid() == self ? codes[i] : 99);
		CHECK(p > 0);
		st = -1;
		CHECK_EQ(wait4(p, &st, 0, NULL), p);
		CHECK_EQ(st, codes[i] << 8);
	}
	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD);
	return utest_done();
}
