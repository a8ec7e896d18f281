/* Host micro-benchmark of the VMA set (mm/vma.c over kernel/lib/rbtree.c), part of `make bench`:
 * find_vma, insert_vm_struct and vma_unlink with 10 ... 100,000 VMAs in the tree. The kernel
 * files are compiled in as the host unit tests do (tests/host/test_vma.c), but with -O2 and
 * no sanitizers. Operations per second are wall-clock figures of this host and move from run
 * to run; the "path" and "height" columns are exact and the same every run: they show the
 * O(log n) shape without a clock. Not a test: nothing here passes or fails on speed. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "mm/slab.c"
#include "kernel/lib/rbtree.c"
#include "mm/vma.c"
#include "tests/host/kstubs.h"

#define NR_FRAMES 32768UL /* 128 MiB of simulated RAM: kmalloc's slabs for the VMAs */
#define MAX_VMAS  100000L
#define BATCH_MAX 1000L	   /* VMAs inserted (then unlinked) per timed batch */
#define FIND_OPS  2000000L /* lookups per size */
#define CHURN_OPS 400000L  /* inserts (and as many unlinks) per size */
#define ROUNDS	  3	   /* each timing is the best of this many rounds */
#define RW	  (VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE)
#define BASE_PAGE 0x400UL /* VMA i covers page BASE_PAGE + 2i; the odd pages are gaps */

static struct mm_struct mm;
static struct vm_area_struct **vmas, **extra;
static unsigned long *addrs;
static double clock_cost; /* ns of one now_ns() pair, taken off each timed batch */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static unsigned long page_addr(unsigned long page)
{
	return (BASE_PAGE + page) << PAGE_SHIFT;
}

static struct vm_area_struct *new_vma(unsigned long page)
{
	struct vm_area_struct *v =
		vma_alloc(&mm, page_addr(page), page_addr(page + 1), RW, vm_get_page_prot(RW));

	if (!v) {
		fprintf(stderr, "bench_vma: out of simulated memory\n");
		exit(1);
	}
	return v;
}

/* Nodes from the root down to v's node: what find_vma walks to reach v. */
static long path_len(struct vm_area_struct *v)
{
	long n = 1;
	struct rb_node *node = &v->vm_rb;

	while ((node = rb_parent(node)) != NULL)
		n++;
	return n;
}

/* The longest root-to-node path of the tree. */
static long tree_height(void)
{
	long h = 0, i;

	for (i = 0; i < mm.map_count; i++) {
		long d = path_len(vmas[i]);

		if (d > h)
			h = d;
	}
	return h;
}

