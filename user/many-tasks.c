/* many-tasks: no fixed task table. Hundreds of processes alive at once, a pipeline of 50, 200
 * threads in one process, RLIMIT_NPROC for a non-root user, and (as root) pids wrapping at a
 * lowered /proc/sys/kernel/pid_max. Runs natively too; the counts shrink on a small machine. */
#define _GNU_SOURCE
#define UTEST_NAME "many-tasks"
#include "utest.h"
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#define PID_MAX "/proc/sys/kernel/pid_max"

/* n children alive at once, each blocked on a pipe until the parent closes its end; all of
 * them reaped with status 0. Returns how many forks succeeded. */
static int many_alive(int n)
{
	int p[2], made = 0, status, reaped = 0;
	char c;

	CHECK(pipe(p) == 0);
	for (; made < n; made++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			close(p[1]);
			_exit(read(p[0], &c, 1) == 0 ? 0 : 1); /* end of file: the parent closed */
		}
	}
	close(p[0]);
	close(p[1]);
	while (wait(&status) > 0)
		reaped += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	CHECK_EQ(reaped, made);
	return made;
}

/* A pipeline of n processes, each adding one to the number it reads: 0 in, n out. */
static void pipeline(int n)
{
	int in[2], status, ok = 0;
	long v = 0;

	CHECK(pipe(in) == 0);
	int first = in[1];

	for (int i = 0; i < n; i++) {
		int out[2];

		CHECK(pipe(out) == 0);
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (pid == 0) {
			long x = -1;

			close(first);
			close(out[0]);
			if (read(in[0], &x, sizeof(x)) != sizeof(x))
				_exit(1);
			x++;
			_exit(write(out[1], &x, sizeof(x)) == sizeof(x) ? 0 : 1);
		}
		close(in[0]);
		close(out[1]);
		in[0] = out[0];
	}
	CHECK_EQ(write(first, &v, sizeof(v)), sizeof(v));
	close(first);
	CHECK_EQ(read(in[0], &v, sizeof(v)), sizeof(v));
	close(in[0]);
	CHECK_EQ(v, n);
	while (wait(&status) > 0)
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	CHECK_EQ(ok, n);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int started, released;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&lock);
	started++;
	while (!released)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

/* n threads in this process, all alive at once, then joined with their values. */
static void many_threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t attr;
	int made = 0, joined = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (made < n && pthread_create(&t[made], &attr, waiter, (void *)(long)made) == 0)
		made++;
	CHECK_EQ(made, n);
	pthread_mutex_lock(&lock);
	CHECK_EQ(started <= made, 1);
	released = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < made; i++) {
		void *v;

		joined += pthread_join(t[i], &v) == 0 && v == (void *)(long)i;
	}
	CHECK_EQ(joined, made);
	CHECK_EQ(started, made);
	free(t);
}

/* A user with RLIMIT_NPROC 5 and one process has room for four more; the fifth fork, and a
 * thread, get EAGAIN. In a child that gives up root for an otherwise unused uid. */
static void nproc_limit(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct rlimit r = { 5, 5 };
		int p[2], made = 0;
		pthread_t t;

		if (pipe(p) || setrlimit(RLIMIT_NPROC, &r) || setuid(54321))
			_exit(10);
		for (int i = 0; i < 6; i++) {
			pid_t c = fork();

			if (c == 0) {
				char ch;

				close(p[1]);
				_exit(read(p[0], &ch, 1) == 0 ? 0 : 1);
			}
			if (c < 0) {
				if (errno != EAGAIN)
					_exit(11);
				break;
			}
			made++;
		}
		if (pthread_create(&t, NULL, waiter, NULL) != EAGAIN)
			_exit(12);
		close(p[1]);
		while (wait(NULL) > 0)
			;
		_exit(made == 4 ? 0 : 13);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

/* pid_max lowered to 1000: new pids stay below it, and once it is reached they wrap to the
 * lowest free one from 300 on (Linux's RESERVED_PIDS). The old value is put back. */
static void pid_wrap(void)
{
	long saved = utest_sysctl(PID_MAX);
	char text[32];
	int prev = 0, wrapped = 0, below = 1, status;

	CHECK(saved >= 301);
	CHECK_EQ(utest_sysctl_write(PID_MAX, "300"), EINVAL);      /* under RESERVED_PIDS + 1 */
	CHECK_EQ(utest_sysctl_write(PID_MAX, "4194305"), EINVAL);  /* over PID_MAX_LIMIT */
	CHECK_EQ(utest_sysctl_write(PID_MAX, "1000"), 0);
	CHECK_EQ(utest_sysctl(PID_MAX), 1000);
	for (int i = 0; i < 2000 && !wrapped; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0)
			break;
		waitpid(pid, &status, 0);
		below &= pid < 1000;
		if (prev && pid < prev)
			wrapped = pid;
		prev = pid;
	}
	snprintf(text, sizeof(text), "%ld\n", saved);
	CHECK_EQ(utest_sysctl_write(PID_MAX, text), 0);
	CHECK_EQ(utest_sysctl(PID_MAX), saved);
	CHECK(below);
	CHECK(wrapped >= 300 && wrapped < 1000);
}

int main(void)
{
	struct sysinfo si;
	long threads_max = utest_sysctl("/proc/sys/kernel/threads-max"), n;

	/* 500 processes, fewer where memory is short: a quarter MiB of memory for each */
	CHECK(sysinfo(&si) == 0);
	n = (long)((unsigned long long)si.totalram * si.mem_unit / (256 * 1024));
	n = n < 500 ? n : 500;
	CHECK(threads_max > n);
	CHECK_EQ(many_alive((int)n), n);
	pipeline(50);
	many_threads(n < 200 ? (int)n : 200);
	if (geteuid() == 0) {
		nproc_limit();
		pid_wrap();
	} else {
		utest_skip("RLIMIT_NPROC and pid_max", "not root");
	}
	return utest_done();
}
