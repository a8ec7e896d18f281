/* vm-zero: the shared zero page. Fresh anonymous memory reads as zero; read faults on two
 * untouched pages map the same read-only frame, the zero page; a write gives the page its own
 * zeroed frame (and keeps what was written) while its neighbour stays on the zero page;
 * frames that held data and were given back come zeroed to the next mapping.
 * Natively, a Linux that maps no zero page (a host booted without it) skips those checks.
 * usage: vm-zero [-v]   -v tells each step's faults and frames (user/narrate.h) */
#define _GNU_SOURCE
#define UTEST_NAME "vm-zero"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"

#define NPAGES 8

/* Whether the zero-page checks apply: always under faultline, which must map the zero page;
 * natively only if this Linux does (vmstat.h's probe), else a skip line says why. */
static int zero_page_checked(int fl)
{
	char cmdline[4096] = "";
	const char *why = "frames cannot be seen (pagemap shows no PFN without CAP_SYS_ADMIN)";
	ssize_t n;
	int fd, has;

	if (fl)
		return 1;
	has = linux_zero_page(NULL);
	if (has == 1)
		return 1;
	if (has == 0) {
		why = "this Linux maps no shared zero page (two read faults got two frames)";
		fd = open("/proc/cmdline", O_RDONLY);
		n = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0 && strstr(cmdline, "pvm_no_zero_page=1"))
			why = "this Linux maps no shared zero page (pvm_no_zero_page=1)";
	}
	utest_skip("the shared zero page", why);
	return 0;
}

/* the number of non-zero bytes in the page at p (reading it all) */
static size_t nonzero_bytes(const unsigned char *p)
{
	const volatile unsigned char *v = p;
	size_t i, n = 0;

	for (i = 0; i < VM_PAGE; i++)
		n += v[i] != 0;
	return n;
}

/* Pages filled with a pattern and unmapped give their frames back, and the next pages are
 * most likely those frames again: each must come zero-filled, apart from the byte written
 * by the fault. The number of pages that did not. */
static int recycled_pages_zeroed(void)
{
	enum { N = 64 };
	unsigned char *q = mmap(NULL, N * VM_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int bad = 0;

	if (!CHECK(q != MAP_FAILED))
		return -1;
	memset(q, 0xa5, N * VM_PAGE);
	CHECK_EQ(munmap(q, N * VM_PAGE), 0);
	q = mmap(NULL, N * VM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(q != MAP_FAILED))
		return -1;
	for (int i = 0; i < N; i++) {
		q[i * VM_PAGE + 1] = 1; /* a write fault first: no zero page in between */
		bad += nonzero_bytes(q + i * VM_PAGE) != 1;
	}
	CHECK_EQ(munmap(q, N * VM_PAGE), 0);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned char *p;
	uint64_t pfn0, pfn1, pfn0w;
	struct fl_page pg;
	size_t i;
	int fl = on_faultline();
	int zp;

	narrate_opt(argc, argv);
	zp = zero_page_checked(fl);

	p = mmap(NULL, NPAGES * VM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	vm_no_thp(p, NPAGES * VM_PAGE);
	for (i = 0; i < NPAGES; i++)
		CHECK(!page_present(p + i * VM_PAGE));

	/* read pages 0..5 fully: all zero, each now mapped */
	STEP(p, "reads pages 0 to 5 of fresh anonymous memory")
		for (i = 0; i < 6; i++) {
			CHECK_EQ(nonzero_bytes(p + i * VM_PAGE), 0);
			CHECK(page_present(p + i * VM_PAGE));
		}
	CHECK(!page_present(p + 6 * VM_PAGE)); /* never read */

	/* two pages that were only read share one frame: the zero page */
	pfn0 = page_pfn(p);
	pfn1 = page_pfn(p + VM_PAGE);
	CHECK(pfn0 != 0);
	if (zp) {
		CHECK_EQ(pfn0, pfn1);
		CHECK_EQ(page_pfn(p + 5 * VM_PAGE), pfn0);
		CHECK_EQ(page_is_zero_page(p), 1);
		CHECK_EQ(page_is_zero_page(p + VM_PAGE), 1);
	}
	if (fl) {
		pg = fl_page_of(p);
		CHECK(pg.present && pg.zero && !pg.writable && pg.in_vma);
		CHECK(pg.vm_flags & FL_VM_WRITE); /* the VMA is writable, the PTE is not */
	}

	/* a write to page 0: a frame of its own, zero apart from what was written */
	STEP(p, "writes a byte of page 0, which maps the zero page")
		p[100] = 0x5a;
	pfn0w = page_pfn(p);
	CHECK(pfn0w != 0);
	CHECK(pfn0w != pfn1);
	CHECK_EQ(page_is_zero_page(p), 0);
	CHECK_EQ(page_pfn(p + VM_PAGE), pfn1); /* the neighbour is still on the zero page */
	if (zp)
		CHECK_EQ(page_is_zero_page(p + VM_PAGE), 1);
	CHECK_EQ(nonzero_bytes(p + VM_PAGE), 0);
	CHECK_EQ(p[100], 0x5a);
	CHECK_EQ(nonzero_bytes(p), 1);
	CHECK_EQ(page_mapped_once(p), 1);
	if (fl) {
		pg = fl_page_of(p);
		CHECK(pg.present && !pg.zero && pg.writable && pg.anon && pg.dirty);
		CHECK_EQ(pg.mapcount, 1);
		pg = fl_page_of(p + VM_PAGE);
		CHECK(pg.zero && !pg.writable);
	}

	/* a write to a never-touched page straight away: zero-filled frame, not the zero page */
	STEP(p + 7 * VM_PAGE, "writes a byte of page 7, never touched")
		p[7 * VM_PAGE] = 1;
	CHECK(page_pfn(p + 7 * VM_PAGE) != pfn1);
	CHECK(page_pfn(p + 7 * VM_PAGE) != pfn0w);
	CHECK_EQ(page_is_zero_page(p + 7 * VM_PAGE), 0);
	CHECK_EQ(nonzero_bytes(p + 7 * VM_PAGE), 1);

	/* fill page 0 completely and read it back */
	for (i = 0; i < VM_PAGE; i++)
		p[i] = (unsigned char)(i * 13 + 1);
	for (i = 0; i < VM_PAGE && p[i] == (unsigned char)(i * 13 + 1); i++)
		;
	CHECK_EQ(i, VM_PAGE);
	CHECK_EQ(page_pfn(p), pfn0w); /* the second write did not move it */

	CHECK_EQ(munmap(p, NPAGES * VM_PAGE), 0);
	CHECK_EQ(recycled_pages_zeroed(), 0);
	printf("vm-zero: %s pfn %#llx, written page pfn %#llx\n",
	       zp ? "zero page" : "read page", (unsigned long long)pfn1, (unsigned long long)pfn0w);
	return utest_done();
}