/* Fisher-Yates with the tests' xorshift: the same order every run. */
static void shuffle(struct vm_area_struct **a, long n)
{
	long i;

	for (i = n - 1; i > 0; i--) {
		long j = (long)(rnd() % (uint64_t)(i + 1));
		struct vm_area_struct *t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

static void bench(long n)
{
	double best_find = 1e300, best_ins = 1e300, best_unl = 1e300, t;
	long batch = n / 10 < 1 ? 1 : (n / 10 > BATCH_MAX ? BATCH_MAX : n / 10);
	long i, r, done, path_sum = 0;
	volatile unsigned long sink = 0;

	memset(&mm, 0, sizeof(mm));
	mm_vma_init(&mm);
	rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;

	/* n one-page VMAs with a one-page gap after each, inserted in a random order */
	for (i = 0; i < n; i++)
		vmas[i] = new_vma(2 * (unsigned long)i);
	shuffle(vmas, n);
	for (i = n; i < n + batch; i++) /* the churn's VMAs, placed later */
		vmas[i] = new_vma(1);
	for (i = 0; i < n; i++)
		if (insert_vm_struct(&mm, vmas[i]) != 0)
			panic("bench_vma: insert failed");
	if (vma_verify(&mm) != 0)
		panic("bench_vma: the tree is broken");

	/* lookups of random addresses inside the VMAs, with mmap_cache cleared each time so
	 * that every one walks the tree (a page fault in a new VMA does the same) */
	for (i = 0; i < FIND_OPS; i++)
		addrs[i % MAX_VMAS] = page_addr(2 * (rnd() % (uint64_t)n)) + (rnd() & 0xfff);
	for (i = 0; i < n; i++)
		path_sum += path_len(vmas[i]);
	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (i = 0; i < FIND_OPS; i++) {
			mm.mmap_cache = NULL;
			sink += find_vma(&mm, addrs[i % MAX_VMAS])->vm_start;
		}
		t = now_ns() - t;
		if (t < best_find)
			best_find = t;
	}

	/* churn at size n: insert a batch of VMAs into random gaps, then unlink them again */
	for (r = 0; r < ROUNDS; r++) {
		double ins = 0, unl = 0;

		for (done = 0; done < CHURN_OPS; done += batch) {
			for (i = 0; i < batch; i++) {
				extra[i] = vmas[n + i];
				extra[i]->vm_start = page_addr(
					2 * (unsigned long)((long)(rnd() % (uint64_t)n)) + 1);
				extra[i]->vm_end = extra[i]->vm_start + PAGE_SIZE;
				extra[i]->vm_pgoff = extra[i]->vm_start >> PAGE_SHIFT;
			}
			t = now_ns();
			for (i = 0; i < batch; i++)
				if (insert_vm_struct(&mm, extra[i]) != 0) {
					extra[i]->vm_start = 0; /* that gap is taken: skip it */
					extra[i]->vm_end = 0;
				}
			ins += now_ns() - t - clock_cost;
			shuffle(extra, batch);
			t = now_ns();
			for (i = 0; i < batch; i++)
				if (extra[i]->vm_end)
					vma_unlink(&mm, extra[i]);
			unl += now_ns() - t - clock_cost;
		}
		if (ins < best_ins)
			best_ins = ins;
		if (unl < best_unl)
			best_unl = unl;
	}
	if (vma_verify(&mm) != 0 || mm.map_count != n)
		panic("bench_vma: the tree is broken after the churn");

	printf("%8ld %12.0f %7.1f %12.0f %7.1f %12.0f %7.1f %6.2f %7ld\n", n,
	       FIND_OPS / best_find * 1e9, best_find / FIND_OPS, CHURN_OPS / best_ins * 1e9,
	       best_ins / CHURN_OPS, CHURN_OPS / best_unl * 1e9, best_unl / CHURN_OPS,
	       (double)path_sum / (double)n, tree_height());

	while ((vmas[0] = vma_first(&mm)) != NULL) {
		vma_unlink(&mm, vmas[0]);
		vma_free(vmas[0]);
	}
	for (i = n; i < n + batch; i++)
		vma_free(vmas[i]);
	(void)sink;
}

int main(void)
{
	static const long sizes[] = { 10, 100, 1000, 10000, 100000 };
	unsigned char *ram = aligned_alloc(PAGE_SIZE, NR_FRAMES * PAGE_SIZE);
	struct page *map = malloc(NR_FRAMES * sizeof(*map));
	unsigned long free0;
	unsigned i;

	vmas = malloc((MAX_VMAS + BATCH_MAX) * sizeof(*vmas));
	extra = malloc(BATCH_MAX * sizeof(*extra));
	addrs = malloc(MAX_VMAS * sizeof(*addrs));
	if (!ram || !map || !vmas || !extra || !addrs)
		return 1;
	host_phys_base = (uintptr_t)ram;
	free_area_init(map, NR_FRAMES);
	free_area_add_range(16, NR_FRAMES);
	free0 = nr_free_pages();
	clock_cost = 1e300;
	for (i = 0; i < 100000; i++) {
		double t = now_ns(), d = now_ns() - t;

		if (d < clock_cost)
			clock_cost = d;
	}

	printf("host: VMA set (mm/vma.c, kernel/lib/rbtree.c), gcc -O2; "
	       "ops/s and ns/op are this host's wall clock\n");
	printf("  find_vma: random address inside a VMA, mmap_cache cleared first (a tree walk "
	       "each);\n");
	printf("  insert/unlink: batches of up to %ld one-page VMAs in random gaps, at size ~n;\n",
	       BATCH_MAX);
	printf("  path: mean nodes from the root to a VMA (exact); height: the longest path "
	       "(exact)\n");
	printf("%8s %12s %7s %12s %7s %12s %7s %6s %7s\n", "vmas", "find_vma/s", "ns", "insert/s",
	       "ns", "unlink/s", "ns", "path", "height");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench(sizes[i]);
	if (nr_free_pages() != free0) {
		fprintf(stderr, "bench_vma: %lu frames not given back\n", free0 - nr_free_pages());
		return 1;
	}
	return 0;
}
