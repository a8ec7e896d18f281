/* file-sigbus: a file mapping past the end of the file. Every access that should fault is made
 * by a forked child, which must die of SIGBUS (the parent checks WTERMSIG):
 *  - 4 pages mapped over a 1.5-page file: page 1 (partly in the file) is readable, its tail
 *    reads as zero; pages 2 and 3 (wholly past EOF) are SIGBUS, read or write, shared or private,
 *    and those faults leave no page past EOF in the page cache (mincore);
 *  - ftruncate 3 pages -> 1 page while mapped: page 0 keeps its data, pages 1 and 2 are gone
 *    (not present, SIGBUS), also a private mapping's copy-on-write page;
 *  - ftruncate back to 3 pages: pages 1 and 2 read as zeroes, not the old data;
 *  - ftruncate on an O_RDONLY descriptor is EINVAL and changes nothing;
 *  - open(O_TRUNC) empties the file: the mapping's old pages are SIGBUS past the new EOF, and
 *    new data written with write() shows through the same mapping.
 * usage: file-sigbus [-v]   -v tells a few of the children's accesses (user/narrate.h): the
 * fault past EOF (VM_FAULT_SIGBUS) and its SIGBUS, told before it kills the child */
#define _GNU_SOURCE
#define UTEST_NAME "file-sigbus"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"
#include "narrate.h"

#define P     VM_PAGE
#define MAPSZ (4 * P)

static unsigned char buf[4 * P];
static char path[64];
static const char *told; /* the title of the probe told next */

/* a probe's access in its child, as a step (a SIGBUS told before it kills the child) */
static void told_access(volatile unsigned char *p, int write)
{
	narrate_fatal(SIGBUS);
	STEP(p, "%s", told) {
		if (write)
			*p = 0x5a;
		else
			(void)*p;
	}
}

/* TOLD("title", CHECK_PROBE(...)): that probe's access is a step */
#define TOLD(title, probe_check)                                                                   \
	do {                                                                                       \
		told = (title);                                                                    \
		probe_access = told_access;                                                        \
		probe_check;                                                                       \
		probe_access = NULL;                                                               \
	} while (0)

