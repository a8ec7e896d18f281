/* thread-futex: futex(2) itself: EAGAIN when the word differs, ETIMEDOUT after a timeout (and
 * at once for a zero one), EINTR when a handler interrupts a timed wait, EFAULT, EINVAL
 * (unaligned, bad timeout, empty bitset), ENOSYS (unknown op), how many a wake wakes,
 * FUTEX_PRIVATE_FLAG keys apart from process-shared ones, bitsets, FUTEX_CMP_REQUEUE,
 * FUTEX_WAKE_OP, and a process-shared futex in a shared mapping between two processes.
 * Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#define UTEST_NAME "thread-futex"
#include "utest.h"

/* <linux/futex.h>'s values (musl-gcc has no kernel headers) */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAKE_OP_PRIVATE (FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG)
/* FUTEX_OP(op, oparg, cmp, cmparg) */
#define FOP(op, oparg, cmp, cmparg) \
	((uint32_t)(((op) & 0xf) << 28 | ((cmp) & 0xf) << 24 | ((oparg) & 0xfff) << 12 | \
		    ((cmparg) & 0xfff)))
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

/* Two processes meet on a word of a shared mapping (the child maps it at the same address,
 * but the key is the page, not the address space): the parent's wake ends the child's wait.
 * A private wake does not (private keys are per address space). */
static void check_shared(void)
{
	volatile uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				    -1, 0);
	struct timespec ms = { 0, 1000000 };
	int status = -1;
	long woken = 0;
	pid_t pid;

	CHECK(w != MAP_FAILED);
	w[0] = 0;
	w[1] = 0;
	pid = fork();
	if (pid == 0) {
		w[1] = 1; /* about to wait */
		_exit(futex(w, FUTEX_WAIT, 0, &(struct timespec){ 5, 0 }, NULL, 0) == 0 ? 0 : 1);
	}
	while (!w[1])
		nanosleep(&ms, NULL);
	for (int k = 0; k < 30; k++)
		nanosleep(&ms, NULL); /* asleep in the kernel by now */
	CHECK_EQ(futex(w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	for (int k = 0; k < 2000 && woken == 0; k++) {
		woken = futex(w, FUTEX_WAKE, 1, NULL, NULL, 0);
		if (!woken)
			nanosleep(&ms, NULL);
	}
	CHECK_EQ(woken, 1);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap((void *)w, 4096);
}

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
	/* the woken one may run on another CPU, whose vCPU the host may hold back: up to 2 s */
	for (int k = 0; k < 2000 && !w[0].done && !w[1].done; k++) {
		sched_yield();
		if (k >= 20)
			usleep(1000);
	}
	CHECK_EQ(w[0].done + w[1].done, 1); /* the first waiter was woken */
	CHECK_EQ(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(futex(&word2, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1);
	join_waiter(&w[0], 0);
	join_waiter(&w[1], 0);
	check_shared();

	/* WAKE_OP: the word at uaddr2 changed (SET 7, then ADD 1<<3 by OPARG_SHIFT), a waiter of
	 * uaddr2 woken only when the old value passed the comparison */
	word2 = 5;
	CHECK_EQ(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, FOP(0, 7, 0, 5)), 0);
	CHECK_EQ(word2, 7);
	CHECK_EQ(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, FOP(8 | 1, 3, 1, 7)),
		 0);
	CHECK_EQ(word2, 15);
	CHECK_ERR(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, FOP(6, 0, 0, 0)),
		  ENOSYS);
	word2 = 0;
	start_waiter(&w[0], &word2, FUTEX_WAIT_PRIVATE, 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, FOP(0, 0, 1, 0)), 0);
	CHECK_EQ(w[0].done, 0); /* 0 != 0 is false: not woken */
	CHECK_EQ(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, FOP(0, 0, 0, 0)), 1);
	join_waiter(&w[0], 0);
	return utest_done();
}
