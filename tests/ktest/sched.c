/* Self-tests of tasks and the scheduler, run inside pid 1: kernel threads take turns, sleep on
 * wait queues and timeouts, exit with a status their parent collects, and free their stacks. */
#include "kernel/errno.h"
#include "kernel/process/pid.h"
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

/* threads-max reached: creation fails cleanly, and the tasks' stacks and pids come back. */
KTEST(threads_max_refuses_cleanly)
{
	struct task_struct *t[8];
	int n = 0, status, saved = max_threads;
	unsigned long before = nr_free_pages();

	flag = 0;
	init_waitqueue_head(&test_wq);
	max_threads = nr_threads + 5;
	while (n < 8 && (t[n] = kernel_thread(sleeper, NULL, "filler")) != NULL)
		n++;
	KT_CHECK(n == 5);
	max_threads = saved;
	flag = 1;
	wake_up(&test_wq);
	for (int i = 0; i < n; i++)
		KT_CHECK(do_wait4(t[i]->pid, &status, 0) > 0);
	t[0] = kernel_thread(quick, NULL, "after");
	KT_CHECK(t[0] != NULL);
	if (t[0])
		do_wait4(t[0]->pid, &status, 0);
	KT_CHECK(nr_free_pages() == before);
}

/* Kernel stacks past the first page table's 64: more tables are made, and freed again. */
KTEST(kernel_stacks_beyond_one_table)
{
	enum { N = 150 };
	static struct task_struct *t[N];
	int n = 0, status;
	unsigned long before = nr_free_pages();

	flag = 0;
	init_waitqueue_head(&test_wq);
	while (n < N && (t[n] = kernel_thread(sleeper, NULL, "filler")) != NULL)
		n++;
	KT_CHECK(n == N);
	KT_CHECK((uint64_t)t[n - 1]->stack - (uint64_t)t[0]->stack >= 2UL << 20);
	flag = 1;
	wake_up(&test_wq);
	for (int i = 0; i < n; i++)
		KT_CHECK(do_wait4(t[i]->pid, &status, 0) > 0);
	KT_CHECK(nr_free_pages() == before);
}

/* pid_max lowered: pids wrap to RESERVED_PIDS, skipping those still in use; raised back, the
 * count goes on from the last one given. */
KTEST(pids_wrap_at_pid_max)
{
	struct task_struct *keep, *t;
	int saved = pid_max, status, prev, top = 0, wrapped = 0, keep_pid;

	flag = 0;
	init_waitqueue_head(&test_wq);
	pid_max = last_pid() + 20 > PID_MAX_MIN ? last_pid() + 20 : PID_MAX_MIN;
	keep = kernel_thread(sleeper, NULL, "keep");
	KT_CHECK(keep != NULL);
	if (!keep) {
		pid_max = saved;
		return;
	}
	keep_pid = prev = keep->pid;
	for (int i = 0; i < 2 * pid_max && !wrapped; i++) {
		t = kernel_thread(quick, NULL, "wrap");
		KT_CHECK(t != NULL);
		if (!t)
			break;
		KT_CHECK(t->pid != keep_pid && t->pid < pid_max);
		wrapped = t->pid <= prev ? t->pid : 0;
		top = MAX(top, prev);
		prev = t->pid;
		do_wait4(t->pid, &status, 0);
	}
	KT_CHECK(top == pid_max - 1); /* every id up to pid_max was given first */
	KT_CHECK(wrapped >= RESERVED_PIDS && wrapped <= top);
	pid_max = saved;
	flag = 1;
	wake_up(&test_wq);
	KT_CHECK(do_wait4(keep_pid, &status, 0) == keep_pid);
}
