/* rlimit: getrlimit, setrlimit and prlimit64 as Linux answers them (every error), limits
 * inherited by fork and kept by execve, and the limits enforced: RLIMIT_NOFILE (EMFILE, EBADF,
 * EINVAL), RLIMIT_MEMLOCK as nobody (ENOMEM, EAGAIN, EPERM), RLIMIT_AS and RLIMIT_DATA
 * (ENOMEM), RLIMIT_SIGPENDING (EAGAIN) and RLIMIT_FSIZE (EFBIG, SIGXFSZ). Must start as
 * root; each case runs in a child. */
#define _GNU_SOURCE
#define UTEST_NAME "rlimit"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define NOBODY 65534
#define BAD ((void *)8) /* an unmapped user address */
#define PG 4096L
#define MIB (1L << 20)
#define INF (~0UL)

struct rl {
	unsigned long cur, max;
};

static long get(int res, struct rl *r)
{
	return syscall(SYS_getrlimit, res, r);
}

static long set(int res, unsigned long cur, unsigned long max)
{
	struct rl r = { cur, max };

	return syscall(SYS_setrlimit, res, &r);
}

static long prl(long pid, long res, const void *new, void *old)
{
	return syscall(SYS_prlimit64, pid, res, new, old);
}

/* Run fn in a child (as nobody when drop is set); its failures come back as its exit code. */
static void in_child(void (*fn)(void), int drop)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		utest_fails = 0;
		if (drop && syscall(SYS_setresuid, NOBODY, NOBODY, NOBODY))
			_exit(100);
		fn();
		_exit(utest_fails ? 1 : 0);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_EQ(st, 0);
}

/* The three calls' errors, in Linux's order. */
static void errors(void)
{
	struct rl r, big = { 2, 1 }, inf = { 8, INF };

	for (int i = 0; i < 16; i++) {
		CHECK(get(i, &r) == 0);
		CHECK(r.cur <= r.max);
	}
	CHECK_ERR(get(16, &r), EINVAL);
	CHECK_ERR(get(16, BAD), EINVAL); /* the resource is checked first */
	CHECK_ERR(get(RLIMIT_NOFILE, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_setrlimit, RLIMIT_NOFILE, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_setrlimit, 16, BAD), EFAULT); /* the copy comes first */
	CHECK_ERR(syscall(SYS_setrlimit, 16, &big), EINVAL);
	CHECK_ERR(syscall(SYS_setrlimit, RLIMIT_CORE, &big), EINVAL); /* cur > max */
	CHECK_ERR(syscall(SYS_setrlimit, RLIMIT_NOFILE, &inf), EPERM); /* above nr_open */
	CHECK_ERR(prl(0, 16, NULL, &r), EINVAL);
	CHECK_ERR(prl(0, RLIMIT_CORE, &big, NULL), EINVAL);
	CHECK_ERR(prl(0, RLIMIT_NOFILE, &inf, NULL), EPERM);
	CHECK_ERR(prl(0, RLIMIT_NOFILE, BAD, NULL), EFAULT);
	CHECK_ERR(prl(0, RLIMIT_NOFILE, NULL, BAD), EFAULT);
	CHECK_ERR(prl(0x3ffffff0, RLIMIT_NOFILE, NULL, &r), ESRCH);
	CHECK_ERR(prl(-5, RLIMIT_NOFILE, NULL, &r), ESRCH);
	CHECK(prl(getpid(), RLIMIT_NOFILE, NULL, &r) == 0);
	/* prlimit64 reads and writes at once, returning the old value */
	CHECK(get(RLIMIT_CORE, &r) == 0);
	struct rl n = { 0, r.max }, o;
	CHECK(prl(0, RLIMIT_CORE, &n, &o) == 0);
	CHECK_EQ(o.cur, r.cur);
	CHECK(get(RLIMIT_CORE, &o) == 0 && o.cur == 0 && o.max == r.max);
	/* the same ids: another process's limits are open to it (raising a hard limit needs
	 * CAP_SYS_RESOURCE, which a container's root may lack: not tested) */
	CHECK(prl(getppid(), RLIMIT_NOFILE, NULL, &o) == 0);
}

/* As nobody: no hard limit is raised, no other user's process is touched. */
static void errors_nobody(void)
{
	struct rl r;

	CHECK(get(RLIMIT_NOFILE, &r) == 0);
	CHECK(set(RLIMIT_NOFILE, 8, 16) == 0);
	CHECK(set(RLIMIT_NOFILE, 16, 16) == 0); /* the soft one up to the hard one */
	CHECK_ERR(set(RLIMIT_NOFILE, 8, 17), EPERM);
	CHECK_ERR(set(RLIMIT_NOFILE, 8, r.max), EPERM);
	CHECK_ERR(prl(getppid(), RLIMIT_NOFILE, NULL, &r), EPERM); /* root's */
	CHECK_ERR(prl(getppid(), 16, NULL, &r), EPERM);		  /* before the resource */
	CHECK(prl(getpid(), RLIMIT_NOFILE, NULL, &r) == 0 && r.max == 16);
}

