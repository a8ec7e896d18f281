/* file-major: the first touch of a file page nobody has read is a major fault (the page is read
 * "from the disk" into the page cache); every later touch of that page, by anyone, is a minor
 * fault that maps the same cache page.
 *
 * Under faultline the file is /etc/motd, a ramdisk file that nothing reads before this program
 * in a boot (tests/ring3-host.txt cats it, but after user/expect.txt's programs):
 *  - the first touch of its first page through a MAP_SHARED PROT_READ mapping: ru_majflt +1
 *    (and FL_MM's maj_flt +1); the page is a file page (FL_PAGE file=1, anon=0);
 *  - touching the page again faults no more;
 *  - a forked child mapping the file itself and touching that page: ru_majflt unchanged, a
 *    minor fault, and the same frame as the parent's;
 *  - read() gives the bytes the mapping shows.
 * On Linux whether the page is cached depends on the host, so only the weak forms are checked:
 * the first touch counts a fault (minor or major), the second none, the child maps the same
 * frame (when pagemap shows frames), and read() agrees with the mapping. Natively the file is
 * /etc/motd if the host has a non-empty one, else this program itself.
 * usage: file-major [-v]   -v tells the first touch (user/narrate.h), a major fault that reads
 * the page in, and the second, no fault (the child's is not told: its counts are checked, and
 * the telling would add copy-on-write faults of its own) */
#define _GNU_SOURCE
#define UTEST_NAME "file-major"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"
#include "narrate.h"

static const char *path;
static unsigned char buf[1 << 16];

static void child(uint64_t parent_pfn, unsigned char first)
{
	volatile unsigned char *m;
	long maj0, min0, maj1, min1;
	int fd;

	utest_checks = utest_fails = 0;
	fd = open(path, O_RDONLY);
	if (!CHECK(fd >= 0))
		_exit(1);
	m = mmap(NULL, VM_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(m != MAP_FAILED))
		_exit(1);
	maj0 = major_faults();
	min0 = minor_faults();
	CHECK_EQ(m[0], first);
	maj1 = major_faults();
	min1 = minor_faults();
	if (on_faultline()) {
		if (!CHECK(maj1 == maj0 && min1 - min0 == 1))
			fprintf(stderr,
				"file-major:   child: %ld major and %ld minor faults, want 0 and 1 "
				"(the page is in the page cache already)\n",
				maj1 - maj0, min1 - min0);
		CHECK_EQ(fl_mm_now().maj_flt, maj1);
	} else {
		CHECK(maj1 + min1 > maj0 + min0);
	}
	if (parent_pfn)
		CHECK_EQ(page_pfn((const void *)m), parent_pfn);
	if (on_faultline()) {
		struct fl_page pg = fl_page_of((const void *)m);

		CHECK(pg.present && pg.file && !pg.anon && pg.mapcount >= 2);
	}
	CHECK_EQ(munmap((void *)m, VM_PAGE), 0);
	close(fd);
	_exit(utest_fails ? 1 : 0);
}

int main(int argc, char **argv)
{
	volatile unsigned char *m;
	long maj0, min0, maj1, min1, maj2, min2, n;
	struct stat st;
	size_t len;
	uint64_t pfn;
	int fd, s = -1;
	unsigned char first = 0;
	pid_t pid;

	narrate_opt(argc, argv);
	path = "/etc/motd";
	fd = open(path, O_RDONLY);
	if (!on_faultline() && (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0)) {
		if (fd >= 0)
			close(fd);
		path = argv[0];
		fd = open(path, O_RDONLY);
	}
	if (!CHECK(fd >= 0) || !CHECK(fstat(fd, &st) == 0) || !CHECK(st.st_size > 0))
		return utest_done();
	len = (size_t)st.st_size;
	if (len > sizeof(buf))
		len = sizeof(buf);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(m != MAP_FAILED))
		return utest_done();

	/* the first touch */
	maj0 = major_faults();
	min0 = minor_faults();
	STEP(m, "reads page 0 of %s: the first touch", path)
		first = m[0];
	maj1 = major_faults();
	min1 = minor_faults();
	if (on_faultline()) {
		if (!CHECK(maj1 - maj0 == 1 && min1 == min0))
			fprintf(stderr,
				"file-major:   first touch of %s: %ld major and %ld minor faults, "
				"want 1 and 0 (did an earlier program of this boot read the page "
				"into the cache?)\n",
				path, maj1 - maj0, min1 - min0);
		CHECK_EQ(fl_mm_now().maj_flt, maj1);
	} else {
		CHECK(maj1 + min1 > maj0 + min0);
	}
	/* the same page again: no fault */
	STEP(m, "reads the last byte of page 0")
		(void)m[len - 1 < VM_PAGE ? len - 1 : VM_PAGE - 1];
	maj2 = major_faults();
	min2 = minor_faults();
	CHECK_EQ(maj2, maj1);
	CHECK_EQ(min2, min1);
	pfn = page_pfn((const void *)m);
	CHECK(page_present((const void *)m));
	if (on_faultline()) {
		struct fl_page pg = fl_page_of((const void *)m);

		CHECK(pg.present && pg.file == 1 && pg.anon == 0 && !pg.writable && pfn != 0);
	}

	/* a child's own mapping finds the page in the cache */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(pfn, first);
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &s, 0), pid);
	if (!CHECK(exited_ok(s)))
		fprintf(stderr, "file-major:   child: %s\n", status_str(s));

	/* read() and the mapping agree */
	n = read(fd, buf, len);
	CHECK_EQ(n, (long)len);
	if (n == (long)len && !CHECK(memcmp(buf, (const void *)m, len) == 0))
		fprintf(stderr, "file-major:   %s: read() and the mapping differ\n", path);
	if (on_faultline())
		CHECK(memcmp(buf, "Welcome to faultline", 20) == 0);

	CHECK_EQ(munmap((void *)m, len), 0);
	CHECK_EQ(close(fd), 0);
	return utest_done();
}
