/* file-mmap: file mappings and the page cache agree. A file of 3.5 pages written with write():
 *  - MAP_SHARED PROT_READ shows every byte read() gives, and zeroes past EOF in the last page;
 *    two mappings of one page (and a forked child's own mapping) map the same frame: the page
 *    cache's page (faultline: FL_PAGE file=1, anon=0);
 *  - MAP_PRIVATE: a write gives the process its own anonymous copy (new frame, anon=1); the file
 *    and the shared mappings keep the old bytes; unwritten pages still map the cache's page;
 *  - MAP_SHARED PROT_READ|PROT_WRITE: a store is in the file at once (pread, other mappings, a
 *    forked child mapping the file itself), and a child's store through the inherited mapping
 *    reaches the parent;
 *  - pwrite() is seen through an existing mapping, also an append within the last page;
 *  - the mappings outlive close() of the descriptor and unlink() of the file.
 * usage: file-mmap [-v]   -v tells each step's faults and frames (user/narrate.h) */
#define _GNU_SOURCE
#define UTEST_NAME "file-mmap"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"
#include "narrate.h"

#define P     VM_PAGE
#define NB    (3 * P + P / 2) /* file size: 3.5 pages */
#define SEED  1
#define MAPSZ (4 * P)

static unsigned char buf[MAPSZ], rbuf[MAPSZ];
static char path[64];
static int pfn_known; /* faultline always; Linux when pagemap gives frame numbers (root) */

/* p and q map the same frame (checked only when frame numbers can be known) */
static int same_frame(const void *p, const void *q)
{
	uint64_t a = page_pfn(p), b = page_pfn(q);

	if (!pfn_known)
		return 1;
	if (a == 0 || a != b)
		fprintf(stderr, "file-mmap:   frames %#llx and %#llx\n", (unsigned long long)a,
			(unsigned long long)b);
	return a != 0 && a == b;
}

static void check_file_page(const void *p, const char *what)
{
	struct fl_page pg;

	if (!on_faultline())
		return;
	pg = fl_page_of(p);
	if (!CHECK(pg.present && pg.file == 1 && pg.anon == 0 && pg.zero == 0))
		fprintf(stderr, "file-mmap:   %s: present %llu file %llu anon %llu zero %llu\n",
			what, (unsigned long long)pg.present, (unsigned long long)pg.file,
			(unsigned long long)pg.anon, (unsigned long long)pg.zero);
}

/* a child with its own descriptor and mapping of the file sees the parent's stores and maps
 * the same frame; it also stores through the inherited shared writable mapping */
static void child(volatile unsigned char *rw, uint64_t parent_pfn2)
{
	volatile unsigned char *m;
	int fd;

	utest_checks = utest_fails = 0;
	fd = open(path, O_RDONLY);
	if (!CHECK(fd >= 0))
		_exit(1);
	m = mmap(NULL, MAPSZ, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(m != MAP_FAILED))
		_exit(1);
	CHECK_EQ(m[2 * P + 7], 0x11);
	CHECK(memcmp((const void *)(m + 100), "shared store", 12) == 0);
	CHECK_EQ(pat_diff(m, 0, 100, SEED), -1);
	if (pfn_known)
		CHECK_EQ(page_pfn((const void *)(m + 2 * P)), parent_pfn2);
	/* Linux's fork copies no PTEs of a shared file mapping (the child faults them again):
	 * read through the inherited mapping before comparing its frame */
	CHECK_EQ(rw[2 * P + 7], 0x11);
	CHECK(same_frame((const void *)(m + 2 * P), (const void *)(rw + 2 * P)));
	check_file_page((const void *)(m + 2 * P), "child's own shared mapping");
	check_file_page((const void *)(rw + 2 * P), "child's inherited shared mapping");
	rw[2 * P + 9] = 0x22; /* the parent must see this */
	CHECK_EQ(m[2 * P + 9], 0x22);
	CHECK_EQ(munmap((void *)m, MAPSZ), 0);
	close(fd);
	_exit(utest_fails ? 1 : 0);
}

