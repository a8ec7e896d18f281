/* utest.h: tiny check helpers shared by the ring-3 test programs. CHECK() reports a failure on
 * stderr and carries on; utest_done() prints one summary line and gives main's exit status. */
#ifndef UTEST_H
#define UTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef UTEST_NAME
#error "define UTEST_NAME before including utest.h"
#endif

static int utest_checks, utest_fails;

static inline int utest_check(int ok, const char *file, int line, const char *what)
{
	utest_checks++;
	if (!ok) {
		utest_fails++;
		fprintf(stderr, "%s: FAIL %s:%d: %s\n", UTEST_NAME, file, line, what);
	}
	return ok;
}

/* cond must hold */
#define CHECK(cond) utest_check(!!(cond), __FILE__, __LINE__, #cond)

/* a == b, both shown as numbers on failure */
#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (!utest_check(a_ == b_, __FILE__, __LINE__, #a " == " #b))                      \
			fprintf(stderr, "%s:   got %lld (%#llx), want %lld (%#llx)\n", UTEST_NAME, \
				a_, a_, b_, b_);                                                   \
	} while (0)

/* expr (a raw syscall() or a libc call) must give -1 with errno == err */
#define CHECK_ERR(expr, err)                                                                       \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(expr);                                                            \
		int e_ = errno;                                                                    \
		if (!utest_check(r_ == -1 && e_ == (err), __FILE__, __LINE__,                      \
				 #expr " fails with " #err))                                       \
			fprintf(stderr, "%s:   got %ld, errno %d (%s)\n", UTEST_NAME, r_, e_,      \
				strerror(e_));                                                     \
	} while (0)

/* zlib's CRC-32 of n bytes after crc (0 to start), as Python's zlib.crc32 computes it */
static inline unsigned utest_crc32(unsigned crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

/* The whole file path into buf (size bytes, NUL-terminated): its length, or -1. */
static inline long utest_slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n = 0, r;

	if (fd < 0)
		return -1;
	while (n < (long)size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	return n;
}

/* The number after key and sep at the start of a line of the file path, or -1 where the file
 * or the line is missing. Its buffer is static: the read faults its pages in only the first
 * time. */
static inline long utest_proc_field(const char *path, const char *key, char sep)
{
	static char buf[16384];
	size_t len = strlen(key);

	if (utest_slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, len) == 0 && l[len] == sep)
			return atol(l + len + 1);
	return -1;
}

/* A counter of /proc/vmstat (a line "key N"), or -1 where the file or the line is missing
 * (faultline's own fl_ counters natively, say). */
static inline long utest_vmstat(const char *key)
{
	return utest_proc_field("/proc/vmstat", key, ' ');
}

/* /proc/sys/vm/page-cluster as the program found it, written back at exit */
static char utest_page_cluster[16];

static inline void utest_page_cluster_restore(void)
{
	int fd = open("/proc/sys/vm/page-cluster", O_WRONLY);

	if (fd >= 0) { /* at exit: the verdict is given; this only tidies up */
		if (write(fd, utest_page_cluster, strlen(utest_page_cluster)) < 0)
			perror(UTEST_NAME ": page-cluster");
		close(fd);
	}
}

/* No swap readahead until exit (page-cluster 0, the old value put back then): 0 done, 1 no such
 * file (a kernel without swap readahead's tunable), -1 it could not be written (errno). */
static inline int utest_page_cluster_off(void)
{
	int fd;
	long n;

	if (utest_slurp("/proc/sys/vm/page-cluster", utest_page_cluster,
			sizeof(utest_page_cluster)) <= 0)
		return 1;
	fd = open("/proc/sys/vm/page-cluster", O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, "0\n", 2);
	close(fd);
	if (n != 2)
		return -1;
	atexit(utest_page_cluster_restore);
	return 0;
}

/* Copy the file from to a new file to (opened with oflags added: O_TRUNC or O_EXCL) and give
 * it mode: the children of a test exec a copy with the bits the test needs. */
static inline void utest_copy_file(const char *from, const char *to, int oflags, mode_t mode)
{
	static char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | oflags, 0700);
	long n;

	CHECK(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK_EQ(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	CHECK(chmod(to, mode) == 0);
}

/* SIGALRM in ms milliseconds (ITIMER_REAL), to end a call that is to sleep until a signal: the
 * margin covers the few instructions before it sleeps, even on a loaded host. */
static inline void utest_alarm_ms(long ms)
{
	struct itimerval it = { .it_value = { ms / 1000, (ms % 1000) * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static inline int utest_done(void)
{
	if (utest_fails) {
		fprintf(stderr, "%s: %d of %d checks FAILED\n", UTEST_NAME, utest_fails,
			utest_checks);
		return 1;
	}
	printf("%s: ok (%d checks)\n", UTEST_NAME, utest_checks);
	return 0;
}

/* Checks that do not apply where the program runs (a native host without the feature they
 * test): one line in TAP's "# SKIP" form saying why; tests/run-native.sh carries it into the
 * program's result line. Nothing is counted, so a skip never fails a test. */
static inline void utest_skip(const char *what, const char *why)
{
	printf("%s: %s # SKIP %s\n", UTEST_NAME, what, why);
}

/* The number a /proc/sys file holds, or -1. */
static inline long utest_sysctl(const char *path)
{
	char buf[32] = { 0 };
	int fd = open(path, O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? atol(buf) : -1;
}

/* A file holding text, made afresh: 1, or 0 when it could not be */
static inline int utest_make_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, text, strlen(text)) == (long)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Does the file hold exactly text (under 64 bytes)? */
static inline int utest_file_is(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n == (long)strlen(text) && memcmp(buf, text, n) == 0;
}

/* Write text to a /proc/sys file: 0 or the errno. */
static inline int utest_sysctl_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* buf = directory of argv0 + "/" + name: sibling files live next to the program */
static inline void utest_sibling(char *buf, size_t size, const char *argv0, const char *name)
{
	const char *slash = strrchr(argv0, '/');

	if (slash)
		snprintf(buf, size, "%.*s/%s", (int)(slash - argv0), argv0, name);
	else
		snprintf(buf, size, "./%s", name);
}

/* execve the sibling program exec-target with the arguments and environment it checks (it
 * then exits 7); returns -1 only if execve failed. path: a buffer of PATH_MAX bytes. */
static inline int utest_exec_target(char *path, const char *argv0)
{
	char *const targv[] = { "exec-target", "alpha", "beta", NULL };
	char *const tenv[] = { "FAULTLINE_TEST=1", NULL };

	utest_sibling(path, 4096, argv0, "exec-target");
	return execve(path, targv, tenv);
}

/* The target of /proc/self/fd/FD into buf (size bytes, NUL-terminated; "" if none): the path
 * Linux gives an open file ("anon_inode:[eventfd]", "pipe:[INO]"). */
static inline const char *utest_fd_link(int fd, char *buf, size_t size)
{
	char path[64];
	long n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

#endif
