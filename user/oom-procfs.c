/* oom-procfs: /proc/PID/oom_score_adj and oom_score as Linux has them: the value and its text,
 * numbers in any base kstrtoint takes, EINVAL outside -1000..1000 or for what is no number,
 * only 12 bytes looked at, EACCES below the lowest value a process without CAP_SYS_RESOURCE
 * may set, the value inherited across fork and each process's own, and oom_score's order
 * (-1000 reads 0, a higher adj a higher score). With CAP_SYS_RESOURCE (root) the unprivileged
 * part runs in a child that opens its file and then becomes nobody; without, as it is. */
#define UTEST_NAME "oom-procfs"
#include "utest.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

static const char *adj_path(pid_t pid)
{
	static char path[64];

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	return path;
}

/* the value in the file of pid, the text checked to be "%d\n"; -9999 if unreadable */
static long get_adj(pid_t pid)
{
	char buf[64], want[32];
	long v;

	if (utest_slurp(adj_path(pid), buf, sizeof(buf)) < 0)
		return -9999;
	v = strtol(buf, NULL, 10);
	snprintf(want, sizeof(want), "%ld\n", v);
	if (!CHECK(strcmp(buf, want) == 0))
		fprintf(stderr, "oom-procfs:   %s reads '%s'\n", adj_path(pid), buf);
	return v;
}

static long get_score(pid_t pid)
{
	char path[64], buf[64], want[32];
	unsigned long v;

	snprintf(path, sizeof(path), "/proc/%d/oom_score", (int)pid);
	if (!CHECK(utest_slurp(path, buf, sizeof(buf)) > 0))
		return -1;
	v = strtoul(buf, NULL, 10);
	snprintf(want, sizeof(want), "%lu\n", v);
	CHECK(strcmp(buf, want) == 0);
	return (long)v;
}

/* write s to fd (one write, as echo does): the count, or -1 with errno */
static long put(int fd, const char *s)
{
	return write(fd, s, strlen(s));
}

static void put_ok(int fd, const char *s, long want_adj)
{
	long n = put(fd, s);

	if (!CHECK(n == (long)strlen(s)))
		fprintf(stderr, "oom-procfs:   write '%s': %ld (%s)\n", s, n, strerror(errno));
	CHECK_EQ(get_adj(getpid()), want_adj);
}

static int wait_ok(pid_t pid)
{
	int st = -1;

	if (!CHECK(waitpid(pid, &st, 0) == pid))
		return 0;
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "oom-procfs:   child %d ended with status %#x\n", (int)pid, st);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A child's checks end it: 0 when all passed. */
static void __attribute__((noreturn)) child_done(void)
{
	fflush(stdout);
	_exit(utest_fails ? 1 : 0);
}

/* What is not a value in range: refused, and nothing changes. */
static void bad_values(int fd)
{
	long v = get_adj(getpid());

	CHECK_ERR(put(fd, "1001"), EINVAL);
	CHECK_ERR(put(fd, "-1001"), EINVAL);
	CHECK_ERR(put(fd, "abc"), EINVAL);
	CHECK_ERR(put(fd, "5x"), EINVAL);
	CHECK_ERR(put(fd, " "), EINVAL);
	CHECK_ERR(put(fd, "--5"), EINVAL);
	CHECK_ERR(put(fd, "+-5"), EINVAL);
	CHECK_ERR(put(fd, "08"), EINVAL);    /* octal: no 8 */
	CHECK_ERR(put(fd, "0x"), EINVAL);
	CHECK_ERR(put(fd, "1 2"), EINVAL);
	CHECK_ERR(put(fd, "99999999999"), ERANGE); /* kstrtoint: no int */
	CHECK_EQ(get_adj(getpid()), v);
}

/* Any process may raise its value and set it back (its own minimum is at most what it has);
 * decimal, hex, octal, with white space; 12 bytes looked at. Ends at 1000. */
static void raise_and_back(void)
{
	int fd = open(adj_path(getpid()), O_WRONLY);
	long v0 = get_adj(getpid());
	char s[64];

	if (!CHECK(fd >= 0))
		child_done();
	bad_values(fd);
	snprintf(s, sizeof(s), "%ld", v0);
	put_ok(fd, s, v0);
	if (v0 <= 990) {
		snprintf(s, sizeof(s), v0 + 5 >= 0 ? " 0x%lx\n" : "%ld\n", v0 + 5);
		put_ok(fd, s, v0 + 5);
		if (v0 + 8 >= 0) {
			snprintf(s, sizeof(s), "0%lo", v0 + 8);
			put_ok(fd, s, v0 + 8);
		}
		snprintf(s, sizeof(s), "\t%ld \n", v0);
		put_ok(fd, s, v0);
	}
	/* "1000" and 20 spaces: the first 12 bytes are taken and counted */
	CHECK_EQ(put(fd, "1000                    "), 12);
	CHECK_EQ(get_adj(getpid()), 1000);
	close(fd);
}

