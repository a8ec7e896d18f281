/* fuzz: a system-call fuzzer. NPROC forked children (default 4) each make M random system
 * calls (argv[1]; default 50000, i.e. 200,000 in all, natively and under faultline),
 * with arguments biased to edge values: 0, -1, small numbers, page-aligned and unaligned
 * addresses in the fuzzer's own buffers, unmapped holes, PROT_NONE guard pages, NULL,
 * kernel-half addresses (direct map, kernel image, vmap/kernel stacks), non-canonical
 * addresses and huge lengths. 90% of the calls come from an explicit allow-list of
 * (number, argument generator); 10% are numbers with no system call behind them (under
 * faultline: numbers missing from its sys_call_table, each printing one console line;
 * natively: numbers >= 1000), which must give -ENOSYS.
 * usage: fuzz [CALLS_PER_CHILD [SEED [NPROC [OPTION...]]]]  (a seed makes the same calls)
 *   options: trace (print every call before making it, on stderr; trace=N: from call N on),
 *   smallfiles (see below);
 *   FUZZ_DEBUG=1 in the environment (natively) checks the fuzzer's own memory after each call.
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
#define _GNU_SOURCE
#define UTEST_NAME "fuzz"
#include "utest.h"
#include "vmstat.h"
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#define P	      4096UL
#define NPROC_MAX     16
#define TOTAL_NATIVE  200000
#define TOTAL_FL      200000
#define MAX_TRACKED   16
#define MAX_OWNED     40
#define TRACK_MAX_LEN (4UL << 20) /* bigger new mappings are unmapped again at once */
#define FILE_MAX      (4UL << 20) /* the scratch file is cut back when it grows past this */
#define NERR	      134

#define KDIRECT	 0xffff888000000000UL
#define KIMAGE	 0xffffffff80000000UL
#define KVMAP	 0xffffc90000000000UL
#define NONCANON 0x8000000000000000UL
#define LASTPAGE 0x00007ffffffff000UL /* faultline's last user page; above Linux's TASK_SIZE */

/* ---------------------------------------------------------------- shared results */
struct cstats {
	long done, calls, ok, random, enosys_random, err[NERR], other_err, housekeeping;
	long fails;	  /* failed self-checks at the end */
	char why[256];	  /* the first of them */
};
static struct cstats *stats; /* MAP_SHARED: one per child */
static struct cstats *me;

static void fail(const char *what)
{
	if (!me->fails++)
		snprintf(me->why, sizeof(me->why), "%s", what);
}

/* "smallfiles" (argv[4] or later): file sizes and offsets stay below 1 MiB (faultline's
 * truncate of a huge sparse file used to try every page index: minutes to years) */
static int smallfiles;

/* ---------------------------------------------------------------- randomness */
static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(a)	 ((a)[below(NELEM(a))])

/* ---------------------------------------------------------------- raw system calls */
static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* a call of the fuzzer's own bookkeeping (not counted as a fuzz call) */
static long hk(long n, long a, long b, long c)
{
	me->housekeeping++;
	return sys6(n, a, b, c, 0, 0, 0);
}

static int is_err(long r)
{
	return r < 0 && r >= -4095;
}

/* ---------------------------------------------------------------- the fuzzer's memory */
#define ARENA_PAGES 48
static uint64_t arena;	     /* the first interior page; guards at arena - P and arena_end */
static uint64_t arena_end;   /* arena + ARENA_PAGES * P */
static uint64_t holes[2];    /* interior pages unmapped at the start */
static uint64_t unterm;	     /* a page of 'a's (no NUL) followed by a PROT_NONE page */
static unsigned char sbuf[16384]; /* data the kernel may read, never written */
static const struct timespec sleeps[] = {
	{ 0, 0 }, { 0, 1 }, { 0, 1000 }, { 0, 999999 }, { -1, 0 }, { 0, -1 },
	{ 0, 1000000000 }, { -5, 999999999 },
};
static const uint64_t empty_sigset[2];

struct region {
	uint64_t start, len;
};
static struct region tracked[MAX_TRACKED]; /* what the fuzzer's own mmap/mremap made */
static int ntracked, next_evict;

static const uint64_t bad_addrs[] = {
	1, 0xfff, 0x1001, 0x8000, 0xffff, /* below mmap's lowest address: never mapped */
	KDIRECT, KDIRECT + 0x100000, KIMAGE, KIMAGE + 0x100000, KVMAP, KVMAP + 0x6000,
	0xffffffffff600000UL, 0xfffffffffffff000UL, 0xffffffffffffffffUL, NONCANON,
	0x0000800000000000UL, 0x7fffffffffffffffUL, 0xdead000000000000UL,
};

/* an address no access can succeed at: invalid, or a guard page */
static uint64_t ptr_bad(void)
{
	switch (below(8)) {
	case 0:
		return arena - P + PICK(((const uint64_t[]){ 0, 1, 8, 4095 }));
	case 1:
		return arena_end + PICK(((const uint64_t[]){ 0, 1, 8, 4095 }));
	}
	return PICK(bad_addrs);
}

static void track(uint64_t start, uint64_t len)
{
	len = (len + P - 1) & ~(P - 1);
	if (len > TRACK_MAX_LEN || !len) {
		hk(SYS_munmap, (long)start, (long)len, 0);
		return;
	}
	if (ntracked == MAX_TRACKED) { /* full: give back the oldest */
		hk(SYS_munmap, (long)tracked[next_evict].start, (long)tracked[next_evict].len, 0);
		tracked[next_evict] = (struct region){ start, len };
		next_evict = (next_evict + 1) % MAX_TRACKED;
		return;
	}
	tracked[ntracked++] = (struct region){ start, len };
}

/* A buffer the kernel may write: *maxlen is how much may be written there without leaving
 * the fuzzer's memory (UINT64_MAX where a guard page or an invalid address stops any copy). */