int main(int argc, char **argv)
{
	volatile unsigned char *ro, *ro2, *pv, *rw;
	unsigned char c;
	struct stat st;
	int fd, i, s = -1;
	uint64_t pfn2;
	pid_t pid;

	narrate_opt(argc, argv);
	if (tmp_setup())
		return 1;
	tmp_path(path, sizeof(path), "mmap");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (!CHECK(fd >= 0))
		return utest_done();

	/* the file: written in three uneven pieces */
	pat_fill(buf, 0, NB, SEED);
	CHECK_EQ(write(fd, buf, 1000), 1000);
	CHECK_EQ(write(fd, buf + 1000, 5000), 5000);
	CHECK_EQ(write(fd, buf + 6000, NB - 6000), NB - 6000);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)NB);
	CHECK_EQ(pread(fd, rbuf, MAPSZ, 0), NB);
	CHECK(memcmp(buf, rbuf, NB) == 0);

	/* 1. shared, read-only: the file's bytes, zeroes after EOF */
	ro = mmap(NULL, NB, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(ro != MAP_FAILED))
		return utest_done();
	vm_no_thp((void *)ro, MAPSZ);
	STEP(ro, "reads the file through a MAP_SHARED mapping")
		CHECK_EQ(pat_diff(ro, 0, NB, SEED), -1);
	CHECK(memcmp((const void *)ro, rbuf, NB) == 0);
	CHECK_EQ(first_nonzero(ro + NB, MAPSZ - NB), -1);
	pfn_known = on_faultline() || page_pfn((const void *)ro) != 0;
	if (!pfn_known)
		printf("file-mmap: no frame numbers from /proc/self/pagemap: "
		       "frame checks skipped\n");
	for (i = 0; i < 4; i++)
		check_file_page((const void *)(ro + i * P), "shared read-only mapping");

	/* a second mapping of the same file: the same frames */
	ro2 = mmap(NULL, MAPSZ, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(ro2 != MAP_FAILED && ro2 != ro))
		return utest_done();
	STEP(ro2, "reads it through a second MAP_SHARED mapping")
		CHECK_EQ(pat_diff(ro2, 0, NB, SEED), -1);
	for (i = 0; i < 4; i++)
		CHECK(same_frame((const void *)(ro2 + i * P), (const void *)(ro + i * P)));
	if (on_faultline())
		CHECK(fl_page_of((const void *)ro).mapcount >= 2);

	/* 2. private: reads map the cache's page, a write makes an anonymous copy */
	pv = mmap(NULL, MAPSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (!CHECK(pv != MAP_FAILED))
		return utest_done();
	vm_no_thp((void *)pv, MAPSZ);
	STEP(pv + P, "reads it through a MAP_PRIVATE mapping")
		CHECK_EQ(pat_diff(pv, 0, NB, SEED), -1);
	CHECK(same_frame((const void *)(pv + P), (const void *)(ro + P)));
	check_file_page((const void *)(pv + P), "private mapping before a write");
	c = (unsigned char)~pat(P + 10, SEED);
	STEP(pv + P, "writes page 1 of the MAP_PRIVATE mapping")
		pv[P + 10] = c;
	pv[NB + 5] = 0x77; /* past EOF in the last page: the process's copy only */
	CHECK_EQ(pv[P + 10], c);
	CHECK_EQ(pv[NB + 5], 0x77);
	CHECK_EQ(pat_diff(pv + P + 11, P + 11, 100, SEED), -1); /* the rest was copied */
	CHECK_EQ(ro[P + 10], pat(P + 10, SEED));
	CHECK_EQ(ro[NB + 5], 0);
	CHECK_EQ(pread(fd, rbuf, MAPSZ, 0), NB);
	CHECK(memcmp(buf, rbuf, NB) == 0); /* the file is untouched */
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)NB);
	if (pfn_known)
		CHECK(page_pfn((const void *)(pv + P)) != 0 &&
		      page_pfn((const void *)(pv + P)) != page_pfn((const void *)(ro + P)));
	CHECK(same_frame((const void *)(pv + 2 * P), (const void *)(ro + 2 * P))); /* unwritten */
	if (on_faultline()) {
		struct fl_page pg = fl_page_of((const void *)(pv + P));

		if (!CHECK(pg.present && pg.anon == 1 && pg.file == 0 && pg.writable))
			fprintf(stderr, "file-mmap:   private copy: anon %llu file %llu w %llu\n",
				(unsigned long long)pg.anon, (unsigned long long)pg.file,
				(unsigned long long)pg.writable);
		check_file_page((const void *)(ro + P), "shared page after a private copy");
	}

	/* 3. shared, writable: a store is the file's new content at once */
	rw = mmap(NULL, MAPSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(rw != MAP_FAILED))
		return utest_done();
	vm_no_thp((void *)rw, MAPSZ);
	rw[2 * P + 7] = 0x11;
	memcpy((void *)(rw + 100), "shared store", 12);
	CHECK_EQ(pread(fd, &c, 1, 2 * P + 7), 1);
	CHECK_EQ(c, 0x11);
	CHECK_EQ(pread(fd, rbuf, 12, 100), 12);
	CHECK(memcmp(rbuf, "shared store", 12) == 0);
	CHECK_EQ(ro[2 * P + 7], 0x11);
	CHECK_EQ(ro2[2 * P + 7], 0x11);
	CHECK_EQ(pv[2 * P + 7], 0x11); /* a private page not yet written still is the file's */
	CHECK_EQ(pv[P + 10], (unsigned char)~pat(P + 10, SEED)); /* ...a written one is not */
	CHECK(same_frame((const void *)(rw + 2 * P), (const void *)(ro + 2 * P)));
	check_file_page((const void *)(rw + 2 * P), "shared writable mapping");
	if (on_faultline())
		CHECK(fl_page_of((const void *)(rw + 2 * P)).writable);

	/* a forked child: its own mapping of the file has the same frame and the stores */
	pfn2 = page_pfn((const void *)(rw + 2 * P));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(rw, pfn2);
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &s, 0), pid);
	if (!CHECK(exited_ok(s)))
		fprintf(stderr, "file-mmap:   child: %s\n", status_str(s));
	CHECK_EQ(ro[2 * P + 9], 0x22);
	CHECK_EQ(pread(fd, &c, 1, 2 * P + 9), 1);
	CHECK_EQ(c, 0x22);

	/* 4. write() goes to the same page: seen through the mappings, appends too */
	CHECK_EQ(pwrite(fd, "XYZ", 3, 3 * P + 1), 3);
	CHECK(memcmp((const void *)(ro + 3 * P + 1), "XYZ", 3) == 0);
	CHECK(memcmp((const void *)(rw + 3 * P + 1), "XYZ", 3) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_END), NB);
	CHECK_EQ(write(fd, "appended", 8), 8);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)NB + 8);
	CHECK(memcmp((const void *)(ro + NB), "appended", 8) == 0);
	CHECK_EQ(first_nonzero(ro + NB + 8, MAPSZ - NB - 8), -1);
	CHECK_EQ(pv[NB + 5], 0x77); /* the private copy is not the file's page any more */

	/* 5. the mappings outlive the descriptor and the file's name */
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(pat_diff(ro, 0, 100, SEED), -1);
	CHECK_EQ(ro[2 * P + 7], 0x11);
	CHECK_EQ(unlink(path), 0);
	CHECK_ERR(open(path, O_RDONLY), ENOENT);
	CHECK_EQ(pat_diff(ro + P, P, P, SEED), -1);
	CHECK_EQ(pat_diff(ro2 + 3 * P + 4, 3 * P + 4, NB - 3 * P - 4, SEED), -1);
	CHECK(memcmp((const void *)(ro + NB), "appended", 8) == 0);
	rw[3 * P + 100] = 0x33; /* the unlinked file's page is still shared */
	CHECK_EQ(ro[3 * P + 100], 0x33);
	CHECK(same_frame((const void *)(rw + 3 * P), (const void *)(ro + 3 * P)));
	check_file_page((const void *)(ro + 3 * P), "shared mapping of an unlinked file");

	CHECK_EQ(munmap((void *)ro, NB), 0);
	CHECK_EQ(munmap((void *)ro2, MAPSZ), 0);
	CHECK_EQ(munmap((void *)pv, MAPSZ), 0);
	CHECK_EQ(munmap((void *)rw, MAPSZ), 0);
	tmp_cleanup();
	return utest_done();
}
