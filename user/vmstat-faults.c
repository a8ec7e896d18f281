/* vmstat-faults: /proc/vmstat's pgfault and pgmajfault must grow by exactly this process's own
 * minor + major and major faults (getrusage) while it alone faults: a kernel that counts one
 * fault twice, or misses one, fails. The major faults are swap-ins under faultline (its swap
 * area must be on: no swap there is a failure) and file pages dropped with posix_fadvise
 * natively (faultline has no fadvise). Other processes of a busy host may fault in the window
 * too: up to TRIES tries, and each counter must match exactly in one of them (a double count
 * never does: every try has major faults); vmstat ever behind our own count fails.
 * usage: vmstat-faults [MIB]   under faultline, write at most MIB (default 64) MiB for swap */
#define _GNU_SOURCE
#define UTEST_NAME "vmstat-faults"
#include "utest.h"
#include "vmstat.h"

#include <stdlib.h>
#include <sys/sysinfo.h>

#define MIB (1UL << 20)
#define MINORS 16     /* fresh anonymous pages written in each try */
#define MAJORS 4      /* pages out of memory touched in each try */
#define SPAN 256      /* pages that may go out: the first MiB under faultline, the file natively */
#define TRIES 50

static char *span;      /* SPAN pages whose touch is a major fault while they are not resident */
static int file_fd = -1; /* natively: the file behind span */
static char vmbuf[16384];

/* pgfault and pgmajfault from /proc/vmstat; 0 if it could not be read. Nothing here faults
 * once vmbuf has been read into before: no allocation, the stack already there. */
static int vmstat_faults(unsigned long *all, unsigned long *maj)
{
	const char *s;

	*all = *maj = 0;
	if (utest_slurp("/proc/vmstat", vmbuf, sizeof(vmbuf)) <= 0)
		return 0;
	s = strstr(vmbuf, "\npgfault ");
	if (!s || sscanf(s, "\npgfault %lu", all) != 1)
		return 0;
	s = strstr(vmbuf, "\npgmajfault ");
	return s && sscanf(s, "\npgmajfault %lu", maj) == 1;
}

static int resident(const void *p)
{
	unsigned char v = 1;

	return mincore((void *)p, VM_PAGE, &v) != 0 || (v & 1);
}

/* faultline: write anonymous memory until page 0 of span has gone out to swap; then unmap all
 * but span, so nothing presses its pages back out. 0 if there is no swap or nothing went out. */
static int swap_span_out(size_t mib)
{
	size_t pages = mib * MIB / VM_PAGE, pg;
	struct sysinfo si;

	if (!CHECK(sysinfo(&si) == 0) || !CHECK(si.totalswap > 0)) {
		fprintf(stderr, "%s: no swap area under faultline: no major fault to count\n",
			UTEST_NAME);
		return 0;
	}
	span = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!CHECK(span != MAP_FAILED) || !CHECK(pages > SPAN))
		return 0;
	for (pg = 0; pg < pages; pg++) {
		span[pg * VM_PAGE] = (char)pg;
		if (pg % 256 == 255 && !resident(span))
			break;
	}
	printf("%s: page 0 %s after %zu MiB\n", UTEST_NAME,
	       resident(span) ? "still in memory" : "in swap", (pg + 1) * VM_PAGE / MIB);
	CHECK(munmap(span + SPAN * VM_PAGE, mib * MIB - SPAN * VM_PAGE) == 0);
	if (!CHECK(!resident(span)))
		return 0;
	return 1;
}

/* natively: map the file of SPAN pages afresh with its pages dropped from the page cache (a
 * clean page nobody maps goes with POSIX_FADV_DONTNEED); no read-ahead, so each touch of a
 * page not resident is one major fault. */
