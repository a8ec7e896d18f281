/* Host unit test of the red-black tree (kernel/lib/rbtree.c): every colour rule, parent pointer
 * and the in-order walk checked after sorted, reversed and random inserts and erases. */

#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "kernel/lib/rbtree.c"
#include "tests/host/kstubs.h"

struct item {
	int key;
	struct rb_node node;
};

static struct rb_root root;
static int tree_size;

/* The descent every rbtree user writes: find key's NULL link, then link and recolour.
 * Returns false (tree unchanged) if the key is already there. */
static bool tree_insert(struct item *it)
{
	struct rb_node **link = &root.rb_node, *parent = NULL;

	while (*link) {
		struct item *cur = rb_entry(*link, struct item, node);

		parent = *link;
		if (it->key < cur->key)
			link = &parent->rb_left;
		else if (it->key > cur->key)
			link = &parent->rb_right;
		else
			return false;
	}
	rb_link_node(&it->node, parent, link);
	rb_insert_color(&it->node, &root);
	tree_size++;
	return true;
}

static struct item *tree_search(int key)
{
	struct rb_node *n = root.rb_node;

	while (n) {
		struct item *cur = rb_entry(n, struct item, node);

		if (key < cur->key)
			n = n->rb_left;
		else if (key > cur->key)
			n = n->rb_right;
		else
			return cur;
	}
	return NULL;
}

static void tree_erase(struct item *it)
{
	rb_erase(&it->node, &root);
	tree_size--;
}

/* Black height of the subtree at n (NULL counts 1), or -1 if a rule or a parent is wrong.
 * *height gets its height in nodes. */
static int check_subtree(const struct rb_node *n, const struct rb_node *parent, int *height)
{
	int lh, rh, lb, rb;

	*height = 0;
	if (!n)
		return 1;
	if (rb_parent(n) != parent)
		return -1;
	if (rb_is_red(n) &&
	    ((n->rb_left && rb_is_red(n->rb_left)) || (n->rb_right && rb_is_red(n->rb_right))))
		return -1;
	lb = check_subtree(n->rb_left, n, &lh);
	rb = check_subtree(n->rb_right, n, &rh);
	if (lb < 0 || rb < 0 || lb != rb)
		return -1;
	*height = 1 + MAX(lh, rh);
	return lb + rb_is_black(n);
}

/* Every rule, plus: forward and backward walks both sorted and tree_size long, and the
 * height within the red-black bound 2 log2(n + 1). */
static void check_tree(void)
{
	struct rb_node *n;
	int height, count = 0, prev_key = -1, bound = 0;

	CHECK(!root.rb_node || rb_is_black(root.rb_node));
	CHECK(check_subtree(root.rb_node, NULL, &height) > 0);
	for (n = rb_first(&root); n; n = rb_next(n)) {
		int key = rb_entry(n, struct item, node)->key;

		CHECK(key > prev_key);
		prev_key = key;
		count++;
	}
	CHECK_EQ(count, tree_size);
	prev_key = 1 << 30;
	count = 0;
	for (n = rb_last(&root); n; n = rb_prev(n)) {
		int key = rb_entry(n, struct item, node)->key;

		CHECK(key < prev_key);
		prev_key = key;
		count++;
	}
	CHECK_EQ(count, tree_size);
	while ((1 << bound) < tree_size + 1)
		bound++;
	CHECK(height <= 2 * bound);
}

#define NR_ITEMS 4096
static struct item items[NR_ITEMS];

static void setup(void)
{
	int i;

	root = RB_ROOT;
	tree_size = 0;
	for (i = 0; i < NR_ITEMS; i++) {
		items[i].key = i;
		RB_CLEAR_NODE(&items[i].node);
	}
	rng_state = 0x9e3779b97f4a7c15ULL;
}

