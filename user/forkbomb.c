/* forkbomb: fork until fork fails. Every child sleeps (nanosleep, 2 s at a time) until it is
 * killed; it gives up by itself after 60 s or as soon as its parent is gone, so a killed test
 * leaves nothing behind. The bomb stops at 200 children unless fork fails first, and then only
 * with EAGAIN (threads-max, which memory sets: a small machine's): tasks are limited by memory,
 * not by a table, natively and under faultline alike. Then:
 *  - if fork failed: a second fork fails the same way, and one child killed and reaped makes
 *    room for the next fork;
 *  - every child dies of SIGKILL, and wait4 reaps each one with that status, then ECHILD;
 *  - the system still forks: three more fork + wait, each exit status seen;
 *  - under faultline the free frames after reaping equal those before the bomb (+-8). */
#define _GNU_SOURCE
#define UTEST_NAME "forkbomb"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#define CAP 200

static pid_t kids[CAP + 1];

static pid_t sleeper(pid_t parent)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (int i = 0; i < 30; i++) {
			struct timespec ts = { 2, 0 };

			nanosleep(&ts, NULL);
			if (getppid() != parent)
				_exit(2);
		}
		_exit(3);
	}
	return pid;
}

/* wait for exactly this child; it must have died of SIGKILL */
static void reap_killed(pid_t pid)
{
	int st = -1;

	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
		fprintf(stderr, "forkbomb:   pid %d: status %#x\n", (int)pid, st);
}

int main(void)
{
	pid_t self = getpid(), pid;
	struct fl_mm m0, m1;
	int n = 0, err = 0, st, i;

	/* the parent's own first writes after a fork are not the children's frames */
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	m0 = fl_mm_now();

	while (n < CAP) {
		pid = sleeper(self);
		if (pid < 0) {
			err = errno;
			break;
		}
		kids[n++] = pid;
	}
	printf("forkbomb: %d children, then %s\n", n,
	       n == CAP ? "the cap" : err == EAGAIN ? "EAGAIN" : strerror(err));
	if (!CHECK(n == CAP || err == EAGAIN))
		fprintf(stderr, "forkbomb:   fork failed with %s after %d children\n",
			strerror(err), n);
	if (n < CAP && err == EAGAIN) {
		errno = 0;
		pid = fork();
		if (pid == 0)
			_exit(0);
		CHECK_EQ(pid, -1);
		CHECK_EQ(errno, EAGAIN);
		if (pid > 0)
			kids[n++] = pid; /* (killed below with the others) */
		/* room for one: kill and reap one child, then fork again */
		if (n > 0 && pid < 0) {
			CHECK_EQ(kill(kids[n - 1], SIGKILL), 0);
			reap_killed(kids[--n]);
			pid = sleeper(self);
			if (!CHECK(pid > 0))
				fprintf(stderr, "forkbomb:   fork after reaping one: %s\n",
					strerror(errno));
			else
				kids[n++] = pid;
		}
	}

	for (i = 0; i < n; i++)
		CHECK_EQ(kill(kids[i], SIGKILL), 0);
	for (i = 0; i < n; i++)
		reap_killed(kids[i]);
	CHECK_ERR(wait4(-1, &st, WNOHANG, NULL), ECHILD);

	for (i = 0; i < 3; i++) { /* the system still forks */
		pid = fork();
		if (pid == 0)
			_exit(7 + i);
		if (!CHECK(pid > 0))
			break;
		st = -1;
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7 + i);
	}
	if (on_faultline()) {
		m1 = fl_mm_now();
		CHECK(frames_back("forkbomb", m0, m1, 8));
	}
	return utest_done();
}