static uint64_t ptr_wr(uint64_t *maxlen)
{
	static const uint64_t offs[] = { 0, 1, 7, 8, 63, 4095, 4096, 4097, 8191 };
	uint64_t r = below(100);

	*maxlen = UINT64_MAX;
	if (r < 35) {
		if (below(3) == 0)
			return arena_end - PICK(((const uint64_t[]){ 1, 8, 16, 144, 4096 }));
		return arena + below(ARENA_PAGES) * P + PICK(offs);
	}
	if (r < 55 && ntracked) {
		struct region *t = &tracked[below(ntracked)];
		uint64_t off = below(2) ? 0 : below((t->len - P) / P + 1) * P;

		off += PICK(((const uint64_t[]){ 0, 0, 1, 8, 100 }));
		*maxlen = t->len - off;
		return t->start + off;
	}
	if (r < 70)
		return ptr_bad();
	if (r < 76)
		return 0;
	if (r < 82)
		return holes[below(2)] + PICK(((const uint64_t[]){ 0, 1, 4096 }));
	if (r < 85 && on_faultline()) {
		*maxlen = P; /* maybe the fuzzer's own mapping at the last user page */
		return LASTPAGE;
	}
	return arena + below(ARENA_PAGES * P);
}

/* A buffer the kernel only reads */
static uint64_t ptr_rd(uint64_t *maxlen)
{
	uint64_t r = below(100), off;

	if (r < 70)
		return ptr_wr(maxlen);
	off = below(2) ? 0 : below(sizeof(sbuf));
	*maxlen = sizeof(sbuf) - off;
	return (uint64_t)sbuf + off;
}

static const uint64_t lens[] = {
	0, 1, 2, 7, 8, 15, 16, 63, 64, 144, 255, 256, 257, 4095, 4096, 4097, 8192, 65536,
	1UL << 20, 1UL << 31, 1UL << 32, 1UL << 40, 1UL << 47, 0x7fffffffffffUL, 1UL << 63,
	0xffffffffffffffffUL, 0xfffffffffffff000UL, 0x7fffffffffffffffUL,
};

static uint64_t len_any(void)
{
	return below(4) ? PICK(lens) : below(3 * P);
}

/* a length no larger than maxlen (except when maxlen is UINT64_MAX) */
static uint64_t len_max(uint64_t maxlen)
{
	uint64_t l = len_any();

	if (l > maxlen)
		l = below(2) ? maxlen : below(maxlen + 1);
	return l;
}

static const int64_t ints[] = {
	0, 1, -1, 2, 3, 4, 7, 8, 16, 63, 64, 255, 256, 4095, 4096, 65536, 0x7fffffff,
	-0x80000000L, 0x80000000L, 0xffffffffL, 1L << 32, 1L << 40, 1L << 47, INT64_MIN,
	INT64_MAX, -4096,
};

/* an argument nothing reads as a pointer to valid memory */
static long junk(void)
{
	return below(3) ? (long)PICK(ints) : below(2) ? (long)ptr_bad() : (long)below(100);
}

/* [start, start + len) inside one of the fuzzer's own regions: the arena or a mapping of
 * its own. len may end mid-page (rounded up it still stays inside). */
static void range_own(uint64_t *start, uint64_t *len)
{
	uint64_t base = arena, n = ARENA_PAGES, p, k;

	if (ntracked && below(5) < 2) {
		struct region *t = &tracked[below(ntracked)];

		base = t->start;
		n = t->len / P;
	}
	p = below(n);
	k = below(4) ? below(n - p) + 1 : below(n - p + 1);
	if (below(4) == 0 && k > 1)
		k = 1;
	*start = base + p * P;
	*len = k * P;
	if (k && below(4) == 0)
		*len -= 1 + below(P - 1);
}

/* a range for munmap and friends: the fuzzer's own, or one no kernel acts on */
static void range_any(uint64_t *start, uint64_t *len)
{
	range_own(start, len);
	switch (below(12)) {
	case 0: /* unaligned start: EINVAL before anything is looked at */
		*start += 1 + below(P - 1);
		*len = len_any();
		break;
	case 1: /* a length that rounds up to 0 or wraps around */
		*len = PICK(((const uint64_t[]){ 0xffffffffffffffffUL, 0xfffffffffffff001UL,
						 0xfffffffffffff000UL }));
		break;
	case 2: /* kernel or non-canonical */
		*start = PICK(((const uint64_t[]){ KDIRECT, KIMAGE, KVMAP, KVMAP + 0x6000,
						   NONCANON, 0x0000800000000000UL,
						   0xfffffffffffff000UL }));
		*len = len_any();
		break;
	case 3: /* NULL: nothing can be mapped below 64 KiB */
		*start = 0;
		*len = PICK(((const uint64_t[]){ 0, 1, 4096, 0x10000 }));
		break;
	case 4:
		if (on_faultline()) {
			*start = LASTPAGE;
			*len = PICK(((const uint64_t[]){ 0, 1, 4096 }));
		}
		break;
	}
}

/* ---------------------------------------------------------------- descriptors */
static int scratch_fd, ro_fd, bin_fd, dir_fd;
static int owned[MAX_OWNED], nowned;
static unsigned char protected_fd[1024]; /* open before the fuzzer ran (stdin...): never touch */

static int fd_ok_to_change(long v)
{
	unsigned int low = (unsigned int)v; /* Linux drops the high 32 bits of an fd */

	return !(low < sizeof(protected_fd) && protected_fd[low]) && low != (unsigned)scratch_fd &&
	       low != (unsigned)ro_fd && low != (unsigned)bin_fd && low != (unsigned)dir_fd;
}

static const int64_t bad_fds[] = {
	-1, -100, 64, 100, 1023, 1024, 65535, 0x7fffffff, 0xffffffffL, (1L << 32) | 99999,
	INT64_MIN,
};

/* a descriptor number that names nothing (or something of the fuzzer's own) */
static long fd_bad(void)
{
	for (;;) {
		long v = (long)PICK(bad_fds);

		if (fd_ok_to_change(v) || (unsigned int)v == (unsigned)-1 || v == -100)
			return v;
	}
}

static void own(long fd)
{
	int i;

	if (is_err(fd) || fd < 0)
		return;
	if (!fd_ok_to_change(fd))
		return; /* dup2 onto one of the fuzzer's base descriptors: it still is one */
	for (i = 0; i < nowned; i++)
		if (owned[i] == fd)
			return;
	if (nowned == MAX_OWNED) {
		hk(SYS_close, fd, 0, 0);
		return;
	}
	owned[nowned++] = (int)fd;
}