static void inherited(void)
{
	struct rl r;
	int st = -1;
	pid_t pid;

	CHECK(set(RLIMIT_NOFILE, 20, 30) == 0);
	CHECK(set(RLIMIT_CORE, 4096, 8192) == 0);
	pid = fork();
	if (pid == 0)
		_exit(get(RLIMIT_NOFILE, &r) || r.cur != 20 || r.max != 30);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_EQ(st, 0);
}

static char self[256];

static void exec_kept(void)
{
	int st = -1;
	pid_t pid;

	CHECK(set(RLIMIT_NOFILE, 20, 30) == 0);
	CHECK(set(RLIMIT_CORE, 4096, 8192) == 0);
	pid = fork();
	if (pid == 0) {
		execl(self, "rlimit", "exec-check", (char *)NULL);
		_exit(99);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_EQ(st, 0);
}

/* EMFILE for a new descriptor at RLIMIT_NOFILE; EBADF and EINVAL for a target past it. */
static void nofile(void)
{
	int fd, last = -1, p[2];

	CHECK(set(RLIMIT_NOFILE, 10, 30) == 0);
	for (int i = 0; i < 64 && (fd = open("/dev/null", O_RDONLY)) >= 0; i++)
		last = fd;
	CHECK_EQ(last, 9);
	CHECK_ERR(open("/dev/null", O_RDONLY), EMFILE);
	CHECK_ERR(dup(0), EMFILE);
	CHECK_ERR(pipe(p), EMFILE);
	CHECK_ERR(fcntl(0, F_DUPFD, 0), EMFILE);
	CHECK_ERR(fcntl(0, F_DUPFD, 10), EINVAL);
	CHECK_ERR(dup2(0, 10), EBADF);
	CHECK_ERR(dup3(0, 12, 0), EBADF);
	CHECK(close(9) == 0);
	CHECK_EQ(dup(0), 9);
	/* descriptors past a lowered limit stay usable */
	CHECK(set(RLIMIT_NOFILE, 5, 30) == 0);
	CHECK(fcntl(9, F_GETFD) == 0);
	CHECK_ERR(dup2(0, 9), EBADF);
	CHECK_ERR(dup(0), EMFILE);
}

/* RLIMIT_MEMLOCK binds nobody (no CAP_IPC_LOCK). */
static void memlock_nobody(void)
{
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	CHECK(p != MAP_FAILED);
	CHECK(set(RLIMIT_MEMLOCK, 2 * PG, 2 * PG) == 0);
	CHECK(mlock(p, 2 * PG) == 0);
	CHECK(mlock(p, 2 * PG) == 0); /* already locked: not counted twice */
	CHECK_ERR(mlock(p, 4 * PG), ENOMEM);
	CHECK_ERR(mlock(p + 2 * PG, PG), ENOMEM);
	CHECK(munlock(p, 4 * PG) == 0);
	CHECK_ERR(syscall(SYS_mlock2, p, 3 * PG, 0), ENOMEM);
	CHECK(syscall(SYS_mlock2, p, 2 * PG, MLOCK_ONFAULT) == 0);
	CHECK(munlock(p, 4 * PG) == 0);
	CHECK_ERR(mlockall(MCL_CURRENT), ENOMEM);
	CHECK_ERR(mmap(NULL, 3 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0),
		  EAGAIN);
	q = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	CHECK(q != MAP_FAILED);
	CHECK_ERR(mremap(q, 2 * PG, 3 * PG, MREMAP_MAYMOVE), EAGAIN);
	CHECK(mremap(q, 2 * PG, PG, 0) == q); /* shrinking always works */
	CHECK(munmap(q, PG) == 0);
	/* a zero limit refuses every lock outright */
	CHECK(set(RLIMIT_MEMLOCK, 0, 0) == 0);
	CHECK_ERR(mlock(p, PG), EPERM);
	CHECK_ERR(mlockall(MCL_CURRENT), EPERM);
	/* (raw: musl's mmap turns an anonymous mapping's EPERM into ENOMEM) */
	CHECK_ERR(syscall(SYS_mmap, NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED,
			  -1, 0),
		  EPERM);
	CHECK(munlock(p, PG) == 0);
}

/* Root's CAP_IPC_LOCK waives RLIMIT_MEMLOCK. */
static void memlock_root(void)
{
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(set(RLIMIT_MEMLOCK, 0, 0) == 0);
	CHECK(mlock(p, 4 * PG) == 0);
	CHECK(munlock(p, 4 * PG) == 0);
}

/* RLIMIT_AS bounds the address space; RLIMIT_DATA private writable memory and the heap. */
static void as_data(void)
{
	char *p, *q;
	long brk0;

	CHECK(set(RLIMIT_AS, 64 * MIB, INF) == 0);
	CHECK_ERR(mmap(NULL, 128 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), ENOMEM);
	p = mmap(NULL, MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK_ERR(mremap(p, MIB, 128 * MIB, MREMAP_MAYMOVE), ENOMEM);
	/* MAP_FIXED over what is mapped counts only what is new */
	CHECK(mmap(p, MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
	CHECK(munmap(p, MIB) == 0);
	CHECK(set(RLIMIT_AS, INF, INF) == 0);

	CHECK(set(RLIMIT_DATA, 2 * MIB, INF) == 0);
	CHECK_ERR(mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  ENOMEM);
	p = mmap(NULL, 4 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	q = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(q != MAP_FAILED);
	brk0 = syscall(SYS_brk, 0);
	CHECK_EQ(syscall(SYS_brk, brk0 + 4 * MIB), brk0); /* refused: the old end back */
}

/* RLIMIT_SIGPENDING: sigqueue's EAGAIN once that many real-time signals wait (as nobody, so
 * no other process of the same user shares the count on Linux). */
static void sig_pending(void)
{
	sigset_t s;
	union sigval v = { .sival_int = 1 };

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN);
	CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
	CHECK(set(RLIMIT_SIGPENDING, 3, 4) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(sigqueue(getpid(), SIGRTMIN, v) == 0);
	CHECK_ERR(sigqueue(getpid(), SIGRTMIN, v), EAGAIN);
	CHECK(set(RLIMIT_SIGPENDING, 4, 4) == 0);
	CHECK(sigqueue(getpid(), SIGRTMIN, v) == 0);
	CHECK_ERR(sigqueue(getpid(), SIGRTMIN, v), EAGAIN);
}

/* RLIMIT_FSIZE: a write stops at it, one starting there is EFBIG with SIGXFSZ (ignored here);
 * ftruncate may shrink but not grow past it. */
static void fsize(void)
{
	char buf[150] = { 0 };
	int fd = open("/tmp/rlimit-fsize", O_RDWR | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK(unlink("/tmp/rlimit-fsize") == 0);
	CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
	CHECK(set(RLIMIT_FSIZE, 100, INF) == 0);
	CHECK_EQ(write(fd, buf, 150), 100);
	CHECK_ERR(write(fd, buf, 1), EFBIG);
	CHECK_EQ(write(fd, buf, 0), 0);
	CHECK_ERR(pwrite(fd, buf, 10, 100), EFBIG);
	CHECK_EQ(pwrite(fd, buf, 10, 95), 5);
	CHECK_ERR(ftruncate(fd, 101), EFBIG);
	CHECK(ftruncate(fd, 50) == 0);
	CHECK(ftruncate(fd, 100) == 0);
	CHECK(signal(SIGXFSZ, SIG_DFL) != SIG_ERR);
	if (utest_fails)
		_exit(1); /* (the signal below would hide the failures) */
	CHECK_EQ(write(fd, buf, 1), -1); /* not reached: SIGXFSZ ends it */
}

/* fsize's last write, with SIGXFSZ at its default: the child dies of it. */
static void fsize_killed(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct rl z = { 0, 0 };

		syscall(SYS_setrlimit, RLIMIT_CORE, &z);
		fsize();
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ);
}

int main(int argc, char **argv)
{
	struct rl r;

	if (argc > 1) /* exec_kept's child, after execve */
		return get(RLIMIT_NOFILE, &r) || r.cur != 20 || r.max != 30 ||
		       get(RLIMIT_CORE, &r) || r.cur != 4096 || r.max != 8192;
	if (geteuid() != 0) {
		fprintf(stderr, "rlimit: must start as root\n");
		return 1;
	}
	utest_sibling(self, sizeof(self), argv[0], "rlimit");
	in_child(errors, 0);
	in_child(errors_nobody, 1);
	in_child(inherited, 0);
	in_child(exec_kept, 0);
	in_child(nofile, 0);
	in_child(memlock_nobody, 1);
	in_child(memlock_root, 0);
	in_child(as_data, 0);
	in_child(sig_pending, 1);
	in_child(fsize_killed, 0);
	return utest_done();
}
