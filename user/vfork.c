/* vfork: the child shares the parent's memory and the parent sleeps until the child exits or
 * execs; signals other than SIGKILL wait for the parent to wake, SIGKILL does not (today's
 * Linux: the wait is killable). Each check also holds natively. */
#define _GNU_SOURCE
#define UTEST_NAME "vfork"
#include "utest.h"
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int shared_word;  /* written by vfork children, read by the parent */
static volatile int handler_saw;  /* shared_word when the SIGUSR1 handler ran */
static volatile int handler_runs;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_saw = shared_word;
	handler_runs++;
}

/* The child's stores land in the parent's memory, and the parent runs only after _exit. */
static void shared_memory(void)
{
	int st = -1;
	pid_t p;

	shared_word = 1;
	p = vfork();
	if (p == 0) {
		sleep_ms(200); /* a parent that did not wait would see 1 */
		shared_word = 2;
		_exit(5);
	}
	CHECK(p > 0);
	CHECK_EQ(shared_word, 2);
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* After the child's execve the parent runs while the new program is still running. */
static void exec_releases(const char *argv0)
{
	char *const nargv[] = { "no-such-program", NULL };
	static char path[4096];
	int st = -1;
	pid_t p;

	shared_word = 0;
	p = vfork();
	if (p == 0) {
		shared_word = 3;
		utest_exec_target(path, argv0);
		_exit(127);
	}
	CHECK(p > 0);
	CHECK_EQ(shared_word, 3); /* written before the exec, in the memory we share */
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);

	/* a failed execve leaves the parent asleep: the child is still on its memory */
	shared_word = 0;
	p = vfork();
	if (p == 0) {
		execve("/no/such/program", nargv, nargv + 1);
		shared_word = errno;
		_exit(0);
	}
	CHECK(p > 0);
	CHECK_EQ(shared_word, ENOENT);
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
}

/* A caught signal sent while the parent waits is handled after the child has exited. */
static void signal_waits(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pid_t parent = getpid(), helper, p;
	int st = -1;

	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	helper = fork();
	if (helper == 0) {
		sleep_ms(100);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	shared_word = 0;
	p = vfork();
	if (p == 0) {
		sleep_ms(400);
		shared_word = 4;
		_exit(0);
	}
	CHECK(p > 0);
	CHECK_EQ(handler_runs, 1);
	CHECK_EQ(handler_saw, 4); /* not before the child's last store */
	CHECK_EQ(wait4(p, &st, 0, NULL), p);
	CHECK_EQ(wait4(helper, &st, 0, NULL), helper);
	signal(SIGUSR1, SIG_DFL);
}

/* SIGKILL ends a parent waiting in vfork at once; its child goes on. A middle process vforks
 * a child that sleeps 3 s; we kill the middle one after 100 ms and reap it well before. */
static void kill_waiting_parent(void)
{
	int fds[2], st = -1;
	pid_t mid, child = 0;
	double t0;

	CHECK_EQ(pipe(fds), 0);
	t0 = now();
	mid = fork();
	if (mid == 0) {
		pid_t c = vfork();

		if (c == 0) {
			pid_t me = getpid();

			if (write(fds[1], &me, sizeof(me)) != sizeof(me))
				_exit(2);
			sleep_ms(3000);
			_exit(0);
		}
		_exit(1); /* reached only after the child: too late to matter */
	}
	CHECK(mid > 0);
	CHECK_EQ(read(fds[0], &child, sizeof(child)), (long)sizeof(child));
	sleep_ms(100);
	CHECK_EQ(kill(mid, SIGKILL), 0);
	CHECK_EQ(wait4(mid, &st, 0, NULL), mid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(now() - t0 < 2.5); /* not held until the child's 3 s were over */
	CHECK_EQ(kill(child, 0), 0); /* the child lives on, an orphan */
	kill(child, SIGKILL);
	for (int i = 0; i < 200 && kill(child, 0) == 0; i++)
		sleep_ms(10); /* until init has reaped it: its memory is back before we exit */
	close(fds[0]);
	close(fds[1]);
}

int main(int argc, char **argv)
{
	(void)argc;
	shared_memory();
	exec_releases(argv[0]);
	signal_waits();
	kill_waiting_parent();
	return utest_done();
}
