/* proc-task: /proc/PID/task lists a process's threads, one directory per thread id with the
 * thread's own stat and status (Pid the tid, Tgid the process) and the process's maps; a
 * thread that has exited is gone from it; a name that is not one of its threads is ENOENT.
 * Each check also holds natively. */
#define _GNU_SOURCE
#define UTEST_NAME "proc-task"
#include "utest.h"
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS 2

static pid_t tids[NTHREADS];
static pthread_barrier_t started, stop;

static void *thread_main(void *arg)
{
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&stop);
	return NULL;
}

/* The tids listed in dir (sorted into out), how many; "." and ".." must be there too. */
static int list_tids(const char *dir, pid_t *out, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0, dots = 0;

	CHECK(d != NULL);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
			dots++;
			continue;
		}
		CHECK_EQ(e->d_type, DT_DIR);
		if (n < max)
			out[n++] = atoi(e->d_name);
	}
	closedir(d);
	CHECK_EQ(dots, 2);
	for (int i = 0; i < n; i++) /* sort: readdir's order is the kernel's */
		for (int j = i + 1; j < n; j++)
			if (out[j] < out[i]) {
				pid_t t = out[i];

				out[i] = out[j];
				out[j] = t;
			}
	return n;
}

static long read_file(const char *path, char *buf, size_t size)
{
	return utest_slurp(path, buf, size);
}

/* The status field name (e.g. "Tgid:") as a number, -1 if absent. */
static long status_field(const char *status, const char *name)
{
	const char *p = strstr(status, name);

	return p ? atol(p + strlen(name)) : -1;
}

static void check_thread_dir(pid_t pid, pid_t tid)
{
	char path[64], buf[8192], maps[8192];
	long n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	n = read_file(path, buf, sizeof(buf));
	CHECK(n > 0);
	CHECK_EQ(atol(buf), (long)tid);
	CHECK(strstr(buf, "(proc-task)") != NULL);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	CHECK(read_file(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(status_field(buf, "\nPid:"), (long)tid);
	CHECK_EQ(status_field(buf, "\nTgid:"), (long)pid);
	/* one address space: a thread's maps are the process's */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, tid);
	n = read_file(path, buf, sizeof(buf));
	CHECK(n > 0 && read_file("/proc/self/maps", maps, sizeof(maps)) == n);
	CHECK(memcmp(buf, maps, (size_t)(n > 0 ? n : 0)) == 0);
	/* /proc/TID: not listed in /proc, but there for a lookup */
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	CHECK(read_file(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(status_field(buf, "\nTgid:"), (long)pid);
}

int main(void)
{
	pid_t pid = getpid(), got[8], want[NTHREADS + 1], child;
	pthread_t th[NTHREADS];
	char path[64];
	struct stat st;
	int n, s = -1;

	pthread_barrier_init(&started, NULL, NTHREADS + 1);
	pthread_barrier_init(&stop, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, thread_main, (void *)i), 0);
	pthread_barrier_wait(&started);

	want[0] = pid;
	for (int i = 0; i < NTHREADS; i++)
		want[i + 1] = tids[i];
	n = list_tids("/proc/self/task", got, 8);
	CHECK_EQ(n, NTHREADS + 1);
	for (int i = 0; i < n && i < NTHREADS + 1; i++) /* pid < both tids: made after it */
		CHECK_EQ(got[i], want[i]);
	for (int i = 0; i < NTHREADS + 1; i++)
		check_thread_dir(pid, want[i]);

	/* not threads of this process: the parent, a pid nobody has, a name no pid spells */
	snprintf(path, sizeof(path), "/proc/self/task/%d", getppid());
	CHECK_ERR(stat(path, &st), ENOENT);
	CHECK_ERR(stat("/proc/self/task/1073741823", &st), ENOENT);
	CHECK_ERR(stat("/proc/self/task/abc", &st), ENOENT);
	CHECK_ERR(stat("/proc/self/task/0", &st), ENOENT);

	pthread_barrier_wait(&stop);
	for (int i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	/* the threads are gone: only the process itself is left */
	n = list_tids("/proc/self/task", got, 8);
	CHECK_EQ(n, 1);
	CHECK_EQ(got[0], pid);
	snprintf(path, sizeof(path), "/proc/self/task/%d", tids[0]);
	CHECK_ERR(stat(path, &st), ENOENT);

	/* another process: one thread, its own */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", child);
	n = list_tids(path, got, 8);
	CHECK_EQ(n, 1);
	CHECK_EQ(got[0], child);
	kill(child, SIGKILL);
	CHECK_EQ(waitpid(child, &s, 0), child);
	return utest_done();
}
