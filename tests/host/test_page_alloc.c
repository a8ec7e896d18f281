/* Host unit test of the buddy allocator (mm/page_alloc.c) over 64 MiB of simulated RAM with a
 * hole and reserved regions, checked against the allocator's invariants and a shadow bitmap. */

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "tests/host/kstubs.h"

/* A RAM size just short of 64 MiB, so the top frames cannot form a whole order-10 block and
 * their buddies lie beyond max_pfn (mem_map is allocated exactly, so ASan sees any overrun). */
#define NR_FRAMES 16344UL

static unsigned char *ram;
static bool usable[NR_FRAMES]; /* frames given to the allocator */
static bool owned[NR_FRAMES];  /* frames the test holds (shadow of the allocator) */
static unsigned long nr_usable;


static void add_range(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end && pfn < NR_FRAMES; pfn++) {
		usable[pfn] = true;
		nr_usable++;
	}
	free_area_add_range(start, end);
}

/*
 * A fresh allocator: [0, 256) firmware, [256, 3001) RAM (handed over in two pieces, the upper
 * first), [3001, 3400) a hole, [3400, 8197) RAM, [8197, 8900) the kernel image, [8900, 16344)
 * RAM (passed with an end beyond max_pfn, which must be clamped).
 */
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
	memset(map, 0x5a, NR_FRAMES * sizeof(*map)); /* free_area_init must set every field */
	memset(usable, 0, sizeof(usable));
	memset(owned, 0, sizeof(owned));
	nr_usable = 0;
	rng_state = 0x9e3779b97f4a7c15ULL;

	free_area_init(map, NR_FRAMES);
	add_range(1500, 3001);
	add_range(256, 1500);
	add_range(3400, 8197);
	add_range(8900, 20000);
}

/* Check every invariant listed at the top of mm/page_alloc.c. */
static void check_free_lists(void)
{
	static bool seen[NR_FRAMES];
	unsigned long frames = 0, heads = 0, buddy_flags = 0, pfn;
	unsigned int order;

	memset(seen, 0, sizeof(seen));
	for (order = 0; order < MAX_ORDER; order++) {
		struct list_head *pos;
		unsigned long blocks = 0;

		list_for_each(pos, &free_area[order].free_list) {
			struct page *head = list_entry(pos, struct page, lru);
			unsigned long start = page_to_pfn(head), i;

			blocks++;
			CHECK(start < NR_FRAMES);
			if (start >= NR_FRAMES)
				return;
			CHECK(IS_ALIGNED(start, 1UL << order));
			CHECK(PageBuddy(head));
			CHECK_EQ(head->private, order);
			CHECK(start + (1UL << order) <= NR_FRAMES);
			for (i = start; i < start + (1UL << order) && i < NR_FRAMES; i++) {
				struct page *p = pfn_to_page(i);

				CHECK(usable[i]);
				CHECK(!seen[i]);
				CHECK(!owned[i]);
				CHECK(!PageReserved(p));
				CHECK_EQ(p->_count, 0);
				if (i != start)
					CHECK(!PageBuddy(p));
				seen[i] = true;
			}
			/* Two free buddies of the same order should have been merged. */
			if (order < MAX_ORDER - 1) {
				unsigned long b = start ^ (1UL << order);

				CHECK(!(b < NR_FRAMES && PageBuddy(pfn_to_page(b)) &&
					pfn_to_page(b)->private == order));
			}
			frames += 1UL << order;
		}
		CHECK_EQ(blocks, free_area[order].nr_free);
		heads += blocks;
	}
	for (pfn = 0; pfn < NR_FRAMES; pfn++) {
		buddy_flags += PageBuddy(pfn_to_page(pfn));
		if (!usable[pfn]) {
			CHECK(PageReserved(pfn_to_page(pfn)));
			CHECK_EQ(pfn_to_page(pfn)->_count, 1);
		}
	}
	CHECK_EQ(buddy_flags, heads);
	CHECK_EQ(frames, nr_free_pages());
}

/*
 * With nothing allocated, the free lists must hold exactly the biggest aligned blocks that
 * tile each run of usable frames: everything that can merge has merged.
 */
