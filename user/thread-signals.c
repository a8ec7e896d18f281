/* thread-signals: signals among threads: each thread's own mask, tgkill running the handler
 * on the thread chosen, a fault's SIGSEGV on the thread that faulted, kill(getpid()) taken by
 * a thread that does not block it, a fatal signal and exit_group ending every thread, SIGSTOP
 * stopping every thread (and SIGCONT resuming them), and CLONE_CHILD_CLEARTID's store and
 * futex wake at a thread's exit. Runs natively too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#define UTEST_NAME "thread-signals"
#include "utest.h"

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static volatile pid_t handler_tid;
static volatile int handler_sig;

static void on_signal(int sig)
{
	handler_tid = gettid_();
	handler_sig = sig;
}

static volatile pid_t worker_tid;
static volatile int worker_stop;
static volatile uint64_t worker_blocked;

/* Blocks SIGUSR2 (arg 1) or nothing, then spins until told to stop. */
static void *spinner(void *arg)
{
	sigset_t set, old;

	sigemptyset(&set);
	if (arg)
		sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &old);
	worker_blocked = sigismember(&old, SIGUSR2);
	worker_tid = gettid_();
	while (!worker_stop)
		sched_yield();
	return NULL;
}

/* Sleeps in pause() until told to stop: a signal must wake it to run its handler. */
static void *pauser(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	while (!worker_stop)
		pause();
	return NULL;
}

static void start_pauser(pthread_t *th)
{
	struct timespec ms = { 0, 20 * 1000000 };

	worker_tid = 0;
	worker_stop = 0;
	CHECK_EQ(pthread_create(th, NULL, pauser, NULL), 0);
	while (!worker_tid)
		sched_yield();
	nanosleep(&ms, NULL); /* asleep in pause by now */
}

static void stop_pauser(pthread_t th)
{
	worker_stop = 1;
	pthread_kill(th, SIGUSR1);
	CHECK_EQ(pthread_join(th, NULL), 0);
}

static void start_spinner(pthread_t *th, int block_usr2)
{
	worker_tid = 0;
	worker_stop = 0;
	CHECK_EQ(pthread_create(th, NULL, spinner, (void *)(intptr_t)block_usr2), 0);
	while (!worker_tid)
		sched_yield();
}

static void stop_spinner(pthread_t th)
{
	worker_stop = 1;
	CHECK_EQ(pthread_join(th, NULL), 0);
}

/* Up to two seconds for a handler to have run somewhere. */
static void wait_handler(void)
{
	struct timespec ms = { 0, 1000000 };

	for (int k = 0; k < 2000 && !handler_sig; k++)
		nanosleep(&ms, NULL);
}

static sigjmp_buf fault_jmp;
static volatile int *volatile bad_ptr = (int *)8;
static volatile pid_t fault_tid;

static void on_segv(int sig)
{
	(void)sig;
	fault_tid = gettid_();
	siglongjmp(fault_jmp, 1);
}

static void *faulter(void *arg)
{
	(void)arg;
	if (!sigsetjmp(fault_jmp, 1))
		*bad_ptr = 1;
	return (void *)(intptr_t)gettid_();
}

static void *exit_group_thread(void *arg)
{
	(void)arg;
	exit(7); /* musl's exit is exit_group: the whole process goes */
}

