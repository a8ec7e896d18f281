/* vm-munmap: holes punched with munmap fault (SIGSEGV) while the rest keeps its data and maps
 * shows the pieces; munmap's EINVAL cases and unmapped ranges; MAP_FIXED over part of a mapping;
 * mprotect of a hole (ENOMEM); mremap growing in place and shrinking; MADV_DONTNEED. */
#define _GNU_SOURCE
#define UTEST_NAME "vm-munmap"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#define PG VM_PAGE

/* a child that reads addr must be killed by SIGSEGV */
static void check_faults(const unsigned char *addr)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		(void)*(const volatile unsigned char *)addr;
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
		fprintf(stderr, "vm-munmap:   touching %p: status %#x\n", (void *)addr, st);
}

/* every byte of the page at p is v */
static int page_is(const unsigned char *p, unsigned char v)
{
	size_t i;

	for (i = 0; i < PG && p[i] == v; i++)
		;
	return i == PG;
}

static const int holes[] = { 5, 9, 10 };

static int in_hole(int i)
{
	return i == 5 || i == 9 || i == 10;
}

int main(void)
{
	unsigned char *p, *q, *r;
	struct maps_ent e;
	int i;

	p = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	for (i = 0; i < 16; i++)
		memset(p + i * PG, 0x10 + i, PG);
	CHECK_EQ(count_maps_range(p, p + 16 * PG), 1);

	CHECK_EQ(munmap(p + 5 * PG, PG), 0);
	CHECK_EQ(munmap(p + 9 * PG, 2 * PG), 0);
	for (i = 0; i < 3; i++) {
		check_faults(p + holes[i] * PG);
		CHECK(maps_perms(p + holes[i] * PG) == NULL);
		if (on_faultline())
			CHECK(!fl_page_of(p + holes[i] * PG).in_vma);
		else
			CHECK(!page_present(p + holes[i] * PG));
	}
	for (i = 0; i < 16; i++)
		if (!in_hole(i) && !CHECK(page_is(p + i * PG, 0x10 + i)))
			fprintf(stderr, "vm-munmap:   page %d lost its data\n", i);
	/* three pieces: [0,5) [6,9) [11,16) */
	CHECK_EQ(count_maps_range(p, p + 16 * PG), 3);
	CHECK(maps_find(p + 6 * PG, &e) == 1 && e.start == (uintptr_t)(p + 6 * PG) &&
	      e.end == (uintptr_t)(p + 9 * PG) && strcmp(e.perms, "rw-p") == 0);
	CHECK(maps_find(p + 4 * PG, &e) == 1 && e.end == (uintptr_t)(p + 5 * PG));
	CHECK(maps_find(p + 11 * PG, &e) == 1 && e.start == (uintptr_t)(p + 11 * PG));

	CHECK_ERR(munmap(p + 1, PG), EINVAL); /* not page aligned */
	CHECK_ERR(munmap(p, 0), EINVAL);      /* empty */
	CHECK_EQ(munmap(p + 5 * PG, PG), 0);  /* already unmapped: fine */
	CHECK_EQ(munmap(p + 9 * PG, 2 * PG), 0);
	CHECK_EQ(count_maps_range(p, p + 16 * PG), 3);
	CHECK(page_is(p, 0x10));

	/* MAP_FIXED over pages 12-13 replaces them with fresh zero pages */
	q = mmap(p + 12 * PG, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(q == p + 12 * PG);
	CHECK(page_is(p + 12 * PG, 0) && page_is(p + 13 * PG, 0));
	CHECK(page_is(p + 11 * PG, 0x10 + 11) && page_is(p + 14 * PG, 0x10 + 14) &&
	      page_is(p + 15 * PG, 0x10 + 15));

	CHECK_ERR(mprotect(p + 5 * PG, PG, PROT_READ), ENOMEM); /* nothing mapped there */
	CHECK_ERR(mprotect(p + 9 * PG, 2 * PG, PROT_READ), ENOMEM);
	CHECK(strcmp(maps_perms(p + 4 * PG), "rw-p") == 0);

	/* MADV_DONTNEED drops a private anonymous page: it reads back as zero; neighbours stay */
	CHECK_EQ(madvise(p + 7 * PG, PG, MADV_DONTNEED), 0);
	CHECK(page_is(p + 7 * PG, 0));
	CHECK(page_is(p + 6 * PG, 0x16) && page_is(p + 8 * PG, 0x18));
	p[7 * PG] = 0x77; /* and it is still writable memory */
	CHECK_EQ(p[7 * PG], 0x77);
	CHECK_EQ(munmap(p, 16 * PG), 0); /* across the holes */
	CHECK_EQ(count_maps_range(p, p + 16 * PG), 0);

	/* mremap: 2 pages with 2 free pages after them grow in place (flags 0: no moving) */
	r = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(r != MAP_FAILED))
		return utest_done();
	CHECK_EQ(munmap(r + 2 * PG, 2 * PG), 0);
	memset(r, 0xa1, PG);
	memset(r + PG, 0xa2, PG);
	q = mremap(r, 2 * PG, 4 * PG, 0);
	CHECK(q == r);
	if (q == r) {
		CHECK(page_is(r, 0xa1) && page_is(r + PG, 0xa2));
		CHECK(page_is(r + 2 * PG, 0) && page_is(r + 3 * PG, 0));
		CHECK(maps_find(r, &e) == 1 && e.end >= (uintptr_t)(r + 4 * PG));
		memset(r + 3 * PG, 0xa4, PG);
		/* shrink to one page: the first keeps its data, the rest is gone */
		CHECK(mremap(r, 4 * PG, PG, 0) == r);
		CHECK(page_is(r, 0xa1));
		CHECK(maps_perms(r + PG) == NULL);
		CHECK(maps_perms(r + 3 * PG) == NULL);
		check_faults(r + PG);
		check_faults(r + 3 * PG);
	}
	CHECK_EQ(munmap(r, PG), 0);
	CHECK(maps_perms(r) == NULL);
	return utest_done();
}