static void check_fully_merged(void)
{
	unsigned long want[MAX_ORDER] = { 0 };
	unsigned long pfn = 0;
	unsigned int order;

	while (pfn < NR_FRAMES) {
		unsigned long end;

		if (!usable[pfn]) {
			pfn++;
			continue;
		}
		for (end = pfn; end < NR_FRAMES && usable[end]; end++)
			;
		while (pfn < end) {
			order = MAX_ORDER - 1;
			while (!IS_ALIGNED(pfn, 1UL << order) || pfn + (1UL << order) > end)
				order--;
			want[order]++;
			pfn += 1UL << order;
		}
	}
	for (order = 0; order < MAX_ORDER; order++)
		CHECK_EQ(free_area[order].nr_free, want[order]);
	CHECK_EQ(nr_free_pages(), nr_usable);
	check_free_lists();
}

static void test_init(void)
{
	unsigned long pfn;

	setup();
	CHECK_EQ(max_pfn, NR_FRAMES);
	CHECK_EQ(nr_usable, (3001 - 256) + (8197 - 3400) + (NR_FRAMES - 8900));
	CHECK_EQ(nr_managed_pages(), nr_usable);
	CHECK_EQ(nr_free_pages(), nr_usable);
	for (pfn = 0; pfn < NR_FRAMES; pfn++) {
		struct page *p = pfn_to_page(pfn);

		CHECK_EQ(p->_mapcount, -1);
		CHECK(p->mapping == NULL);
		CHECK_EQ(p->flags & ~((1UL << PG_reserved) | (1UL << PG_buddy)), 0);
	}
	check_fully_merged();
	/* [8192, 8197) is too short for a big block; 9216 starts the first order-10 block. */
	CHECK(PageBuddy(pfn_to_page(8192)) && pfn_to_page(8192)->private == 2);
	CHECK(PageBuddy(pfn_to_page(9216)) && pfn_to_page(9216)->private == 10);
	EXPECT_PANIC(free_area_add_range(300, 301), "frame 300 is already managed");
	dump_free_areas();
}

static void test_alloc_all_order0(void)
{
	static unsigned long pfns[NR_FRAMES];
	unsigned long n = 0, i;
	struct page *p;

	setup();
	while ((p = alloc_page(GFP_KERNEL)) != NULL) {
		unsigned long pfn = page_to_pfn(p);
		unsigned long *words = page_address(p);

		CHECK(pfn < NR_FRAMES);
		if (pfn >= NR_FRAMES || n >= NR_FRAMES)
			break;
		CHECK(usable[pfn]);
		CHECK(!owned[pfn]);
		CHECK_EQ(page_count(p), 1);
		CHECK(!PageBuddy(p));
		CHECK(!PageReserved(p));
		owned[pfn] = true;
		/* Stamp the frame so that handing it out twice would show in its contents. */
		words[0] = pfn;
		words[PAGE_SIZE / sizeof(long) - 1] = ~pfn;
		pfns[n++] = pfn;
		CHECK_EQ(nr_free_pages(), nr_usable - n);
	}
	CHECK_EQ(n, nr_usable);
	CHECK_EQ(nr_free_pages(), 0);
	CHECK(alloc_page(GFP_KERNEL) == NULL);
	CHECK(alloc_pages(GFP_KERNEL, 3) == NULL);

	for (i = 0; i < n; i++) {
		unsigned long *words = __va(PFN_PHYS(pfns[i]));

		CHECK_EQ(words[0], pfns[i]);
		CHECK_EQ(words[PAGE_SIZE / sizeof(long) - 1], ~pfns[i]);
	}
	/* Free in a shuffled order so merging happens from every direction. */
	for (i = n - 1; i > 0; i--) {
		unsigned long j = rnd() % (i + 1), t = pfns[i];

		pfns[i] = pfns[j];
		pfns[j] = t;
	}
	for (i = 0; i < n; i++) {
		owned[pfns[i]] = false;
		__free_page(pfn_to_page(pfns[i]));
	}
	CHECK_EQ(nr_managed_pages(), nr_usable);
	check_fully_merged();
}

