/* thread-basic: musl's pthreads on the kernel's threads: eight threads created and joined with
 * their return values, memory shared, __thread variables distinct (CLONE_SETTLS), gettid
 * distinct and getpid the same in every thread, /proc/self/status's Tgid, Pid and Threads,
 * pthread_detach and pthread_exit. Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#define UTEST_NAME "thread-basic"
#include "utest.h"

#define NTHREADS 8

static __thread int tls_var = 42;
static volatile int shared_counter;
static pid_t tids[NTHREADS], pids[NTHREADS];
static int tls_seen[NTHREADS];
static uintptr_t tls_addr[NTHREADS];

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;

	tids[i] = (pid_t)syscall(SYS_gettid);
	pids[i] = getpid();
	tls_seen[i] = tls_var; /* each thread starts with the initial value */
	tls_var = 1000 + i;
	tls_addr[i] = (uintptr_t)&tls_var;
	for (int k = 0; k < 3; k++)
		sched_yield(); /* let the others run and write their own copies */
	if (tls_var != 1000 + i)
		return (void *)-1;
	__sync_fetch_and_add(&shared_counter, 1);
	return (void *)(intptr_t)(i * 10 + 1);
}

/* The value of a "Name:\tvalue" line of /proc/self/status, or -1. */
static long status_field(const char *name)
{
	char buf[4096], *p;
	long n = utest_slurp("/proc/self/status", buf, sizeof(buf));

	if (n <= 0)
		return -1;
	p = strstr(buf, name);
	return p ? strtol(p + strlen(name), NULL, 10) : -1;
}

static volatile int proc_threads = -1;
static volatile int release;

static volatile long self_pid = -1;

static void *status_worker(void *arg)
{
	(void)arg;
	self_pid = status_field("\nPid:\t"); /* /proc/self is the process, not the thread */
	proc_threads = (int)status_field("\nThreads:\t");
	while (!release)
		sched_yield();
	return NULL;
}

static volatile int detached_ran;

static void *detached(void *arg)
{
	(void)arg;
	detached_ran = 1;
	pthread_exit((void *)7); /* a detached thread's value goes nowhere */
}

static void *exits_early(void *arg)
{
	(void)arg;
	pthread_exit((void *)99);
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS], st, dt;
	pid_t me = (pid_t)syscall(SYS_gettid);
	void *ret;

	CHECK_EQ(me, getpid()); /* the main thread leads: its tid is the pid */
	tls_var = 5;
	for (int i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i), 0);
	for (int i = 0; i < NTHREADS; i++) {
		CHECK_EQ(pthread_join(th[i], &ret), 0);
		CHECK_EQ((intptr_t)ret, i * 10 + 1);
	}
	CHECK_EQ(shared_counter, NTHREADS);
	CHECK_EQ(tls_var, 5); /* the main thread's copy is untouched */
	for (int i = 0; i < NTHREADS; i++) {
		CHECK_EQ(pids[i], getpid());
		CHECK(tids[i] != getpid() && tids[i] > 0);
		CHECK_EQ(tls_seen[i], 42);
		CHECK(tls_addr[i] != (uintptr_t)&tls_var);
		for (int j = 0; j < i; j++)
			CHECK(tids[i] != tids[j] && tls_addr[i] != tls_addr[j]);
	}

	/* /proc/self/status seen from a second thread: the group's id, the thread's, two threads */
	CHECK_EQ(status_field("\nThreads:\t"), 1);
	CHECK_EQ(status_field("\nTgid:\t"), getpid());
	CHECK_EQ(pthread_create(&st, NULL, status_worker, NULL), 0);
	while (proc_threads < 0)
		sched_yield();
	CHECK_EQ(proc_threads, 2);
	CHECK_EQ(self_pid, getpid());
	release = 1;
	CHECK_EQ(pthread_join(st, NULL), 0);

	/* pthread_exit's value reaches join; a detached thread runs and goes by itself */
	CHECK_EQ(pthread_create(&st, NULL, exits_early, NULL), 0);
	CHECK_EQ(pthread_join(st, &ret), 0);
	CHECK_EQ((intptr_t)ret, 99);
	CHECK_EQ(pthread_create(&dt, NULL, detached, NULL), 0);
	CHECK_EQ(pthread_detach(dt), 0);
	while (!detached_ran)
		sched_yield();
	for (int k = 0; k < 5; k++)
		sched_yield();
	return utest_done();
}
