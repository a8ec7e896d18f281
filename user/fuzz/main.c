/* fuzz/main.c: the options, the forked children and their self-checks, the results.
 *
 * fuzz: a system-call fuzzer. NPROC forked children (default 4) each make M random system
 * calls (argv[1]; default 50000, i.e. 200,000 in all, natively and under faultline),
 * with arguments biased to edge values: 0, -1, small numbers, page-aligned and unaligned
 * addresses in the fuzzer's own buffers, unmapped holes, PROT_NONE guard pages, NULL,
 * kernel-half addresses (direct map, kernel image, vmap/kernel stacks), non-canonical
 * addresses and huge lengths. 90% of the calls come from an explicit allow-list of
 * (number, argument generator); 10% are numbers with no system call behind them (under
 * faultline: numbers missing from its sys_call_table, each printing one console line;
 * natively: numbers >= 1000), which must give -ENOSYS.
 * usage: fuzz [CALLS_PER_WORKER [SEED [NPROC [OPTION...]]]]  (a seed makes the same calls)
 *   options: threads=N (each child runs N workers, 1 to 4, as threads sharing its memory and
 *   descriptor table, all making calls at once; each has its own arena, scratch directory
 *   /tmp/fuzz-PID-N-K and descriptors, never touches another's, and only the first moves the
 *   heap's break), trace (print every call before making it, on stderr; trace=N: from call N on),
 *   smallfiles (see below);
 *   FUZZ_DEBUG=1 in the environment (natively) checks the fuzzer's own memory after each call
 *   (not with threads=N: another worker may close the descriptor that check reads through).
 *
 * Safety (natively this runs as root on a build machine): nothing in the allow-list can end
 * the process, change the host or break the fuzzer. No exit/fork/exec/kill(sig != 0)/
 * set_tid_address/arch_prctl(SET)/signal actions/limits. Paths: open, openat, stat and
 * friends take only strings from a fixed pool, always O_RDONLY (O_CREAT, O_TRUNC, O_APPEND,
 * O_DIRECT masked off); mkdir, rmdir, creat, unlink, unlinkat and mkdirat take only paths
 * inside the child's private scratch directory /tmp/fuzz-PID-N. Only the scratch file, its
 * duplicates and descriptors the fuzzer opened itself are written, truncated, closed or
 * duplicated over; stdin/stdout/stderr are never read (they may be a terminal), written
 * (except with a bad buffer: EFAULT) or closed. munmap, mprotect, mremap, madvise, msync,
 * remap_file_pages and brk touch only the fuzzer's own memory: an "arena" of pages between
 * two PROT_NONE guard pages (which are never touched, so a copy running off the arena stops
 * there) and the mappings its own mmap calls made; never MAP_FIXED/MREMAP_FIXED/MAP_POPULATE;
 * a range with a valid start never reaches past the fuzzer's own region. Buffers the kernel
 * writes are in the arena, in the fuzzer's mappings (never past their end) or invalid.
 *
 * After its calls each child checks it still works (getpid, malloc/free of 1 MiB, a write and
 * read back of its scratch file, the guard pages still PROT_NONE) and removes its files. The
 * parent requires every child to exit 0 (any signal is a failure: nothing allowed may kill
 * it) and prints calls made, results by errno and the wall time. Under faultline it also
 * requires the free frames after reaping to equal those before forking (+-8) and the
 * kernel's PTE check (FL_CHECK) to find no orphaned or miscounted page. */
#define UTEST_NAME "fuzz"
#include "fuzz.h"
#include "../utest.h"
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---------------------------------------------------------------- shared results */
static struct cstats *stats; /* MAP_SHARED: one per worker, a child's nthreads in a row */
WORKER struct cstats *me;
WORKER int worker_sub;
static int nthreads = 1; /* threads=N: workers per child, each a thread of it */

static void fail(const char *what)
{
	if (!me->fails++)
		snprintf(me->why, sizeof(me->why), "%s", what);
}

/* "smallfiles" (argv[4] or later): file sizes and offsets stay below 1 MiB (faultline's
 * truncate of a huge sparse file used to try every page index: minutes to years) */
int smallfiles;

WORKER uint64_t rs; /* the random state (fuzz.h's rnd) */