static void test_alignment(void)
{
	struct page *blocks[MAX_ORDER];
	unsigned int order;
	unsigned long i, n;

	setup();
	for (order = 0; order < MAX_ORDER; order++) {
		unsigned long pfn;

		blocks[order] = alloc_pages(GFP_KERNEL, order);
		CHECK(blocks[order] != NULL);
		if (!blocks[order])
			return;
		pfn = page_to_pfn(blocks[order]);
		CHECK(IS_ALIGNED(pfn, 1UL << order));
		CHECK_EQ(page_count(blocks[order]), 1);
		for (i = pfn; i < pfn + (1UL << order); i++) {
			CHECK(usable[i]);
			CHECK(!owned[i]);
			owned[i] = true;
		}
	}
	CHECK(alloc_pages(GFP_KERNEL, MAX_ORDER) == NULL);
	check_free_lists();
	for (order = 0; order < MAX_ORDER; order++) {
		unsigned long pfn = page_to_pfn(blocks[order]);

		for (i = pfn; i < pfn + (1UL << order); i++)
			owned[i] = false;
		__free_pages(blocks[order], order);
	}
	check_fully_merged();

	/* Once the order-10 blocks are gone, order 10 fails while order 9 still works. */
	n = free_area[MAX_ORDER - 1].nr_free;
	for (i = 0; i < n; i++)
		CHECK(alloc_pages(GFP_KERNEL, MAX_ORDER - 1) != NULL);
	CHECK(alloc_pages(GFP_KERNEL, MAX_ORDER - 1) == NULL);
	CHECK(alloc_pages(GFP_KERNEL, MAX_ORDER - 2) != NULL);
}

/* Is some naturally aligned block of 2^order usable frames entirely free in the shadow? */
static bool shadow_has_free_block(unsigned int order)
{
	unsigned long pfn, i;

	for (pfn = 0; pfn + (1UL << order) <= NR_FRAMES; pfn += 1UL << order) {
		for (i = pfn; i < pfn + (1UL << order); i++)
			if (!usable[i] || owned[i])
				break;
		if (i == pfn + (1UL << order))
			return true;
	}
	return false;
}

static void test_random_ops(void)
{
	enum { NR_OPS = 10000, MAX_LIVE = 2048 };
	static struct {
		unsigned long pfn;
		unsigned int order;
	} live[MAX_LIVE];
	unsigned long nr_live = 0, nr_owned = 0, op, i;
	unsigned long failed_allocs = 0;

	setup();
	for (op = 0; op < NR_OPS; op++) {
		if (nr_live < MAX_LIVE && (nr_live == 0 || rnd() % 100 < 55)) {
			unsigned int order = rnd() % 4 ? rnd() % 3 : rnd() % MAX_ORDER;
			struct page *p = alloc_pages(GFP_KERNEL, order);
			unsigned long pfn;

			if (!p) {
				/* Failing is only right when no aligned block that big is free. */
				CHECK(!shadow_has_free_block(order));
				failed_allocs++;
				continue;
			}
			pfn = page_to_pfn(p);
			CHECK(IS_ALIGNED(pfn, 1UL << order));
			CHECK_EQ(page_count(p), 1);
			CHECK(!PageBuddy(p));
			for (i = pfn; i < pfn + (1UL << order); i++) {
				CHECK(usable[i]);
				CHECK(!owned[i]);
				owned[i] = true;
				*(unsigned long *)__va(PFN_PHYS(i)) = i * 31 + 7;
			}
			nr_owned += 1UL << order;
			live[nr_live].pfn = pfn;
			live[nr_live].order = order;
			nr_live++;
		} else {
			unsigned long k = rnd() % nr_live;
			unsigned long pfn = live[k].pfn;
			unsigned int order = live[k].order;

			for (i = pfn; i < pfn + (1UL << order); i++) {
				CHECK_EQ(*(unsigned long *)__va(PFN_PHYS(i)), i * 31 + 7);
				owned[i] = false;
			}
			__free_pages(pfn_to_page(pfn), order);
			nr_owned -= 1UL << order;
			live[k] = live[--nr_live];
		}
		CHECK_EQ(nr_free_pages(), nr_usable - nr_owned);
		if (op % 500 == 0)
			check_free_lists();
		if (check_failed_in_test)
			return;
	}
	check_free_lists();
	printf("# random: %lu blocks live at the end, %lu failed allocations\n", nr_live,
	       failed_allocs);
	while (nr_live > 0) {
		nr_live--;
		for (i = 0; i < (1UL << live[nr_live].order); i++)
			owned[live[nr_live].pfn + i] = false;
		__free_pages(pfn_to_page(live[nr_live].pfn), live[nr_live].order);
	}
	check_fully_merged();
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

static void test_gfp_zero(void)
{
	unsigned int orders[] = { 0, 1, 3, MAX_ORDER - 1 };
	unsigned int i;
	struct page *p;

	setup();
	memset(ram, 0xa5, NR_FRAMES * PAGE_SIZE); /* every frame starts dirty */
	/* Without __GFP_ZERO the old contents stay (nobody pays for zeroing by accident). */
	p = alloc_page(GFP_KERNEL);
	CHECK_EQ(*(unsigned char *)page_address(p), 0xa5);
	__free_page(p);
	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		p = alloc_pages(GFP_KERNEL | __GFP_ZERO, orders[i]);
		CHECK(p != NULL);
		if (!p)
			return;
		CHECK(all_zero(page_address(p), PAGE_SIZE << orders[i]));
		/* Dirty it again: the next zeroing allocation may well get it back. */
		memset(page_address(p), 0xff, PAGE_SIZE << orders[i]);
		__free_pages(p, orders[i]);
		p = alloc_pages(__GFP_ZERO, orders[i]);
		CHECK(all_zero(page_address(p), PAGE_SIZE << orders[i]));
		__free_pages(p, orders[i]);
	}
	check_fully_merged();
}

