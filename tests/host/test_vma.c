/* Host unit test of the VMA set (mm/vma.c): find, insert, unlink, split, merge and the
 * invariant checker, then 100,000 random operations against a sorted-array model. */

#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "mm/slab.c"
#include "kernel/lib/rbtree.c"
#include "mm/vma.c"
#include "tests/host/kstubs.h"

#define NR_FRAMES 4096UL /* 16 MiB */
#define P(n)	  ((unsigned long)(n) << PAGE_SHIFT)
#define RW	  (VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE)
#define RO	  (VM_READ | VM_MAYREAD | VM_MAYWRITE)
#define RX	  (VM_READ | VM_EXEC | VM_MAYREAD | VM_MAYEXEC)

static struct mm_struct mm;
static unsigned long free_at_start;

/* struct file is only a name here: two distinct addresses stand for two open files. */
static char file_storage[2];
#define FILE_A ((struct file *)&file_storage[0])
#define FILE_B ((struct file *)&file_storage[1])

/* Calls of open_ops.open, of close_ops.open and of close_ops.close. */
static int nr_open, nr_open_c, nr_close;

static void count_open(struct vm_area_struct *vma)
{
	(void)vma;
	nr_open++;
}

static void count_open_c(struct vm_area_struct *vma)
{
	(void)vma;
	nr_open_c++;
}

static void count_close(struct vm_area_struct *vma)
{
	(void)vma;
	nr_close++;
}

static const struct vm_operations_struct open_ops = { .open = count_open, .name = "open" };
static const struct vm_operations_struct close_ops = {
	.open = count_open_c,
	.close = count_close,
	.name = "close",
};

/* A fresh buddy allocator and an empty mm. */
static void setup(void)
{
	static unsigned char *ram;
	static struct page *map;

	if (!ram) {
		ram = aligned_alloc(PAGE_SIZE, NR_FRAMES * PAGE_SIZE);
		map = malloc(NR_FRAMES * sizeof(*map));
		if (!ram || !map)
			abort();
		host_phys_base = (uintptr_t)ram;
	}
	free_area_init(map, NR_FRAMES);
	free_area_add_range(16, NR_FRAMES);
	free_at_start = nr_free_pages();
	memset(&mm, 0, sizeof(mm));
	mm_vma_init(&mm);
	nr_open = nr_open_c = nr_close = 0;
	rng_state = 0xd1b54a32d192ed03ULL;
}

/* Unlink and free every VMA; then kmalloc must have given every frame back. */
static void teardown(void)
{
	struct vm_area_struct *vma;

	while ((vma = vma_first(&mm)) != NULL) {
		vma_unlink(&mm, vma);
		vma_free(vma);
	}
	CHECK_EQ(mm.map_count, 0);
	CHECK(RB_EMPTY_ROOT(&mm.mm_rb));
	CHECK(mm.mmap_cache == NULL);
	CHECK_EQ(vma_verify(&mm), 0);
	CHECK_EQ(nr_free_pages(), free_at_start);
}

/* An anonymous VMA [P(start), P(end)) with flags, inserted; the insert's result in *err. */
static struct vm_area_struct *add(unsigned long start, unsigned long end, unsigned long flags,
				  int *err)
{
	struct vm_area_struct *vma =
		vma_alloc(&mm, P(start), P(end), flags, vm_get_page_prot(flags));

	CHECK(vma != NULL);
	*err = insert_vm_struct(&mm, vma);
	if (*err) {
		vma_free(vma);
		return NULL;
	}
	return vma;
}

static struct vm_area_struct *add_ok(unsigned long start, unsigned long end, unsigned long flags)
{
	int err;
	struct vm_area_struct *vma = add(start, end, flags, &err);

	CHECK_EQ(err, 0);
	return vma;
}

/* mm's VMAs must be exactly these [start, end) page ranges, in order. */
static void expect_ranges(const unsigned long *pages, int n)
{
	struct vm_area_struct *vma;
	int i = 0;

	for_each_vma(vma, &mm) {
		CHECK(i < n);
		if (i >= n)
			break;
		CHECK_EQ(vma->vm_start, P(pages[2 * i]));
		CHECK_EQ(vma->vm_end, P(pages[2 * i + 1]));
		i++;
	}
	CHECK_EQ(i, n);
	CHECK_EQ(mm.map_count, n);
	CHECK_EQ(vma_verify(&mm), 0);
}

