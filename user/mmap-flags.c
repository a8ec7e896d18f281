/* mmap-flags: mmap's flags and errors as Linux 6.x answers them (MAP_FIXED_NOREPLACE,
 * MAP_SHARED_VALIDATE, MAP_32BIT, ignored flags and PROT_ bits, GROWSDOWN, POPULATE, EACCES,
 * ENODEV, EOVERFLOW, EINVAL, EBADF) and mprotect's PROT_GROWSDOWN, PROT_GROWSUP, PROT_SEM. */
#define _GNU_SOURCE
#define UTEST_NAME "mmap-flags"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "utest.h"
#include "vmstat.h"

#define PG 4096
#ifndef PROT_SEM
#define PROT_SEM 0x8
#endif
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define DAT "/tmp/mmap-flags.dat"

static int ok(void *p)
{
	return p != MAP_FAILED;
}

static void anon(void)
{
	char *a = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, ANON, -1, 0), *p;

	/* Unknown PROT_ bits and MAP_ flags are ignored for a private mapping. */
	CHECK(ok(p = mmap(NULL, PG, 0x10 | PROT_READ, ANON, -1, 0)));
	munmap(p, PG);
	CHECK(ok(p = mmap(NULL, PG, PROT_SEM | PROT_READ, ANON, -1, 0)));
	munmap(p, PG);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ, ANON | 0x800000, -1, 0)));
	munmap(p, PG);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			  ANON | MAP_STACK | MAP_NORESERVE | MAP_DENYWRITE | MAP_EXECUTABLE, -1,
			  0)));
	p[0] = 1;
	munmap(p, PG);
	/* The mapping type. */
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EINVAL);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, 4 | MAP_ANONYMOUS, -1, 0), EINVAL);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0),
		  EINVAL);
	/* Lengths and addresses. */
	CHECK_ERR(mmap(NULL, 0, PROT_READ, ANON, -1, 0), EINVAL);
	CHECK_ERR(mmap(NULL, 0, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
	CHECK_ERR(mmap(NULL, SIZE_MAX, PROT_READ, ANON, -1, 0), ENOMEM);
	CHECK_ERR(mmap(NULL, 1UL << 47, PROT_READ, ANON, -1, 0), ENOMEM);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, ANON, -1, 1), EINVAL);
	CHECK_ERR(mmap(a + 1, PG, PROT_READ, ANON | MAP_FIXED, -1, 0), EINVAL);
	CHECK_ERR(mmap((void *)0x7ffffffff000, 2 * PG, PROT_READ, ANON | MAP_FIXED, -1, 0),
		  ENOMEM);
	/* MAP_FIXED_NOREPLACE: EEXIST over any mapped page, else a MAP_FIXED. */
	CHECK_ERR(mmap(a + PG, PG, PROT_READ, ANON | MAP_FIXED_NOREPLACE, -1, 0), EEXIST);
	CHECK_ERR(mmap(a + 1, PG, PROT_READ, ANON | MAP_FIXED_NOREPLACE, -1, 0), EINVAL);
	CHECK_EQ(a[PG], 0);
	munmap(a + 2 * PG, 2 * PG);
	CHECK_ERR(mmap(a + PG, 2 * PG, PROT_READ, ANON | MAP_FIXED_NOREPLACE, -1, 0), EEXIST);
	CHECK_EQ((long)mmap(a + 2 * PG, PG, PROT_READ, ANON | MAP_FIXED_NOREPLACE, -1, 0),
		 (long)(a + 2 * PG));
	CHECK(strncmp(maps_perms(a + 2 * PG), "r--", 3) == 0);
	munmap(a, 4 * PG);
	/* MAP_32BIT: in the second GiB, whatever the hint. */
	p = mmap(NULL, PG, PROT_READ, ANON | MAP_32BIT, -1, 0);
	CHECK(ok(p) && (uintptr_t)p >= 1UL << 30 && (uintptr_t)p + PG <= 1UL << 31);
	munmap(p, PG);
	p = mmap((void *)0x7f0000000000, PG, PROT_READ, ANON | MAP_32BIT, -1, 0);
	CHECK(ok(p) && (uintptr_t)p + PG <= 1UL << 31);
	munmap(p, PG);
	/* MAP_POPULATE: the pages are there before any access. */
	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, ANON | MAP_POPULATE, -1, 0);
	CHECK(ok(p) && page_present(p + 3 * PG) == 1);
	munmap(p, 4 * PG);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, 9999, 0), EBADF);
	CHECK_ERR(mmap(NULL, 0, PROT_READ, MAP_PRIVATE, 9999, 0), EBADF);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, 0, 9999, 0), EBADF);
}