static void test_empty(void)
{
	setup();
	CHECK(RB_EMPTY_ROOT(&root));
	CHECK(rb_first(&root) == NULL);
	CHECK(rb_last(&root) == NULL);
	CHECK(RB_EMPTY_NODE(&items[0].node));
	check_tree();

	CHECK(tree_insert(&items[7]));
	CHECK(!RB_EMPTY_ROOT(&root));
	CHECK(!RB_EMPTY_NODE(&items[7].node));
	CHECK(rb_first(&root) == &items[7].node);
	CHECK(rb_last(&root) == &items[7].node);
	CHECK(rb_next(&items[7].node) == NULL);
	CHECK(rb_prev(&items[7].node) == NULL);
	CHECK(rb_is_black(&items[7].node));
	check_tree();
	tree_erase(&items[7]);
	CHECK(RB_EMPTY_ROOT(&root));
	check_tree();
}

/* Sorted input is the worst case for a plain binary tree; here it must stay balanced. */
static void test_sorted_inserts(void)
{
	int i;

	setup();
	for (i = 0; i < 1000; i++) {
		CHECK(tree_insert(&items[i]));
		check_tree();
	}
	CHECK(!tree_insert(&items[500])); /* a duplicate is refused, tree unchanged */
	check_tree();
	for (i = 0; i < 1000; i++)
		CHECK(tree_search(i) == &items[i]);
	CHECK(tree_search(1000) == NULL);
	CHECK(rb_entry(rb_first(&root), struct item, node)->key == 0);
	CHECK(rb_entry(rb_last(&root), struct item, node)->key == 999);
	/* Erase from the front: every erase rebalances the left edge. */
	for (i = 0; i < 1000; i++) {
		tree_erase(&items[i]);
		if (i % 7 == 0)
			check_tree();
	}
	CHECK(RB_EMPTY_ROOT(&root));

	for (i = 999; i >= 0; i--)
		CHECK(tree_insert(&items[i]));
	check_tree();
	/* Erase the root each time: always the two-children case while it lasts. */
	while (root.rb_node) {
		tree_erase(rb_entry(root.rb_node, struct item, node));
		check_tree();
	}
	CHECK_EQ(tree_size, 0);
}

/* Each node of small trees (1 to 12 nodes, built in a shuffled order) erased in turn: every
 * erase case near the root, where the sibling and nephew cases are easiest to get wrong. */
static void test_small_trees(void)
{
	int order[12], n, victim, i;

	for (n = 1; n <= 12; n++) {
		for (victim = 0; victim < n; victim++) {
			setup();
			rng_state += (uint64_t)(n * 16 + victim) * 0x2545f4914f6cdd1dULL;
			for (i = 0; i < n; i++)
				order[i] = i;
			for (i = n - 1; i > 0; i--) {
				int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
			for (i = 0; i < n; i++)
				CHECK(tree_insert(&items[order[i]]));
			tree_erase(&items[victim]);
			check_tree();
			CHECK(tree_search(victim) == NULL);
			for (i = 0; i < n; i++)
				if (i != victim)
					CHECK(tree_search(i) == &items[i]);
		}
	}
}

/* Random inserts and erases against a membership array; full check every 64 operations. */
static void test_random_ops(void)
{
	enum { NR_OPS = 200000, KEYS = NR_ITEMS };
	static bool present[KEYS];
	long op;
	int i;

	setup();
	memset(present, 0, sizeof(present));
	for (op = 0; op < NR_OPS; op++) {
		int key = (int)(rnd() % KEYS);
		struct item *found = tree_search(key);

		CHECK((found != NULL) == present[key]);
		if (present[key]) {
			struct rb_node *next = rb_next(&items[key].node);
			struct rb_node *prev = rb_prev(&items[key].node);

			tree_erase(&items[key]);
			present[key] = false;
			/* Its neighbours are now each other's. */
			if (next)
				CHECK(rb_prev(next) == prev);
			if (prev)
				CHECK(rb_next(prev) == next);
		} else {
			CHECK(tree_insert(&items[key]));
			present[key] = true;
		}
		if (op % 64 == 0)
			check_tree();
		if (check_failed_in_test)
			return;
	}
	check_tree();
	for (i = 0; i < KEYS; i++)
		CHECK((tree_search(i) != NULL) == present[i]);
	printf("# %d random operations, %d nodes left\n", NR_OPS, tree_size);
}

int main(void)
{
	RUN_TEST(test_empty);
	RUN_TEST(test_sorted_inserts);
	RUN_TEST(test_small_trees);
	RUN_TEST(test_random_ops);
	return check_total_failed != 0;
}
