/* Red-black trees with Linux's interface (<linux/rbtree.h>): the caller embeds a struct rb_node,
 * does the ordered descent itself, then calls rb_link_node + rb_insert_color to rebalance. */
#ifndef KERNEL_RBTREE_H
#define KERNEL_RBTREE_H

#include "kernel/compiler.h"

/*
 * A red-black tree is a binary search tree whose nodes are coloured so that:
 *   1. the root is black;
 *   2. a red node has no red child (NULL children count as black);
 *   3. every path from a node down to a NULL child passes the same number of black nodes.
 * Together these keep the longest root-to-leaf path at most twice the shortest, so the
 * height is at most 2 log2(n + 1) and a lookup is O(log n).
 *
 * The tree does not know the key: the user compares its own structures (found with
 * rb_entry) while walking down from root->rb_node, exactly as Linux's users do.
 *
 * rb_parent_color packs the parent pointer and the colour into one word, as in Linux:
 * nodes are at least 4-byte aligned, so bit 0 of a node's address is free to hold the
 * colour (0 red, 1 black). Use rb_parent() and rb_is_red()/rb_is_black() to read it.
 */
#define RB_RED	 0UL
#define RB_BLACK 1UL

struct rb_node {
	unsigned long rb_parent_color; /* parent address | colour bit */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __aligned(sizeof(long));

struct rb_root {
	struct rb_node *rb_node; /* NULL when the tree is empty */
};

#define RB_ROOT			    ((struct rb_root){ NULL })
#define rb_entry(ptr, type, member) container_of(ptr, type, member)

static inline struct rb_node *rb_parent(const struct rb_node *n)
{
	return (struct rb_node *)(n->rb_parent_color & ~3UL);
}

static inline unsigned long rb_color(const struct rb_node *n)
{
	return n->rb_parent_color & 1UL;
}

static inline bool rb_is_red(const struct rb_node *n)
{
	return rb_color(n) == RB_RED;
}

static inline bool rb_is_black(const struct rb_node *n)
{
	return rb_color(n) == RB_BLACK;
}

static inline void rb_set_parent(struct rb_node *n, struct rb_node *parent)
{
	n->rb_parent_color = (n->rb_parent_color & 3UL) | (unsigned long)parent;
}

static inline void rb_set_color(struct rb_node *n, unsigned long color)
{
	n->rb_parent_color = (n->rb_parent_color & ~1UL) | color;
}

/*
 * A node that is in no tree points to itself (RB_CLEAR_NODE), so RB_EMPTY_NODE can tell.
 * Nothing here does that automatically: callers that want the check clear their nodes.
 */
#define RB_EMPTY_ROOT(root) ((root)->rb_node == NULL)
#define RB_EMPTY_NODE(node) (rb_parent(node) == (node))
#define RB_CLEAR_NODE(node) ((node)->rb_parent_color = (unsigned long)(node))

/*
 * Hang a new node at *link, the NULL child pointer of parent where the caller's descent
 * ended (link is &root->rb_node and parent NULL for an empty tree). The node starts red
 * with no children; the tree is ordered but maybe unbalanced until rb_insert_color().
 */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **link)
{
	node->rb_parent_color = (unsigned long)parent | RB_RED;
	node->rb_left = NULL;
	node->rb_right = NULL;
	*link = node;
}

/* Restore the red-black rules after rb_link_node() put node into root's tree. O(log n). */
void rb_insert_color(struct rb_node *node, struct rb_root *root);
/* Take node out of root's tree and rebalance. The node's own fields are left stale. O(log n). */
void rb_erase(struct rb_node *node, struct rb_root *root);

/* In-order walking: the smallest/largest node, and a node's successor/predecessor
 * (NULL past either end or for an empty tree). */
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

#endif