static void test_page_prot(void)
{
	CHECK_EQ(vm_get_page_prot(0), 0);
	CHECK_EQ(vm_get_page_prot(VM_READ), PAGE_READONLY);
	CHECK_EQ(vm_get_page_prot(VM_READ | VM_WRITE), PAGE_READONLY); /* copy-on-write */
	CHECK_EQ(vm_get_page_prot(VM_READ | VM_WRITE | VM_SHARED), PAGE_SHARED);
	CHECK_EQ(vm_get_page_prot(VM_READ | VM_EXEC), PAGE_READONLY_EXEC);
	CHECK_EQ(vm_get_page_prot(VM_WRITE | VM_EXEC | VM_SHARED), PAGE_SHARED_EXEC);
	CHECK_EQ(vm_get_page_prot(VM_SHARED | VM_MAYWRITE), 0);
}

static void test_insert_find(void)
{
	static const unsigned long want[] = { 1, 3, 5, 6, 16, 32 };
	struct vm_area_struct *a, *b, *c, *prev = (void *)1;
	int err;

	setup();
	CHECK(find_vma(&mm, 0) == NULL);
	CHECK(find_vma_prev(&mm, 0, &prev) == NULL);
	CHECK(prev == NULL);
	CHECK(vma_first(&mm) == NULL);
	CHECK_EQ(vma_verify(&mm), 0);

	c = add_ok(16, 32, RW);
	a = add_ok(1, 3, RO);
	b = add_ok(5, 6, RX);
	expect_ranges(want, 3);
	CHECK(a->vm_mm == &mm && vma_next(&mm, a) == b && vma_prev(&mm, c) == b);
	CHECK(vma_prev(&mm, a) == NULL && vma_next(&mm, c) == NULL);

	/* Overlaps in every shape, and bad ranges, are refused and change nothing. */
	CHECK(add(1, 3, RW, &err) == NULL && err == -EINVAL);	/* the same range */
	CHECK(add(0, 2, RW, &err) == NULL && err == -EINVAL);	/* over a's start */
	CHECK(add(2, 4, RW, &err) == NULL && err == -EINVAL);	/* over a's end */
	CHECK(add(4, 40, RW, &err) == NULL && err == -EINVAL);	/* around b and c */
	CHECK(add(20, 21, RW, &err) == NULL && err == -EINVAL); /* inside c */
	CHECK(add(31, 33, RW, &err) == NULL && err == -EINVAL); /* over c's end */
	CHECK(add(7, 7, RW, &err) == NULL && err == -EINVAL);	/* empty */
	printf("# a vma_verify complaint expected:\n");
	b->vm_start += 1;
	CHECK_EQ(vma_verify(&mm), -EINVAL); /* an unaligned VMA in the set */
	b->vm_start -= 1;
	{
		struct vm_area_struct *u = vma_alloc(&mm, P(8) + 8, P(9), RW, 0);

		CHECK_EQ(insert_vm_struct(&mm, u), -EINVAL); /* unaligned */
		vma_free(u);
	}
	expect_ranges(want, 3);

	/* find_vma: the VMA containing addr, else the next one above, else NULL. */
	CHECK(find_vma(&mm, 0) == a);
	CHECK(mm.mmap_cache == a);
	CHECK(find_vma(&mm, P(1)) == a);
	CHECK(find_vma(&mm, P(3) - 1) == a);
	CHECK(find_vma(&mm, P(3)) == b);
	CHECK(mm.mmap_cache == b);
	CHECK(find_vma(&mm, P(5) + 100) == b);
	CHECK(find_vma(&mm, P(6)) == c);
	CHECK(find_vma(&mm, P(32) - 1) == c);
	CHECK(find_vma(&mm, P(32)) == NULL);
	CHECK(mm.mmap_cache == c); /* a miss leaves the cache alone */
	CHECK(find_vma(&mm, ~0UL) == NULL);

	CHECK(find_vma_prev(&mm, P(2), &prev) == a && prev == NULL);
	CHECK(find_vma_prev(&mm, P(4), &prev) == b && prev == a);
	CHECK(find_vma_prev(&mm, P(5), &prev) == b && prev == a);
	CHECK(find_vma_prev(&mm, P(20), &prev) == c && prev == b);
	CHECK(find_vma_prev(&mm, P(40), &prev) == NULL && prev == c);

	CHECK(find_vma_intersection(&mm, P(3), P(5)) == NULL); /* the gap exactly */
	CHECK(find_vma_intersection(&mm, P(3), P(5) + 1) == b);
	CHECK(find_vma_intersection(&mm, P(2), P(40)) == a);
	CHECK(find_vma_intersection(&mm, P(6), P(16)) == NULL);
	CHECK(find_vma_intersection(&mm, P(31), P(33)) == c);
	CHECK(find_vma_intersection(&mm, P(32), P(33)) == NULL);
	teardown();
}

