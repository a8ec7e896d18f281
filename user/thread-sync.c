/* thread-sync: musl's mutexes and condition variables between threads that really sleep in
 * the kernel's futex: a counter under a contended mutex (the holder yields while holding it),
 * a bounded producer/consumer queue, and a broadcast that wakes every waiter. Runs natively
 * too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#define UTEST_NAME "thread-sync"
#include "utest.h"

#define NWORKERS 6
#define ROUNDS 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		long v = counter;

		if (i % 16 == 0)
			sched_yield(); /* hold the lock across a switch: the others must wait */
		counter = v + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

#define QSIZE 4
#define NITEMS 500
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue[QSIZE], qhead, qcount;
static long consumed_sum;

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= NITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (qcount == QSIZE)
			pthread_cond_wait(&not_full, &lock);
		queue[(qhead + qcount++) % QSIZE] = i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long n = (long)(intptr_t)arg, sum = 0;

	for (long k = 0; k < n; k++) {
		pthread_mutex_lock(&lock);
		while (qcount == 0)
			pthread_cond_wait(&not_empty, &lock);
		sum += queue[qhead];
		qhead = (qhead + 1) % QSIZE;
		qcount--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	consumed_sum += sum;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int go_flag, waiting, woken;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	waiting++;
	while (!go_flag)
		pthread_cond_wait(&go, &lock);
	woken++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t th[NWORKERS], p, c[2];

	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, adder, NULL), 0);
	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	CHECK_EQ(counter, NWORKERS * ROUNDS);

	/* two consumers share the items of one producer through a queue of 4 */
	CHECK_EQ(pthread_create(&c[0], NULL, consumer, (void *)(intptr_t)(NITEMS / 2)), 0);
	CHECK_EQ(pthread_create(&c[1], NULL, consumer, (void *)(intptr_t)(NITEMS / 2)), 0);
	CHECK_EQ(pthread_create(&p, NULL, producer, NULL), 0);
	CHECK_EQ(pthread_join(p, NULL), 0);
	CHECK_EQ(pthread_join(c[0], NULL), 0);
	CHECK_EQ(pthread_join(c[1], NULL), 0);
	CHECK_EQ(consumed_sum, (long)NITEMS * (NITEMS + 1) / 2);
	CHECK_EQ(qcount, 0);

	/* broadcast: every waiter asleep on the condition wakes */
	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, waiter, NULL), 0);
	for (;;) {
		pthread_mutex_lock(&lock);
		int all = waiting == NWORKERS;

		pthread_mutex_unlock(&lock);
		if (all)
			break;
		sched_yield();
	}
	for (int k = 0; k < 5; k++)
		sched_yield(); /* let the last one reach its wait */
	pthread_mutex_lock(&lock);
	CHECK_EQ(woken, 0);
	go_flag = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	CHECK_EQ(woken, NWORKERS);
	return utest_done();
}
