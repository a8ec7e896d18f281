/* Red-black tree rebalancing after an insert or an erase, and in-order walking. The rules
 * being kept are listed in kernel/lib/rbtree.h; the cases follow the textbook (CLRS ch. 13). */

#include "kernel/lib/rbtree.h"

static bool is_red(const struct rb_node *n)
{
	return n && rb_is_red(n); /* a NULL child is black */
}

static bool is_black(const struct rb_node *n)
{
	return !is_red(n);
}

/* Make parent (or the root, if parent is NULL) point to new where it pointed to old. */
static void change_child(struct rb_node *old, struct rb_node *new, struct rb_node *parent,
			 struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
}

/*
 * Rotations keep the in-order sequence and change only the shape:
 *
 *        x                 y
 *       / \    left       / \
 *      a   y   ---->     x   c
 *         / \  <----    / \
 *        b   c  right  a   b
 *
 * Colours are not touched; the callers recolour.
 */
static void rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->rb_right;
	struct rb_node *parent = rb_parent(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		rb_set_parent(y->rb_left, x);
	y->rb_left = x;
	rb_set_parent(y, parent);
	change_child(x, y, parent, root);
	rb_set_parent(x, y);
}

static void rotate_right(struct rb_node *y, struct rb_root *root)
{
	struct rb_node *x = y->rb_left;
	struct rb_node *parent = rb_parent(y);

	y->rb_left = x->rb_right;
	if (x->rb_right)
		rb_set_parent(x->rb_right, y);
	x->rb_right = y;
	rb_set_parent(x, parent);
	change_child(y, x, parent, root);
	rb_set_parent(y, x);
}

/*
 * The new node is red, so black heights are still equal (rule 3); only rule 2 can be broken,
 * and only between node and its parent. Each round either fixes it for good with one or two
 * rotations, or (red uncle) recolours and moves the problem two levels up.
 */