static void test_unlink(void)
{
	static const unsigned long two[] = { 1, 2, 7, 9 }, one[] = { 7, 9 };
	struct vm_area_struct *a, *b, *c;

	setup();
	a = add_ok(1, 2, RW);
	b = add_ok(3, 5, RW);
	c = add_ok(7, 9, RW);
	CHECK(find_vma(&mm, P(4)) == b);
	vma_unlink(&mm, b);
	CHECK(mm.mmap_cache == NULL); /* it must not keep pointing at b */
	CHECK(RB_EMPTY_NODE(&b->vm_rb));
	vma_free(b);
	expect_ranges(two, 2);
	CHECK(find_vma(&mm, P(4)) == c);
	CHECK(find_vma(&mm, P(1)) == a);
	vma_unlink(&mm, a);
	vma_free(a);
	expect_ranges(one, 1);
	CHECK(mm.mmap_cache == NULL);
	CHECK(find_vma(&mm, 0) == c);
	/* The freed range can be mapped again. */
	add_ok(3, 5, RW);
	teardown();
}

static void test_split(void)
{
	static const unsigned long halves[] = { 10, 14, 14, 20 },
				   thirds[] = { 10, 12, 12, 14, 14, 20 };
	struct vm_area_struct *vma, *lo, *hi;

	setup();
	vma = add_ok(10, 20, RW);
	vma->vm_file = FILE_A;
	vma->vm_pgoff = 100;
	vma->vm_ops = &open_ops;

	CHECK_EQ(split_vma(&mm, vma, P(10), 0), -EINVAL); /* at the start */
	CHECK_EQ(split_vma(&mm, vma, P(20), 0), -EINVAL); /* at the end */
	CHECK_EQ(split_vma(&mm, vma, P(25), 1), -EINVAL); /* outside */
	CHECK_EQ(split_vma(&mm, vma, P(12) + 1, 0), -EINVAL);
	CHECK_EQ(nr_open, 0);

	/* new above: vma keeps [10, 14), the new VMA [14, 20) starts at file page 104. */
	CHECK_EQ(split_vma(&mm, vma, P(14), 0), 0);
	expect_ranges(halves, 2);
	hi = vma_next(&mm, vma);
	CHECK(vma_first(&mm) == vma);
	CHECK_EQ(vma->vm_pgoff, 100);
	CHECK_EQ(hi->vm_pgoff, 104);
	CHECK(hi->vm_file == FILE_A && hi->vm_ops == &open_ops && hi->vm_flags == RW);
	CHECK(hi->vm_page_prot == vma->vm_page_prot && hi->vm_mm == &mm);
	CHECK_EQ(nr_open, 1);

	/* new below: vma keeps [12, 14) and moves to file page 102; the new VMA is [10, 12). */
	CHECK_EQ(split_vma(&mm, vma, P(12), 1), 0);
	expect_ranges(thirds, 3);
	lo = vma_first(&mm);
	CHECK(lo != vma && vma_next(&mm, lo) == vma && vma_next(&mm, vma) == hi);
	CHECK_EQ(lo->vm_pgoff, 100);
	CHECK_EQ(vma->vm_pgoff, 102);
	CHECK_EQ(nr_open, 2);
	CHECK(find_vma(&mm, P(11)) == lo && find_vma(&mm, P(13)) == vma);

	/* Joined back together, each file page is where it was: one VMA at page 100. */
	vma = vma_merge_neighbours(&mm, vma);
	CHECK(vma == lo);
	CHECK_EQ(vma->vm_start, P(10));
	CHECK_EQ(vma->vm_end, P(20));
	CHECK_EQ(vma->vm_pgoff, 100);
	CHECK_EQ(mm.map_count, 1);
	CHECK_EQ(vma_verify(&mm), 0);
	teardown();
}

/* Out of memory, split_vma fails and changes nothing. */
static void test_split_nomem(void)
{
	static const unsigned long one[] = { 10, 20 };
	static void *held[NR_FRAMES * 32];
	struct vm_area_struct *vma;
	struct page *page;
	unsigned long n = 0;

	setup();
	vma = add_ok(10, 20, RW);
	while ((page = alloc_page(GFP_KERNEL)) != NULL)
		held[n++] = page_address(page);
	/* Use up the kmalloc objects left in partly used slab pages too. */
	while (n < ARRAY_SIZE(held) && (held[n] = kmalloc(sizeof(*vma))) != NULL)
		n++;
	CHECK_EQ(split_vma(&mm, vma, P(15), 0), -ENOMEM);
	expect_ranges(one, 1);
	while (n > 0) {
		void *p = held[--n];
		struct page *pg = virt_to_page(p);

		if (PageSlab(pg))
			kfree(p);
		else
			__free_page(pg);
	}
	CHECK_EQ(split_vma(&mm, vma, P(15), 0), 0);
	teardown();
}

