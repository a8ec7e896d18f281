/* Self-tests of tasks and the scheduler, run inside pid 1: kernel threads take turns, sleep on
 * wait queues and timeouts, exit with a status their parent collects, and free their stacks. */
#include "kernel/errno.h"
#include "kernel/sched/sched.h"
#include "kernel/test/ktest.h"
#include "kernel/time/time.h"
#include "mm/gfp.h"

static struct wait_queue_head test_wq;
static volatile int flag, turns[2], order[16], norder;

static int sleeper(void *arg)
{
	int err = wait_event_interruptible(test_wq, flag != 0);

	return err ? 99 : (int)(long)arg + flag;
}

/* A thread that sleeps on a queue until the condition holds, then exits with a status. */
KTEST(waitqueue_sleep_and_wake)
{
	struct task_struct *t;
	int status = -1;

	init_waitqueue_head(&test_wq);
	flag = 0;
	t = kernel_thread(sleeper, (void *)40L, "sleeper");
	KT_CHECK(t != NULL);
	if (!t)
		return;
	schedule(); /* let it run: it must go to sleep, not spin */
	KT_CHECK(t->state == TASK_INTERRUPTIBLE);
	wake_up(&test_wq); /* a wake-up without the condition: it must sleep again */
	schedule();
	KT_CHECK(t->state == TASK_INTERRUPTIBLE);
	flag = 2;
	wake_up(&test_wq);
	KT_CHECK(do_wait4(t->pid, &status, 0) == t->pid);
	KT_CHECK(status == 42 << 8);
	KT_CHECK(do_wait4(-1, &status, WNOHANG) == -ECHILD);
}

static int taker(void *arg)
{
	int me = (int)(long)arg;

	for (int i = 0; i < 4; i++) {
		turns[me]++;
		if (norder < 16)
			order[norder++] = me;
		schedule(); /* still runnable: goes to the back of the queue */
	}
	return 0;
}

/* Two runnable threads alternate on schedule(): round robin, first come first served. */
KTEST(round_robin_order)
{
	int status, reaped = 0;

	norder = turns[0] = turns[1] = 0;
	KT_CHECK(kernel_thread(taker, (void *)0L, "taker0") != NULL);
	KT_CHECK(kernel_thread(taker, (void *)1L, "taker1") != NULL);
	while (do_wait4(-1, &status, 0) > 0)
		reaped++;
	KT_CHECK(reaped == 2);
	KT_CHECK(turns[0] == 4 && turns[1] == 4);
	for (int i = 0; i < norder; i++)
		KT_CHECK(order[i] == i % 2);
}

/* schedule_timeout sleeps at least the ticks asked for, and the CPU idles meanwhile. */
KTEST(schedule_timeout_sleeps)
{
	uint64_t start = jiffies, left;

	current->state = TASK_INTERRUPTIBLE;
	left = schedule_timeout(5);
	KT_CHECK(left == 0);
	KT_CHECK(jiffies - start >= 5);
	KT_CHECK(current->state == TASK_RUNNING);
}

static int quick(void *arg)
{
	return (int)(long)arg;
}

/* Creating and reaping threads gives every frame back: task, kernel stack, nothing left. */
KTEST(thread_lifecycle_frees_everything)
{
	unsigned long before = nr_free_pages();
	int status;

	for (int i = 0; i < 100; i++) {
		struct task_struct *t = kernel_thread(quick, (void *)(long)(i & 0x7f), "quick");

		KT_CHECK(t != NULL);
		if (!t)
			break;
		KT_CHECK(do_wait4(t->pid, &status, 0) == t->pid);
		KT_CHECK(status == (i & 0x7f) << 8);
	}
	KT_CHECK(nr_free_pages() == before);
}

/* More threads than kernel-stack slots: creation fails cleanly, and slots come back. */
KTEST(task_slots_run_out_cleanly)
{
	struct task_struct *t[NR_TASKS + 1];
	int n = 0, status;

	flag = 0;
	init_waitqueue_head(&test_wq);
	while (n <= NR_TASKS && (t[n] = kernel_thread(sleeper, NULL, "filler")) != NULL)
		n++;
	KT_CHECK(n < NR_TASKS); /* idle has no slot; pid 1 and others hold some */
	flag = 1;
	wake_up(&test_wq);
	for (int i = 0; i < n; i++)
		KT_CHECK(do_wait4(t[i]->pid, &status, 0) > 0);
	t[0] = kernel_thread(quick, NULL, "after");
	KT_CHECK(t[0] != NULL);
	if (t[0])
		do_wait4(t[0]->pid, &status, 0);
}