int main(int argc, char **argv)
{
	volatile unsigned char *m, *w, *pv;
	struct stat st;
	unsigned char vec[MAPSZ / P];
	int fd, fd2, rofd;

	narrate_opt(argc, argv);
	if (tmp_setup())
		return 1;
	tmp_path(path, sizeof(path), "sigbus");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (!CHECK(fd >= 0))
		return utest_done();

	/* 1. 4 pages over a 1.5-page file */
	pat_fill(buf, 0, P + P / 2, 1);
	CHECK_EQ(write(fd, buf, P + P / 2), P + P / 2);
	m = mmap(NULL, MAPSZ, PROT_READ, MAP_SHARED, fd, 0);
	w = mmap(NULL, MAPSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pv = mmap(NULL, MAPSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (!CHECK(m != MAP_FAILED && w != MAP_FAILED && pv != MAP_FAILED))
		return utest_done();
	TOLD("a child reads page 1, the file's last, half past EOF", CHECK_PROBE(m + P, 0, 0));
	CHECK_PROBE(m + P + P / 2 + 10, 0, 0); /* past EOF, but in the file's last page */
	CHECK_PROBE(m + 2 * P - 1, 0, 0);
	TOLD("a child reads page 2, wholly past EOF", CHECK_PROBE(m + 2 * P, 0, SIGBUS));
	CHECK_PROBE(m + 3 * P + 5, 0, SIGBUS);
	CHECK_PROBE(w + 2 * P, 1, SIGBUS);
	CHECK_PROBE(pv + 2 * P, 0, SIGBUS);
	CHECK_PROBE(pv + 3 * P, 1, SIGBUS);
	/* those faults brought nothing past EOF into the page cache: the file's two pages are
	 * there (mincore asks the cache), pages 2 and 3 are not */
	CHECK(mincore((void *)m, MAPSZ, vec) == 0);
	CHECK((vec[0] & 1) && (vec[1] & 1) && !(vec[2] & 1) && !(vec[3] & 1));
	CHECK_EQ(pat_diff(m, 0, P + P / 2, 1), -1);
	CHECK_EQ(first_nonzero(m + P + P / 2, P / 2), -1);
	CHECK_PROBE(w + P + P / 2, 1, 0); /* a store past EOF in the last page: allowed */
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(P + P / 2)); /* the size stays */
	CHECK_EQ(pread(fd, buf, 4 * P, 0), P + P / 2);

	/* 2. 3 pages, all mapped, then truncated to 1 page */
	pat_fill(buf, 0, 3 * P, 2);
	CHECK_EQ(pwrite(fd, buf, 3 * P, 0), 3 * P);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(3 * P));
	CHECK_EQ(pat_diff(m, 0, 3 * P, 2), -1);
	CHECK_EQ(pat_diff(w, 0, 3 * P, 2), -1);
	pv[2 * P + 1] = 0xee; /* a private copy of page 2 */
	CHECK_EQ(pv[2 * P + 1], 0xee);
	CHECK_EQ(pat_diff(pv + P, P, P, 2), -1);
	CHECK(page_present((const void *)(m + P)) && page_present((const void *)(m + 2 * P)));
	CHECK_EQ(ftruncate(fd, P), 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)P);
	CHECK_EQ(pat_diff(m, 0, P, 2), -1); /* below the new size: kept */
	CHECK_EQ(pat_diff(pv, 0, P, 2), -1);
	CHECK(!page_present((const void *)(m + P)));
	CHECK(!page_present((const void *)(m + 2 * P)));
	CHECK(!page_present((const void *)(pv + 2 * P))); /* the private copy was zapped too */
	TOLD("a child reads page 1, past the new EOF after ftruncate to 1 page",
	     CHECK_PROBE(m + P, 0, SIGBUS));
	CHECK_PROBE(m + 2 * P, 0, SIGBUS);
	CHECK_PROBE(m + 2 * P + 100, 0, SIGBUS);
	CHECK_PROBE(w + P + 8, 1, SIGBUS);
	CHECK_PROBE(pv + 2 * P + 1, 0, SIGBUS);
	CHECK_PROBE(pv + P, 1, SIGBUS);
	CHECK_EQ(pread(fd, buf, 4 * P, 0), P);

	/* 3. extended again: the pages past the old end are new, zero-filled ones */
	CHECK_EQ(ftruncate(fd, 3 * P), 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(3 * P));
	CHECK_PROBE(m + 2 * P, 0, 0);
	CHECK_EQ(pat_diff(m, 0, P, 2), -1);
	CHECK_EQ(first_nonzero(m + P, 2 * P), -1);
	CHECK_EQ(first_nonzero(w + P, 2 * P), -1);
	CHECK_EQ(first_nonzero(pv + P, 2 * P), -1); /* not the old private copy (0xee) either */
	CHECK_EQ(pread(fd, buf, 4 * P, 0), 3 * P);
	CHECK_EQ(pat_diff(buf, 0, P, 2), -1);
	CHECK_EQ(first_nonzero(buf + P, 2 * P), -1);
	CHECK_PROBE(m + 3 * P, 0, SIGBUS); /* still past the end */

	/* 4. ftruncate needs a descriptor open for writing */
	rofd = open(path, O_RDONLY);
	CHECK(rofd >= 0);
	CHECK_ERR(ftruncate(rofd, 0), EINVAL);
	CHECK_ERR(ftruncate(rofd, 5 * P), EINVAL);
	CHECK_ERR(ftruncate(fd, -1), EINVAL);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(3 * P));

	/* 5. open(O_TRUNC) empties the file under the mapping */
	w[10] = 0x42;
	CHECK_EQ(m[10], 0x42);
	fd2 = open(path, O_RDWR | O_TRUNC);
	CHECK(fd2 >= 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0);
	CHECK_EQ(pread(fd, buf, P, 0), 0);
	CHECK(!page_present((const void *)m));
	CHECK_PROBE(m, 0, SIGBUS);
	CHECK_PROBE(m + P, 0, SIGBUS);
	CHECK_PROBE(w + 10, 1, SIGBUS);
	CHECK_PROBE(pv, 0, SIGBUS);
	CHECK_EQ(write(fd2, "fresh", 5), 5);
	CHECK_PROBE(m, 0, 0);
	CHECK(memcmp((const void *)m, "fresh", 5) == 0);
	CHECK_EQ(first_nonzero(m + 5, P - 5), -1); /* not the old 0x42 or pattern */
	CHECK_PROBE(m + P, 0, SIGBUS);

	CHECK_EQ(munmap((void *)m, MAPSZ), 0);
	CHECK_EQ(munmap((void *)w, MAPSZ), 0);
	CHECK_EQ(munmap((void *)pv, MAPSZ), 0);
	CHECK_EQ(close(fd2), 0);
	CHECK_EQ(close(rofd), 0);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(unlink(path), 0);
	tmp_cleanup();
	return utest_done();
}