static void test_refcount(void)
{
	struct page *p;
	unsigned long before;

	setup();
	before = nr_free_pages();
	p = alloc_page(GFP_KERNEL);
	get_page(p);
	CHECK_EQ(page_count(p), 2);
	put_page(p);
	CHECK_EQ(page_count(p), 1);
	CHECK_EQ(nr_free_pages(), before - 1);
	put_page(p);
	CHECK_EQ(page_count(p), 0);
	CHECK_EQ(nr_free_pages(), before);
	check_fully_merged();
}

static void test_bad_frees(void)
{
	char want[64];
	struct page *p;
	unsigned long free_before;

	setup();
	p = alloc_page(GFP_KERNEL);
	__free_page(p);
	free_before = nr_free_pages();
	snprintf(want, sizeof(want), "frame %lu is not allocated", page_to_pfn(p));
	EXPECT_PANIC(__free_page(p), want);
	CHECK_EQ(nr_free_pages(), free_before);
	check_fully_merged();

	/* A frame in the middle of a free block: its head has PG_buddy, it does not. */
	EXPECT_PANIC(__free_page(pfn_to_page(9216 + 5)), "frame 9221 is not allocated");
	EXPECT_PANIC(__free_page(pfn_to_page(5)), "frame 5 is reserved");
	EXPECT_PANIC(__free_page(pfn_to_page(3100)), "frame 3100 is reserved");
	EXPECT_PANIC(__free_page(pfn_to_page(8500)), "frame 8500 is reserved");
	EXPECT_PANIC(__free_page(mem_map + NR_FRAMES), "not a struct page");

	/* An order that the frame cannot head. */
	do
		p = alloc_page(GFP_KERNEL);
	while (page_to_pfn(p) % 2 == 0);
	snprintf(want, sizeof(want), "frame %lu cannot head a block of order 1", page_to_pfn(p));
	EXPECT_PANIC(__free_pages(p, 1), want);

	/* Still mapped: the last reference cannot go while a PTE points at the frame. */
	p->_mapcount = 0;
	snprintf(want, sizeof(want), "frame %lu is still mapped", page_to_pfn(p));
	EXPECT_PANIC(__free_page(p), want);
	p->_mapcount = -1;
	CHECK_EQ(page_count(p), 1);
}

int main(void)
{
	RUN_TEST(test_init);
	RUN_TEST(test_alloc_all_order0);
	RUN_TEST(test_alignment);
	RUN_TEST(test_random_ops);
	RUN_TEST(test_gfp_zero);
	RUN_TEST(test_refcount);
	RUN_TEST(test_bad_frees);
	free(ram);
	return check_total_failed != 0;
}
