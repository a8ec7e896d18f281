/* calls.c: the system calls the fuzzer makes: one of the allow-list with its arguments
 * (gen), what its result means for the bookkeeping (after), and numbers with no call behind
 * them (gen_random). */
#include "fuzz.h"
#include <sys/stat.h>
#include <sys/uio.h>

static const struct timespec sleeps[] = {
	{ 0, 0 }, { 0, 1 }, { 0, 1000 }, { 0, 999999 }, { -1, 0 }, { 0, -1 },
	{ 0, 1000000000 }, { -5, 999999999 },
};
static const uint64_t empty_sigset[2];

WORKER long a[6];
WORKER long nr;

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
uint64_t brk0;

/* Fill nr and a[] with one allowed call; after() sees its result. */
void gen(void)
{
	uint64_t m, m2, s, l;
	int i;

	for (i = 0; i < 6; i++)
		a[i] = junk();
	switch (below(63)) {
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
		if (worker_sub) { /* the heap is the process's: one worker moves it */
			a[0] = 0;
			break;
		}
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
		if (below(3))
			break;
		nr = SYS_waitid; /* no children: every form ends at once (ECHILD or EINVAL) */
		a[0] = PICK(((const long[]){ 0, 1, 2, 3, 4, -1 }));
		a[2] = a[1];
		a[1] = PICK(((const long[]){ -1, 0, 1, 99999, -0x80000000L, 2 }));
		a[3] = PICK(((const long[]){ 0, 1, 4, 2, 8, 4 | 1, 14 | 0x01000000, 0x10, -1 }));
		a[4] = below(2) ? 0 : (long)ptr_wr(&m);
		break;
	case 35: /* signal 0 only: "does it exist" */
		nr = SYS_kill;
		a[0] = PICK(((const long[]){ 0, -1, 1, 99999, -0x80000000L }));
		if (below(2))
			a[0] = (long)getpid();
		a[1] = 0;
		if (below(2))
			break;
		/* the same with a siginfo of whatever the buffer holds */
		a[2] = (long)ptr_wr(&m);
		if (below(2)) {
			nr = SYS_rt_sigqueueinfo;
		} else {
			nr = SYS_rt_tgsigqueueinfo;
			a[3] = a[2];
			a[2] = 0;
			a[1] = below(2) ? a[0] : (long)getpid();
		}
		break;
	case 36:
		nr = SYS_uname;
		a[0] = (long)ptr_wr(&m);
		break;
	case 37: case 38:
		nr = SYS_fcntl;
		a[0] = fd_own();
		switch (below(9)) {
		case 0: case 1:
			a[1] = F_DUPFD;
			a[2] = (long)PICK(((const int64_t[]){ 0, 3, 20, 63, 64, 1L << 32, -1 }));
			break;
		case 2: a[1] = F_DUPFD_CLOEXEC; a[2] = (long)below(70); break;
		case 3: a[1] = F_GETFD; break;
		case 4: a[1] = F_SETFD; a[2] = (long)below(3) - 1; break;
		case 5: a[1] = F_GETFL; break;
		case 6: a[1] = F_SETFL; a[2] = below(2) ? 0 : O_NONBLOCK; break;
		case 7: a[1] = PICK(((const long[]){ -1, 9999, 0x7fffffff })); break;
		case 8: /* record locks, never F_*SETLKW: the other children could hold them */
			a[1] = PICK(((const long[]){ F_GETLK, F_SETLK, 36 /* F_OFD_GETLK */,
						     37 /* F_OFD_SETLK */ }));
			a[2] = (long)ptr_wr(&m);
			break;
		}
		if (below(4) == 0 && (a[1] == F_GETFD || a[1] == F_GETFL))
			a[0] = fd_any(); /* reading the flags of anything: harmless */
		if (a[1] == F_SETFD && !fd_ok_to_change(a[0]))
			a[0] = fd_bad();
		break;
	case 39: /* natively a sync of the dirty scratch file waits for the disk: files without
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
	case 62: /* the ids, only read: the set*id calls are in never[] (the fuzzer stays root) */
		nr = PICK(((const long[]){ SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
					   SYS_getresuid, SYS_getresgid, SYS_getgroups,
					   SYS_setfsuid, SYS_setfsgid }));
		for (i = 0; i < 3; i++)
			a[i] = below(3) ? (long)ptr_wr(&m) : (long)PICK(bad_addrs);
		if (nr == SYS_getgroups) /* a size of 0 or less: nothing is written */
			a[0] = PICK(((const long[]){ 0, 0, -1, 0x80000000L }));
		if (nr == SYS_setfsuid || nr == SYS_setfsgid)
			a[0] = -1; /* only asks */
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
void after(long r)
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
	for (i = 0; i < nowned && nowned > max_owned - 4; i++) /* keep room in the table */
		if (below(2)) {
			hk(SYS_close, owned[i], 0, 0);
			owned[i] = owned[--nowned];
		}
}

/* ---------------------------------------------------------------- the random part */
/* The numbers faultline answers with a call or a quiet -ENOSYS: its table's, from the same list
 * (kernel/arch/syscall_64.tbl). */
#define __SYSCALL(nr, name, entry, args) nr,
static const short fl_impl[] = {
#include "build/gen/syscalls_64.h"
};
#undef __SYSCALL

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
static WORKER unsigned char avoid[512];
static WORKER short unknown[512];
static WORKER int nunknown;

void random_init(void)
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

void gen_random(void)
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
