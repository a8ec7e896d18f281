/* mq-common.h: what the POSIX message-queue programs (mqueue.c, mqueue-notify.c) share: this run's
 * queue names, /dev/mqueue mounted if it is not (natively), a queue's line, the
 * /proc/sys/fs/mqueue tunables, and a child's checks. Include after utest.h. */
#ifndef USER_MQ_COMMON_H
#define USER_MQ_COMMON_H

#include <mqueue.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>

#define MQUEUE_MAGIC 0x19800202
#define SI_MESGQ_ (-3)
#define BAD_PTR ((void *)8)
#define OTHER_UID 4242

static int have_sys_resource; /* CAP_SYS_RESOURCE: the hard limits, not the sysctl ones */
static char names[8][64]; /* this run's queue names ("/fl-mq-PID-N") */
static int mounted_here;

static inline const char *qname(int n)
{
	snprintf(names[n], sizeof(names[n]), "/fl-mq-%d-%d", (int)getpid(), n);
	return names[n];
}

static inline mqd_t mk(const char *name, int oflag, long maxmsg, long msgsize)
{
	struct mq_attr a = { .mq_maxmsg = maxmsg, .mq_msgsize = msgsize };

	return mq_open(name, oflag | O_CREAT, 0600, &a);
}

/* /dev/mqueue/NAME, opened. */
static inline int qfile(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/mqueue%s", name);
	return open(path, O_RDONLY);
}

/* The line read from fd, a queue's file, is Linux's with these values. */
static inline void want_line_fd(int fd, unsigned long qsize, int notify, int signo, int pid)
{
	char got[128], want[128];
	long n = pread(fd, got, sizeof(got) - 1, 0);

	snprintf(want, sizeof(want), "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
		 qsize, notify, signo, pid);
	CHECK(n > 0);
	got[n > 0 ? n : 0] = '\0';
	if (!CHECK(!strcmp(got, want)))
		fprintf(stderr, "mqueue:   got \"%s\", want \"%s\"\n", got, want);
}

/* The same through a new descriptor (closed after: in a process registered with mq_notify,
 * that close would end the registration). */
static inline void want_line(const char *name, unsigned long qsize, int notify, int signo, int pid)
{
	int fd = qfile(name);

	CHECK(fd >= 0);
	want_line_fd(fd, qsize, notify, signo, pid);
	close(fd);
}

static inline long sysctl_get(const char *name)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), "/proc/sys/fs/mqueue/%s", name);
	return utest_slurp(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/* Write text to the tunable: 0 or the errno. */
static inline int sysctl_set(const char *name, const char *text)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/sys/fs/mqueue/%s", name);
	return utest_sysctl_write(path, text);
}

/* CLOCK_REALTIME now plus ms milliseconds. */
static inline struct timespec after_ms(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

/* Until pid sleeps (its /proc stat says S), at most a few thousand looks. */
static inline void wait_sleeping(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 20000; i++) {
		if (utest_slurp(path, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
		    p[2] == 'S')
			return;
		sched_yield();
	}
}

/* Run fn in a child: its checks count there; here one check that it had no failure. */
static inline void in_child(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		utest_fails = 0;
		fn(arg);
		_exit(utest_fails ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static inline void setup_fs(void)
{
	struct statfs sfs;
	char status[4096], *cap;

	CHECK(utest_slurp("/proc/self/status", status, sizeof(status)) > 0);
	cap = strstr(status, "CapEff:");
	CHECK(cap != NULL);
	/* (a container's root may lack it) */
	have_sys_resource = cap && (strtoull(cap + 7, NULL, 16) >> 24 & 1);

	if (statfs("/dev/mqueue", &sfs) || sfs.f_type != MQUEUE_MAGIC) {
		mkdir("/dev/mqueue", 01777);
		mounted_here = !mount("mqueue", "/dev/mqueue", "mqueue", 0, NULL);
	}
	CHECK_EQ(statfs("/dev/mqueue", &sfs), 0);
	CHECK_EQ(sfs.f_type, MQUEUE_MAGIC);
}

/* /dev/mqueue unmounted again if setup_fs mounted it. */
static inline void teardown_fs(void)
{
	if (mounted_here)
		CHECK_EQ(umount("/dev/mqueue"), 0);
}

#endif
