/* Host unit test of kmalloc/kfree (mm/slab.c) on top of the real buddy allocator over 64 MiB
 * of simulated RAM: size classes, alignment, no overlap, frames given back, bad frees. */

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "mm/slab.c"
#include "tests/host/kstubs.h"

#define NR_FRAMES 16384UL /* 64 MiB */

static unsigned char *ram;

/* A fresh buddy allocator owning frames [16, NR_FRAMES), every byte of RAM dirty. */
static void setup(void)
{
	static struct page *map;

	if (!ram) {
		ram = aligned_alloc(PAGE_SIZE, NR_FRAMES * PAGE_SIZE);
		map = malloc(NR_FRAMES * sizeof(*map));
		if (!ram || !map)
			abort();
		host_phys_base = (uintptr_t)ram;
	}
	memset(ram, 0xdb, NR_FRAMES * PAGE_SIZE);
	free_area_init(map, NR_FRAMES);
	free_area_add_range(16, NR_FRAMES);
	rng_state = 0x853c49e6748fea9bULL;
}

/* kmalloc holds nothing: no slab pages, no objects, no large blocks. */
static void check_kmalloc_empty(void)
{
	unsigned int i;

	for (i = 0; i < NR_KMALLOC_CACHES; i++) {
		CHECK_EQ(kmalloc_caches[i].nr_pages, 0);
		CHECK_EQ(kmalloc_caches[i].nr_objects, 0);
		CHECK(list_empty(&kmalloc_caches[i].partial));
	}
	CHECK_EQ(nr_large_pages, 0);
}

static void fill(void *p, size_t size, unsigned int seed)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < size; i++)
		b[i] = (unsigned char)(seed + i * 13);
}

static bool filled(const void *p, size_t size, unsigned int seed)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < size; i++)
		if (b[i] != (unsigned char)(seed + i * 13))
			return false;
	return true;
}

static void test_size_classes(void)
{
	static const size_t sizes[] = { 0,   1,	  8,   15,  16,	 17,   31,   32,   33,	64,   100,
					128, 200, 256, 500, 512, 1000, 1024, 1500, 2047, 2048 };
	void *ptrs[ARRAY_SIZE(sizes)];
	unsigned long start;
	unsigned int i;

	setup();
	start = nr_free_pages();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t want = 16;
		unsigned int ci = 0;
		struct page *page;
		unsigned long offset;

		while (want < sizes[i]) {
			want *= 2;
			ci++;
		}
		ptrs[i] = kmalloc(sizes[i]);
		CHECK(ptrs[i] != NULL);
		if (!ptrs[i])
			return;
		page = virt_to_page(ptrs[i]);
		offset = (unsigned long)((char *)ptrs[i] - (char *)page_address(page));
		CHECK(PageSlab(page));
		CHECK(!PageFlag(page, PG_head));
		CHECK_EQ(page->private, ci);
		CHECK_EQ(kmalloc_caches[ci].size, want);
		CHECK(IS_ALIGNED((uintptr_t)ptrs[i], KMALLOC_MIN_SIZE));
		CHECK_EQ(offset % want, 0); /* aligned to its class size, too */
		CHECK(offset + want <= PAGE_SIZE);
		fill(ptrs[i], sizes[i], i);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		CHECK(filled(ptrs[i], sizes[i], i));
		kfree(ptrs[i]);
	}
	CHECK_EQ(nr_free_pages(), start);
	check_kmalloc_empty();
}

static void test_no_overlap(void)
{
	static const size_t sizes[] = { 1,    16,   24,	  48,	 64,	96,    128,   250,
					256,  300,  512,  777,	 1024,	2000,  2048,  2049,
					3000, 4096, 4097, 8192,	 10000, 65536, 100000 };
	enum { N = 3000 };
	static void *ptrs[N];
	static size_t size_of[N];
	unsigned long start;
	unsigned int i;

	setup();
	start = nr_free_pages();
	for (i = 0; i < N; i++) {
		size_of[i] = sizes[i % ARRAY_SIZE(sizes)];
		ptrs[i] = kmalloc(size_of[i]);
		CHECK(ptrs[i] != NULL);
		if (!ptrs[i])
			return;
		CHECK(IS_ALIGNED((uintptr_t)ptrs[i], KMALLOC_MIN_SIZE));
		if (size_of[i] > KMALLOC_MAX_CACHE_SIZE)
			CHECK(IS_ALIGNED((uintptr_t)ptrs[i], PAGE_SIZE));
		fill(ptrs[i], size_of[i], i);
	}
	/* Any two objects sharing a byte would have clobbered each other's pattern. */
	for (i = 0; i < N; i++)
		CHECK(filled(ptrs[i], size_of[i], i));
	for (i = 1; i < N; i += 2)
		kfree(ptrs[i]);
	for (i = 0; i < N; i += 2)
		CHECK(filled(ptrs[i], size_of[i], i));
	/* Refill the holes with different sizes. */
	for (i = 1; i < N; i += 2) {
		size_of[i] = sizes[(i * 7) % ARRAY_SIZE(sizes)];
		ptrs[i] = kmalloc(size_of[i]);
		CHECK(ptrs[i] != NULL);
		if (!ptrs[i])
			return;
		fill(ptrs[i], size_of[i], i + 1000);
	}
	for (i = 0; i < N; i++) {
		CHECK(filled(ptrs[i], size_of[i], i % 2 ? i + 1000 : i));
		kfree(ptrs[i]);
	}
	CHECK_EQ(nr_free_pages(), start);
	check_kmalloc_empty();
}