/* Without CAP_SYS_RESOURCE, after a root writer set min: down to min and no further. */
static void unprivileged_floor(int fd, long min)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", min - 1);
	CHECK_ERR(put(fd, s), EACCES);
	CHECK_ERR(put(fd, "-1000"), EACCES);
	CHECK_EQ(get_adj(getpid()), min);
	snprintf(s, sizeof(s), "%ld", min + 100);
	put_ok(fd, s, min + 100);
	snprintf(s, sizeof(s), "%ld", min + 50);
	put_ok(fd, s, min + 50); /* lower, but not below min: allowed */
	snprintf(s, sizeof(s), "%ld", min);
	put_ok(fd, s, min);
	snprintf(s, sizeof(s), "%ld", min - 1);
	CHECK_ERR(put(fd, s), EACCES);
	CHECK_EQ(get_adj(getpid()), min);
	bad_values(fd); /* EINVAL comes before EACCES: -1001 is EINVAL here too */
}

/* Root sets -500 (and with it the minimum), its children inherit both; then as nobody, down
 * to -500 but not below. */
static void root_part(void)
{
	int fd = open(adj_path(getpid()), O_WRONLY);
	pid_t pid;

	if (!CHECK(fd >= 0))
		child_done();
	put_ok(fd, "-500", -500);
	put_ok(fd, "-1000", -1000); /* root may go down to -1000 and up again */
	put_ok(fd, "-500", -500);
	pid = fork();
	if (pid == 0) {
		int cfd = open(adj_path(getpid()), O_WRONLY);

		CHECK_EQ(get_adj(getpid()), -500); /* inherited */
		/* the child's own file, opened as root; then no capabilities at all */
		CHECK(cfd >= 0);
		if (!CHECK(setgid(65534) == 0 && setuid(65534) == 0))
			child_done();
		unprivileged_floor(cfd, -500);
		child_done();
	}
	wait_ok(pid);
	CHECK_EQ(get_adj(getpid()), -500); /* the child's writes were its own */
	close(fd);
}

/* oom_score: -1000 reads 0; +1000 is above what the same process has at its own value. */
static void score_order(int root)
{
	int fd = open(adj_path(getpid()), O_WRONLY);
	long s0 = get_score(getpid()), s1;

	CHECK(s0 >= 0);
	CHECK_EQ(put(fd, "1000"), 4);
	s1 = get_score(getpid());
	if (!CHECK(s1 > s0))
		fprintf(stderr, "oom-procfs:   oom_score %ld at the start, %ld at +1000\n", s0, s1);
	if (root) {
		CHECK_EQ(put(fd, "-1000"), 5);
		CHECK_EQ(get_score(getpid()), 0);
	} else {
		utest_skip("oom_score at -1000", "no CAP_SYS_RESOURCE to set -1000");
	}
	close(fd);
}

/* Does this process have CAP_SYS_RESOURCE (24) in its effective set? (root in a container
 * may not.) */
static int cap_sys_resource(void)
{
	static char buf[4096];
	const char *p;

	if (utest_slurp("/proc/self/status", buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, "\nCapEff:\t")))
		return 0;
	return (strtoull(p + 9, NULL, 16) >> 24) & 1;
}

int main(void)
{
	int root = geteuid() == 0 && cap_sys_resource(), fds[2];
	long v0 = get_adj(getpid()), x;
	char s[32], c;
	pid_t pid, gpid;

	CHECK(v0 >= -1000 && v0 <= 1000);
	CHECK_EQ(get_adj(getpid()), v0); /* read twice: the same */
	fflush(stdout);

	if ((pid = fork()) == 0) {
		raise_and_back();
		child_done();
	}
	wait_ok(pid);
	CHECK_EQ(get_adj(getpid()), v0); /* the child's value was its own */

	/* inheritance: a child at x has children at x; each process's file is its own */
	x = v0 <= 993 ? v0 + 7 : 1000; /* up: allowed to anyone */
	CHECK(pipe(fds) == 0);
	if ((pid = fork()) == 0) {
		int fd = open(adj_path(getpid()), O_WRONLY);

		snprintf(s, sizeof(s), "%ld", x);
		put_ok(fd, s, x);
		close(fd);
		if ((gpid = fork()) == 0) {
			CHECK_EQ(get_adj(getpid()), x);
			CHECK_EQ(get_adj(getppid()), x);
			child_done();
		}
		wait_ok(gpid);
		close(fds[0]);
		CHECK_EQ(write(fds[1], "r", 1), 1); /* ready */
		close(fds[1]);
		pause(); /* until the parent has read our file */
		child_done();
	}
	close(fds[1]);
	CHECK_EQ(read(fds[0], &c, 1), 1);
	close(fds[0]);
	CHECK_EQ(get_adj(pid), x); /* another process's file */
	CHECK_EQ(get_adj(getpid()), v0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	if (root) {
		if ((pid = fork()) == 0) {
			root_part();
			child_done();
		}
		wait_ok(pid);
	} else {
		/* no CAP_SYS_RESOURCE: the minimum is at most v0, and -1000 is below it */
		if ((pid = fork()) == 0) {
			int fd = open(adj_path(getpid()), O_WRONLY);

			if (v0 > -1000)
				CHECK_ERR(put(fd, "-1000"), EACCES);
			CHECK_EQ(get_adj(getpid()), v0);
			child_done();
		}
		wait_ok(pid);
		utest_skip("the floor set by root", "no CAP_SYS_RESOURCE");
	}

	if ((pid = fork()) == 0) {
		score_order(root);
		child_done();
	}
	wait_ok(pid);
	CHECK_EQ(get_adj(getpid()), v0);
	return utest_done();
}