static void test_merge(void)
{
	struct vm_area_struct *a, *b, *m, *prev;
	unsigned long n;

	setup();
	/* Anonymous: the hole between a [10, 12) and b [16, 20). */
	a = add_ok(10, 12, RW);
	b = add_ok(16, 20, RW);
	n = nr_free_pages();

	/* Different flags, a hole that is not empty, or the wrong prev: no merge. */
	CHECK(vma_merge(&mm, a, P(12), P(14), RO, NULL, 12, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(11), P(14), RW, NULL, 11, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(17), RW, NULL, 12, NULL) == NULL);
	CHECK(vma_merge(&mm, NULL, P(12), P(14), RW, NULL, 12, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(14), RW, FILE_A, 0, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(14), RW, NULL, 12, &open_ops) == NULL);
	CHECK(vma_merge(&mm, a, P(13), P(15), RW, NULL, 13, NULL) == NULL); /* touches neither */
	CHECK(vma_merge(&mm, a, P(13), P(13), RW, NULL, 13, NULL) == NULL);
	CHECK_EQ(mm.map_count, 2);

	/* Grow a up: [10, 13). */
	m = vma_merge(&mm, a, P(12), P(13), RW, NULL, 12, NULL);
	CHECK(m == a);
	CHECK_EQ(a->vm_end, P(13));
	/* Grow b down: [15, 20), its pgoff following its start. */
	m = vma_merge(&mm, a, P(15), P(16), RW, NULL, 15, NULL);
	CHECK(m == b);
	CHECK_EQ(b->vm_start, P(15));
	CHECK_EQ(b->vm_pgoff, 15);
	CHECK_EQ(mm.map_count, 2);
	CHECK_EQ(vma_verify(&mm), 0);
	/* Fill the hole: a swallows it and b. */
	CHECK(find_vma(&mm, P(17)) == b); /* b in the cache: freeing it must clear it */
	m = vma_merge(&mm, a, P(13), P(15), RW, NULL, 13, NULL);
	CHECK(m == a);
	CHECK_EQ(a->vm_start, P(10));
	CHECK_EQ(a->vm_end, P(20));
	CHECK_EQ(a->vm_pgoff, 10);
	CHECK_EQ(mm.map_count, 1);
	CHECK(mm.mmap_cache != b);
	CHECK_EQ(vma_verify(&mm), 0);
	CHECK(nr_free_pages() >= n); /* b's memory went back (maybe its whole slab page) */

	/* At the very bottom, with no prev: grows the first VMA down. */
	CHECK(vma_merge(&mm, NULL, P(4), P(10), RW, NULL, 4, NULL) == a);
	CHECK_EQ(a->vm_start, P(4));
	teardown();

	/* Files: the pages must run on in the file. */
	setup();
	a = add_ok(10, 12, RO);
	a->vm_file = FILE_A;
	a->vm_pgoff = 50; /* [10, 12) is file pages 50, 51 */
	b = add_ok(14, 16, RO);
	b->vm_file = FILE_A;
	b->vm_pgoff = 60;
	CHECK(vma_merge(&mm, a, P(12), P(13), RO, FILE_A, 53, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(13), RO, FILE_B, 52, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(13), RO, NULL, 52, NULL) == NULL);
	CHECK(vma_merge(&mm, a, P(12), P(13), RO, FILE_A, 52, NULL) == a); /* [10, 13) */
	/* [13, 14) as page 53 joins a but not b (b starts at page 60, not 54): a grows. */
	m = vma_merge(&mm, a, P(13), P(14), RO, FILE_A, 53, NULL);
	CHECK(m == a && a->vm_end == P(14) && mm.map_count == 2);
	/* Below b, as page 59: b grows down. */
	vma_unlink(&mm, a);
	vma_free(a);
	CHECK(find_vma_prev(&mm, P(13), &prev) == b && prev == NULL);
	m = vma_merge(&mm, prev, P(13), P(14), RO, FILE_A, 59, NULL);
	CHECK(m == b && b->vm_start == P(13) && b->vm_pgoff == 59);
	teardown();

	/* A VMA with a close operation never joins another. */
	setup();
	a = add_ok(10, 12, RW);
	a->vm_ops = &close_ops;
	CHECK(vma_merge(&mm, a, P(12), P(13), RW, NULL, 12, &close_ops) == NULL);
	teardown();
	CHECK_EQ(nr_close, 1);
}

