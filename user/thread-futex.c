/* thread-futex: futex(2) itself: EAGAIN when the word differs, ETIMEDOUT after a timeout (and
 * at once for a zero one), EINTR when a handler interrupts a timed wait, EFAULT, EINVAL
 * (unaligned, bad timeout, empty bitset), ENOSYS (unknown op), how many a wake wakes,
 * FUTEX_PRIVATE_FLAG keys apart from process-shared ones, bitsets, FUTEX_CMP_REQUEUE.
 * Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#define UTEST_NAME "thread-futex"
#include "utest.h"

/* <linux/futex.h>'s values (musl-gcc has no kernel headers) */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_WAIT_PRIVATE (FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE (FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE (FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE (FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_BITSET_PRIVATE (FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG)

static long futex(volatile uint32_t *uaddr, int op, uint32_t val, const void *ts_or_val2,
		  volatile uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts_or_val2, uaddr2, val3);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A waiter thread: sleeps on word with op and bitset; records what the wait returned. */
struct waiter {
	pthread_t th;
	volatile uint32_t *word;
	int op;
	uint32_t bitset;
	volatile int started, done;
	long ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->started = 1;
	w->ret = futex(w->word, w->op, 0, NULL, NULL, w->bitset);
	w->done = 1;
	return NULL;
}

static void start_waiter(struct waiter *w, volatile uint32_t *word, int op, uint32_t bitset)
{
	struct timespec pause = { 0, 30 * 1000000 };

	*w = (struct waiter){ .word = word, .op = op, .bitset = bitset };
	CHECK_EQ(pthread_create(&w->th, NULL, wait_thread, w), 0);
	while (!w->started)
		sched_yield();
	nanosleep(&pause, NULL); /* long enough for it to be asleep in the kernel */
}

static void join_waiter(struct waiter *w, long want)
{
	CHECK_EQ(pthread_join(w->th, NULL), 0);
	CHECK_EQ(w->ret, want);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static volatile uint32_t word, word2;

int main(void)
{
	struct timespec t50 = { 0, 50 * 1000000 }, zero = { 0, 0 }, bad = { 0, 1000000000 };
	struct waiter w[3];
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 30000 } };
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long t0;

	/* the value check, the timeouts */
	word = 1;
	CHECK_ERR(futex(&word, FUTEX_WAIT, 0, NULL, NULL, 0), EAGAIN);
	CHECK_ERR(futex(&word, FUTEX_WAIT_PRIVATE, 0, &t50, NULL, 0), EAGAIN);
	t0 = now_ms();
	CHECK_ERR(futex(&word, FUTEX_WAIT_PRIVATE, 1, &t50, NULL, 0), ETIMEDOUT);
	CHECK(now_ms() - t0 >= 45);
	CHECK_ERR(futex(&word, FUTEX_WAIT, 1, &zero, NULL, 0), ETIMEDOUT);
	CHECK_ERR(futex(&word, FUTEX_WAIT, 1, &bad, NULL, 0), EINVAL);

	/* a handler without SA_RESTART interrupts a timed wait */
	CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
	CHECK_ERR(futex(&word, FUTEX_WAIT_PRIVATE, 1, &(struct timespec){ 5, 0 }, NULL, 0), EINTR);

	/* bad addresses and operations */
	CHECK_EQ(munmap(page, 4096), 0);
	CHECK_ERR(futex((uint32_t *)page, FUTEX_WAIT, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERR(futex((uint32_t *)page, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
	CHECK_EQ(futex((uint32_t *)page, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	CHECK_ERR(futex((uint32_t *)((char *)&word + 1), FUTEX_WAIT, 0, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex((uint32_t *)((char *)&word + 2), FUTEX_WAKE, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAIT_BITSET, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, 99, 0, NULL, NULL, 0), ENOSYS);
	CHECK_ERR(futex(&word, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), ENOSYS);
	CHECK_EQ(futex(&word, FUTEX_WAKE, 5, NULL, NULL, 0), 0); /* nobody waits */

	/* how many a wake wakes: two of three, then the last */
	word = 0;
	for (int i = 0; i < 3; i++)
		start_waiter(&w[i], &word, FUTEX_WAIT, 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE, 2, NULL, NULL, 0), 2);
	CHECK_EQ(futex(&word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0), 1);
	for (int i = 0; i < 3; i++)
		join_waiter(&w[i], 0);

	/* a private waiter is not found by a process-shared wake, only by a private one */
	start_waiter(&w[0], &word, FUTEX_WAIT_PRIVATE, 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(w[0].done, 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1);
	join_waiter(&w[0], 0);

	/* bitsets: a wake whose bits miss the waiter's leaves it asleep */
	start_waiter(&w[0], &word, FUTEX_WAIT_BITSET_PRIVATE, 0x1);
	CHECK_EQ(futex(&word, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0x2), 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0x3), 1);
	join_waiter(&w[0], 0);

	/* CMP_REQUEUE: one woken, one moved to word2, where a wake finds it */
	start_waiter(&w[0], &word, FUTEX_WAIT_PRIVATE, 0);
	start_waiter(&w[1], &word, FUTEX_WAIT_PRIVATE, 0);
	CHECK_ERR(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &word2, 7), EAGAIN);
	CHECK_ERR(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)-1, &word2, 0), EINVAL);
	CHECK_EQ(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &word2, 0), 2);
	for (int k = 0; k < 20 && !w[0].done && !w[1].done; k++)
		sched_yield();
	CHECK_EQ(w[0].done + w[1].done, 1); /* the first waiter was woken */
	CHECK_EQ(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(futex(&word2, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1);
	join_waiter(&w[0], 0);
	join_waiter(&w[1], 0);
	return utest_done();
}
