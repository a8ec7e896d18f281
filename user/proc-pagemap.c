/* proc-pagemap: /proc/PID/pagemap, /proc/kpagecount and /proc/kpageflags as Linux documents
 * them (admin-guide/mm/pagemap.rst): the present bit flips when a page is touched, a read of
 * an untouched private page maps the zero page, a file page has bit 61, and a COW page is one
 * frame (same PFN, kpagecount 2) in parent and child until the child writes. Natively too:
 * frame numbers need root there (CAP_SYS_ADMIN), so without it those checks are skipped. */
#define _GNU_SOURCE
#define UTEST_NAME "proc-pagemap"
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define PM_PRESENT    (1ULL << 63)
#define PM_FILE	      (1ULL << 61)
#define PM_EXCLUSIVE  (1ULL << 56)
#define PM_PFN(e)     ((e) & ((1ULL << 55) - 1))
#define KPF_MMAP      11
#define KPF_ANON      12
#define KPF_ZERO_PAGE 24

static int show_pfn; /* whether this process may see frame numbers */

/* The pagemap entry of pid's page at va (pid 0: self), or 0 if it cannot be read. */
static uint64_t pagemap(int pid, const void *va)
{
	char path[64];
	uint64_t e = 0;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/pagemap");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (off_t)((uintptr_t)va / 4096 * 8)) != 8)
		e = 0;
	close(fd);
	return e;
}

/* The kpagecount or kpageflags entry of frame pfn, or ~0 if it cannot be read. */
static uint64_t kpage(const char *file, uint64_t pfn)
{
	uint64_t v = ~0ULL;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return v;
	if (pread(fd, &v, 8, (off_t)(pfn * 8)) != 8)
		v = ~0ULL;
	close(fd);
	return v;
}

static void present_bit(void)
{
	char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e;
	int fd;

	if (!CHECK(m != MAP_FAILED))
		return;
	CHECK_EQ(pagemap(0, m) & PM_PRESENT, 0); /* untouched: nothing there */
	m[0] = 1;
	e = pagemap(0, m);
	CHECK(e & PM_PRESENT);
	CHECK(!(e & PM_FILE));
	CHECK(e & PM_EXCLUSIVE);			/* one PTE maps it */
	CHECK_EQ(pagemap(0, m + 4096) & PM_PRESENT, 0); /* its neighbour still not */
	if (show_pfn) {
		CHECK(PM_PFN(e) != 0);
		CHECK_EQ(kpage("/proc/kpagecount", PM_PFN(e)), 1);
		CHECK(kpage("/proc/kpageflags", PM_PFN(e)) & (1ULL << KPF_ANON));
		CHECK(kpage("/proc/kpageflags", PM_PFN(e)) & (1ULL << KPF_MMAP));
	}
	/* a read of an untouched private page maps the shared zero page */
	CHECK_EQ(*(volatile char *)(m + 2 * 4096), 0);
	e = pagemap(0, m + 2 * 4096);
	CHECK(e & PM_PRESENT);
	if (show_pfn)
		CHECK(kpage("/proc/kpageflags", PM_PFN(e)) & (1ULL << KPF_ZERO_PAGE));
	/* entries are 8 bytes: a read elsewhere is EINVAL, as on Linux */
	fd = open("/proc/self/pagemap", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(pread(fd, &e, 8, 4), EINVAL);
	CHECK_ERR(pread(fd, &e, 4, 0), EINVAL);
	close(fd);
	munmap(m, 3 * 4096);
}

/* A page of a file mapping is a file page (bit 61); this program's own code is one. */
static void file_bit(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	volatile char *m;
	uint64_t e;

	if (!CHECK(fd >= 0))
		return;
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!CHECK(m != MAP_FAILED))
		return;
	CHECK_EQ(m[1], 'E'); /* "\177ELF" */
	e = pagemap(0, (void *)m);
	CHECK((e & PM_PRESENT) && (e & PM_FILE));
	munmap((void *)m, 4096);
}

/* One COW page seen from the parent through /proc/CHILD/pagemap: shared before the child
 * writes (same frame, two PTEs), the child's own frame after. */
static void cow(void)
{
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int go[2], done[2], status;
	uint64_t mine, his;
	char c = 0;
	pid_t pid;

	if (!CHECK(m != MAP_FAILED) || !CHECK(pipe(go) == 0 && pipe(done) == 0))
		return;
	m[0] = 'p';
	pid = fork();
	if (pid == 0) {
		read(go[0], &c, 1);
		m[0] = 'c'; /* the write that copies */
		write(done[1], &c, 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	mine = pagemap(0, m);
	his = pagemap(pid, m);
	CHECK((mine & PM_PRESENT) && (his & PM_PRESENT));
	CHECK(!(mine & PM_EXCLUSIVE) && !(his & PM_EXCLUSIVE)); /* two PTEs map it */
	if (show_pfn) {
		CHECK(PM_PFN(mine) != 0 && PM_PFN(mine) == PM_PFN(his));
		CHECK_EQ(kpage("/proc/kpagecount", PM_PFN(mine)), 2);
	}
	write(go[1], &c, 1);
	read(done[0], &c, 1);
	mine = pagemap(0, m);
	his = pagemap(pid, m);
	CHECK((mine & PM_PRESENT) && (his & PM_PRESENT));
	CHECK((his & PM_EXCLUSIVE) && !(his & PM_FILE));
	if (show_pfn) {
		CHECK(PM_PFN(mine) != PM_PFN(his));
		CHECK_EQ(kpage("/proc/kpagecount", PM_PFN(his)), 1);
		/* the parent's PTE is the last one on the old frame */
		CHECK_EQ(kpage("/proc/kpagecount", PM_PFN(mine)), 1);
	}
	CHECK_EQ(m[0], 'p');
	write(go[1], &c, 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(m, 4096);
}

/* faultline's /proc/sys/vm/faulttrace: 0 or 1, switched by a write (Linux has no such file). */
static void faulttrace(void)
{
	char buf[8] = "", *m;
	int fd = open("/proc/sys/vm/faulttrace", O_RDWR);

	if (fd < 0) {
		utest_skip("/proc/sys/vm/faulttrace", "faultline's own file, not on this kernel");
		return;
	}
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 2 && (buf[0] == '0' || buf[0] == '1'));
	CHECK(pwrite(fd, "1\n", 2, 0) == 2);
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 2 && buf[0] == '1');
	/* one fault while it is on: the kernel log shows it (tests/ring3/run.sh looks) */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (CHECK(m != MAP_FAILED)) {
		*m = 1;
		munmap(m, 4096);
	}
	CHECK(pwrite(fd, "0", 1, 0) == 1);
	CHECK_ERR(pwrite(fd, "2", 1, 0), EINVAL);
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 2 && buf[0] == '0');
	close(fd);
}

int main(void)
{
	char *probe = malloc(1);
	uint64_t e;

	*probe = 1;
	e = pagemap(0, probe);
	show_pfn = PM_PFN(e) != 0;
	if (!show_pfn)
		utest_skip("frame numbers", "not root (no CAP_SYS_ADMIN): pagemap shows PFN 0");
	present_bit();
	file_bit();
	cow();
	faulttrace();
	return utest_done();
}
