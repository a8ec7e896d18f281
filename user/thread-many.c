/* thread-many: one process with 100 threads at once (each on its own stack mapping and kernel
 * stack), with musl's default stacks and with glibc's 8 MiB ones: every one is created, runs
 * while all the others are alive (a barrier of all of them), and is joined with its value.
 * Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#define UTEST_NAME "thread-many"
#include "utest.h"

#define NTHREADS 100

static pthread_barrier_t all_alive;
static pid_t tids[NTHREADS];

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;

	tids[i] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&all_alive);
	return (void *)(intptr_t)(i * 3 + 1);
}

/* NTHREADS threads with stacks of stack bytes (0: the C library's default), all alive at once,
 * then joined with their values. */
static void many(size_t stack)
{
	pthread_t th[NTHREADS];
	pthread_attr_t attr;
	int made = 0, distinct = 1;

	memset(tids, 0, sizeof(tids));
	pthread_attr_init(&attr);
	if (stack)
		CHECK_EQ(pthread_attr_setstacksize(&attr, stack), 0);
	CHECK_EQ(pthread_barrier_init(&all_alive, NULL, NTHREADS + 1), 0);
	for (int i = 0; i < NTHREADS; i++) {
		int err = pthread_create(&th[i], &attr, worker, (void *)(intptr_t)i);

		if (err) {
			fprintf(stderr, "%s: stack %zu, thread %d: %s\n", UTEST_NAME, stack, i,
				strerror(err));
			break;
		}
		made++;
	}
	CHECK_EQ(made, NTHREADS);
	if (made < NTHREADS) /* the barrier would wait for ever: exit ends them */
		exit(utest_done());
	pthread_barrier_wait(&all_alive);
	for (int i = 0; i < NTHREADS; i++) {
		void *ret = NULL;

		CHECK_EQ(pthread_join(th[i], &ret), 0);
		CHECK_EQ((intptr_t)ret, i * 3 + 1);
	}
	for (int i = 0; i < NTHREADS; i++)
		for (int j = 0; j < i; j++)
			distinct &= tids[i] != tids[j] && tids[i] > 0;
	CHECK(distinct);
	pthread_barrier_destroy(&all_alive);
	pthread_attr_destroy(&attr);
}

int main(void)
{
	many(0);
	many(8 << 20); /* glibc's default: RLIMIT_STACK's 8 MiB */
	return utest_done();
}