static void disown(long fd)
{
	for (int i = 0; i < nowned; i++)
		if (owned[i] == fd) {
			owned[i] = owned[--nowned];
			return;
		}
}

/* a descriptor of the fuzzer's own that may be read, written, closed or duplicated */
static long fd_own(void)
{
	if (nowned && below(2))
		return owned[below(nowned)];
	return below(3) ? fd_bad() : PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
}

/* any descriptor for a call that only reads information about it (never data) */
static long fd_any(void)
{
	if (below(6) == 0)
		return (long)below(3); /* stdin, stdout, stderr: fstat, ioctl(TCGETS) and such */
	if (below(4) == 0)
		return PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* for read(): stdin is the console under faultline (end of file), but may be a terminal
 * natively, where a read would wait for a key */
static long fd_read(void)
{
	if (on_faultline() && below(8) == 0)
		return (long)below(3);
	if (on_faultline() && below(16) == 0)
		return (long)((1UL << 32) | below(3)); /* high bits must not be dropped */
	if (below(3) == 0)
		return PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* for write(), ftruncate() and such: the scratch file, its duplicates, or something that
 * refuses (a read-only descriptor of the fuzzer's, an invalid number) */
static long fd_write(void)
{
	if (below(3) == 0)
		return scratch_fd;
	if (below(4) == 0)
		return PICK(((const int[]){ ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* ---------------------------------------------------------------- paths */

static char dir[128], scratch_path[160], bin_path[512];
#define NPRIV 12
static char priv[NPRIV][192];	/* under dir: mkdir/rmdir/unlink/creat */
static char longname[400], pathmax[4200], privlong[600];
static const char *paths[48];
static int npaths;

static void paths_init(const char *argv0)
{
	static const char *const fixed[] = {
		"/", "/bin", "/bin/", "/proc/self/maps", "/etc/motd", "/nonexistent",
		"/nonexistent/deeper/x", "", ".", "..", "bin", "etc/motd", "/etc/../etc/motd",
		"////", "/bin/./fuzz", "/etc/motd/x", "/tmp", "/tmp/",
	};
	static const char *const sub[NPRIV] = {
		"a", "b", "a/c", "f", "a/f", "b/../a", "a/.", "a/", "//a//c", "scratch/x", "c/d/e",
		"f/g",
	};
	unsigned i;

	snprintf(bin_path, sizeof(bin_path), "%s", argv0);
	for (i = 0; i < NPRIV; i++)
		snprintf(priv[i], sizeof(priv[i]), "%s/%s", dir, sub[i]);
	memset(longname, 'x', sizeof(longname) - 1);
	memcpy(longname, "/tmp/", 5);
	longname[5 + 256] = '\0'; /* one byte over NAME_MAX */
	for (i = 0; i + 2 < sizeof(pathmax); i += 2)
		memcpy(pathmax + i, "/a", 2);
	pathmax[4096] = '\0'; /* exactly PATH_MAX characters: too long with its NUL */
	snprintf(privlong, sizeof(privlong), "%s/", dir);
	memset(privlong + strlen(privlong), 'y', 300);
	for (i = 0; i < NELEM(fixed); i++)
		paths[npaths++] = fixed[i];
	paths[npaths++] = bin_path;
	paths[npaths++] = scratch_path;
	paths[npaths++] = dir;
	paths[npaths++] = longname;
	paths[npaths++] = pathmax;
	paths[npaths++] = longname + 200; /* relative, 61 x's */
}

/* a path for open/stat/readlink: any string of the pool, a private one, or a bad pointer */
static uint64_t path_ro(void)
{
	uint64_t r = below(100);

	if (r < 55)
		return (uint64_t)paths[below(npaths)];
	if (r < 75)
		return (uint64_t)priv[below(NPRIV)];
	if (r < 80)
		return unterm + P - 1 - below(64); /* runs into a PROT_NONE page: EFAULT */
	if (r < 83)
		return (uint64_t)privlong;
	if (r < 88)
		return 0;
	return ptr_bad();
}

/* a path for the calls that create or remove: only inside the private directory */
static uint64_t path_priv(void)
{
	uint64_t r = below(100);

	if (r < 80)
		return (uint64_t)priv[below(NPRIV)];
	if (r < 84)
		return (uint64_t)privlong;
	if (r < 88)
		return unterm + P - 1 - below(64);
	if (r < 92)
		return 0;
	return ptr_bad();
}

/* open flags: always read-only in effect (nothing created, truncated or appended) */
static long oflags(void)
{
	static const long extra[] = { O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY,
				      O_LARGEFILE, O_NOATIME, O_PATH, O_SYNC, O_EXCL };
	long f = 0;

	for (int i = (int)below(3); i > 0; i--)
		f |= PICK(extra);
	if (below(16) == 0)
		f |= (long)(rnd() & 0xffffffff00000000UL); /* bits no open flag has */
	f &= ~(long)(O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECT | 020000000 /* TMPFILE */);
	return f | (below(16) == 0 ? 3 : O_RDONLY); /* 3: the invalid access mode */
}

/* ---------------------------------------------------------------- the calls */
static long a[6];
static long nr;

/* After a call that may grow the scratch file: cut it back if it is over FILE_MAX, so the
 * page cache (faultline keeps every page of a file) and the disk stay small. */
static void check_file_size(void)
{
	struct stat st;

	if (hk(SYS_fstat, scratch_fd, (long)&st, 0) == 0 && (uint64_t)st.st_size > FILE_MAX)
		hk(SYS_ftruncate, scratch_fd, (long)below(3 * P), 0);
}


static long lseek_off(void)
{
	static const int64_t offs[] = { 0, 1, 4095, 4096, 1L << 20, 1L << 30, (1L << 40) - 1,
					1L << 40, 1L << 62, INT64_MAX, -1, -4096, INT64_MIN };
	if (smallfiles && below(2))
		return (long)PICK(offs) & 0xfffff;
	return below(2) ? (long)PICK(offs) : (long)below(4 * P);
}

/* the brk of the child before its calls: it never goes below this (musl's heap) */
static uint64_t brk0;

/* Fill nr and a[] with one allowed call; after() sees its result. */
static void gen(void)
{
	uint64_t m, m2, s, l;
	int i;

	for (i = 0; i < 6; i++)
		a[i] = junk();
	switch (below(62)) {
	case 0: case 1: case 2:
		nr = SYS_read;
		a[0] = fd_read();
		a[1] = (long)ptr_wr(&m);
		a[2] = (long)len_max(m);
		break;
	case 3: case 4:
		nr = SYS_write;
		if (below(8) == 0) { /* the console or the host's log, with a buffer that faults */
			a[0] = 1 + (long)below(2);
			a[1] = (long)ptr_bad();
			a[2] = (long)len_any();
		} else {
			a[0] = fd_write();
			a[1] = (long)ptr_rd(&m);
			a[2] = (long)len_max(m);
		}
		break;
	case 5: case 6:
		nr = SYS_open;
		a[0] = (long)path_ro();
		a[1] = oflags();
		a[2] = (long)PICK(ints);
		break;
	case 7: case 8:
		nr = SYS_close;
		a[0] = fd_own();
		if (!fd_ok_to_change(a[0]))
			a[0] = fd_bad();
		break;
	case 9:
		nr = below(2) ? SYS_stat : SYS_lstat;
		a[0] = (long)path_ro();
		a[1] = (long)ptr_wr(&m);
		break;
	case 10:
		nr = SYS_fstat;
		a[0] = fd_any();
		a[1] = (long)ptr_wr(&m);
		break;
	case 11:
		nr = SYS_lseek;
		a[0] = below(2) ? fd_write() : fd_own();
		a[1] = lseek_off();
		a[2] = (long)below(7) - 1;
		break;
	case 12: case 13: case 14: {
		static const long types[] = { MAP_PRIVATE, MAP_PRIVATE, MAP_SHARED, MAP_SHARED,
					      MAP_SHARED | MAP_PRIVATE, 0, 0xf };
		static const long extra[] = { MAP_ANONYMOUS, MAP_ANONYMOUS, MAP_NORESERVE,
					      MAP_GROWSDOWN, MAP_STACK, MAP_FIXED_NOREPLACE,
					      MAP_32BIT, MAP_DENYWRITE, MAP_EXECUTABLE, MAP_NONBLOCK,
					      MAP_HUGETLB, 0x800000 /* unknown */ };
		static const uint64_t hints[] = { 0, 0, 0, 0x10000, 0x200000000000UL, KDIRECT,
						  NONCANON, 0xfffffffffffff000UL, 0x1000 };
		static const int64_t offs[] = { 0, 0, 0, 4096, 8192, 1, 4095, 1L << 20, 1L << 40,
						-4096, 1L << 62, -1 };

		nr = SYS_mmap;
		switch (below(6)) {
		case 0: a[0] = (long)(holes[below(2)] + (below(4) ? 0 : 1)); break;
		case 1: a[0] = (long)(arena + below(ARENA_PAGES) * P); break;
		case 2: a[0] = on_faultline() ? (long)LASTPAGE : 0; break;
		default: a[0] = (long)PICK(hints);
		}
		a[1] = (long)len_any();
		a[2] = below(8) ? (long)below(8) : (long)PICK(((const long[]){ 8, 0x10, 0x01000000,
								      0x02000000, -1 }));
		a[3] = PICK(types);
		for (i = below(4); i > 0; i--)
			a[3] |= PICK(extra);
		a[3] &= ~(long)(MAP_FIXED | MAP_POPULATE | MAP_LOCKED);
		/* Linux takes a MAP_FIXED_NOREPLACE hint as is, and root may map below 64 KiB
		 * (even page 0), where the "never mapped" addresses are */
		if ((uint64_t)a[0] < 0x10000)
			a[3] &= ~(long)MAP_FIXED_NOREPLACE;
		a[4] = (a[3] & MAP_ANONYMOUS) && below(2) ? -1 : below(2) ? fd_own() : fd_read();
		if (a[4] >= 0 && a[4] < 3)
			a[4] = scratch_fd; /* never the terminal or the host's log */
		a[5] = (long)PICK(offs);
		/* faultline fills shared anonymous memory at mmap time: keep that small */
		if (on_faultline() && (a[3] & MAP_SHARED) && (a[3] & MAP_ANONYMOUS) &&
		    (uint64_t)a[1] > (1UL << 20))
			a[1] = (long)below(1UL << 20);
		break;
	}
	case 15: case 16:
		nr = SYS_mprotect;
		range_any(&s, &l);
		a[0] = (long)s;
		a[1] = (long)l;
		a[2] = below(8) ? (long)below(8) : (long)PICK(((const long[]){ 8, 0x01000000 | 3,
								      0x02000000, -1 }));
		break;
	case 17: case 18:
		nr = SYS_munmap;
		range_any(&s, &l);
		a[0] = (long)s;
		a[1] = (long)l;
		break;
	case 19: {
		uint64_t v = brk0 + below(4096) * P + (below(4) ? 0 : below(P));

		nr = SYS_brk;
		switch (below(6)) {
		case 0: v = 0; break;
		case 1: v = brk0; break;
		case 2: v = ptr_bad(); break;
		case 3: v = PICK(((const uint64_t[]){ brk0 + (1UL << 32), brk0 + (1UL << 32) + P,
						       LASTPAGE, 0x10000 })); break;
		}
		a[0] = (long)v;
		break;
	}
	case 20: /* the actions are only read: a new one would be a bad pointer */
		nr = SYS_rt_sigaction;
		a[0] = below(4) ? (long)below(66) : (long)PICK(ints);
		a[1] = below(2) ? 0 : (long)ptr_bad();
		a[2] = below(3) ? (long)ptr_wr(&m) : 0;
		a[3] = below(4) ? 8 : (long)PICK(ints);
		break;
	case 21: /* the mask is only read, or "changed" by the empty set */
		nr = SYS_rt_sigprocmask;
		a[0] = (long)below(5) - 1;
		a[1] = below(3) == 0 ? 0 : below(2) ? (long)empty_sigset : (long)ptr_bad();
		a[2] = below(3) ? (long)ptr_wr(&m) : 0;
		a[3] = below(4) ? 8 : (long)PICK(ints);
		break;
	case 22:
		nr = SYS_ioctl;
		a[0] = fd_any();
		a[1] = PICK(((const long[]){ 0x5401 /* TCGETS */, 0x5413 /* TIOCGWINSZ */,
					     0x541b /* FIONREAD */, 0x5451 /* FIOCLEX */,
					     0x5450 /* FIONCLEX */, 0, -1, 0xdeadbeef }));
		a[2] = (long)ptr_wr(&m);
		break;
	case 23: case 24:
		nr = SYS_pread64;
		a[0] = fd_read();
		a[1] = (long)ptr_wr(&m);
		a[2] = (long)len_max(m);
		a[3] = lseek_off();
		break;
	case 25: case 26:
		nr = SYS_pwrite64;
		a[0] = fd_write();
		a[1] = (long)ptr_rd(&m);
		a[2] = (long)len_max(m);
		a[3] = lseek_off();
		break;
	case 27: {
		static struct iovec iov[4];

		nr = SYS_writev;
		for (i = 0; i < 4; i++) {
			iov[i].iov_base = (void *)ptr_rd(&m);
			iov[i].iov_len = len_max(m);
		}
		if (below(8) == 0) {
			a[0] = 1 + (long)below(2);
			a[1] = (long)ptr_bad();
		} else {
			a[0] = fd_write();
			a[1] = below(8) ? (long)(iov + below(4)) : (long)ptr_bad();
		}
		a[2] = below(4) ? (long)below(5) : (long)PICK(((const long[]){ 1024, 1025, -1 }));
		if (a[1] >= (long)iov && a[1] < (long)(iov + 4) && a[2] > iov + 4 - (struct iovec *)a[1])
			a[2] = iov + 4 - (struct iovec *)a[1]; /* never past the array */
		break;
	}
	case 28:
		nr = SYS_sched_yield;
		break;
	case 29:
		nr = SYS_dup;
		a[0] = below(4) ? fd_own() : PICK(((const int[]){ scratch_fd, ro_fd, dir_fd }));
		break;
	case 30:
		nr = below(2) ? SYS_dup2 : SYS_dup3;
		a[0] = below(3) ? fd_own() : PICK(((const int[]){ scratch_fd, ro_fd, bin_fd }));
		a[1] = below(3) ? fd_own() : (long)PICK(((const int64_t[]){ 10, 20, 40, 63, 64,
									   1000, 99999, -1 }));
		if (!fd_ok_to_change(a[1]))
			a[1] = fd_bad();
		a[2] = below(3) ? 0 : below(2) ? O_CLOEXEC : (long)PICK(ints);
		break;
	case 31: /* short sleeps only: the requests are the fuzzer's own or bad pointers */
		nr = SYS_nanosleep;
		if (below(4)) {
			a[0] = (long)(below(2) ? ptr_bad() : 0);
		} else {
			a[0] = (long)&sleeps[below(NELEM(sleeps))];
			if (below(4))
				a[0] = (long)&sleeps[4 + below(4)]; /* the invalid ones, mostly */
		}
		a[1] = below(2) ? 0 : (long)ptr_wr(&m);
		break;
	case 32:
		nr = PICK(((const int[]){ SYS_getpid, SYS_getppid, SYS_gettid, SYS_getuid,
					  SYS_getgid, SYS_geteuid, SYS_getegid }));
		break;
	case 33: /* out: only where nothing is written, or the scratch file, a little */
		nr = SYS_sendfile;
		switch (below(4)) {
		case 0: a[0] = 1; a[3] = 0; break;
		case 1: /* a bad number may be one of the fuzzer's descriptors by now */
			a[0] = below(2) ? scratch_fd : fd_own();
			a[3] = (long)below(65536);
			break;
		default:
			a[0] = PICK(((const long[]){ ro_fd, bin_fd, dir_fd, -1 }));
			a[3] = (long)len_any();
		}
		a[1] = fd_read();
		a[2] = below(2) ? 0 : (long)ptr_wr(&m);
		break;
	case 34:
		nr = SYS_wait4;
		a[0] = PICK(((const long[]){ -1, 0, 1, 99999, -0x80000000L, 2 }));
		a[1] = below(4) ? (long)ptr_wr(&m) : 0;
		a[2] = PICK(((const long[]){ 0, 1 /* WNOHANG */, 2, 0x40000000, 0x80000000, 1 | 0x40000000,
					     -1 }));
		a[3] = below(2) ? 0 : (long)ptr_wr(&m);
		break;
	case 35: /* signal 0 only: "does it exist" */
		nr = SYS_kill;
		a[0] = PICK(((const long[]){ 0, -1, 1, 99999, -0x80000000L }));
		if (below(2))
			a[0] = (long)getpid();
		a[1] = 0;
		break;
	case 36:
		nr = SYS_uname;
		a[0] = (long)ptr_wr(&m);
		break;
	case 37: case 38:
		nr = SYS_fcntl;
		a[0] = fd_own();
		switch (below(8)) {
		case 0: case 1: a[1] = F_DUPFD; a[2] = (long)PICK(((const int64_t[]){ 0, 3, 20, 63, 64, 1L << 32, -1 })); break;
		case 2: a[1] = F_DUPFD_CLOEXEC; a[2] = (long)below(70); break;
		case 3: a[1] = F_GETFD; break;
		case 4: a[1] = F_SETFD; a[2] = (long)below(3) - 1; break;
		case 5: a[1] = F_GETFL; break;
		case 6: a[1] = F_SETFL; a[2] = below(2) ? 0 : O_NONBLOCK; break;
		case 7: a[1] = PICK(((const long[]){ -1, 9999, 0x7fffffff })); break;
		}
		if (below(4) == 0 && (a[1] == F_GETFD || a[1] == F_GETFL))
			a[0] = fd_any(); /* reading the flags of anything: harmless */
		if (a[1] == F_SETFD && !fd_ok_to_change(a[0]))
			a[0] = fd_bad();
		break;
	case 39: /* natively a sync of the dirty scratch file takes ~50 ms: files without
		  * dirty data only (under faultline there is nothing to write back) */
		nr = below(2) ? SYS_fsync : SYS_fdatasync;
		a[0] = below(3) ? fd_bad() : on_faultline() ? fd_own()
				: PICK(((const int[]){ bin_fd, dir_fd }));
		break;
	case 40: case 41: {
		static const int64_t sizes[] = { 0, 1, 4095, 4096, 4097, 1L << 20, 1L << 30,
						 (1L << 40) - 1, 1L << 40, 1L << 41, INT64_MAX,
						 -1, INT64_MIN };

		nr = SYS_ftruncate;
		a[0] = fd_write();
		a[1] = below(2) ? (long)PICK(sizes) : (long)below(5 * P);
		if (smallfiles && a[1] > 0)
			a[1] &= 0xfffff;
		break;
	}
	case 42:
		nr = PICK(((const int[]){ SYS_mkdir, SYS_rmdir, SYS_unlink, SYS_creat }));
		a[0] = (long)path_priv();
		a[1] = PICK(((const long[]){ 0, 0777, 0700, 07777, -1 }));
		break;
	case 43:
		nr = SYS_readlink;
		a[0] = (long)path_ro();
		a[1] = (long)ptr_wr(&m);
		a[2] = (long)len_max(m);
		break;
	case 44:
		nr = SYS_getrusage;
		a[0] = PICK(((const long[]){ 0, -1, 1, 2, -2, 99 }));
		a[1] = (long)ptr_wr(&m);
		break;
	case 45: { /* the name is read from pool strings or bad pointers; written to buffers */
		nr = SYS_prctl;
		a[0] = PICK(((const long[]){ 15 /* PR_SET_NAME */, 16 /* PR_GET_NAME */, 0, -1, 9999 }));
		if (a[0] == 15)
			a[1] = (long)path_ro();
		else
			a[1] = (long)ptr_wr(&m);
		break;
	}
	case 46: /* only the "get" codes */
		nr = SYS_arch_prctl;
		a[0] = PICK(((const long[]){ 0x1003 /* GET_FS */, 0x1004 /* GET_GS */,
					     0x1011 /* GET_CPUID */, 0x1021, 0x1022, 0, 0x9999, -1 }));
		a[1] = (long)ptr_wr(&m);
		break;
	case 47:
		nr = below(2) ? SYS_time : SYS_clock_gettime;
		if (nr == SYS_time) {
			a[0] = below(4) ? (long)ptr_wr(&m) : 0;
		} else {
			a[0] = below(4) ? (long)below(12) : (long)PICK(((const long[]){ -1, -2, 100, INT64_MIN }));
			a[1] = (long)ptr_wr(&m);
		}
		break;
	case 48: case 49: {
		static const int64_t pgoffs[] = { 0, 1, 2, 7, 8, 1000, 1L << 20, 1L << 36, -1 };

		nr = SYS_remap_file_pages;
		if (below(3)) { /* mostly the arena's shared file pages */
			uint64_t p = 26 + below(8), k = below(34 - p + 1);

			s = arena + p * P;
			l = k * P;
		} else {
			range_any(&s, &l);
		}
		a[0] = (long)s;
		a[1] = (long)l;
		a[2] = below(4) ? 0 : (long)PICK(((const long[]){ 1, 7, -1 }));
		a[3] = below(2) ? (long)below(12) : (long)PICK(pgoffs);
		a[4] = PICK(((const long[]){ 0, 0, 0x10000 /* MAP_NONBLOCK */, 0x10001, -1 }));
		break;
	}
	case 50:
		nr = SYS_getdents64;
		a[0] = below(2) ? dir_fd : fd_any();
		a[1] = (long)ptr_wr(&m);
		a[2] = (long)len_max(m);
		if (below(2) && a[0] == dir_fd)
			hk(SYS_lseek, dir_fd, 0, SEEK_SET);
		break;
	case 51:
		nr = SYS_openat;
		a[0] = PICK(((const long[]){ AT_FDCWD, AT_FDCWD, -1, 99999 }));
		if (below(3) == 0)
			a[0] = PICK(((const int[]){ dir_fd, bin_fd }));
		a[1] = (long)path_ro();
		a[2] = oflags();
		a[3] = (long)PICK(ints);
		break;
	case 52:
		nr = below(2) ? SYS_mkdirat : SYS_unlinkat;
		a[0] = PICK(((const long[]){ AT_FDCWD, AT_FDCWD, -1, 99999 }));
		a[1] = (long)path_priv();
		a[2] = nr == SYS_mkdirat ? PICK(((const long[]){ 0, 0777, 0700, -1 }))
					 : PICK(((const long[]){ 0, 0, 0x200 /* AT_REMOVEDIR */, 1, -1 }));
		break;
	case 53:
		nr = SYS_newfstatat;
		a[0] = PICK(((const long[]){ AT_FDCWD, AT_FDCWD, -1, 99999 }));
		if (below(3) == 0)
			a[0] = fd_any();
		a[1] = (long)path_ro();
		a[2] = (long)ptr_wr(&m);
		a[3] = PICK(((const long[]){ 0, 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH,
					     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0xdead, -1 }));
		break;
	case 54: /* limits are only read */
		nr = SYS_prlimit64;
		a[0] = PICK(((const long[]){ 0, 0, 1, -1, 99999 }));
		if (below(3) == 0)
			a[0] = (long)getpid();
		a[1] = below(4) ? (long)below(17) : (long)PICK(ints);
		a[2] = 0;
		a[3] = below(4) ? (long)ptr_wr(&m) : 0;
		break;
	case 55: case 56:
		nr = SYS_getrandom;
		a[0] = (long)ptr_wr(&m);
		a[1] = (long)len_max(m);
		a[2] = PICK(((const long[]){ 0, 0, 1, 2, 3, 4, 7, 8, -1 }));
		break;
	case 57: case 58: {
		nr = SYS_mremap;
		range_own(&s, &l);
		switch (below(8)) {
		case 0: /* unaligned: EINVAL before anything is looked at */
			s += 1 + below(P - 1);
			l = len_any();
			break;
		case 1: /* nothing mapped there: the lengths are never used */
			s = PICK(((const uint64_t[]){ KDIRECT, KIMAGE, KVMAP + 0x6000, NONCANON,
						       0x0000800000000000UL, 0xfffffffffffff000UL }));
			l = len_any();
			break;
		case 2:
			s = 0;
			l = PICK(((const uint64_t[]){ 0, 1, 4096, 0x10000 }));
			break;
		}
		/* A valid start never comes with an old length past the fuzzer's region: Linux
		 * shrinks by unmapping [start + new, start + old) before checking old. */
		switch (below(5)) {
		case 0: m2 = l + P; break;
		case 1: m2 = l > P ? l - P : l; break;
		case 2: m2 = 2 * l; break;
		case 3: m2 = PICK(((const uint64_t[]){ 0, 1, 1UL << 30, 1UL << 40,
							0xfffffffffffff000UL, 0xffffffffffffffffUL })); break;
		default: m2 = below(8) * P + (below(2) ? 0 : 1);
		}
		a[0] = (long)s;
		a[1] = (long)l;
		a[2] = (long)m2;
		/* never MREMAP_FIXED (2) without a bit that makes the flags invalid first */
		a[3] = PICK(((const long[]){ 0, 0, 1 /* MAYMOVE */, 1, 5 /* MAYMOVE|DONTUNMAP */, 4,
					     8, 0xff, -1 }));
		a[4] = 0;
		break;
	}
	case 59:
		nr = SYS_msync;
		range_any(&s, &l);
		a[0] = (long)s;
		a[1] = (long)l;
		a[2] = PICK(((const long[]){ 0, 1, 1, 2, 3, 4, 5, 6, 8, -1 }));
		if (!on_faultline() && (a[2] & 4))
			a[2] |= 1; /* MS_SYNC|MS_ASYNC: EINVAL; a real MS_SYNC waits for the disk */
		break;
	case 60: case 61:
		nr = SYS_madvise;
		range_any(&s, &l);
		a[0] = (long)s;
		a[1] = (long)l;
		/* never MADV_HWPOISON (100) or MADV_SOFT_OFFLINE (101) */
		a[2] = PICK(((const long[]){ 0, 1, 2, 3, 4, 4, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18,
					     19, 20, 21, 22, 23, 5, 6, 7, 1000, -1 }));
		break;
	}
	if (on_faultline() && below(40) == 0) { /* faultline's own introspection call */
		nr = SYS_fl_vminfo;
		a[0] = below(5) ? (long)below(3) : (long)PICK(ints);
		a[1] = below(2) ? (long)ptr_wr(&m) : (long)PICK(bad_addrs);
		a[2] = (long)ptr_wr(&m);
	}
}

/* what the call's result means for the fuzzer's bookkeeping */
static void after(long r)
{
	int i;

	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_dup: case SYS_dup2: case SYS_dup3:
		own(r);
		break;
	case SYS_fcntl:
		if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC)
			own(r);
		break;
	case SYS_creat: /* keep the empty file, not the descriptor */
		if (!is_err(r) && r >= 0 && fd_ok_to_change(r))
			hk(SYS_close, r, 0, 0);
		break;
	case SYS_close:
		if (r == 0)
			disown(a[0]);
		break;
	case SYS_mmap:
		if (!is_err(r))
			track((uint64_t)r, (uint64_t)a[1]);
		break;
	case SYS_mremap:
		if (!is_err(r)) {
			if ((uint64_t)r != (uint64_t)a[0] || (uint64_t)a[2] > (uint64_t)a[1])
				track((uint64_t)r, (uint64_t)a[2]);
		}
		break;
	case SYS_write: case SYS_pwrite64: case SYS_writev: case SYS_ftruncate:
	case SYS_sendfile:
		check_file_size();
		break;
	}
	for (i = 0; i < nowned && nowned > MAX_OWNED - 4; i++) /* keep room in the table */
		if (below(2)) {
			hk(SYS_close, owned[i], 0, 0);
			owned[i] = owned[--nowned];
		}
}

/* ---------------------------------------------------------------- the random part */
static const short fl_impl[] = { /* kernel/syscall.c's sys_call_table, and its quiet ones */
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 20, 24, 25, 26, 28, 32, 33,
	35, 39, 40, 57, 58, 59, 60, 61, 62, 63, 72, 74, 75, 77, 83, 84, 85, 87, 89, 98, 102,
	104, 107, 108, 110, 157, 158, 186, 201, 216, 217, 218, 228, 231, 257, 258, 262, 263,
	273, 292, 302, 318, 334, 500,
};
/* Linux numbers never used at random, even as "unknown": if faultline implements one some
 * day, it could block forever, end the process, send signals or change state the fuzzer
 * relies on (fds, signal dispositions, memory it did not map, the scheduler, the machine). */
static const short never[] = {
	7, 15, 19, 22, 23, 29, 30, 31, 34, 37, 38, 41, 42, 43, 45, 47, 53, 56, 67, 76, 80, 81, 82,
	86, 88, 90, 92, 94, 101, 105, 106, 112, 113, 114, 117, 119, 122, 123, 126, 128, 129,
	130, 131, 135, 142, 144, 149, 150, 151, 152, 154, 155, 160, 161, 163, 164, 165, 166,
	167, 168, 169, 170, 171, 172, 173, 175, 176, 179, 200, 202, 203, 206, 208, 209, 222,
	223, 227, 230, 232, 234, 246, 247, 248, 249, 250, 270, 271, 275, 276, 278, 281, 282,
	283, 284, 286, 288, 289, 290, 291, 293, 294, 295, 296, 297, 298, 299, 305, 310, 311,
	313, 314, 317, 320, 321, 322, 323, 325, 327, 328, 329, 333, 424, 425, 426, 427, 434,
	435, 436, 438, 440, 441, 444, 445, 446, 448, 449, 453, 454, 455, 456, 462,
};
static unsigned char avoid[512];
static short unknown[512];
static int nunknown;

static void random_init(void)
{
	unsigned i;

	for (i = 0; i < NELEM(fl_impl); i++)
		avoid[fl_impl[i]] = 1;
	for (i = 0; i < NELEM(never); i++)
		avoid[never[i]] = 1;
	for (i = 0; i < 480; i++)
		if (!avoid[i])
			unknown[nunknown++] = (short)i;
}

static void gen_random(void)
{
	static const uint64_t odd[] = { 1UL << 32, (1UL << 32) | 1, (1UL << 32) | 39,
					(1UL << 32) | 60, 0x80000000UL, 0xffffffffUL,
					0xffffffffffffffffUL, 512, 1023, 0x8000000000000001UL,
					499, 501, 547 };
	int i;

	for (i = 0; i < 6; i++)
		a[i] = junk();
	if (!on_faultline()) /* numbers Linux has no system call for (and no x32 alias of) */
		nr = below(10) ? 1000 + (int)below(100000) : -1;
	else
		nr = below(7) ? unknown[below(nunknown)] : (long)PICK(odd);
}

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

static int setup(int idx, const char *argv0)
{
	uint64_t base;
	int fd;

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

	/* before the arena's holes exist (it would land in one) */
	unterm = fuzz_mmap(2 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!unterm || mprotect((void *)(unterm + P), P, PROT_NONE))
		return fail("mmap the unterminated string"), -1;
	memset((void *)unterm, 'a', P);

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

	/* every descriptor open now that is not the fuzzer's is left alone */
	for (fd = 0; fd < (int)sizeof(protected_fd); fd++)
		protected_fd[fd] = fcntl(fd, F_GETFD) >= 0 && fd != scratch_fd && fd != ro_fd &&
				   fd != bin_fd && fd != dir_fd;
	paths_init(argv0);
	brk0 = (uint64_t)sys6(SYS_brk, 0, 0, 0, 0, 0, 0);
	return 0;
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

/* After the calls: does the process still work? */
static void final_checks(pid_t pid)
{
	unsigned char got[P], want[P];
	char *q;
	size_t i;
	int fd;

	if (getpid() != pid || (pid_t)syscall(SYS_gettid) != pid)
		fail("getpid changed");
	sys6(SYS_brk, (long)brk0, 0, 0, 0, 0, 0);
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
	{
		const char *lo = maps_perms((void *)(arena - P)), *hi = maps_perms((void *)arena_end);

		if (!lo || !hi || strncmp(lo, "---", 3) || strncmp(hi, "---", 3))
			fail("a guard page is no longer PROT_NONE");
	}
}

/* FUZZ_DEBUG=1: after every call, check that the fuzzer's own memory is intact (slow) */
static int debug, trace;
static long trace_from;

static int intact(void)
{
	const char *p;

	if (!(p = maps_perms((void *)(arena - P))) || strncmp(p, "---", 3) ||
	    !(p = maps_perms((void *)arena_end)) || strncmp(p, "---", 3) ||
	    !(p = maps_perms((void *)(unterm + P))) || strncmp(p, "---", 3) ||
	    !(p = maps_perms((void *)stats)) || strncmp(p, "rw-s", 4) ||
	    maps_perms((void *)0) || maps_perms((void *)0xffff))
		return 0;
	return 1;
}

static void child(int idx, long calls, uint64_t seed, const char *argv0)
{
	pid_t pid = getpid();
	long i, r;

	me = &stats[idx];
	rs = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)idx * 0xbf58476d1ce4e5b9ULL + 1;
	for (i = 0; i < 8; i++)
		rnd();
	random_init();
	if (setup(idx, argv0) == 0) {
		for (i = 0; i < calls; i++) {
			int rand_call = below(10) == 0;

			if (rand_call)
				gen_random();
			else
				gen();
			if (trace && i >= trace_from) {
				char t[200];
				int n = snprintf(t, sizeof(t), "fuzz[%d] %ld: %#lx(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n",
						 idx, i, nr, a[0], a[1], a[2], a[3], a[4], a[5]);
				sys6(SYS_write, 2, (long)t, n, 0, 0, 0);
			}
			r = sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
			count(r);
			if (rand_call) {
				me->random++;
				me->enosys_random += r == -ENOSYS;
				if (r != -ENOSYS && !me->fails++)
					snprintf(me->why, sizeof(me->why),
						 "unknown system call %#lx returned %ld, not -ENOSYS",
						 (unsigned long)nr, r);
			} else {
				after(r);
			}
			if (debug && !intact()) {
				fprintf(stderr, "fuzz: child %d call %ld: nr %#lx (%#lx, %#lx, %#lx, %#lx, "
					"%#lx, %#lx) = %ld broke the fuzzer's memory\n", idx, i, nr,
					a[0], a[1], a[2], a[3], a[4], a[5], r);
				_exit(3);
			}
		}
		final_checks(pid);
	}
	/* clean up: every file and directory of this child, so its frames come back */
	close(scratch_fd);
	close(ro_fd);
	for (i = 0; i < nowned; i++)
		close(owned[i]);
	if (dir[0])
		remove_tree(dir, 0);
	me->done = 1;
	_exit(me->fails ? 1 : 0);
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
			fprintf(stderr, "fuzz:   child %d (pid %d, seed %llu) was killed by signal %d "
				"(%s) after %ld calls\n", i, (int)pids[i], (unsigned long long)seed,
				WTERMSIG(st), strsignal(WTERMSIG(st)), stats[i].calls);
		} else if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && stats[i].done)) {
			fprintf(stderr, "fuzz:   child %d (pid %d) exited %d after %ld calls%s: %s\n",
				i, (int)pids[i], WEXITSTATUS(st), stats[i].calls,
				stats[i].done ? "" : " without finishing", stats[i].why);
		}
		CHECK_EQ(stats[i].calls, per);
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
	}
	if (nproc < 1 || nproc > NPROC_MAX)
		nproc = 4;
	if (per < 0)
		per = (on_faultline() ? TOTAL_FL : TOTAL_NATIVE) / nproc;
	stats = mmap(NULL, sizeof(struct cstats) * NPROC_MAX, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(stats != MAP_FAILED))
		return utest_done();
	if (mkdir("/tmp", 0777) == 0)
		tmp_made = 1;
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
	m0 = fl_mm_now();
	t0 = now();
	memset(stats, 0, sizeof(struct cstats) * NPROC_MAX);
	made = fork_round(nproc, per, seed, argv[0], pids);
	t1 = now();
	m1 = fl_mm_now();
	if (tmp_made && !CHECK(rmdir("/tmp") == 0)) /* empty again: the children cleaned up */
		fprintf(stderr, "fuzz:   rmdir /tmp: %s\n", strerror(errno));

	for (i = 0; i < made; i++) {
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