/* ---------------------------------------------------------------- one child */
static void count(long r)
{
	me->calls++;
	if (!is_err(r))
		me->ok++;
	else if (-r < NERR)
		me->err[-r]++;
	else
		me->other_err++;
}

static uint64_t fuzz_mmap(size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	return p == MAP_FAILED ? 0 : (uint64_t)p;
}

/* The unterminated string: made by every worker of a child before any of them punches the
 * holes in its arena, since a two-page mapping made later may land in one of them (its own
 * or another worker's), where the arena's owner would unmap or replace it. */
static int setup_unterm(void)
{
	unterm = fuzz_mmap(2 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!unterm || mprotect((void *)(unterm + P), P, PROT_NONE))
		return fail("mmap the unterminated string"), -1;
	memset((void *)unterm, 'a', P);
	return 0;
}

static int setup(int idx, const char *argv0)
{
	uint64_t base;

	if (nthreads > 1)
		snprintf(dir, sizeof(dir), "/tmp/fuzz-%d-%d-%d", (int)getppid(), idx, worker_sub);
	else
		snprintf(dir, sizeof(dir), "/tmp/fuzz-%d-%d", (int)getppid(), idx);
	snprintf(scratch_path, sizeof(scratch_path), "%s/scratch", dir);
	if (mkdir(dir, 0700) != 0)
		return fail("mkdir the scratch directory"), -1;
	scratch_fd = open(scratch_path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ro_fd = open(scratch_path, O_RDONLY);
	bin_fd = open(argv0, O_RDONLY);
	dir_fd = open("/", O_RDONLY | O_DIRECTORY);
	if (scratch_fd < 0 || ro_fd < 0 || bin_fd < 0 || dir_fd < 0)
		return fail("open the base descriptors"), -1;
	for (size_t i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (unsigned char)(i * 7 + 3);
	if (pwrite(scratch_fd, sbuf, 3 * P + 100, 0) != (ssize_t)(3 * P + 100))
		return fail("write the scratch file"), -1;

	/* the arena: guard, 48 interior pages, guard. Interior: anon [0,24), hole [24,26),
	 * shared file [26,34) (3.02 pages of file: the rest is past EOF), hole [34,36),
	 * private file [36,40), anon [40,48). */
	base = fuzz_mmap((ARENA_PAGES + 2) * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!base)
		return fail("mmap the arena"), -1;
	arena = base + P;
	arena_end = arena + ARENA_PAGES * P;
	if (mprotect((void *)arena, ARENA_PAGES * P, PROT_READ | PROT_WRITE) ||
	    munmap((void *)(arena + 24 * P), 2 * P) || munmap((void *)(arena + 34 * P), 2 * P) ||
	    mmap((void *)(arena + 26 * P), 8 * P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 scratch_fd, 0) == MAP_FAILED ||
	    mmap((void *)(arena + 36 * P), 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
		 scratch_fd, 0) == MAP_FAILED)
		return fail("lay out the arena"), -1;
	holes[0] = arena + 24 * P;
	holes[1] = arena + 34 * P;
	paths_init(argv0);
	if (!worker_sub)
		brk0 = (uint64_t)sys6(SYS_brk, 0, 0, 0, 0, 0, 0);
	return 0;
}

/* Once every worker of the child has its descriptors: each open one that is not this
 * worker's (stdin..., the other workers' base descriptors) is left alone. */
static void protect_others(void)
{
	for (int fd = 0; fd < (int)sizeof(protected_fd); fd++)
		protected_fd[fd] = fcntl(fd, F_GETFD) >= 0 && fd != scratch_fd && fd != ro_fd &&
				   fd != bin_fd && fd != dir_fd;
}

static int remove_tree(const char *path, int depth)
{
	char sub[700];
	struct dirent *e;
	DIR *d;

	if (unlink(path) == 0)
		return 0;
	if (depth < 6 && (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			remove_tree(sub, depth + 1);
		}
		closedir(d);
	}
	if (rmdir(path) == 0)
		return 0;
	if (!me->fails++)
		snprintf(me->why, sizeof(me->why), "cannot remove %s: %s", path, strerror(errno));
	return -1;
}

/* Is the page at addr mapped PROT_NONE? (maps_find into this worker's own entry: the
 * workers of a child look at once) */
static int guard_ok(uint64_t addr)
{
	struct maps_ent e;

	return maps_find((void *)addr, &e) == 1 && !strncmp(e.perms, "---", 3);
}

/* After the calls: does the process still work? */
static void final_checks(pid_t pid, pid_t tid)
{
	unsigned char got[P], want[P];
	char *q;
	size_t i;
	int fd;

	if (getpid() != pid || (pid_t)syscall(SYS_gettid) != tid)
		fail("getpid changed");
	q = malloc(1UL << 20);
	if (!q) {
		fail("malloc 1 MiB");
	} else {
		memset(q, 0x5a, 1UL << 20);
		for (i = 0; i < (1UL << 20); i += 4093)
			if (q[i] != 0x5a)
				break;
		if (i < (1UL << 20))
			fail("malloc'd memory does not hold its bytes");
		free(q);
	}
	fcntl(scratch_fd, F_SETFL, 0);
	for (i = 0; i < P; i++)
		want[i] = (unsigned char)(i * 13 + 5);
	if (pwrite(scratch_fd, want, P, 0) != (ssize_t)P)
		fail("pwrite the scratch file");
	fd = open(scratch_path, O_RDONLY);
	if (fd < 0 || pread(fd, got, P, 0) != (ssize_t)P || memcmp(got, want, P) != 0)
		fail("read back the scratch file");
	if (fd >= 0)
		close(fd);
	if (!guard_ok(arena - P) || !guard_ok(arena_end) || !guard_ok(unterm + P))
		fail("a guard page is no longer PROT_NONE");
}

/* FUZZ_DEBUG=1: after every call, check that the fuzzer's own memory is intact (slow) */
static int debug, trace;
static long trace_from;

static int intact(void)
{
	struct maps_ent e;

	if (!guard_ok(arena - P) || !guard_ok(arena_end) || !guard_ok(unterm + P) ||
	    maps_find((void *)stats, &e) != 1 || strncmp(e.perms, "rw-s", 4) ||
	    maps_find((void *)0, &e) == 1 || maps_find((void *)0xffff, &e) == 1)
		return 0;
	return 1;
}

/* One worker: a child, or one thread of it (threads=N). All of a child's workers set up,
 * then make their calls at once, then check and clean up once none is making calls. */
struct worker_arg {
	int idx, sub;
	long calls;
	uint64_t seed;
	const char *argv0;
};
static pthread_barrier_t all_unterm, all_set_up, all_called;

static void *worker(void *arg)
{
	const struct worker_arg *w = arg;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	int idx = w->idx, ok;
	long i, r, calls = w->calls;

	worker_sub = w->sub;
	me = &stats[idx * nthreads + w->sub];
	rs = w->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)idx * 0xbf58476d1ce4e5b9ULL +
	     (uint64_t)w->sub * 0x94d049bb133111ebULL + 1;
	for (i = 0; i < 8; i++)
		rnd();
	random_init();
	ok = setup_unterm() == 0;
	if (nthreads > 1)
		pthread_barrier_wait(&all_unterm);
	ok = ok && setup(idx, w->argv0) == 0;
	if (nthreads > 1)
		pthread_barrier_wait(&all_set_up);
	if (ok) {
		protect_others();
		for (i = 0; i < calls; i++) {
			int rand_call = below(10) == 0;

			if (rand_call)
				gen_random();
			else
				gen();
			if (trace && i >= trace_from) {
				char t[200];
				int n = snprintf(t, sizeof(t),
						 "fuzz[%d] %ld: %#lx(%#lx, %#lx, %#lx, %#lx, %#lx, "
						 "%#lx)\n", idx, i, nr, a[0], a[1], a[2], a[3],
						 a[4], a[5]);
				sys6(SYS_write, 2, (long)t, n, 0, 0, 0);
			}
			r = sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
			count(r);
			if (rand_call) {
				me->random++;
				me->enosys_random += r == -ENOSYS;
				if (r != -ENOSYS && !me->fails++)
					snprintf(me->why, sizeof(me->why), "unknown system "
						 "call %#lx returned %ld, not -ENOSYS",
						 (unsigned long)nr, r);
			} else {
				after(r);
			}
			if (debug && !intact()) {
				fprintf(stderr,
					"fuzz: child %d call %ld: nr %#lx (%#lx, %#lx, %#lx, "
					"%#lx, %#lx, %#lx) = %ld broke the fuzzer's memory\n",
					idx, i, nr, a[0], a[1], a[2], a[3], a[4], a[5], r);
				_exit(3);
			}
		}
	}
	/* the heap's break back where it was, while no other worker may be inside malloc */
	if (ok && !worker_sub)
		sys6(SYS_brk, (long)brk0, 0, 0, 0, 0, 0);
	if (nthreads > 1)
		pthread_barrier_wait(&all_called);
	if (ok)
		final_checks(pid, tid);
	/* clean up: every file and directory of this worker, so its frames come back */
	close(scratch_fd);
	close(ro_fd);
	for (i = 0; i < nowned; i++)
		close(owned[i]);
	if (dir[0])
		remove_tree(dir, 0);
	me->done = 1;
	return NULL;
}

static void child(int idx, long calls, uint64_t seed, const char *argv0)
{
	struct worker_arg w[TMAX];
	pthread_t th[TMAX];
	int fails = 0;

	pthread_barrier_init(&all_unterm, NULL, (unsigned)nthreads);
	pthread_barrier_init(&all_set_up, NULL, (unsigned)nthreads);
	pthread_barrier_init(&all_called, NULL, (unsigned)nthreads);
	for (int k = 0; k < nthreads; k++)
		w[k] = (struct worker_arg){ idx, k, calls, seed, argv0 };
	for (int k = 1; k < nthreads; k++)
		if (pthread_create(&th[k], NULL, worker, &w[k])) {
			me = &stats[idx * nthreads + k];
			fail("pthread_create");
			_exit(1); /* the threads made so far wait at the barrier: gone with us */
		}
	worker(&w[0]);
	for (int k = 1; k < nthreads; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < nthreads; k++)
		fails += stats[idx * nthreads + k].fails != 0;
	_exit(fails ? 1 : 0);
}

/* ---------------------------------------------------------------- the parent */
static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case ENOEXEC: return "ENOEXEC";
	case EBADF: return "EBADF";
	case ECHILD: return "ECHILD";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	case EROFS: return "EROFS";
	case ERANGE: return "ERANGE";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOSYS: return "ENOSYS";
	case ENOTEMPTY: return "ENOTEMPTY";
	case ELOOP: return "ELOOP";
	case EOVERFLOW: return "EOVERFLOW";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void prewarm(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/* fork nproc children making per calls each, reap them, check how they ended */
static int fork_round(int nproc, long per, uint64_t seed, const char *argv0, pid_t *pids)
{
	int i, st, made = 0;

	for (i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			child(i, per, seed, argv0);
		if (!CHECK(pids[i] > 0))
			break;
		made++;
	}
	for (i = 0; i < made; i++) {
		CHECK_EQ(waitpid(pids[i], &st, 0), pids[i]);
		if (WIFSIGNALED(st)) {
			CHECK(!WIFSIGNALED(st));
			fprintf(stderr, "fuzz:   child %d (pid %d, seed %llu) was killed by "
				"signal %d (%s)\n", i, (int)pids[i], (unsigned long long)seed,
				WTERMSIG(st), strsignal(WTERMSIG(st)));
		} else {
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
		for (int k = 0; k < nthreads; k++) {
			const struct cstats *w = &stats[i * nthreads + k];

			if (!CHECK(w->done && !w->fails))
				fprintf(stderr,
					"fuzz:   child %d (pid %d) worker %d: %ld calls%s: %s\n",
					i, (int)pids[i], k, w->calls,
					w->done ? "" : " without finishing", w->why);
			CHECK_EQ(w->calls, per);
		}
	}
	return made;
}

int main(int argc, char **argv)
{
	long per = argc > 1 ? atol(argv[1]) : -1, total_calls = 0, total_ok = 0, total_rand = 0;
	long total_enosys = 0, err[NERR] = { 0 }, other = 0, hkc = 0;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	int nproc = argc > 3 ? atoi(argv[3]) : 4, i, made;
	pid_t pids[NPROC_MAX];
	struct fl_mm m0, m1;
	struct fl_check c;
	double t0, t1;
	char line[1024];
	size_t n;
	int tmp_made = 0;

	debug = getenv("FUZZ_DEBUG") != NULL;
	for (i = 4; i < argc; i++) {
		trace |= !strcmp(argv[i], "trace");
		if (!strncmp(argv[i], "trace=", 6)) {
			trace = 1;
			trace_from = atol(argv[i] + 6);
		}
		smallfiles |= !strcmp(argv[i], "smallfiles");
		if (!strncmp(argv[i], "threads=", 8))
			nthreads = atoi(argv[i] + 8);
	}
	if (nthreads < 1 || nthreads > TMAX)
		nthreads = 1;
	if (debug && nthreads > 1) { /* its reads of maps would meet another worker's closes */
		fprintf(stderr, "fuzz: FUZZ_DEBUG ignored with threads=%d\n", nthreads);
		debug = 0;
	}
	/* the workers of a child share its descriptor table (faultline's has 64 slots) */
	max_owned = MAX_OWNED / nthreads;
	if (nproc < 1 || nproc > NPROC_MAX)
		nproc = 4;
	if (per < 0)
		per = (on_faultline() ? TOTAL_FL : TOTAL_NATIVE) / (nproc * nthreads);
	stats = mmap(NULL, sizeof(struct cstats) * NPROC_MAX * TMAX, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(stats != MAP_FAILED))
		return utest_done();
	if (mkdir("/tmp", 0777) == 0)
		tmp_made = 1;
	if (nthreads > 1)
		printf("fuzz: %d processes x %d threads x %ld calls, seed %llu%s\n", nproc,
		       nthreads, per, (unsigned long long)seed,
		       on_faultline() ? " (faultline)" : " (native)");
	else
		printf("fuzz: %d processes x %ld calls, seed %llu%s\n", nproc, per,
		       (unsigned long long)seed, on_faultline() ? " (faultline)" : " (native)");
	fflush(stdout);

	/* A first round of children making no calls (setup and clean-up only): the parent's
	 * own first writes after a fork (libc's data, its stack) take frames that are not the
	 * children's, and must not count as lost. */
	made = fork_round(nproc, 0, seed, argv[0], pids);
	/* Under faultline a page of a ramdisk file, once read, stays in the page cache: read
	 * every file the children may read (all of it) before counting the free frames. */
	prewarm(argv[0]);
	prewarm("/etc/motd");
	/* (the whole table is written before the count: its shared pages are the parent's) */
	memset(stats, 0, sizeof(struct cstats) * NPROC_MAX * TMAX);
	m0 = fl_mm_now();
	t0 = now();
	made = fork_round(nproc, per, seed, argv[0], pids);
	t1 = now();
	m1 = fl_mm_now();
	if (tmp_made && !CHECK(rmdir("/tmp") == 0)) /* empty again: the children cleaned up */
		fprintf(stderr, "fuzz:   rmdir /tmp: %s\n", strerror(errno));

	for (i = 0; i < made * nthreads; i++) {
		total_calls += stats[i].calls;
		total_ok += stats[i].ok;
		total_rand += stats[i].random;
		total_enosys += stats[i].enosys_random;
		other += stats[i].other_err;
		hkc += stats[i].housekeeping;
		for (int e = 0; e < NERR; e++)
			err[e] += stats[i].err[e];
	}
	printf("fuzz: %ld calls (%ld of them unknown numbers: %ld gave ENOSYS) in %.2f s, "
	       "%ld bookkeeping calls\n", total_calls, total_rand, total_enosys, t1 - t0, hkc);
	n = (size_t)snprintf(line, sizeof(line), "fuzz: results: ok %ld", total_ok);
	for (int e = 1; e < NERR; e++)
		if (err[e] && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, ", %s %ld", errname(e),
					      err[e]);
	if (other && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, ", other %ld", other);
	printf("%s\n", line);
	if (on_faultline()) {
		printf("fuzz: free frames %lu before forking, %lu after reaping\n",
		       (unsigned long)m0.free_frames, (unsigned long)m1.free_frames);
		if (!CHECK(m1.free_frames + 8 >= m0.free_frames &&
			   m1.free_frames <= m0.free_frames + 8))
			fprintf(stderr, "fuzz:   %ld frames not given back\n",
				(long)m0.free_frames - (long)m1.free_frames);
		CHECK_EQ(fl_check(&c), 0);
		CHECK_EQ(c.orphans, 0);
		CHECK_EQ(c.bad_counts, 0);
	}
	return utest_done();
}