static int file_span_drop(void)
{
	if (span)
		CHECK(munmap(span, SPAN * VM_PAGE) == 0);
	CHECK(posix_fadvise(file_fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
	span = mmap(NULL, SPAN * VM_PAGE, PROT_READ, MAP_SHARED, file_fd, 0);
	if (!CHECK(span != MAP_FAILED))
		return 0;
	CHECK(madvise(span, SPAN * VM_PAGE, MADV_RANDOM) == 0);
	return 1;
}

static int file_span_make(const char *argv0)
{
	static char path[4096], page[VM_PAGE];

	/* beside the program: /tmp may be a tmpfs, whose pages cannot be dropped */
	utest_sibling(path, sizeof(path), argv0, "vmstat-faults.data");
	file_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!CHECK(file_fd >= 0))
		return 0;
	unlink(path);
	for (int i = 0; i < SPAN; i++) {
		memset(page, i + 1, sizeof(page));
		CHECK_EQ(write(file_fd, page, sizeof(page)), (long)sizeof(page));
	}
	CHECK(fsync(file_fd) == 0); /* clean pages: DONTNEED drops them */
	return file_span_drop();
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	unsigned long all0, maj0, all1, maj1;
	long own_min = 0, own_maj = 0, vm_all, vm_maj;
	int matched = 0, all_ok = 0, maj_ok = 0, tries = 0, next = 0, faultline = on_faultline();
	struct rusage r0, r1;
	volatile char sink;

	/* faultline: no swap readahead while it runs (/proc/sys/vm/page-cluster 0), or a fault on
	 * a page of ours that went out meanwhile (stdio's buffer, the stack) reads its slot's
	 * neighbours back into the swap cache, span's page 0 among them: mincore then calls it
	 * resident, and its touch is no major fault. Put back at exit. */
	if (faultline)
		CHECK(utest_page_cluster_off() >= 0);
	if (!(faultline ? swap_span_out(mib) : file_span_make(argv[0])))
		return utest_done();
	CHECK(vmstat_faults(&all0, &maj0)); /* vmbuf's pages are in now */
	while (!matched && tries < TRIES && utest_fails == 0) {
		char *fresh = mmap(NULL, MINORS * VM_PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int touched = 0;

		if (!CHECK(fresh != MAP_FAILED))
			break;
		if (!faultline && tries > 0) {
			usleep(10000); /* perhaps a quieter moment of the host */
			if (!file_span_drop())
				break;
		}
		tries++;
		/* the window: nothing between the two reads faults but the touches */
		vmstat_faults(&all0, &maj0);
		getrusage(RUSAGE_SELF, &r0);
		for (int i = 0; i < MINORS; i++)
			fresh[i * VM_PAGE] = 1;
		for (; next < SPAN && touched < MAJORS; next++)
			if (!resident(span + next * VM_PAGE)) {
				sink = span[next * VM_PAGE];
				touched++;
			}
		getrusage(RUSAGE_SELF, &r1);
		vmstat_faults(&all1, &maj1);
		(void)sink;
		CHECK(munmap(fresh, MINORS * VM_PAGE) == 0);
		if (!faultline)
			next = 0; /* the file's pages go again before the next try */

		own_min = r1.ru_minflt - r0.ru_minflt;
		own_maj = r1.ru_majflt - r0.ru_majflt;
		vm_all = (long)(all1 - all0);
		vm_maj = (long)(maj1 - maj0);
		printf("%s: try %d: own %ld minor %ld major; vmstat pgfault +%ld pgmajfault +%ld\n",
		       UTEST_NAME, tries, own_min, own_maj, vm_all, vm_maj);
		if (touched == 0 || own_maj == 0) {
			/* nothing of span was out: the try cannot tell a double count */
			if (faultline)
				CHECK(touched > 0 && own_maj > 0);
			else
				utest_skip("pgmajfault against majflt", "no page of the file left "
					   "the page cache with POSIX_FADV_DONTNEED");
			break;
		}
		CHECK(own_min >= MINORS);
		/* never fewer than our own, whatever else runs */
		CHECK(vm_maj >= own_maj);
		CHECK(vm_all >= own_min + own_maj);
		maj_ok |= vm_maj == own_maj;
		all_ok |= vm_all == own_min + own_maj;
		matched = maj_ok && all_ok;
		/* faultline runs nothing else meanwhile: the first try must match */
		if (faultline && !matched)
			CHECK(matched);
	}
	if (matched)
		printf("%s: vmstat's pgfault and pgmajfault matched this process's faults "
		       "(%d tries)\n", UTEST_NAME, tries);
	else if (utest_fails == 0 && own_maj > 0)
		CHECK(matched); /* TRIES tries, always someone else's faults too */
	return utest_done();
}