static void files(void)
{
	int fd = open(DAT, O_RDWR | O_CREAT | O_TRUNC, 0644), ro, wo, dir, pfd[2];
	char *p;

	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, 8 * PG), 0);
	ro = open(DAT, O_RDONLY);
	wo = open(DAT, O_WRONLY);
	dir = open("/tmp", O_RDONLY);
	CHECK_EQ(pipe(pfd), 0);
	/* MAP_SHARED ignores unknown flags, MAP_SHARED_VALIDATE refuses them. */
	CHECK(ok(p = mmap(NULL, PG, PROT_READ, MAP_SHARED | 0x800000, fd, 0)));
	munmap(p, PG);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED_VALIDATE | 0x800000, fd, 0), EOPNOTSUPP);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0), EOPNOTSUPP);
	p = mmap(NULL, PG, PROT_READ, ANON, -1, 0);
	munmap(p, PG); /* a free address: below mmap_min_addr only root may map */
	CHECK_ERR(mmap(p, PG, PROT_READ, MAP_SHARED_VALIDATE | MAP_FIXED_NOREPLACE, fd, 0),
		  EOPNOTSUPP);
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE, fd, 0);
	CHECK(ok(p));
	p[0] = 'v';
	munmap(p, PG);
	CHECK_EQ(pread(fd, &p, 1, 0), 1);
	CHECK_EQ(*(char *)&p, 'v');
	/* The open mode. */
	CHECK_ERR(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, 0)));
	CHECK_ERR(mprotect(p, PG, PROT_READ | PROT_WRITE), EACCES);
	munmap(p, PG);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0)));
	munmap(p, PG);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, wo, 0), EACCES);
	CHECK_ERR(mmap(NULL, PG, PROT_WRITE, MAP_SHARED, wo, 0), EACCES);
	/* Files that do not map, growing down, offsets past any file. */
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, dir, 0), ENODEV);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, pfd[0], 0), ENODEV);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ, ANON, pfd[0], 0))); /* fd unused */
	munmap(p, PG);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_GROWSDOWN, fd, 0), EINVAL);
	CHECK_ERR(mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, fd, 0x7ffffffffffff000L), EOVERFLOW);
	CHECK_ERR(mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, fd, -4096L), EOVERFLOW);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, 1), EINVAL);
	CHECK(ok(p = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_32BIT, fd, 0)));
	CHECK((uintptr_t)p + PG <= 1UL << 31);
	munmap(p, PG);
	close(fd);
	close(ro);
	close(wo);
	close(dir);
	close(pfd[0]);
	close(pfd[1]);
	unlink(DAT);
}

static void mprotect_bits(void)
{
	char *a = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, ANON, -1, 0);
	char *g = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, ANON | MAP_GROWSDOWN, -1, 0);

	CHECK(ok(a) && ok(g));
	CHECK_EQ(mprotect(a + PG, PG, PROT_READ | PROT_SEM), 0);
	CHECK_ERR(mprotect(a + PG, PG, PROT_READ | 0x10), EINVAL);
	CHECK_EQ(mprotect(a + PG, 0, 0x10), 0); /* an empty range: nothing is checked */
	CHECK_ERR(mprotect(a + PG, PG, PROT_READ | PROT_GROWSDOWN), EINVAL);
	CHECK_ERR(mprotect(a + PG, PG, PROT_READ | PROT_GROWSUP), EINVAL);
	CHECK_ERR(mprotect(a + PG, PG, PROT_READ | PROT_GROWSUP | PROT_GROWSDOWN), EINVAL);
	CHECK_ERR(mprotect(a + PG, 0, PROT_READ | PROT_GROWSUP | PROT_GROWSDOWN), EINVAL);
	CHECK_ERR(syscall(SYS_mprotect, g + 2 * PG + 1, PG, PROT_READ | PROT_GROWSDOWN), EINVAL);
	CHECK_ERR(mprotect(g + 2 * PG, PG, PROT_READ | PROT_GROWSUP), EINVAL);
	/* PROT_GROWSDOWN on a stack-like VMA: everything from its start down is changed. */
	CHECK_EQ(mprotect(g + 2 * PG, PG, PROT_READ | PROT_GROWSDOWN), 0);
	CHECK(strncmp(maps_perms(g), "r--", 3) == 0);
	CHECK(strncmp(maps_perms(g + 2 * PG), "r--", 3) == 0);
	CHECK(strncmp(maps_perms(g + 3 * PG), "rw-", 3) == 0);
	CHECK_ERR(mprotect(a, 2UL << 47, PROT_READ), ENOMEM);
	munmap(a, 4 * PG);
	munmap(g, 4 * PG);
}

int main(void)
{
	anon();
	files();
	mprotect_bits();
	return utest_done();
}