static void test_page_accounting(void)
{
	static void *objs[512];
	unsigned long start;
	void *extra, *again;
	int i;

	setup();
	start = nr_free_pages();
	for (i = 0; i < 256; i++)
		objs[i] = kmalloc(16);
	CHECK_EQ(nr_free_pages(), start - 1); /* 256 objects of 16 bytes fill one frame */
	for (i = 1; i < 256; i++)
		CHECK(virt_to_page(objs[i]) == virt_to_page(objs[0]));
	extra = kmalloc(16);
	CHECK_EQ(nr_free_pages(), start - 2);
	kfree(extra); /* its page is empty again: back to the buddy allocator */
	CHECK_EQ(nr_free_pages(), start - 1);

	/* A freed object in a full page is reused before any new page is taken. */
	kfree(objs[77]);
	again = kmalloc(9);
	CHECK(again == objs[77]);
	CHECK_EQ(nr_free_pages(), start - 1);

	/* Two 2048-byte objects per frame; 1025 bytes is in the 2048 class. */
	objs[300] = kmalloc(2048);
	objs[301] = kmalloc(1025);
	CHECK(virt_to_page(objs[300]) == virt_to_page(objs[301]));
	CHECK_EQ(nr_free_pages(), start - 2);
	objs[302] = kmalloc(2000);
	CHECK_EQ(nr_free_pages(), start - 3);
	kmalloc_stats();
	kfree(objs[300]);
	kfree(objs[301]);
	kfree(objs[302]);
	for (i = 0; i < 256; i++)
		kfree(objs[i]);
	CHECK_EQ(nr_free_pages(), start);
	check_kmalloc_empty();
}

static void test_large(void)
{
	static const struct {
		size_t size;
		unsigned int order;
	} cases[] = { { 2049, 0 },   { 4096, 0 },	   { 4097, 1 },	       { 3 * 4096, 2 },
		      { 65536, 4 }, { 4096 * 1024 - 1, 10 }, { 4096 * 1024, 10 } };
	void *ptrs[ARRAY_SIZE(cases)];
	unsigned long start, before;
	unsigned int i;

	setup();
	start = nr_free_pages();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct page *page;

		before = nr_free_pages();
		ptrs[i] = kmalloc(cases[i].size);
		CHECK(ptrs[i] != NULL);
		if (!ptrs[i])
			return;
		page = virt_to_page(ptrs[i]);
		CHECK(IS_ALIGNED((uintptr_t)ptrs[i], PAGE_SIZE));
		CHECK(PageFlag(page, PG_head));
		CHECK(!PageSlab(page));
		CHECK_EQ(page->private, cases[i].order);
		CHECK(IS_ALIGNED(page_to_pfn(page), 1UL << cases[i].order));
		CHECK_EQ(nr_free_pages(), before - (1UL << cases[i].order));
		fill(ptrs[i], cases[i].size, i);
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK(filled(ptrs[i], cases[i].size, i));
	before = nr_free_pages();
	CHECK(kmalloc(4096 * 1024 + 1) == NULL); /* more than the biggest buddy block */
	CHECK(kmalloc((size_t)-1) == NULL);
	CHECK(kzalloc((size_t)-1) == NULL);
	CHECK_EQ(nr_free_pages(), before);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		kfree(ptrs[i]);
	CHECK_EQ(nr_free_pages(), start);
	check_kmalloc_empty();
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void test_kzalloc(void)
{
	static const size_t sizes[] = { 1, 16, 100, 2048, 3000, 20000 };
	unsigned int i;

	setup();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		void *keep = kmalloc(sizes[i]); /* keeps a small object's page alive */
		void *p = kmalloc(sizes[i]), *q;

		memset(p, 0xff, sizes[i]);
		kfree(p);
		q = kzalloc(sizes[i]);
		CHECK(q == p); /* most likely the same dirty memory comes back */
		CHECK(all_zero(q, sizes[i]));
		kfree(q);
		kfree(keep);
	}
	check_kmalloc_empty();
}

