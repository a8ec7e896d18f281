/* files.c: the descriptors and path names the fuzzer's calls are given: its own (which it
 * may change), ones that name nothing, and the ones open before it ran (never touched). */
#include "fuzz.h"

WORKER int scratch_fd, ro_fd, bin_fd, dir_fd;
WORKER int owned[MAX_OWNED], nowned;
int max_owned = MAX_OWNED;
WORKER unsigned char protected_fd[1024]; /* open before the fuzzer ran (stdin...): never touch */

int fd_ok_to_change(long v)
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
long fd_bad(void)
{
	for (;;) {
		long v = (long)PICK(bad_fds);

		if (fd_ok_to_change(v) || (unsigned int)v == (unsigned)-1 || v == -100)
			return v;
	}
}

void own(long fd)
{
	int i;

	if (is_err(fd) || fd < 0)
		return;
	if (!fd_ok_to_change(fd))
		return; /* dup2 onto one of the fuzzer's base descriptors: it still is one */
	for (i = 0; i < nowned; i++)
		if (owned[i] == fd)
			return;
	if (nowned >= max_owned) {
		hk(SYS_close, fd, 0, 0);
		return;
	}
	owned[nowned++] = (int)fd;
}

void disown(long fd)
{
	for (int i = 0; i < nowned; i++)
		if (owned[i] == fd) {
			owned[i] = owned[--nowned];
			return;
		}
}

/* a descriptor of the fuzzer's own that may be read, written, closed or duplicated */
long fd_own(void)
{
	if (nowned && below(2))
		return owned[below(nowned)];
	return below(3) ? fd_bad() : PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
}

/* any descriptor for a call that only reads information about it (never data) */
long fd_any(void)
{
	if (below(6) == 0)
		return (long)below(3); /* stdin, stdout, stderr: fstat, ioctl(TCGETS) and such */
	if (below(4) == 0)
		return PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* for read(): never stdin, a terminal where a read would wait for a key (the high bits of a
 * descriptor must not be dropped: such a number is no descriptor) */
long fd_read(void)
{
	if (on_faultline() && below(16) == 0)
		return (long)((1UL << 32) | below(3)); /* high bits must not be dropped */
	if (below(3) == 0)
		return PICK(((const int[]){ scratch_fd, ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* for write(), ftruncate() and such: the scratch file, its duplicates, or something that
 * refuses (a read-only descriptor of the fuzzer's, an invalid number) */
long fd_write(void)
{
	if (below(3) == 0)
		return scratch_fd;
	if (below(4) == 0)
		return PICK(((const int[]){ ro_fd, bin_fd, dir_fd }));
	return fd_own();
}

/* ---------------------------------------------------------------- paths */

WORKER char dir[128], scratch_path[160];
static WORKER char bin_path[512];
#define NPRIV 12
static WORKER char priv[NPRIV][192];	/* under dir: mkdir/rmdir/unlink/creat */
static WORKER char longname[400], pathmax[4200], privlong[600];
static WORKER const char *paths[48];
static WORKER int npaths;

void paths_init(const char *argv0)
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
uint64_t path_ro(void)
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
uint64_t path_priv(void)
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
long oflags(void)
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