/* A child process whose second thread calls exit (exit_group) while the leader waits. */
static void check_exit_group(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;

		pthread_create(&th, NULL, exit_group_thread, NULL);
		for (;;)
			pause();
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A fatal signal (default action) to the process, or to one non-leader thread, ends every
 * thread: the parent sees the process killed by it. */
static void check_fatal(int to_thread)
{
	int status = -1;
	int pfd[2];
	pid_t pid, tid = 0;

	CHECK_EQ(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		pthread_t th;

		worker_tid = 0;
		worker_stop = 0;
		pthread_create(&th, NULL, sleeper, NULL);
		pthread_create(&th, NULL, spinner, NULL);
		while (!worker_tid)
			sched_yield();
		tid = worker_tid;
		write(pfd[1], &tid, sizeof(tid));
		for (;;)
			pause();
	}
	CHECK_EQ(read(pfd[0], &tid, sizeof(tid)), (long)sizeof(tid));
	if (to_thread)
		CHECK_EQ(syscall(SYS_tgkill, pid, tid, SIGTERM), 0);
	else
		CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	close(pfd[0]);
	close(pfd[1]);
}

static volatile long *progress;

static void *counter_thread(void *arg)
{
	(void)arg;
	for (;;) {
		(*progress)++;
		sched_yield();
	}
	return NULL;
}

/* SIGSTOP stops the whole process: the parent's wait sees it stopped, and its second thread
 * (counting in shared memory) stops counting until SIGCONT. */
static void check_group_stop(void)
{
	struct timespec t = { 0, 50 * 1000000 };
	int status = -1;
	long before;
	pid_t pid;

	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(progress != MAP_FAILED);
	pid = fork();
	if (pid == 0) {
		pthread_t th;

		pthread_create(&th, NULL, counter_thread, NULL);
		for (;;)
			pause();
	}
	while (*progress < 10)
		sched_yield();
	CHECK_EQ(kill(pid, SIGSTOP), 0);
	CHECK_EQ(waitpid(pid, &status, WUNTRACED), pid);
	CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	before = *progress;
	nanosleep(&t, NULL);
	CHECK_EQ(*progress, before); /* the counting thread is stopped too */
	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(waitpid(pid, &status, WCONTINUED), pid);
	CHECK(WIFCONTINUED(status));
	for (int k = 0; k < 2000 && *progress == before; k++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	CHECK(*progress > before);
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	munmap((void *)progress, 4096);
}

/* CLONE_CHILD_CLEARTID: a raw thread on its own stack exits at once; the kernel stores 0 at
 * the word (which CLONE_CHILD_SETTID filled with its tid) and wakes a futex waiter there. */
static void check_cleartid(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	static volatile int ctid = -1;
	unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			      CLONE_SYSVSEM | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
	struct timespec two = { 2, 0 };
	long tid;
	int v, waits = 0;

	register long r10 asm("r10") = (long)&ctid;
	register long r8 asm("r8") = 0;
	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov $60, %%eax\n\t" /* the thread: exit(0) at once */
		     "xor %%edi, %%edi\n\t"
		     "syscall\n"
		     "1:"
		     : "=a"(tid)
		     : "0"((long)SYS_clone), "D"(flags), "S"(stack + sizeof(stack)), "d"(0L),
		       "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
	CHECK(tid > 0);
	while ((v = ctid) != 0 && waits < 5) {
		long r = syscall(SYS_futex, &ctid, 0 /* FUTEX_WAIT */, v, &two, NULL, 0);

		CHECK(r == 0 || errno == EAGAIN);
		waits++;
	}
	CHECK_EQ(ctid, 0);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, segv = { .sa_handler = on_segv };
	sigset_t set, old;
	pthread_t th;
	void *ret;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	/* each thread's mask is its own */
	start_spinner(&th, 1);
	CHECK_EQ(worker_blocked, 1);
	pthread_sigmask(SIG_BLOCK, NULL, &old);
	CHECK(!sigismember(&old, SIGUSR2));

	/* kill(getpid()) is taken by a thread that does not block it: here the main one */
	handler_sig = 0;
	CHECK_EQ(kill(getpid(), SIGUSR2), 0);
	wait_handler();
	CHECK_EQ(handler_sig, SIGUSR2);
	CHECK_EQ(handler_tid, getpid());
	stop_spinner(th);

	/* ...and when the main thread blocks it, by the worker, woken for it */
	start_pauser(&th);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	handler_sig = 0;
	CHECK_EQ(kill(getpid(), SIGUSR2), 0);
	wait_handler();
	CHECK_EQ(handler_sig, SIGUSR2);
	CHECK_EQ(handler_tid, worker_tid);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	/* tgkill and pthread_kill run the handler on the thread chosen */
	handler_sig = 0;
	CHECK_EQ(syscall(SYS_tgkill, getpid(), worker_tid, SIGUSR1), 0);
	wait_handler();
	CHECK_EQ(handler_tid, worker_tid);
	handler_sig = 0;
	CHECK_EQ(pthread_kill(th, SIGUSR1), 0);
	wait_handler();
	CHECK_EQ(handler_tid, worker_tid);
	CHECK_ERR(syscall(SYS_tgkill, getpid() + 100000, worker_tid, 0), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, getpid(), worker_tid, 65), EINVAL);
	CHECK_EQ(syscall(SYS_tkill, worker_tid, 0), 0);
	stop_pauser(th);

	/* a fault's SIGSEGV goes to the thread that faulted */
	sigaction(SIGSEGV, &segv, NULL);
	CHECK_EQ(pthread_create(&th, NULL, faulter, NULL), 0);
	CHECK_EQ(pthread_join(th, &ret), 0);
	CHECK_EQ(fault_tid, (pid_t)(intptr_t)ret);
	CHECK(fault_tid != getpid());

	check_exit_group();
	check_fatal(0);
	check_fatal(1);
	check_cleartid();
	check_group_stop();
	return utest_done();
}