void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent, *gparent, *uncle;

	while ((parent = rb_parent(node)) && rb_is_red(parent)) {
		/* A red parent is not the root (rule 1), so the grandparent exists and is black. */
		gparent = rb_parent(parent);
		if (parent == gparent->rb_left) {
			uncle = gparent->rb_right;
			if (is_red(uncle)) {
				/* Push gparent's blackness down to both children. */
				rb_set_color(parent, RB_BLACK);
				rb_set_color(uncle, RB_BLACK);
				rb_set_color(gparent, RB_RED);
				node = gparent;
				continue;
			}
			if (node == parent->rb_right) {
				/* Zig-zag: turn it into the straight line handled below. */
				rotate_left(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			/* Straight line: parent takes gparent's place and colour. */
			rb_set_color(parent, RB_BLACK);
			rb_set_color(gparent, RB_RED);
			rotate_right(gparent, root);
		} else {
			/* The mirror image, left and right swapped. */
			uncle = gparent->rb_left;
			if (is_red(uncle)) {
				rb_set_color(parent, RB_BLACK);
				rb_set_color(uncle, RB_BLACK);
				rb_set_color(gparent, RB_RED);
				node = gparent;
				continue;
			}
			if (node == parent->rb_left) {
				rotate_right(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			rb_set_color(parent, RB_BLACK);
			rb_set_color(gparent, RB_RED);
			rotate_left(gparent, root);
		}
	}
	rb_set_color(root->rb_node, RB_BLACK);
}

/*
 * A black node was removed from above x (which may be NULL), so every path through x has
 * one black too few. If x is red, painting it black repays the debt. Otherwise look at x's
 * sibling w, which exists: its side had at least one black more than x's. Either borrow a
 * black from w's side by rotations (done), or paint w red, making the parent's whole
 * subtree short by one, and carry the debt up to the parent.
 */
static void erase_color(struct rb_node *x, struct rb_node *parent, struct rb_root *root)
{
	struct rb_node *w;

	while (x != root->rb_node && is_black(x)) {
		if (x == parent->rb_left) {
			w = parent->rb_right;
			if (rb_is_red(w)) {
				/* Make the sibling black, so one of the cases below applies. */
				rb_set_color(w, RB_BLACK);
				rb_set_color(parent, RB_RED);
				rotate_left(parent, root);
				w = parent->rb_right;
			}
			if (is_black(w->rb_left) && is_black(w->rb_right)) {
				rb_set_color(w, RB_RED);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (is_black(w->rb_right)) {
				/* w's red child is the inner one: rotate it outward. */
				rb_set_color(w->rb_left, RB_BLACK);
				rb_set_color(w, RB_RED);
				rotate_right(w, root);
				w = parent->rb_right;
			}
			/* w's outer child is red: one rotation gives x's side its black back. */
			rb_set_color(w, rb_color(parent));
			rb_set_color(parent, RB_BLACK);
			rb_set_color(w->rb_right, RB_BLACK);
			rotate_left(parent, root);
			x = root->rb_node;
			break;
		} else {
			w = parent->rb_left;
			if (rb_is_red(w)) {
				rb_set_color(w, RB_BLACK);
				rb_set_color(parent, RB_RED);
				rotate_right(parent, root);
				w = parent->rb_left;
			}
			if (is_black(w->rb_left) && is_black(w->rb_right)) {
				rb_set_color(w, RB_RED);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (is_black(w->rb_left)) {
				rb_set_color(w->rb_right, RB_BLACK);
				rb_set_color(w, RB_RED);
				rotate_left(w, root);
				w = parent->rb_left;
			}
			rb_set_color(w, rb_color(parent));
			rb_set_color(parent, RB_BLACK);
			rb_set_color(w->rb_left, RB_BLACK);
			rotate_right(parent, root);
			x = root->rb_node;
			break;
		}
	}
	if (x)
		rb_set_color(x, RB_BLACK);
}

/*
 * Unlink node. With at most one child, that child (or NULL) takes node's place. With two,
 * node's successor (the leftmost node of its right subtree, which has no left child) is cut
 * out of its own place and moved into node's, taking node's colour. Either way exactly one
 * position lost a node; if that node was black, erase_color() repairs the black heights.
 */
void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *child, *parent; /* what filled the emptied position, and its parent */
	unsigned long removed_color;

	if (!node->rb_left || !node->rb_right) {
		child = node->rb_left ? node->rb_left : node->rb_right;
		parent = rb_parent(node);
		removed_color = rb_color(node);
		if (child)
			rb_set_parent(child, parent);
		change_child(node, child, parent, root);
	} else {
		struct rb_node *succ = node->rb_right;

		while (succ->rb_left)
			succ = succ->rb_left;
		child = succ->rb_right;
		removed_color = rb_color(succ);
		if (rb_parent(succ) == node) {
			/* succ is node's right child: it moves up and keeps its right subtree. */
			parent = succ;
		} else {
			/* Cut succ out of its place, then give it node's right subtree. */
			parent = rb_parent(succ);
			parent->rb_left = child;
			if (child)
				rb_set_parent(child, parent);
			succ->rb_right = node->rb_right;
			rb_set_parent(node->rb_right, succ);
		}
		/* succ takes node's place: node's parent, colour and left subtree. */
		succ->rb_parent_color = node->rb_parent_color;
		change_child(node, succ, rb_parent(node), root);
		succ->rb_left = node->rb_left;
		rb_set_parent(node->rb_left, succ);
	}
	if (removed_color == RB_BLACK)
		erase_color(child, parent, root);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

/* The successor is the leftmost node of the right subtree if there is one; otherwise the
 * first ancestor that we reach from its left side. */
struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	while ((parent = rb_parent(node)) && node == parent->rb_right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	while ((parent = rb_parent(node)) && node == parent->rb_left)
		node = parent;
	return parent;
}
