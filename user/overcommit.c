/* overcommit: overcommit accounting as Linux keeps it: Committed_AS moving by what each kind of
 * mapping promises (private writable memory, MAP_NORESERVE, shared anonymous memory, files,
 * brk, mremap, mprotect, a growing stack, System V segments, fork and exit), the
 * vm.overcommit_* sysctls, and what each policy refuses: strict mode past CommitLimit, the
 * heuristic one request larger than RAM and swap, "always" nothing. Must run as root; the
 * settings it changes are put back on every path, and strict mode holds only for moments. */
#define _GNU_SOURCE
#define UTEST_NAME "overcommit"
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef SHM_NORESERVE
#define SHM_NORESERVE 010000
#endif

#define PG	  4096L
#define N	  256	       /* pages of the small mappings */
#define KB(pages) ((pages)*4L) /* (meminfo counts kB) */
#define TRIES	  40	       /* natively other processes move Committed_AS too: try again */
#define ANON	  (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW	  (PROT_READ | PROT_WRITE)

static long saved_mode = -1, saved_ratio, saved_kbytes;
static int file_fd = -1;

static int put(const char *name, long value)
{
	char path[64], text[24];

	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	snprintf(text, sizeof(text), "%ld\n", value);
	return utest_sysctl_write(path, text);
}

static long get(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	return utest_sysctl(path);
}

/* The settings as found: the ratio, or the kbytes that replaced it, then the policy. */
static void restore(void)
{
	if (saved_mode < 0)
		return;
	if (saved_kbytes)
		put("overcommit_kbytes", saved_kbytes);
	else
		put("overcommit_ratio", saved_ratio);
	put("overcommit_memory", saved_mode);
}

