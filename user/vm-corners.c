/* vm-corners: two corners of the VM the system-call fuzzer found. Prefaulting a PROT_NONE
 * mapping (shared anonymous memory, MAP_POPULATE, remap_file_pages) must map nothing, and the
 * memory must work once mprotect allows access; a MAP_GROWSDOWN mapping must not grow below
 * mmap_min_addr, so read(fd, NULL, n) gives EFAULT even with such a mapping just above. */
#define _GNU_SOURCE
#define UTEST_NAME "vm-corners"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"

#define PG   4096UL
#define NP   4
#define SEED 9

static char path[64];

/* no page of [p, p + n pages) has a PTE */
static int none_present(const volatile unsigned char *p, int n)
{
	for (int i = 0; i < n; i++)
		if (page_present((const void *)(p + i * PG)))
			return 0;
	return 1;
}

/* faultline's own check of every PTE against struct page (all zero natively) */
static void check_counts(void)
{
	struct fl_check c;

	CHECK_EQ(fl_check(&c), 0);
	CHECK_EQ(c.bad_counts, 0);
	CHECK_EQ(c.orphans, 0);
}

/* slot shows file page pg of the pattern file */
static int shows(const volatile unsigned char *p, int slot, int pg)
{
	return pat_diff(p + slot * PG, pg * PG, PG, SEED) < 0;
}

static void shared_anon(void)
{
	long rss = rss_pages();
	volatile unsigned char *p =
		mmap(NULL, NP * PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int st;
	pid_t pid;

	if (!CHECK(p != MAP_FAILED))
		return;
	CHECK_EQ(rss_pages(), rss);
	CHECK(none_present(p, NP));
	check_counts();
	CHECK_PROBE(p, 0, SIGSEGV);
	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_READ | PROT_WRITE), 0);
	/* Shared with a child forked before anyone touched it: its write shows here. */
	pid = fork();
	if (pid == 0) {
		p[3 * PG + 7] = 0x77;
		_exit(first_nonzero(p, 3 * PG) == -1 ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(exited_ok(st));
	CHECK_EQ(p[3 * PG + 7], 0x77);
	p[3 * PG + 7] = 0;
	CHECK_EQ(first_nonzero(p, NP * PG), -1);
	check_counts();
	CHECK_EQ(munmap((void *)p, NP * PG), 0);
}

static void populate(int fd)
{
	long rss = rss_pages();
	volatile unsigned char *s, *pr, *a;
	unsigned char buf[16];

	s = mmap(NULL, NP * PG, PROT_NONE, MAP_SHARED | MAP_POPULATE, fd, 0);
	pr = mmap(NULL, NP * PG, PROT_NONE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	a = mmap(NULL, NP * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!CHECK(s != MAP_FAILED && pr != MAP_FAILED && a != MAP_FAILED))
		return;
	CHECK_EQ(rss_pages(), rss);
	CHECK(none_present(s, NP) && none_present(pr, NP) && none_present(a, NP));
	check_counts();
	CHECK_EQ(mprotect((void *)s, NP * PG, PROT_READ), 0);
	CHECK_EQ(mprotect((void *)pr, NP * PG, PROT_READ | PROT_WRITE), 0);
	CHECK_EQ(mprotect((void *)a, NP * PG, PROT_READ | PROT_WRITE), 0);
	CHECK_EQ(pat_diff(s, 0, NP * PG, SEED), -1);
	CHECK_EQ(pat_diff(pr, 0, NP * PG, SEED), -1);
	CHECK_EQ(first_nonzero(a, NP * PG), -1);
	pr[10] = 0; /* a private copy: the file keeps its byte */
	a[NP * PG - 1] = 1;
	CHECK_EQ(pread(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	CHECK_EQ(buf[10], pat(10, SEED));
	check_counts();
	CHECK_EQ(munmap((void *)s, NP * PG), 0);
	CHECK_EQ(munmap((void *)pr, NP * PG), 0);
	CHECK_EQ(munmap((void *)a, NP * PG), 0);
}

/* slots 0 and 3 swapped, 1 and 2 linear */
static int swapped(const volatile unsigned char *p)
{
	return shows(p, 0, 3) && shows(p, 1, 1) && shows(p, 2, 2) && shows(p, 3, 0);
}

static void nonlinear(int fd)
{
	long rss = rss_pages();
	volatile unsigned char *p = mmap(NULL, NP * PG, PROT_NONE, MAP_SHARED, fd, 0);
	unsigned char b;
	int st;
	pid_t pid;

	if (!CHECK(p != MAP_FAILED))
		return;
	CHECK_EQ(remap_file_pages((void *)p, PG, 0, 3, 0), 0);
	CHECK_EQ(remap_file_pages((void *)(p + 3 * PG), PG, 0, 0, 0), 0);
	CHECK_EQ(rss_pages(), rss);
	CHECK(none_present(p, NP));
	check_counts();
	/* fork copies the layout while nothing is accessible */
	pid = fork();
	if (pid == 0)
		_exit(mprotect((void *)p, NP * PG, PROT_READ) == 0 && swapped(p) ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(exited_ok(st));
	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_READ | PROT_WRITE), 0);
	CHECK(swapped(p));
	/* a write through slot 0 lands in file page 3 */
	p[17] = 0xee;
	CHECK_EQ(pread(fd, &b, 1, 3 * PG + 17), 1);
	CHECK_EQ(b, 0xee);
	p[17] = pat(3 * PG + 17, SEED);
	/* PROT_NONE and back keeps the layout */
	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_NONE), 0);
	CHECK_PROBE(p, 0, SIGSEGV);
	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_READ), 0);
	CHECK(swapped(p));
	check_counts();
	CHECK_EQ(munmap((void *)p, NP * PG), 0);
}

