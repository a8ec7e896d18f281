/* robust-futex: set_robust_list / get_robust_list and their errors, and what they are for: a
 * robust mutex whose owner dies (killed, _exit, a thread's bare exit, an execve) is marked
 * FUTEX_OWNER_DIED by the kernel, and the next pthread_mutex_lock returns EOWNERDEAD, a
 * sleeping waiter included. Each check also holds natively. */
#define _GNU_SOURCE
#define UTEST_NAME "robust-futex"
#include "utest.h"
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct robust_head { /* the kernel's struct robust_list_head */
	void *next;
	long futex_offset;
	void *list_op_pending;
};

static pthread_mutex_t *shared_mutex(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);

	CHECK(m != MAP_FAILED);
	pthread_mutexattr_init(&a);
	CHECK_EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	CHECK_EQ(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	CHECK_EQ(pthread_mutex_init(m, &a), 0);
	pthread_mutexattr_destroy(&a);
	return m;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The lock after its owner is gone: EOWNERDEAD, made consistent, then an ordinary mutex. */
static void check_owner_died(pthread_mutex_t *m, const char *how)
{
	int r = pthread_mutex_lock(m);

	if (r != EOWNERDEAD)
		printf("robust-futex: after %s: lock returned %d\n", how, r);
	CHECK_EQ(r, EOWNERDEAD);
	CHECK_EQ(pthread_mutex_consistent(m), 0);
	CHECK_EQ(pthread_mutex_unlock(m), 0);
	CHECK_EQ(pthread_mutex_lock(m), 0);
	CHECK_EQ(pthread_mutex_unlock(m), 0);
}

static void calls(void)
{
	struct robust_head head = { &head, 0, NULL }, *got = NULL;
	size_t len = 0;

	CHECK_ERR(syscall(SYS_set_robust_list, &head, sizeof(head) - 1), EINVAL);
	CHECK_ERR(syscall(SYS_set_robust_list, &head, sizeof(head) + 8), EINVAL);
	CHECK_EQ(syscall(SYS_set_robust_list, &head, sizeof(head)), 0);
	CHECK_EQ(syscall(SYS_get_robust_list, 0, &got, &len), 0);
	CHECK(got == &head);
	CHECK_EQ(len, sizeof(head));
	got = NULL;
	CHECK_EQ(syscall(SYS_get_robust_list, getpid(), &got, &len), 0);
	CHECK(got == &head);
	CHECK_ERR(syscall(SYS_get_robust_list, 0x3ffffff0, &got, &len), ESRCH);
	CHECK_ERR(syscall(SYS_get_robust_list, 0, (void *)8, &len), EFAULT);
	CHECK_ERR(syscall(SYS_get_robust_list, 0, &got, (void *)8), EFAULT);
	/* a head the kernel cannot read is not an error until the thread dies: then ignored */
	CHECK_EQ(syscall(SYS_set_robust_list, (void *)8, sizeof(head)), 0);
	CHECK_EQ(syscall(SYS_set_robust_list, NULL, sizeof(head)), 0);
}

/* A child locks and dies without unlocking: killed, or by _exit. */
static void process_dies(pthread_mutex_t *m, int killed)
{
	int st = -1;
	pid_t p = fork();

	if (p == 0) {
		if (pthread_mutex_lock(m))
			_exit(2);
		if (killed)
			raise(SIGKILL);
		_exit(0);
	}
	CHECK(p > 0);
	CHECK_EQ(waitpid(p, &st, 0), p);
	CHECK(killed ? WIFSIGNALED(st) : WIFEXITED(st) && WEXITSTATUS(st) == 0);
	check_owner_died(m, killed ? "SIGKILL" : "_exit");
}

/* A waiter asleep in pthread_mutex_lock is woken by the owner's death. */
static void waiter_woken(pthread_mutex_t *m)
{
	int fds[2], st = -1;
	char c;
	pid_t p;

	CHECK_EQ(pipe(fds), 0);
	p = fork();
	if (p == 0) {
		if (pthread_mutex_lock(m))
			_exit(2);
		if (write(fds[1], "x", 1) != 1)
			_exit(3);
		sleep_ms(300); /* the parent is asleep on the lock by now */
		_exit(0);
	}
	CHECK(p > 0);
	CHECK_EQ(read(fds[0], &c, 1), 1L);
	alarm(10); /* a lost wake would hang here: SIGALRM ends the test instead */
	check_owner_died(m, "death with a waiter");
	alarm(0);
	CHECK_EQ(waitpid(p, &st, 0), p);
	close(fds[0]);
	close(fds[1]);
}

/* execve lets go of the old program's locks too (today's Linux). */
static void exec_releases(pthread_mutex_t *m, const char *argv0)
{
	static char path[4096];
	int st = -1;
	pid_t p;

	p = fork();
	if (p == 0) {
		if (pthread_mutex_lock(m))
			_exit(2);
		utest_exec_target(path, argv0);
		_exit(127);
	}
	CHECK(p > 0);
	CHECK_EQ(waitpid(p, &st, 0), p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	check_owner_died(m, "execve");
}

static pthread_mutex_t thread_mutex;
static volatile int thread_locked;

/* A thread that ends with the bare exit system call, past the C library's own clean-up (and
 * so past its join: the thread is waited for through the lock alone). */
static void *lock_and_vanish(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&thread_mutex) == 0) {
		thread_locked = 1;
		syscall(SYS_exit, 0);
	}
	return NULL;
}

static void thread_dies(void)
{
	pthread_mutexattr_t a;
	pthread_t t;
	int r = EBUSY;

	pthread_mutexattr_init(&a);
	CHECK_EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	/* process-shared: musl hands only those to the kernel's list (private ones it releases
	 * itself in pthread_exit, which this thread skips) */
	CHECK_EQ(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	CHECK_EQ(pthread_mutex_init(&thread_mutex, &a), 0);
	CHECK_EQ(pthread_create(&t, NULL, lock_and_vanish, NULL), 0);
	for (int i = 0; i < 500 && !thread_locked; i++)
		sleep_ms(10);
	CHECK(thread_locked);
	for (int i = 0; i < 500 && (r = pthread_mutex_trylock(&thread_mutex)) == EBUSY; i++)
		sleep_ms(10);
	CHECK_EQ(r, EOWNERDEAD);
	CHECK_EQ(pthread_mutex_consistent(&thread_mutex), 0);
	CHECK_EQ(pthread_mutex_unlock(&thread_mutex), 0);
}

int main(int argc, char **argv)
{
	pthread_mutex_t *m;

	(void)argc;
	calls();
	m = shared_mutex();
	process_dies(m, 1);
	process_dies(m, 0);
	waiter_woken(m);
	exec_releases(m, argv[0]);
	thread_dies();
	return utest_done();
}