static void on_fatal(int sig)
{
	restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void set_mode(int mode)
{
	CHECK_EQ(put("overcommit_memory", mode), 0);
}

static long meminfo(const char *key)
{
	return utest_proc_field("/proc/meminfo", key, ':');
}

static long committed(void)
{
	return meminfo("Committed_AS");
}

static void *map(long pages, int prot, int flags)
{
	void *p = mmap(NULL, (size_t)(pages * PG), prot, flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* d[k]: the change of Committed_AS since the mark before (c holds the last reading) */
#define MARK(k)                                                                                    \
	do {                                                                                       \
		long c2_ = committed();                                                            \
		d[k] = c2_ - c;                                                                    \
		c = c2_;                                                                           \
	} while (0)

/*
 * A kind of mapping: fn makes and unmaps it, and records the change of Committed_AS after each
 * step in d; 0, or -1 when a call it makes fails. Run until every change is the one wanted
 * (natively another process may change the count between two readings), TRIES times at most.
 */
static void expect(const char *what, int (*fn)(long *d), const long *want, int n)
{
	long d[8];

	for (int t = 0; t < TRIES; t++) {
		if (fn(d)) {
			CHECK(!what); /* (a call failed: the name is printed) */
			fprintf(stderr, "%s:   %s: a call failed: %s\n", UTEST_NAME, what,
				strerror(errno));
			return;
		}
		if (!memcmp(d, want, (size_t)n * sizeof(long))) {
			CHECK(what);
			return;
		}
	}
	CHECK(!what);
	for (int k = 0; k < n; k++)
		fprintf(stderr, "%s:   %s: step %d moved Committed_AS by %ld kB, want %ld\n",
			UTEST_NAME, what, k, d[k], want[k]);
}

static int k_private(long *d)
{
	long c = committed();
	char *p = map(N, RW, ANON);

	MARK(0);
	if (!p)
		return -1;
	p[0] = 1; /* (pages that come are not counted again) */
	MARK(1);
	munmap(p, N * PG);
	MARK(2);
	return 0;
}

/* Read-only private memory is free until made writable; made read-only again it keeps its
 * promise, so writable once more it costs nothing. Half a mapping: half the pages. */
/* pages of anonymous memory with prot between two PROT_NONE pages of their own, so that no
 * neighbour merges with it: whether mprotect gives a read-only mapping's charge back depends on
 * its having pages (an anon_vma), which a merged neighbour's would bring */
static char *map_alone(long pages, int prot)
{
	char *g = map(pages + 2, PROT_NONE, ANON);

	if (!g)
		return NULL;
	return mmap(g + PG, (size_t)(pages * PG), prot, ANON | MAP_FIXED, -1, 0) == MAP_FAILED
		       ? NULL
		       : g + PG;
}

static int k_mprotect(long *d)
{
	long c = committed();
	char *p = map_alone(N, PROT_READ), *q;
	int err;

	MARK(0);
	if (!p)
		return -1;
	err = mprotect(p, N * PG, RW);
	MARK(1);
	err |= mprotect(p, N * PG, PROT_READ); /* never written: the charge goes back */
	MARK(2);
	err |= mprotect(p, N * PG, RW);
	MARK(3);
	p[0] = 1; /* a page of its own now (an anon_vma): read-only keeps the charge */
	err |= mprotect(p, N * PG, PROT_READ);
	MARK(4);
	munmap(p - PG, (N + 2) * PG);
	MARK(5);
	q = map_alone(N, PROT_READ);
	if (!q)
		return -1;
	err |= mprotect(q + N / 4 * PG, N / 2 * PG, RW);
	MARK(6);
	munmap(q - PG, (N + 2) * PG);
	MARK(7);
	return err ? -1 : 0;
}

static int k_noreserve(long *d)
{
	long c = committed();
	char *p = map(N, RW, ANON | MAP_NORESERVE);

	MARK(0);
	if (!p)
		return -1;
	memset(p, 1, N * PG);
	MARK(1);
	munmap(p, N * PG);
	MARK(2);
	return 0;
}

/* Shared anonymous memory is promised whole at mmap, whatever its protection, until its
 * object goes with the last unmap of it. */
static int k_shared(long *d)
{
	long c = committed();
	char *p = map(N, RW, MAP_SHARED | MAP_ANONYMOUS), *r, *nr;

	MARK(0);
	r = map(N, PROT_READ, MAP_SHARED | MAP_ANONYMOUS);
	MARK(1);
	nr = map(N, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE);
	MARK(2);
	if (!p || !r || !nr)
		return -1;
	munmap(p, N / 2 * PG);
	MARK(3);
	munmap(p + N / 2 * PG, N / 2 * PG);
	MARK(4);
	munmap(r, N * PG);
	munmap(nr, N * PG);
	MARK(5);
	return 0;
}

static int k_file(long *d)
{
	long c = committed();
	char *priv = mmap(NULL, N * PG, RW, MAP_PRIVATE, file_fd, 0), *ro, *shared;

	MARK(0);
	ro = mmap(NULL, N * PG, PROT_READ, MAP_PRIVATE, file_fd, 0);
	MARK(1);
	shared = mmap(NULL, N * PG, RW, MAP_SHARED, file_fd, 0);
	MARK(2);
	if (priv == MAP_FAILED || ro == MAP_FAILED || shared == MAP_FAILED)
		return -1;
	munmap(priv, N * PG);
	MARK(3);
	munmap(ro, N * PG);
	munmap(shared, N * PG);
	MARK(4);
	return 0;
}

static int k_brk(long *d)
{
	long c = committed();
	long cur = syscall(SYS_brk, 0), r1, r2;

	r1 = syscall(SYS_brk, cur + N * PG);
	MARK(0);
	r2 = syscall(SYS_brk, cur);
	MARK(1);
	return r1 == cur + N * PG && r2 == cur ? 0 : -1;
}

/* Growing in place, shrinking, a move to grow (a page above is taken), and MREMAP_DONTUNMAP,
 * which leaves the old range mapped: the whole new range is promised. */
static int k_mremap(long *d)
{
	long c = committed();
	char *p = map(2 * N, RW, ANON), *q, *r, *guard;
	int err = 0;

	MARK(0);
	if (!p)
		return -1;
	munmap(p + N * PG, N * PG);
	MARK(1);
	err |= mremap(p, N * PG, 2 * N * PG, 0) != p;
	MARK(2);
	err |= mremap(p, 2 * N * PG, N * PG, 0) != p;
	MARK(3);
	guard = mmap(p + N * PG, PG, PROT_NONE, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	MARK(4);
	q = mremap(p, N * PG, 2 * N * PG, MREMAP_MAYMOVE);
	MARK(5);
	r = q == MAP_FAILED
		    ? MAP_FAILED
		    : mremap(q, 2 * N * PG, 2 * N * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	MARK(6);
	err |= guard == MAP_FAILED || q == MAP_FAILED || q == p || r == MAP_FAILED;
	if (q != MAP_FAILED)
		munmap(q, 2 * N * PG);
	if (r != MAP_FAILED)
		munmap(r, 2 * N * PG);
	if (guard != MAP_FAILED)
		munmap(guard, PG);
	if (q == MAP_FAILED)
		munmap(p, N * PG);
	MARK(7);
	return err ? -1 : 0;
}

/* The start of the process's stack VMA, from /proc/self/maps; 0 if not found. */
static unsigned long stack_start(void)
{
	static char maps[1 << 16];
	char *l;

	if (utest_slurp("/proc/self/maps", maps, sizeof(maps)) <= 0 ||
	    !(l = strstr(maps, "[stack]")))
		return 0;
	while (l > maps && l[-1] != '\n')
		l--;
	return strtoul(l, NULL, 16);
}

/* Frames of 2 KiB down to below floor, each touched at both ends (so every page in turn,
 * never far below the stack pointer); not a tail call, so that each frame stays. */
static __attribute__((noinline)) void dig(uintptr_t floor)
{
	volatile char frame[2048];

	frame[0] = frame[sizeof(frame) - 1] = 1;
	if ((uintptr_t)frame > floor)
		dig(floor);
	frame[1] = 2;
}

/* The stack growing down: Committed_AS moves by the pages its VMA grew, which never shrinks
 * back (each try goes another MiB deeper). */
static void check_stack(void)
{
	long moved = 0, grew = 0;

	for (int t = 1; t <= 4; t++) {
		unsigned long start = stack_start();
		long c = committed();

		dig((uintptr_t)&t - (uintptr_t)t * (1 << 20));
		moved = committed() - c;
		grew = (long)(start - stack_start()) / PG;
		if (start && grew > 0 && moved == KB(grew))
			break;
	}
	CHECK(grew > 0);
	CHECK_EQ(moved, KB(grew));
}

/* A System V segment is promised at shmget, not at shmat, and given back when it goes (its
 * last detach after IPC_RMID); SHM_NORESERVE promises nothing. */
static int k_shm(long *d)
{
	long c = committed();
	int id = shmget(IPC_PRIVATE, N * PG, 0600), nid;
	void *a;

	MARK(0);
	if (id < 0)
		return -1;
	a = shmat(id, NULL, 0);
	MARK(1);
	shmctl(id, IPC_RMID, NULL);
	MARK(2);
	if (a != (void *)-1)
		shmdt(a);
	MARK(3);
	nid = shmget(IPC_PRIVATE, N * PG, 0600 | SHM_NORESERVE);
	MARK(4);
	if (nid >= 0)
		shmctl(nid, IPC_RMID, NULL);
	MARK(5);
	return a == (void *)-1 || nid < 0 ? -1 : 0;
}

/* fork with a child that waits: the change while it lives, then after it is reaped. */
static int fork_delta(long *live, long *gone)
{
	int fds[2], status;
	long c;
	pid_t pid;
	char b = 0;

	if (pipe(fds))
		return -1;
	c = committed();
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		_exit(read(fds[0], &b, 1) == 1 ? 0 : 1);
	}
	*live = committed() - c;
	if (write(fds[1], &b, 1) != 1)
		pid = -1;
	close(fds[0]);
	close(fds[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return -1;
	*gone = committed() - c;
	return 0;
}

/* The child promises again what its parent's VMAs promised: N pages more with a mapping of N
 * pages; all of it is given back at its exit. */
static void check_fork(void)
{
	long a = 0, ag = 0, b = 0, bg = 0;

	for (int t = 0; t < TRIES; t++) {
		char *p;

		if (fork_delta(&a, &ag))
			break;
		p = map(N, RW, ANON);
		if (!p || fork_delta(&b, &bg))
			break;
		munmap(p, N * PG);
		if (a > 0 && ag == 0 && b - a == KB(N) && bg == 0)
			break;
	}
	CHECK(a > 0);
	CHECK_EQ(ag, 0);
	CHECK_EQ(b - a, KB(N));
	CHECK_EQ(bg, 0);
}

/* vm.overcommit_memory's range; overcommit_ratio and overcommit_kbytes, each clearing the
 * other, and CommitLimit from them. */
static void check_sysctls(void)
{
	long ram = meminfo("MemTotal") / 4, swap = meminfo("SwapTotal");

	CHECK_EQ(put("overcommit_memory", 3), EINVAL);
	CHECK_EQ(put("overcommit_memory", -1), EINVAL);
	CHECK_EQ(get("overcommit_memory"), 0);
	CHECK_EQ(put("overcommit_memory", 1), 0);
	CHECK_EQ(get("overcommit_memory"), 1);
	set_mode(0);
	CHECK_EQ(put("overcommit_kbytes", 123456), 0);
	CHECK_EQ(get("overcommit_kbytes"), 123456);
	CHECK_EQ(get("overcommit_ratio"), 0);
	CHECK_EQ(meminfo("CommitLimit"), 123456 + swap);
	CHECK_EQ(put("overcommit_ratio", 37), 0);
	CHECK_EQ(get("overcommit_ratio"), 37);
	CHECK_EQ(get("overcommit_kbytes"), 0);
	CHECK_EQ(meminfo("CommitLimit"), KB(ram * 37 / 100) + swap);
	CHECK_EQ(put("overcommit_ratio", 50), 0);
	CHECK_EQ(meminfo("CommitLimit"), KB(ram * 50 / 100) + swap);
	restore();
	set_mode(0);
}

/* The heuristic (0) refuses one request of more pages than RAM and swap hold, however it is
 * made, and allows one of exactly that many; "always" (1) allows more. */
static void check_guess_always(void)
{
	long total = (meminfo("MemTotal") + meminfo("SwapTotal")) / 4, cur, c, moved = 0;
	char *p;

	p = map(total, RW, ANON);
	CHECK(p);
	if (p)
		munmap(p, (size_t)(total * PG));
	CHECK_ERR(mmap(NULL, (size_t)((total + 1) * PG), RW, ANON, -1, 0), ENOMEM);
	CHECK_ERR(mmap(NULL, (size_t)((total + 1) * PG), RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0),
		  ENOMEM);
	p = map(total + 1, RW, ANON | MAP_NORESERVE);
	CHECK(p);
	if (p)
		munmap(p, (size_t)((total + 1) * PG));
	p = map(total + 1, PROT_READ, ANON);
	CHECK(p);
	if (p) {
		CHECK_ERR(mprotect(p, (size_t)((total + 1) * PG), RW), ENOMEM);
		munmap(p, (size_t)((total + 1) * PG));
	}
	cur = syscall(SYS_brk, 0);
	CHECK_EQ(syscall(SYS_brk, cur + (total + 1) * PG), cur);

	set_mode(1);
	for (int t = 0; t < TRIES && moved != KB(total + 65536); t++) {
		c = committed();
		p = map(total + 65536, RW, ANON);
		moved = committed() - c;
		if (!p)
			break;
		munmap(p, (size_t)((total + 65536) * PG));
	}
	set_mode(0);
	CHECK(p);
	CHECK_EQ(moved, KB(total + 65536));
}

/* Strict (2): refused past CommitLimit, allowed within it, MAP_NORESERVE and SHM_NORESERVE
 * not honoured; each refusal's request is allowed by the heuristic. */
static void check_never(void)
{
	long total = (meminfo("MemTotal") + meminfo("SwapTotal")) / 4;
	long room = (meminfo("CommitLimit") - committed()) / 4, big, small, margin, cur, c, moved;
	char *p, *q;
	int id, status;
	pid_t pid;

	margin = room / 4 < (total - room) / 2 ? room / 4 : (total - room) / 2;
	if (!CHECK(room > 1024 && margin > 256))
		return; /* (too little room under CommitLimit to try: the host is overcommitted) */
	big = room + margin;
	small = room / 2;
	/* the positive controls: the heuristic allows what strict mode refuses */
	p = map(big, RW, ANON);
	CHECK(p);
	if (p)
		munmap(p, (size_t)(big * PG));

	set_mode(2);
	CHECK_ERR(mmap(NULL, (size_t)(big * PG), RW, ANON, -1, 0), ENOMEM);
	CHECK_ERR(mmap(NULL, (size_t)(big * PG), RW, ANON | MAP_NORESERVE, -1, 0), ENOMEM);
	CHECK_ERR(mmap(NULL, (size_t)(big * PG), RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0), ENOMEM);
	CHECK_ERR(shmget(IPC_PRIVATE, (size_t)(big * PG), 0600), ENOMEM);
	CHECK_ERR(shmget(IPC_PRIVATE, (size_t)(big * PG), 0600 | SHM_NORESERVE), ENOMEM);
	p = map(small, RW, ANON);
	CHECK(p);
	if (p)
		munmap(p, (size_t)(small * PG));
	p = map(small, RW, MAP_SHARED | MAP_ANONYMOUS);
	CHECK(p);
	if (p)
		munmap(p, (size_t)(small * PG));
	id = shmget(IPC_PRIVATE, (size_t)(small * PG), 0600);
	CHECK(id >= 0);
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
	/* read-only memory is free; made writable it is refused */
	p = map(big, PROT_READ, ANON);
	CHECK(p);
	if (p) {
		CHECK_ERR(mprotect(p, (size_t)(big * PG), RW), ENOMEM);
		CHECK_EQ(mprotect(p, (size_t)(small * PG), RW), 0);
		munmap(p, (size_t)(big * PG));
	}
	/* brk, and mremap's growth */
	cur = syscall(SYS_brk, 0);
	CHECK_EQ(syscall(SYS_brk, cur + big * PG), cur);
	CHECK_EQ(syscall(SYS_brk, cur + N * PG), cur + N * PG);
	CHECK_EQ(syscall(SYS_brk, cur), cur);
	p = map(N, RW, ANON);
	CHECK(p);
	if (p) {
		CHECK_ERR(mremap(p, N * PG, (size_t)((N + big) * PG), MREMAP_MAYMOVE), ENOMEM);
		q = mremap(p, N * PG, 2 * N * PG, MREMAP_MAYMOVE);
		CHECK(q != MAP_FAILED);
		munmap(q != MAP_FAILED ? q : p, 2 * N * PG);
	}
	/* MAP_NORESERVE promises all the same */
	moved = 0;
	for (int t = 0; t < TRIES && moved != KB(N); t++) {
		c = committed();
		p = map(N, RW, ANON | MAP_NORESERVE);
		moved = committed() - c;
		if (p)
			munmap(p, N * PG);
	}
	CHECK_EQ(moved, KB(N));
	/* fork: a child as large as more than the room left is refused */
	p = map(room * 3 / 5, RW, ANON);
	CHECK(p);
	if (p) {
		CHECK_ERR(fork(), ENOMEM);
		munmap(p, (size_t)(room * 3 / 5 * PG));
	}
	pid = fork();
	if (pid == 0)
		_exit(0);
	set_mode(0);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0);

	/* the positive control of the fork: the heuristic lets it be */
	p = map(room * 3 / 5, RW, ANON);
	CHECK(p);
	if (p) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0);
		munmap(p, (size_t)(room * 3 / 5 * PG));
	}
}

int main(void)
{
	static const long w_private[] = { KB(N), 0, -KB(N) };
	static const long w_mprotect[] = {
		0, KB(N), -KB(N), KB(N), 0, -KB(N), KB(N / 2), -KB(N / 2)
	};
	static const long w_noreserve[] = { 0, 0, 0 };
	static const long w_shared[] = { KB(N), KB(N), 0, 0, -KB(N), -KB(N) };
	static const long w_file[] = { KB(N), 0, 0, -KB(N), 0 };
	static const long w_brk[] = { KB(N), -KB(N) };
	static const long w_mremap[] = { KB(2 * N), -KB(N), KB(N),     -KB(N),
					 0,	    KB(N),  KB(2 * N), -KB(4 * N) };
	static const long w_shm[] = { KB(N), 0, 0, -KB(N), 0, 0 };
	char path[] = "/tmp/overcommit-XXXXXX";

	if (!CHECK(getuid() == 0 && committed() >= 0 && get("overcommit_memory") >= 0))
		return utest_done();
	saved_ratio = get("overcommit_ratio");
	saved_kbytes = get("overcommit_kbytes");
	saved_mode = get("overcommit_memory");
	atexit(restore);
	signal(SIGSEGV, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	signal(SIGABRT, on_fatal);
	set_mode(0);

	file_fd = mkstemp(path);
	CHECK(file_fd >= 0 && ftruncate(file_fd, N * PG) == 0);
	unlink(path);

	check_sysctls();
	expect("private", k_private, w_private, 3);
	expect("mprotect", k_mprotect, w_mprotect, 8);
	expect("noreserve", k_noreserve, w_noreserve, 3);
	expect("shared", k_shared, w_shared, 6);
	expect("file", k_file, w_file, 5);
	expect("brk", k_brk, w_brk, 2);
	expect("mremap", k_mremap, w_mremap, 8);
	check_stack();
	expect("shm", k_shm, w_shm, 6);
	check_fork();
	check_guess_always();
	check_never();
	restore();
	CHECK_EQ(get("overcommit_memory"), saved_mode);
	CHECK_EQ(get("overcommit_ratio"), saved_ratio);
	return utest_done();
}
