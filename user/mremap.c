/* mremap: every mode (shrink, grow in place, MAYMOVE, FIXED, DONTUNMAP, duplicating a shared
 * mapping) and every error, as Linux answers them. Moved pages keep their contents and their
 * frames (the page tables move, not the data); a COW page moved stays shared with a fork child. */
#define _GNU_SOURCE
#define UTEST_NAME "mremap"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"
#include "vmstat.h"

#define PG 4096
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static long mr(void *a, size_t o, size_t n, long f, void *na)
{
	return syscall(SYS_mremap, a, o, n, f, na);
}

static char *map(size_t len, int prot, int flags)
{
	char *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A free range of len bytes with a free page on either side (mapped then unmapped). */
static char *hole(size_t len)
{
	char *p = map(len + 2 * PG, PROT_NONE, MAP_PRIVATE);

	munmap(p, len + 2 * PG);
	return p + PG;
}

/* len bytes mapped at a hole with a free page above them */
static char *map_alone(size_t len, int prot)
{
	char *p = mmap(hole(len + PG), len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void errors(void)
{
	char *p = map_alone(4 * PG, PROT_READ | PROT_WRITE);
	char *h = hole(4 * PG);

	CHECK_ERR(mr(p + 1, PG, PG, 0, 0), EINVAL);		      /* unaligned */
	CHECK_ERR(mr(p, PG, 2 * PG, 8, 0), EINVAL);		      /* unknown flag */
	CHECK_ERR(mr(p, PG, PG, MREMAP_FIXED, h), EINVAL);	      /* FIXED alone */
	CHECK_ERR(mr(p, PG, PG, MREMAP_DONTUNMAP, h), EINVAL);      /* without MAYMOVE */
	CHECK_ERR(mr(p, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0), EINVAL);
	CHECK_ERR(mr(p, PG, 0, 0, 0), EINVAL);			      /* new size 0 */
	CHECK_ERR(mr(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, h + 1), EINVAL);
	CHECK_ERR(mr(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, p + PG), EINVAL);
	CHECK_ERR(mr(p + PG, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, p), EINVAL);
	CHECK_ERR(mr(p, 0, PG, MREMAP_MAYMOVE, 0), EINVAL);	      /* dup of private */
	CHECK_ERR(mr(h, PG, 2 * PG, MREMAP_MAYMOVE, 0), EFAULT);   /* nothing mapped */
	CHECK_ERR(mr(p, 5 * PG, 6 * PG, MREMAP_MAYMOVE, 0), EFAULT); /* past the VMA */
	CHECK_ERR(mr(p + 3 * PG, 2 * PG, 3 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, h), EFAULT);
	CHECK_ERR(mr(p - PG, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, h), EFAULT);
	/* Growing in place into a mapping, without MAYMOVE. */
	CHECK_ERR(mr(p, PG, 2 * PG, 0, 0), ENOMEM);
	munmap(p, 4 * PG);
}

/* Shrink, grow in place, refuse to grow in place when the next page is taken. */
static void in_place(void)
{
	char *p = map(4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	memset(p, 'a', 4 * PG);
	CHECK_EQ(mr(p, 4 * PG, 2 * PG, 0, 0), (long)p);
	CHECK_EQ(page_present(p + 2 * PG), 0);
	CHECK(mmap(p + 2 * PG, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		   -1, 0) == p + 2 * PG); /* the tail is free again */
	munmap(p + 2 * PG, PG);
	CHECK_EQ(mr(p, 2 * PG, 3 * PG + 1, 0, 0), (long)p); /* rounded up to 4 pages */
	CHECK_EQ(p[PG], 'a');
	CHECK_EQ(p[3 * PG], 0); /* the grown part is fresh zero memory */
	p[3 * PG + 100] = 'b';
	CHECK_EQ(mr(p, 4 * PG, 4 * PG, 0, 0), (long)p); /* same size: nothing to do */
	munmap(p, 4 * PG);
}

/* MAYMOVE: the VMA moves; the contents and the frames go with it, the old range is gone. */
static void moves(void)
{
	char *p = map_alone(4 * PG, PROT_READ | PROT_WRITE), *blk = p + 3 * PG;
	uint64_t pfn0, pfn2;
	char *q;

	mprotect(blk, PG, PROT_NONE); /* a VMA of its own just above: no growing in place */
	vm_no_thp(p, 3 * PG);
	memset(p, 'x', PG);
	memset(p + 2 * PG, 'z', PG);
	pfn0 = page_pfn(p);
	pfn2 = page_pfn(p + 2 * PG);
	q = (char *)mr(p, 3 * PG, 8 * PG, MREMAP_MAYMOVE, 0);
	CHECK(q != (char *)-1 && q != p);
	CHECK_EQ(q[0], 'x');
	CHECK_EQ(q[2 * PG], 'z');
	CHECK_EQ(q[PG], 0);
	CHECK_EQ(q[7 * PG], 0);
	CHECK_EQ(page_pfn(q), pfn0); /* the very frame: moved, not copied */
	CHECK_EQ(page_pfn(q + 2 * PG), pfn2);
	CHECK_EQ(page_mapped_once(q), 1);
	CHECK_EQ(page_present(p), 0);
	CHECK_ERR(mr(p, PG, PG, 0, 0), EFAULT); /* the old range is unmapped */
	munmap(blk, PG);

	/* MREMAP_FIXED: exactly there, replacing what was mapped; shrinking on the way. */
	char *t = map(4 * PG, PROT_READ, MAP_PRIVATE);
	CHECK_EQ(mr(q, 8 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, t + PG), (long)(t + PG));
	CHECK_EQ(t[PG], 'x');
	CHECK_EQ(page_pfn(t + PG), pfn0);
	CHECK_EQ(t[0], 0); /* the target's neighbours stay */
	CHECK(strncmp(maps_perms(t), "r--", 3) == 0);
	CHECK(strncmp(maps_perms(t + PG), "rw-", 3) == 0);
	CHECK_EQ(page_present(q), 0);
	munmap(t, 4 * PG);
	munmap(q, 8 * PG);
}

/* MREMAP_FIXED at the same size may span several VMAs and gaps (Linux 6.17): each part moves
 * to the same offset, keeping its own attributes. */
static void multi(void)
{
	char *m = map_alone(3 * PG, PROT_READ | PROT_WRITE), *t = hole(4 * PG);
	struct maps_ent e;

	m[0] = '1';
	m[2 * PG] = '3';
	CHECK_EQ(mprotect(m + PG, PG, PROT_READ), 0);
	CHECK_EQ(mr(m, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, t), (long)t);
	CHECK_EQ(t[0], '1');
	CHECK_EQ(t[2 * PG], '3');
	CHECK(strncmp(maps_perms(t + PG), "r--", 3) == 0);
	CHECK(strncmp(maps_perms(t + 2 * PG), "rw-", 3) == 0);
	CHECK_EQ(maps_find(t + 3 * PG, &e), 0); /* the gap stays a gap */
	CHECK_EQ(maps_find(m, &e), 0);
	/* Moved next to a compatible mapping, the two become one VMA (one maps line). */
	CHECK_EQ(mr(t + 2 * PG, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, t + 3 * PG),
		 (long)(t + 3 * PG));
	CHECK_EQ(mprotect(t + 2 * PG, PG, PROT_READ | PROT_WRITE), -1); /* the hole it left */
	CHECK_EQ(mr(t + 3 * PG, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, t + 2 * PG),
		 (long)(t + 2 * PG));
	CHECK_EQ(mprotect(t + PG, PG, PROT_READ | PROT_WRITE), 0);
	CHECK_EQ(count_maps_range(t, t + 3 * PG), 1);
	CHECK_EQ(t[2 * PG], '3');
	munmap(t, 4 * PG);
}

/* MREMAP_DONTUNMAP: the pages move, the old range stays mapped and reads as zero again. */
static void dontunmap(void)
{
	char *p = map(2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE), *q;
	char *h = hole(2 * PG);
	uint64_t pfn;

	memset(p, 'd', 2 * PG);
	pfn = page_pfn(p);
	q = (char *)mr(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, h);
	CHECK(q != (char *)-1 && q != p);
	CHECK_EQ(q[PG + 5], 'd');
	CHECK_EQ(page_pfn(q), pfn);
	CHECK_EQ(page_present(p), 0);
	CHECK_EQ(p[0], 0); /* still mapped, empty */
	q = (char *)mr(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP | MREMAP_FIXED, h);
	CHECK_EQ((long)q, (long)h); /* FIXED too: replaces the earlier copy */
	munmap(p, 2 * PG);
	munmap(h, 2 * PG);
}

/* A COW page moved in the parent stays the child's page until one of them writes it. */
static void cow(void)
{
	char *p = map(PG, PROT_READ | PROT_WRITE, MAP_PRIVATE), *q;
	int fd[2], st;
	uint64_t pfn;
	pid_t pid;
	char c;

	p[0] = 'c';
	pfn = page_pfn(p);
	CHECK_EQ(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		read(fd[0], &c, 1); /* the parent has moved the page */
		_exit(p[0] == 'c' && page_pfn(p) == pfn ? 0 : 1);
	}
	q = (char *)mr(p, PG, 2 * PG, MREMAP_MAYMOVE, hole(2 * PG));
	CHECK(q != (char *)-1);
	CHECK_EQ(q[0], 'c');
	CHECK_EQ(page_pfn(q), pfn); /* still the frame the child maps */
	CHECK_EQ(page_mapped_once(q), 0);
	q[0] = 'p'; /* the parent's write copies; the child keeps 'c' */
	CHECK(page_pfn(q) != pfn);
	write(fd[1], "g", 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	close(fd[0]);
	close(fd[1]);
	munmap(q, 2 * PG);
}

/* A file mapping moves with its file offset; old_len 0 duplicates a shared mapping. */
static void files(void)
{
	int fd = open("/tmp/mremap.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char *p, *q, *d;

	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, 4 * PG), 0);
	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	p[2 * PG] = 'F';
	q = (char *)mr(p + 2 * PG, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, hole(2 * PG));
	CHECK(q != (char *)-1);
	CHECK_EQ(q[0], 'F');
	q[PG] = 'G';
	d = (char *)mr(q, 0, 2 * PG, MREMAP_MAYMOVE, 0); /* a second view of the same pages */
	CHECK(d != (char *)-1 && d != q);
	CHECK_EQ(d[0], 'F');
	d[1] = 'D';
	CHECK_EQ(q[1], 'D');
	CHECK_EQ(pread(fd, &d[100], 1, 3 * PG), 1);
	CHECK_EQ(d[100], 'G');
	munmap(p, 2 * PG);
	munmap(q, 2 * PG);
	munmap(d, 2 * PG);
	close(fd);
	unlink("/tmp/mremap.dat");
}

int main(void)
{
	struct fl_check k;

	errors();
	in_place();
	moves();
	multi();
	dontunmap();
	cow();
	files();
	CHECK_EQ(fl_check(&k), 0);
	CHECK_EQ(k.bad_counts, 0);
	return utest_done();
}