/* mprotect's recipe: isolate a range with two splits, change it, then join it back. */
static void test_mprotect_recipe(void)
{
	static const unsigned long one[] = { 10, 20 }, three[] = { 10, 13, 13, 17, 17, 20 };
	struct vm_area_struct *vma, *orig;

	setup();
	orig = vma = add_ok(10, 20, RW);
	CHECK_EQ(split_vma(&mm, vma, P(13), 1), 0);
	CHECK_EQ(split_vma(&mm, vma, P(17), 0), 0);
	CHECK(vma->vm_start == P(13) && vma->vm_end == P(17));
	vma->vm_flags = RO;
	vma->vm_page_prot = vm_get_page_prot(RO);
	CHECK(vma_merge_neighbours(&mm, vma) == vma); /* its neighbours are RW: no change */
	expect_ranges(three, 3);
	CHECK_EQ(vma_prev(&mm, vma)->vm_pgoff, 10);
	CHECK_EQ(vma->vm_pgoff, 13);
	CHECK_EQ(vma_next(&mm, vma)->vm_pgoff, 17);

	vma->vm_flags = RW;
	vma->vm_page_prot = vm_get_page_prot(RW);
	vma = vma_merge_neighbours(&mm, vma);
	CHECK(vma != orig); /* the lower piece, the new VMA of the first split, survives */
	CHECK_EQ(vma->vm_pgoff, 10);
	expect_ranges(one, 1);

	/* A private-data difference, and a close operation, keep neighbours apart. */
	CHECK_EQ(split_vma(&mm, vma, P(15), 0), 0);
	vma_next(&mm, vma)->vm_private_data = &mm;
	CHECK(vma_merge_neighbours(&mm, vma) == vma);
	CHECK_EQ(mm.map_count, 2);
	vma_next(&mm, vma)->vm_private_data = NULL;
	vma->vm_ops = vma_next(&mm, vma)->vm_ops = &close_ops;
	CHECK(vma_merge_neighbours(&mm, vma) == vma);
	CHECK_EQ(mm.map_count, 2);
	teardown();
	CHECK_EQ(nr_close, 2);
}

/* open and close pair up: one close for each VMA that ever existed. */
static void test_open_close(void)
{
	struct vm_area_struct *vma;

	setup();
	vma = add_ok(0, 8, RW);
	vma->vm_ops = &close_ops;
	CHECK_EQ(split_vma(&mm, vma, P(2), 0), 0);
	CHECK_EQ(split_vma(&mm, vma, P(1), 1), 0);
	CHECK_EQ(nr_open_c, 2);
	CHECK_EQ(nr_close, 0);
	teardown();
	CHECK_EQ(nr_close, 1 + nr_open_c);
}

/* vma_verify must notice each kind of damage (its printk says which). */
static void test_verify_catches(void)
{
	struct vm_area_struct *a, *b, *c;

	setup();
	a = add_ok(1, 2, RW);
	b = add_ok(3, 4, RW);
	c = add_ok(5, 6, RW);
	CHECK_EQ(vma_verify(&mm), 0);
	printf("# vma_verify complaints expected:\n");

	b->vm_end = P(6); /* overlaps c */
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	b->vm_end = P(4);
	mm.map_count++;
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	mm.map_count--;
	rb_set_color(mm.mm_rb.rb_node, RB_RED);
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	rb_set_color(mm.mm_rb.rb_node, RB_BLACK);
	mm.mmap_cache = (struct vm_area_struct *)&mm;
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	mm.mmap_cache = NULL;
	/* Take c off the list only: the tree then has one VMA too many. */
	list_del(&c->vm_list);
	mm.map_count--;
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	list_add(&c->vm_list, &b->vm_list);
	mm.map_count++;
	/* Swap the list order of a and b: the list is unsorted and differs from the tree. */
	list_del(&a->vm_list);
	list_add(&a->vm_list, &b->vm_list);
	CHECK_EQ(vma_verify(&mm), -EINVAL);
	list_del(&a->vm_list);
	list_add(&a->vm_list, &mm.mmap);
	CHECK_EQ(vma_verify(&mm), 0);
	teardown();
}

/* ---------------------------------------------------------------- the random test */

