/* thread-clone: clone(2)'s sharing flags and the thread group as its parent sees it: Linux's
 * EINVAL combinations, CLONE_FILES (a close by one is seen by the other), CLONE_FS (chdir and
 * umask), wait4 of a process whose leader exited before its other thread (no status until the
 * last thread is gone, then the last one's), and execve from a thread
 * that is not the leader (the others end, the program keeps the process's pid). Runs natively
 * too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#define UTEST_NAME "thread-clone"
#include "utest.h"

static char stack[65536] __attribute__((aligned(16)));

static long raw_clone(unsigned long flags)
{
	return syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
}

static int closer(void *arg)
{
	syscall(SYS_close, (long)(intptr_t)arg);
	return 0;
}

static int chdirer(void *arg)
{
	(void)arg;
	syscall(SYS_chdir, "/dev");
	syscall(SYS_umask, 077);
	return 0;
}

/* Run fn in a child made by clone(flags | SIGCHLD) on its own stack; wait for it. */
static void run_clone(int (*fn)(void *), unsigned long flags, void *arg)
{
	int status = -1;
	pid_t pid = clone(fn, stack + sizeof(stack), flags | SIGCHLD, arg);

	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void check_files(void)
{
	int fd = open("/", O_RDONLY);

	CHECK(fd >= 0);
	run_clone(closer, CLONE_VM, (void *)(intptr_t)fd); /* a copy of the table: still open */
	CHECK(fcntl(fd, F_GETFD) >= 0);
	run_clone(closer, CLONE_VM | CLONE_FILES, (void *)(intptr_t)fd);
	CHECK_ERR(fcntl(fd, F_GETFD), EBADF);
}

static void check_fs(void)
{
	char cwd[64];
	mode_t old;

	CHECK_EQ(chdir("/"), 0);
	old = umask(022);
	run_clone(chdirer, CLONE_VM, NULL);
	CHECK(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") == 0);
	CHECK_EQ(umask(022), 022);
	run_clone(chdirer, CLONE_VM | CLONE_FS, NULL);
	CHECK(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/dev") == 0);
	CHECK_EQ(umask(old), 077);
	CHECK_EQ(chdir("/"), 0);
}

static int last_exit;

static void *late_exit(void *arg)
{
	struct timespec t = { 0, 200 * 1000000 };

	(void)arg;
	nanosleep(&t, NULL);
	syscall(last_exit < 0 ? SYS_exit_group : SYS_exit, last_exit < 0 ? -last_exit : last_exit);
	return NULL;
}

/* The leader exits (exit, not exit_group) with 3 while a thread goes on: the process is not
 * yet reported; then the last thread's status is, exit(9) or exit_group(5) (today's Linux:
 * the last thread's exit is the group's). */
static void check_wait_group(int thread_exit, int want)
{
	struct timespec t = { 0, 50 * 1000000 };
	int status = -1;
	char path[64], buf[2048];
	pid_t pid;

	last_exit = thread_exit;
	pid = fork();
	if (pid == 0) {
		pthread_t th;

		pthread_create(&th, NULL, late_exit, NULL);
		syscall(SYS_exit, 3);
	}
	nanosleep(&t, NULL);
	CHECK_EQ(waitpid(pid, &status, WNOHANG), 0);
	CHECK_EQ(kill(pid, 0), 0); /* the process lives on in its thread */
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	CHECK(utest_slurp(path, buf, sizeof(buf)) > 0 && strstr(buf, "State:\tZ"));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), want);
}

static char self[256];
static pid_t exec_pid;

static void *execer(void *arg)
{
	char pidbuf[16];

	(void)arg;
	snprintf(pidbuf, sizeof(pidbuf), "%d", exec_pid);
	execl(self, self, "execd", pidbuf, (char *)NULL);
	exit(3); /* every thread goes */
}

static void *idler(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A process of three threads whose second thread execs this program ("execd PID"). */
static void check_exec(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;

		exec_pid = getpid();
		pthread_create(&th, NULL, idler, NULL);
		pthread_create(&th, NULL, execer, NULL);
		for (;;)
			pause();
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 42);
}

/* The exec'd program: the process's pid, its only thread's tid the same, one thread. */
static int execd(const char *want)
{
	char buf[2048];

	if (getpid() != atoi(want) || syscall(SYS_gettid) != getpid())
		return 1;
	if (utest_slurp("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 2;
	if (!strstr(buf, "Threads:\t1\n"))
		return 3;
	return 42;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "execd") == 0)
		return execd(argv[2]);
	utest_sibling(self, sizeof(self), argv[0], "thread-clone");

	/* Linux's own checks */
	CHECK_ERR(raw_clone(CLONE_SIGHAND | SIGCHLD), EINVAL);
	CHECK_ERR(raw_clone(CLONE_THREAD | CLONE_VM | SIGCHLD), EINVAL);
	CHECK_ERR(raw_clone(CLONE_THREAD | CLONE_SIGHAND), EINVAL);
	CHECK_ERR(raw_clone(CLONE_NEWNS | CLONE_FS | SIGCHLD), EINVAL);

	check_exec(); /* first: self may be a relative name, and check_fs moves */
	check_files();
	check_fs();
	check_wait_group(9, 9);
	check_wait_group(-5, 5);
	return utest_done();
}
