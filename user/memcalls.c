/* memcalls: mincore, the mlock family, msync and madvise as Linux answers them: which pages are
 * resident, locks faulting pages in (now, on fault, or for every later mapping), msync's
 * checks, and madvise's drops, fork behaviours, prefaults and errors. */
#define _GNU_SOURCE
#define UTEST_NAME "memcalls"
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define PG 4096
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

/* How many of the n pages at p mincore says are resident (-1 on error). */
static int resident(void *p, int n)
{
	unsigned char vec[64];
	int r = 0;

	if (mincore(p, (size_t)n * PG, vec))
		return -1;
	for (int i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

static char *anon(int pages)
{
	char *p = mmap(NULL, (size_t)pages * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void mincore_calls(void)
{
	unsigned char vec[8];
	char *p = anon(4), buf[3 * PG];
	int fd = open("/tmp/memcalls.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char *f;

	if (!CHECK(p && fd >= 0))
		return;
	CHECK_EQ(resident(p, 4), 0);
	p[PG] = 1;
	CHECK_EQ(resident(p, 4), 1);
	CHECK(mincore(p, 4 * PG, vec) == 0 && vec[1] == 1 && vec[0] == 0);
	CHECK_ERR(mincore(p + 1, PG, vec), EINVAL);
	CHECK_ERR(mincore(p, 4 * PG, (unsigned char *)8), EFAULT);
	CHECK_ERR(mincore((void *)0x800000000000UL, PG, vec), ENOMEM);
	munmap(p + 2 * PG, PG);
	CHECK_ERR(mincore(p, 4 * PG, vec), ENOMEM); /* a hole */
	munmap(p, 4 * PG);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	f = mmap(NULL, 3 * PG, PROT_READ, MAP_SHARED, fd, 0);
	if (CHECK(f != MAP_FAILED)) {
		CHECK_EQ(resident(f, 3), 3); /* untouched, but in the page cache */
		munmap(f, 3 * PG);
	}
	close(fd);
	unlink("/tmp/memcalls.dat");
}

static void mlock_calls(void)
{
	char *p = anon(8), *q;

	if (!CHECK(p))
		return;
	CHECK(mlock(p, 4 * PG) == 0);
	CHECK_EQ(resident(p, 8), 4); /* locked pages are faulted in at once */
	CHECK(munlock(p, 8 * PG) == 0);
	CHECK(syscall(SYS_mlock2, p + 4 * PG, 2 * PG, MLOCK_ONFAULT) == 0);
	CHECK_EQ(resident(p, 8), 4); /* on fault: nothing more yet */
	CHECK_ERR(syscall(SYS_mlock2, p, PG, 2), EINVAL);
	CHECK(munlock(p, 8 * PG) == 0);
	munmap(p + 6 * PG, PG);
	CHECK_ERR(mlock(p, 8 * PG), ENOMEM); /* a hole */
	CHECK_ERR(mlockall(0), EINVAL);
	CHECK_ERR(mlockall(MCL_ONFAULT), EINVAL);
	CHECK_ERR(mlockall(8), EINVAL);
	CHECK(mlockall(MCL_FUTURE) == 0);
	q = anon(3);
	CHECK(q && resident(q, 3) == 3); /* every new mapping is locked, so filled */
	CHECK(munlockall() == 0);
	munmap(q, 3 * PG);
	q = anon(3);
	CHECK(q && resident(q, 3) == 0);
	munmap(q, 3 * PG);
	munmap(p, 8 * PG);
}

static void msync_calls(void)
{
	char *p = anon(4);

	if (!CHECK(p))
		return;
	CHECK(msync(p, 4 * PG, MS_SYNC) == 0);
	CHECK(msync(p, 0, MS_ASYNC) == 0);
	CHECK_ERR(msync(p, PG, 8), EINVAL);
	CHECK_ERR(msync(p, PG, MS_SYNC | MS_ASYNC), EINVAL);
	CHECK_ERR(msync(p + 1, PG, MS_SYNC), EINVAL);
	CHECK(mlock(p, PG) == 0);
	CHECK_ERR(msync(p, PG, MS_INVALIDATE), EBUSY);
	CHECK(munlock(p, PG) == 0);
	munmap(p + PG, PG);
	CHECK_ERR(msync(p, 4 * PG, MS_SYNC), ENOMEM);
	munmap(p, 4 * PG);
}

/* What a child sees at p after fork: its first byte, or -SIGNAL if reading it killed it. */
static int child_reads(const char *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1000;
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

static void madvise_calls(void)
{
	char *p = anon(4), *ro;

	if (!CHECK(p))
		return;
	memset(p, 7, 4 * PG);
	CHECK_ERR(madvise(p, PG, 999), EINVAL);
	CHECK_ERR(madvise(p + 1, PG, MADV_NORMAL), EINVAL);
	CHECK(madvise(p, 4 * PG, MADV_SEQUENTIAL) == 0 && madvise(p, PG, MADV_HUGEPAGE) == 0);
	CHECK(madvise(p, PG, MADV_DONTNEED) == 0 && p[0] == 0 && p[PG] == 7);
	CHECK(madvise(p + PG, PG, MADV_FREE) == 0); /* the page may go now or later */
	CHECK(madvise(p + 2 * PG, PG, MADV_DONTFORK) == 0);
	CHECK_EQ(child_reads(p + 2 * PG), -SIGSEGV); /* a hole in the child */
	CHECK(madvise(p + 2 * PG, PG, MADV_DOFORK) == 0);
	CHECK_EQ(child_reads(p + 2 * PG), 7);
	CHECK(madvise(p + 3 * PG, PG, MADV_WIPEONFORK) == 0);
	CHECK_EQ(child_reads(p + 3 * PG), 0); /* the child's copy starts empty */
	CHECK_EQ(p[3 * PG], 7);                /* the parent's is untouched */
	CHECK(mlock(p, PG) == 0);
	CHECK_ERR(madvise(p, PG, MADV_DONTNEED), EINVAL);
	CHECK(munlock(p, PG) == 0);
	ro = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (CHECK(ro != MAP_FAILED)) {
		CHECK(madvise(ro, 2 * PG, MADV_POPULATE_READ) == 0 && resident(ro, 2) == 2);
		munmap(ro, 2 * PG);
	}
	CHECK(madvise(p, 4 * PG, MADV_POPULATE_WRITE) == 0 && resident(p, 4) == 4);
	munmap(p + PG, PG);
	CHECK_ERR(madvise(p, 4 * PG, MADV_NORMAL), ENOMEM);
	CHECK_ERR(madvise(p, 4 * PG, MADV_WIPEONFORK), ENOMEM);
	munmap(p, 4 * PG);
}

int main(void)
{
	mincore_calls();
	mlock_calls();
	msync_calls();
	madvise_calls();
	return utest_done();
}