/* The model: the same VMAs as plain structs, sorted by address, in an array. */
struct mvma {
	unsigned long start, end; /* in pages */
	unsigned long flags, pgoff;
	struct file *file;
	const struct vm_operations_struct *ops;
};

#define MAX_MODEL   4096
#define SPACE_PAGES 2048 /* VMAs live in pages [1, SPACE_PAGES + 16) */
static struct mvma model[MAX_MODEL];
static int nr_model;
static int nr_alloc_c;			   /* close_ops VMAs vma_alloc'd by op_map */
static unsigned long nr_merged, nr_joined; /* vma_merge hits; VMAs vma_merge_neighbours ended */

static const unsigned long rnd_flags_set[] = { RW, RO, RX, RW | VM_SHARED | VM_MAYSHARE };
static const struct vm_operations_struct *const rnd_ops_set[] = { NULL, NULL, &open_ops,
								  &close_ops };

/* The index of the first model VMA ending above page p (nr_model if none). */
static int model_find(unsigned long p)
{
	int lo = 0, hi = nr_model;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (model[mid].end > p)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void model_insert_at(int i, const struct mvma *m)
{
	memmove(&model[i + 1], &model[i], (size_t)(nr_model - i) * sizeof(model[0]));
	model[i] = *m;
	nr_model++;
}

static void model_remove_at(int i)
{
	memmove(&model[i], &model[i + 1], (size_t)(nr_model - i - 1) * sizeof(model[0]));
	nr_model--;
}

/* The joining rule, restated for the model: a ends where b starts, same attributes, no
 * close operation, and a file's pages run on. */
static bool model_can_join(const struct mvma *a, const struct mvma *b)
{
	return a->end == b->start && a->flags == b->flags && a->file == b->file &&
	       a->ops == b->ops && !(a->ops && a->ops->close) &&
	       (!a->file || a->pgoff + (a->end - a->start) == b->pgoff);
}

/* Split model[i] at page p; the upper part's pgoff advances. */
static void model_split(int i, unsigned long p)
{
	struct mvma hi = model[i];

	hi.start = p;
	hi.pgoff += p - model[i].start;
	model[i].end = p;
	model_insert_at(i + 1, &hi);
}

/* The kernel's VMAs must be the model's, field by field. */
static void compare_with_model(void)
{
	struct vm_area_struct *vma;
	int i = 0;

	CHECK_EQ(mm.map_count, nr_model);
	for_each_vma(vma, &mm) {
		const struct mvma *m = &model[i];

		if (i >= nr_model) {
			CHECK(i < nr_model);
			return;
		}
		if (vma->vm_start != P(m->start) || vma->vm_end != P(m->end) ||
		    vma->vm_flags != m->flags || vma->vm_pgoff != m->pgoff ||
		    vma->vm_file != m->file || vma->vm_ops != m->ops || vma->vm_mm != &mm ||
		    vma->vm_page_prot != vm_get_page_prot(m->flags)) {
			printf("#   VMA %d: [%lx, %lx) flags %lx pgoff %lu\n"
			       "#   model: [%lx, %lx) flags %lx pgoff %lu\n",
			       i, vma->vm_start, vma->vm_end, vma->vm_flags, vma->vm_pgoff,
			       P(m->start), P(m->end), m->flags, m->pgoff);
			CHECK(!"the VMAs differ from the model");
			return;
		}
		/* Anonymous VMAs keep vm_pgoff == vm_start >> PAGE_SHIFT through it all. */
		if (!m->file)
			CHECK_EQ(m->pgoff, m->start);
		i++;
	}
	CHECK_EQ(i, nr_model);
}

/* Random attributes for a new range at page start; file pgoffs mostly follow the address
 * (file A at +1000, file B at +5000) so neighbouring pieces of a file can join. */
static void random_attrs(struct mvma *m, unsigned long start)
{
	unsigned long r = rnd() % 8;

	m->flags = rnd_flags_set[rnd() % ARRAY_SIZE(rnd_flags_set)];
	m->ops = rnd_ops_set[rnd() % ARRAY_SIZE(rnd_ops_set)];
	m->file = r < 4 ? NULL : r < 6 ? FILE_A : FILE_B;
	if (!m->file)
		m->pgoff = start;
	else if (rnd() % 4)
		m->pgoff = start + (m->file == FILE_A ? 1000 : 5000);
	else
		m->pgoff = rnd() % 10000;
}

/* Map a range the way mmap will: vma_merge into a neighbour if possible, else a new VMA. */
static void op_map(void)
{
	struct mvma m;
	struct vm_area_struct *vma, *prev;
	unsigned long len = 1 + rnd() % 16;
	int i, err;
	bool free_hole;

	if (nr_model > 0 && rnd() % 2) {
		/* Right after or right before a random VMA, with its attributes. */
		const struct mvma *n = &model[rnd() % (unsigned long)nr_model];

		m = *n;
		if (rnd() % 2 || n->start <= len) {
			m.start = n->end;
			m.pgoff = n->pgoff + (n->end - n->start);
		} else {
			m.start = n->start - len;
			m.pgoff = n->file ? n->pgoff - len : m.start;
		}
		if (rnd() % 4 == 0)
			m.flags = RO; /* sometimes incompatible after all */
	} else {
		m.start = 1 + rnd() % SPACE_PAGES;
		random_attrs(&m, m.start);
	}
	m.end = m.start + len;
	if (m.end > SPACE_PAGES + 16)
		return;
	i = model_find(m.start);
	free_hole = i == nr_model || model[i].start >= m.end;

	vma = find_vma_prev(&mm, P(m.start), &prev);
	CHECK(i < nr_model ? vma && vma->vm_start == P(model[i].start) : vma == NULL);
	CHECK(i > 0 ? prev && prev->vm_start == P(model[i - 1].start) : prev == NULL);
	vma = vma_merge(&mm, prev, P(m.start), P(m.end), m.flags, m.file, m.pgoff, m.ops);
	if (vma) {
		nr_merged++;
		CHECK(free_hole);
		CHECK(vma->vm_start <= P(m.start) && P(m.end) <= vma->vm_end);
	} else {
		vma = vma_alloc(&mm, P(m.start), P(m.end), m.flags, vm_get_page_prot(m.flags));
		CHECK(vma != NULL);
		vma->vm_file = m.file;
		vma->vm_pgoff = m.pgoff;
		vma->vm_ops = m.ops;
		nr_alloc_c += m.ops == &close_ops;
		err = insert_vm_struct(&mm, vma);
		CHECK_EQ(err, free_hole ? 0 : -EINVAL);
		if (err)
			vma_free(vma);
	}
	if (!free_hole)
		return;

	/* The model: join the previous and/or the next VMA, else a VMA of its own. */
	{
		bool jp = i > 0 && model_can_join(&model[i - 1], &m);
		bool jn = i < nr_model && model_can_join(&m, &model[i]);

		if (jp && jn) {
			model[i - 1].end = model[i].end;
			model_remove_at(i);
		} else if (jp) {
			model[i - 1].end = m.end;
		} else if (jn) {
			model[i].start = m.start;
			model[i].pgoff = m.pgoff;
		} else {
			model_insert_at(i, &m);
		}
	}
}

static void op_unmap(void)
{
	int i = (int)(rnd() % (unsigned long)nr_model);
	struct vm_area_struct *vma = find_vma(&mm, P(model[i].start));

	CHECK(vma && vma->vm_start == P(model[i].start));
	if (!vma)
		return;
	vma_unlink(&mm, vma);
	vma_free(vma);
	model_remove_at(i);
}

static void op_split(void)
{
	int i = (int)(rnd() % (unsigned long)nr_model);
	struct mvma *m = &model[i];
	struct vm_area_struct *vma = find_vma(&mm, P(m->start) + rnd() % P(m->end - m->start));
	unsigned long p;
	int new_below = (int)(rnd() % 2);

	CHECK(vma && vma->vm_start == P(m->start));
	if (!vma)
		return;
	if (m->end - m->start < 2) {
		CHECK_EQ(split_vma(&mm, vma, P(m->start), new_below), -EINVAL);
		return;
	}
	p = m->start + 1 + rnd() % (m->end - m->start - 1);
	CHECK_EQ(split_vma(&mm, vma, P(p), new_below), 0);
	CHECK(new_below ? vma->vm_start == P(p) : vma->vm_end == P(p));
	model_split(i, p);
}

/* mprotect of a random piece of a random VMA: split, change the flags, join neighbours. */
static void op_protect(void)
{
	int i = (int)(rnd() % (unsigned long)nr_model);
	unsigned long len = model[i].end - model[i].start;
	unsigned long s = model[i].start + rnd() % len;
	unsigned long e = s + 1 + rnd() % (model[i].end - s);
	unsigned long flags = rnd_flags_set[rnd() % ARRAY_SIZE(rnd_flags_set)];
	struct vm_area_struct *vma = find_vma_intersection(&mm, P(s), P(e));
	int n;

	CHECK(vma && vma->vm_start == P(model[i].start));
	if (!vma)
		return;
	if (P(s) > vma->vm_start)
		CHECK_EQ(split_vma(&mm, vma, P(s), 1), 0);
	if (P(e) < vma->vm_end)
		CHECK_EQ(split_vma(&mm, vma, P(e), 0), 0);
	CHECK(vma->vm_start == P(s) && vma->vm_end == P(e));
	vma->vm_flags = flags;
	vma->vm_page_prot = vm_get_page_prot(flags);
	n = mm.map_count;
	vma = vma_merge_neighbours(&mm, vma);
	nr_joined += (unsigned long)(n - mm.map_count);
	CHECK(vma->vm_start <= P(s) && P(e) <= vma->vm_end && vma->vm_flags == flags);

	if (e < model[i].end)
		model_split(i, e);
	if (s > model[i].start)
		model_split(i++, s);
	model[i].flags = flags;
	if (i + 1 < nr_model && model_can_join(&model[i], &model[i + 1])) {
		model[i].end = model[i + 1].end;
		model_remove_at(i + 1);
	}
	if (i > 0 && model_can_join(&model[i - 1], &model[i])) {
		model[i - 1].end = model[i].end;
		model_remove_at(i);
	}
}

/* Lookups at a random address: find_vma, find_vma_prev and find_vma_intersection. */
static void op_find(void)
{
	unsigned long addr = rnd() % P(SPACE_PAGES + 20), end = addr + 1 + rnd() % P(8);
	unsigned long p = addr >> PAGE_SHIFT;
	int i = model_find(p);
	struct vm_area_struct *vma, *prev;
	bool hit;

	/* model_find works in pages: the first VMA ending above page p ends above addr too. */
	vma = find_vma(&mm, addr);
	if (i == nr_model) {
		CHECK(vma == NULL);
	} else {
		CHECK(vma && vma->vm_start == P(model[i].start));
		CHECK(mm.mmap_cache == vma);
		CHECK(find_vma(&mm, addr) == vma); /* through the cache this time */
	}
	CHECK(find_vma_prev(&mm, addr, &prev) == vma);
	if (i == 0)
		CHECK(prev == NULL);
	else
		CHECK(prev && prev->vm_start == P(model[i - 1].start));

	hit = i < nr_model && P(model[i].start) < end;
	vma = find_vma_intersection(&mm, addr, end);
	CHECK(hit ? vma && vma->vm_start == P(model[i].start) : vma == NULL);
}

static void test_random_ops(void)
{
	enum { NR_OPS = 100000, VERIFY_EVERY = 50 };
	unsigned long counts[5] = { 0 };
	long op;
	int max_model = 0;

	setup();
	nr_model = 0;
	nr_alloc_c = 0;
	nr_merged = nr_joined = 0;
	for (op = 0; op < NR_OPS; op++) {
		unsigned long r = rnd() % 100;

		if (nr_model == 0 || r < 30) {
			op_map();
			counts[0]++;
		} else if (r < 42) {
			op_unmap();
			counts[1]++;
		} else if (r < 55) {
			op_split();
			counts[2]++;
		} else if (r < 70) {
			op_protect();
			counts[3]++;
		} else {
			op_find();
			counts[4]++;
		}
		compare_with_model();
		if (op % VERIFY_EVERY == 0)
			CHECK_EQ(vma_verify(&mm), 0);
		max_model = MAX(max_model, nr_model);
		if (check_failed_in_test) {
			printf("#   at operation %ld\n", op);
			return;
		}
	}
	CHECK_EQ(vma_verify(&mm), 0);
	printf("# %d random operations: %lu map (%lu merged), %lu unmap, %lu split, %lu protect "
	       "(%lu joins), %lu find; %d VMAs at most, %d at the end\n",
	       NR_OPS, counts[0], nr_merged, counts[1], counts[2], counts[3], nr_joined, counts[4],
	       max_model, nr_model);
	teardown();
	/* Every close_ops VMA ever made was closed once: the ones mapped, and the splits. */
	CHECK_EQ(nr_close, nr_alloc_c + nr_open_c);
}

int main(void)
{
	RUN_TEST(test_page_prot);
	RUN_TEST(test_insert_find);
	RUN_TEST(test_unlink);
	RUN_TEST(test_split);
	RUN_TEST(test_split_nomem);
	RUN_TEST(test_merge);
	RUN_TEST(test_mprotect_recipe);
	RUN_TEST(test_open_close);
	RUN_TEST(test_verify_catches);
	RUN_TEST(test_random_ops);
	return check_total_failed != 0;
}