/* The lowest address a stack may grow to: faultline's mmap_min_addr. Linux's is the larger of
 * vm.mmap_min_addr and the security modules' CONFIG_LSM_MMAP_MIN_ADDR: 65536 on Debian's
 * kernels (also where the sysctl says 4096, as on the build host). */
#define FLOOR 0x10000UL

/* read 16 bytes of the file into addr: the kernel's copy faults there */
static long file_read(int fd, unsigned long addr)
{
	return pread(fd, (void *)addr, 16, 0);
}

static unsigned long vma_start(unsigned long addr)
{
	struct maps_ent e;

	return maps_find((void *)addr, &e) == 1 ? e.start : 0;
}

static void growsdown(int fd)
{
	unsigned long floor = FLOOR, g = FLOOR + 4 * PG, gap = 0x100000, g2;
	void *m;

	m = mmap((void *)g, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);
	if (!CHECK(m == (void *)g))
		return;
	/* The kernel's accesses below it grow it, down to the floor. */
	CHECK_EQ(file_read(fd, g - PG), 16);
	CHECK_EQ(vma_start(g + PG), g - PG);
	CHECK_EQ(file_read(fd, floor), 16);
	CHECK_EQ(vma_start(g + PG), floor);
	CHECK_EQ(pat_diff((unsigned char *)floor, 0, 16, SEED), -1);
	CHECK_EQ(pat_diff((unsigned char *)(g - PG), 0, 16, SEED), -1);
	/* Not a byte further. */
	CHECK_ERR(file_read(fd, floor - PG), EFAULT);
	CHECK_ERR(file_read(fd, 0), EFAULT);
	CHECK_ERR(read(fd, NULL, 16), EFAULT);
	CHECK_EQ(vma_start(g + PG), floor);
	CHECK_PROBE((unsigned char *)0, 0, SIGSEGV);
	CHECK_PROBE((unsigned char *)(floor - PG), 1, SIGSEGV);
	/* Linux checks MAP_FIXED against vm.mmap_min_addr (4096 on the build host) and lets
	 * CAP_SYS_RAWIO map below it; faultline has one floor and no capabilities. */
	if (on_faultline())
		CHECK(mmap((void *)(floor - PG), PG, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED &&
		      errno == EPERM);
	CHECK_EQ(munmap((void *)floor, g + 2 * PG - floor), 0);

	/* Nor into the guard gap (256 pages) above another mapping. */
	m = mmap((void *)gap, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0);
	g2 = gap + PG + 257 * PG;
	CHECK(m == (void *)gap);
	CHECK(mmap((void *)g2, PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0) == (void *)g2);
	CHECK_EQ(file_read(fd, g2 - PG), 16);
	CHECK_ERR(file_read(fd, g2 - 2 * PG), EFAULT);
	CHECK_EQ(vma_start(g2), g2 - PG);
	CHECK_EQ(munmap((void *)gap, g2 + PG - gap), 0);
}

int main(void)
{
	unsigned char buf[NP * PG];
	int fd;

	/* The helpers' own stack and buffers, faulted in now: rss then moves only for the
	 * mappings under test. */
	CHECK(rss_pages() > 0 && page_present(buf) >= 0);
	shared_anon();
	if (tmp_setup() == 0) {
		tmp_path(path, sizeof(path), "corners");
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		pat_fill(buf, 0, sizeof(buf), SEED);
		if (CHECK(fd >= 0) && CHECK(pwrite_all(fd, buf, sizeof(buf), 0) == 0)) {
			populate(fd);
			nonlinear(fd);
			growsdown(fd);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
		tmp_cleanup();
	}
	check_counts();
	return utest_done();
}
