/* vm-lazy: demand paging. A 1 GiB MAP_NORESERVE anonymous mapping costs no memory until it is
 * touched; a write to one page makes exactly that page resident (its neighbours stay absent),
 * costing one frame plus at most three page-table pages; munmap gives everything back.
 * usage: vm-lazy [-v]   -v tells each step's faults and frames (user/narrate.h) */
#define _GNU_SOURCE
#define UTEST_NAME "vm-lazy"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"
#include <stdlib.h>

#define GIB (1UL << 30)

int main(int argc, char **argv)
{
	long rss0, rss1, rss2, rss3, flt0, flt1;
	struct fl_mm m0, m1, m2, m3;
	unsigned char *p, *page;
	int fl = on_faultline();

	narrate_opt(argc, argv);
	m0 = fl_mm_now();
	rss0 = rss_pages();
	CHECK(rss0 > 0);
	p = mmap(NULL, GIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	vm_no_thp(p, GIB);
	m1 = fl_mm_now();
	rss1 = rss_pages();
	CHECK(labs(rss1 - rss0) <= 2); /* mapping is free */
	CHECK_EQ(count_maps_range(p, p + GIB), 1);
	CHECK(maps_perms(p) && strcmp(maps_perms(p), "rw-p") == 0);
	if (fl) { /* one more VMA (or none, had it merged with an anonymous neighbour) */
		CHECK(m1.nr_vmas == m0.nr_vmas + 1 || m1.nr_vmas == m0.nr_vmas);
		/* a VMA, not 256 Ki frames, and no page tables yet */
		CHECK((long)m0.free_frames - (long)m1.free_frames <= 2);
		CHECK_EQ(m1.pt_pages, m0.pt_pages);
	}

	page = p + GIB / 2 + 5 * VM_PAGE; /* somewhere in the middle */
	CHECK(!page_present(page));
	/* again, right before the write: everything the measuring itself touches (maps's buffers,
	 * natively also the text of the helpers, faulted in from the file) is resident by now */
	CHECK(minor_faults() >= 0 && major_faults() >= 0);
	m1 = fl_mm_now();
	rss1 = rss_pages();
	flt0 = minor_faults();
	STEP(page, "writes one byte in the middle of the 1 GiB")
		*(volatile unsigned char *)page = 0xa5;
	flt1 = minor_faults();
	rss2 = rss_pages();
	m2 = fl_mm_now();
	CHECK(flt1 - flt0 >= 1 && flt1 - flt0 <= 16);
	CHECK(labs(rss2 - rss1 - 1) <= 1);
	CHECK(page_present(page));
	CHECK(page_pfn(page) != 0);
	CHECK(!page_present(page - VM_PAGE));
	CHECK(!page_present(page + VM_PAGE));
	CHECK(!page_present(p));
	CHECK(!page_present(p + GIB - VM_PAGE));
	CHECK_EQ(*(volatile unsigned char *)page, 0xa5);
	CHECK_EQ(page[1], 0);
	if (fl) {
		long used = (long)(m1.free_frames - m2.free_frames);
		long pt = (long)(m2.pt_pages - m1.pt_pages);
		struct fl_page pg = fl_page_of(page);

		if (!CHECK(used >= 1 && used <= 4))
			fprintf(stderr, "vm-lazy:   one write took %ld frames\n", used);
		CHECK(pt >= 0 && pt <= 3);
		CHECK(used >= 1 + pt);
		CHECK_EQ(m2.rss, m1.rss + 1);
		CHECK(m2.min_flt >= m1.min_flt + 1);
		CHECK(pg.present && pg.writable && pg.user && pg.anon && !pg.zero && pg.in_vma);
		CHECK_EQ(pg.mapcount, 1);
		CHECK(!fl_page_of(page + VM_PAGE).present);
		CHECK(fl_page_of(page + VM_PAGE).in_vma);
	}

	STEP(page, "unmaps the 1 GiB")
		CHECK_EQ(munmap(p, GIB), 0);
	rss3 = rss_pages();
	m3 = fl_mm_now();
	CHECK(labs(rss3 - rss1) <= 1);
	CHECK(rss3 < rss2);
	CHECK(maps_perms(page) == NULL);
	if (fl) {
		long kept_pt = (long)m3.pt_pages - (long)m1.pt_pages; /* tables munmap kept */

		CHECK_EQ(m3.nr_vmas, m0.nr_vmas);
		CHECK(kept_pt <= 3);
		/* the page came back, and so did every page-table page that is no longer counted */
		if (!CHECK((long)m3.free_frames >= (long)m1.free_frames - kept_pt))
			fprintf(stderr,
				"vm-lazy:   free frames %lu before the write, %lu after munmap\n",
				(unsigned long)m1.free_frames, (unsigned long)m3.free_frames);
		CHECK(m3.free_frames >= m2.free_frames + 1);
		CHECK(!fl_page_of(page).in_vma);
	}
	printf("vm-lazy: rss %ld at first, %ld before the write, %ld after, %ld after munmap\n",
	       rss0, rss1, rss2, rss3);
	return utest_done();
}
