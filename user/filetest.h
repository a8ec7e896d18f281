/* filetest.h: helpers shared by the file tests (file-*.c): scratch files under /tmp, forked
 * probes of one memory access, and wait-status checks. Include after utest.h and vmstat.h.
 *
 * Scratch files are /tmp/fltest-NAME-PID. Under faultline /tmp may not exist in the ramdisk:
 * tmp_setup() makes it and tmp_cleanup() removes it again if this program made it (so a
 * program gives back the frames it took, inode and all); on Linux /tmp always exists. */
#ifndef FILETEST_H
#define FILETEST_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int tmp_made; /* 1 if tmp_setup() created /tmp */

static inline int tmp_setup(void)
{
	if (mkdir("/tmp", 0777) == 0) {
		tmp_made = 1;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	fprintf(stderr, "%s: mkdir /tmp: %s\n", UTEST_NAME, strerror(errno));
	return -1;
}

static inline void tmp_cleanup(void)
{
	if (tmp_made)
		rmdir("/tmp"); /* ENOTEMPTY if someone else put files there: then it stays */
	tmp_made = 0;
}

/* buf = "/tmp/fltest-<what>-<pid>" */
static inline void tmp_path(char *buf, size_t size, const char *what)
{
	snprintf(buf, size, "/tmp/fltest-%s-%d", what, (int)getpid());
}

/* the byte the pattern puts at file offset off (seed tells files apart); never 0, so a page
 * of zeroes is never mistaken for data */
static inline unsigned char pat(unsigned long off, unsigned seed)
{
	unsigned long x = off * 2654435761UL + seed * 40503UL + (off >> 12) * 97UL;

	return (unsigned char)((x >> 8) % 255 + 1);
}

static inline void pat_fill(unsigned char *buf, unsigned long off, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = pat(off + i, seed);
}

/* offset of the first byte of buf[0..n) that differs from the pattern at off, or -1 */
static inline long pat_diff(const volatile unsigned char *buf, unsigned long off, size_t n,
			    unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != pat(off + i, seed))
			return (long)i;
	return -1;
}

/* index of the first non-zero byte of buf[0..n), or -1 */
static inline long first_nonzero(const volatile unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i])
			return (long)i;
	return -1;
}

/* the access probe's child makes when set (a program's narrated one), else the plain one */
static void (*probe_access)(volatile unsigned char *p, int write);

/* fork a child that reads (write: writes) the byte at p, then exits 0; gives its wait status
 * (-1 if fork or wait failed). A SIGBUS or SIGSEGV kills the child, not us. */
static inline int probe(volatile unsigned char *p, int write)
{
	int st = -1;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		if (probe_access)
			probe_access(p, write);
		else if (write)
			*p = 0x5a;
		else
			(void)*p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static inline int killed_by(int st, int sig)
{
	return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == sig;
}

static inline int exited_ok(int st)
{
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* "exit N" / "killed by signal N" for messages; a static buffer */
static inline const char *status_str(int st)
{
	static char buf[48];

	if (st == -1)
		snprintf(buf, sizeof(buf), "no status (fork/wait failed)");
	else if (WIFEXITED(st))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, sizeof(buf), "status %#x", st);
	return buf;
}

/* the access at p kills a child with signal sig (0: the child survives) */
#define CHECK_PROBE(p, write, sig)                                                                 \
	do {                                                                                       \
		int st_ = probe((volatile unsigned char *)(p), (write));                           \
		if (!CHECK((sig) ? killed_by(st_, (sig)) : exited_ok(st_)))                        \
			fprintf(stderr, "%s:   a child's %s at %p: %s, want %s\n",               \
				UTEST_NAME, (write) ? "write" : "read", (void *)(p),               \
				status_str(st_), (sig) ? #sig : "exit 0");                         \
	} while (0)

/* write all of buf at offset off with pwrite; 0 or -1 */
static inline int pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
	const unsigned char *b = buf;

	while (n) {
		ssize_t r = pwrite(fd, b, n, off);

		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

static inline int pread_all(int fd, void *buf, size_t n, off_t off)
{
	unsigned char *b = buf;

	while (n) {
		ssize_t r = pread(fd, b, n, off);

		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

#endif