static void test_random_ops(void)
{
	enum { NR_OPS = 20000, MAX_LIVE = 1000 };
	static struct {
		void *p;
		size_t size;
		unsigned int seed;
	} live[MAX_LIVE];
	unsigned long start, nr_live = 0, op;

	setup();
	start = nr_free_pages();
	for (op = 0; op < NR_OPS; op++) {
		if (nr_live < MAX_LIVE && (nr_live == 0 || rnd() % 100 < 55)) {
			unsigned int r = rnd() % 100;
			size_t size = r < 80 ? rnd() % 2049 : r < 97 ? 2049 + rnd() % 14000 :
							       rnd() % 200000;
			void *p = kmalloc(size);

			CHECK(p != NULL);
			if (!p)
				return;
			CHECK(IS_ALIGNED((uintptr_t)p, KMALLOC_MIN_SIZE));
			live[nr_live].p = p;
			live[nr_live].size = size;
			live[nr_live].seed = (unsigned int)op;
			fill(p, size, (unsigned int)op);
			nr_live++;
		} else {
			unsigned long k = rnd() % nr_live;

			CHECK(filled(live[k].p, live[k].size, live[k].seed));
			kfree(live[k].p);
			live[k] = live[--nr_live];
		}
		if (check_failed_in_test)
			return;
	}
	while (nr_live > 0) {
		nr_live--;
		CHECK(filled(live[nr_live].p, live[nr_live].size, live[nr_live].seed));
		kfree(live[nr_live].p);
	}
	CHECK_EQ(nr_free_pages(), start);
	check_kmalloc_empty();
}

static void test_bad_kfree(void)
{
	char want[96];
	char *p, *keep, *big;
	struct page *page;
	int on_stack;
	void *host = malloc(64);

	setup();
	kfree(NULL);

	keep = kmalloc(64);
	p = kmalloc(64);
	EXPECT_PANIC(kfree(p + 16), "inside a 64-byte object");
	EXPECT_PANIC(kfree(p + 1), "inside a 64-byte object");
	kfree(p);
	snprintf(want, sizeof(want), "double free of %p", (void *)p);
	EXPECT_PANIC(kfree(p), want);
	kfree(keep);
	/* Now the page itself is gone: a third kfree finds a frame that is not kmalloc's. */
	EXPECT_PANIC(kfree(p), "is not kmalloc's");

	big = kmalloc(8192);
	EXPECT_PANIC(kfree(big + 8), "inside a 8192-byte kmalloc block");
	EXPECT_PANIC(kfree(big + PAGE_SIZE), "is not kmalloc's");
	kfree(big);
	EXPECT_PANIC(kfree(big), "is not kmalloc's");

	page = alloc_page(GFP_KERNEL);
	snprintf(want, sizeof(want), "frame %lu is not kmalloc's", page_to_pfn(page));
	EXPECT_PANIC(kfree(page_address(page)), want);
	__free_page(page);
	EXPECT_PANIC(kfree(__va(PFN_PHYS(5))), "frame 5 is not kmalloc's");
	EXPECT_PANIC(kfree(&on_stack), "is not a kmalloc pointer");
	EXPECT_PANIC(kfree(host), "is not a kmalloc pointer");
	EXPECT_PANIC(kfree(ram + NR_FRAMES * PAGE_SIZE), "not in the direct map");
	free(host);
	check_kmalloc_empty();
}

static void test_out_of_memory(void)
{
	static struct page *held[NR_FRAMES];
	unsigned long n = 0;
	struct page *page;
	void *p;

	setup();
	while ((page = alloc_page(GFP_KERNEL)) != NULL)
		held[n++] = page;
	CHECK(kmalloc(16) == NULL);
	CHECK(kzalloc(100) == NULL);
	CHECK(kmalloc(5000) == NULL);
	__free_page(held[--n]);
	p = kmalloc(16);
	CHECK(p != NULL);
	CHECK(kmalloc(5000) == NULL);
	kfree(p);
	while (n > 0)
		__free_page(held[--n]);
	CHECK_EQ(nr_free_pages(), nr_managed_pages());
	check_kmalloc_empty();
}

int main(void)
{
	RUN_TEST(test_size_classes);
	RUN_TEST(test_no_overlap);
	RUN_TEST(test_page_accounting);
	RUN_TEST(test_large);
	RUN_TEST(test_kzalloc);
	RUN_TEST(test_random_ops);
	RUN_TEST(test_bad_kfree);
	RUN_TEST(test_out_of_memory);
	free(ram);
	return check_total_failed != 0;
}
