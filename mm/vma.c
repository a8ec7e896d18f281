/* The VMA set of an address space: lookup (find_vma), insert and unlink, split and merge,
 * and a checker of every invariant. The structures and contracts are in mm/vma.h. */

#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/vma.h"

pte_t vm_get_page_prot(unsigned long vm_flags)
{
	pte_t prot = _PAGE_PRESENT | _PAGE_USER;

	if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return 0;
	if ((vm_flags & (VM_WRITE | VM_SHARED)) == (VM_WRITE | VM_SHARED))
		prot |= _PAGE_RW;
	if (!(vm_flags & VM_EXEC))
		prot |= _PAGE_NX;
	return prot;
}

void mm_vma_init(struct mm_struct *mm)
{
	INIT_LIST_HEAD(&mm->mmap);
	mm->mm_rb = RB_ROOT;
	mm->mmap_cache = NULL;
	mm->map_count = 0;
}

struct vm_area_struct *vma_alloc(struct mm_struct *mm, unsigned long start, unsigned long end,
				 unsigned long flags, pte_t prot)
{
	struct vm_area_struct *vma = kzalloc(sizeof(*vma));

	if (!vma)
		return NULL;
	vma->vm_mm = mm;
	vma->vm_start = start;
	vma->vm_end = end;
	INIT_LIST_HEAD(&vma->vm_list);
	RB_CLEAR_NODE(&vma->vm_rb);
	vma->vm_page_prot = prot;
	vma->vm_flags = flags;
	vma->vm_pgoff = start >> PAGE_SHIFT;
	return vma;
}

void vma_free(struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->close)
		vma->vm_ops->close(vma);
	anon_vma_unlink(vma);
	kfree(vma);
}

static struct vm_area_struct *rb_to_vma(struct rb_node *node)
{
	return node ? rb_entry(node, struct vm_area_struct, vm_rb) : NULL;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = mm->mmap_cache, *found = NULL;
	struct rb_node *node;

	/* Faults come in runs on the same VMA, so the last answer is usually right again. */
	if (vma && vma->vm_start <= addr && addr < vma->vm_end)
		return vma;

	/*
	 * found is the lowest VMA seen so far that ends above addr. Going left from a VMA that
	 * ends above addr looks for a lower one that still does; going right skips VMAs that
	 * end at or below addr. A VMA containing addr is the answer at once.
	 */
	node = mm->mm_rb.rb_node;
	while (node) {
		vma = rb_to_vma(node);
		if (vma->vm_end > addr) {
			found = vma;
			if (vma->vm_start <= addr)
				break;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	if (found)
		mm->mmap_cache = found;
	return found;
}

struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,
				     struct vm_area_struct **pprev)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	if (vma)
		*pprev = vma_prev(mm, vma);
	else if (list_empty(&mm->mmap))
		*pprev = NULL;
	else
		*pprev = list_entry(mm->mmap.prev, struct vm_area_struct, vm_list);
	return vma;
}

struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start,
					     unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start);

	/* vma ends above start; it overlaps unless it also starts at or above end. */
	if (vma && vma->vm_start >= end)
		return NULL;
	return vma;
}

int insert_vm_struct(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct rb_node **link = &mm->mm_rb.rb_node, *parent = NULL;
	struct vm_area_struct *prev = NULL; /* the last VMA ending at or below vma->vm_start */

	if (vma->vm_start >= vma->vm_end || !IS_ALIGNED(vma->vm_start, PAGE_SIZE) ||
	    !IS_ALIGNED(vma->vm_end, PAGE_SIZE))
		return -EINVAL;

	/*
	 * Descend as find_vma(vma->vm_start) would, to the NULL link where vma belongs. The
	 * path passes the VMA just after that spot (the first one ending above vm_start), the
	 * only one that could overlap vma; checking every VMA we go left from covers it.
	 */
	while (*link) {
		struct vm_area_struct *cur = rb_to_vma(*link);

		parent = *link;
		if (cur->vm_end > vma->vm_start) {
			if (cur->vm_start < vma->vm_end)
				return -EINVAL; /* overlap */
			link = &parent->rb_left;
		} else {
			prev = cur;
			link = &parent->rb_right;
		}
	}

	vma->vm_mm = mm;
	list_add(&vma->vm_list, prev ? &prev->vm_list : &mm->mmap);
	rb_link_node(&vma->vm_rb, parent, link);
	rb_insert_color(&vma->vm_rb, &mm->mm_rb);
	mm->map_count++;
	return 0;
}

void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma)
{
	list_del(&vma->vm_list);
	rb_erase(&vma->vm_rb, &mm->mm_rb);
	RB_CLEAR_NODE(&vma->vm_rb);
	if (mm->mmap_cache == vma)
		mm->mmap_cache = NULL;
	mm->map_count--;
}

int sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;

int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr, int new_below)
{
	if (mm->map_count >= READ_ONCE(sysctl_max_map_count))
		return -ENOMEM; /* vm.max_map_count */
	return __split_vma(mm, vma, addr, new_below);
}

int __split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		int new_below)
{
	struct vm_area_struct *new_vma;

	if (!IS_ALIGNED(addr, PAGE_SIZE) || addr <= vma->vm_start || addr >= vma->vm_end)
		return -EINVAL;
	new_vma = kmalloc(sizeof(*new_vma));
	if (!new_vma)
		return -ENOMEM;
	*new_vma = *vma; /* same mm, flags, protection, file, ops, private data */

	/*
	 * Shrinking vma moves one of its ends into the range the new VMA is about to take, so
	 * the list and tree stay sorted without moving vma; the new VMA is then inserted into
	 * the space freed. Only the upper part's file offset changes.
	 */
	if (new_below) {
		new_vma->vm_end = addr;
		vma->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
		vma->vm_start = addr;
	} else {
		new_vma->vm_start = addr;
		new_vma->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
		vma->vm_end = addr;
	}
	if (insert_vm_struct(mm, new_vma) != 0)
		panic("split_vma: the new half [%lx, %lx) overlaps", new_vma->vm_start,
		      new_vma->vm_end);
	/* Both halves' pages keep their index: both VMAs are on the one anon_vma. */
	anon_vma_link(new_vma);

	/* Last, so nothing can fail after the backing was told about its new user. */
	if (new_vma->vm_ops && new_vma->vm_ops->open)
		new_vma->vm_ops->open(new_vma);
	return 0;
}

/*
 * Can a (ending where b starts) and b become one VMA without anything changing for any page?
 * Their attributes must be equal, and their pages must run on: b's first page is the page
 * after a's last, in the file, or for anonymous memory in the linear layout the pages' index
 * was taken from (vm_pgoff: the address of a new mapping, kept when mremap moves one that has
 * pages), and they must not have two different anon_vmas: the pages of one could not be
 * found from the other (2.6.23's is_mergeable_anon_vma). A VMA with a close operation is never
 * joined: joining ends one of the two without a close call, and the backing would count one
 * user too many.
 */
static bool vma_can_join(const struct vm_area_struct *a, const struct vm_area_struct *b)
{
	if (a->vm_end != b->vm_start)
		return false;
	/* (_PAGE_RW aside: with equal flags, file and ops, vma_wants_writenotify took it out of
	 * both or neither, and vma_merge's new range has not been asked yet.) */
	if (a->vm_flags != b->vm_flags || ((a->vm_page_prot ^ b->vm_page_prot) & ~_PAGE_RW))
		return false;
	if (a->vm_file != b->vm_file || a->vm_ops != b->vm_ops ||
	    a->vm_private_data != b->vm_private_data)
		return false;
	if (a->vm_ops && a->vm_ops->close)
		return false;
	if (a->vm_userfaultfd_ctx.ctx != b->vm_userfaultfd_ctx.ctx)
		return false; /* registered with two userfaultfds */
	if (a->vm_pgoff + vma_pages(a) != b->vm_pgoff)
		return false;
	return is_mergeable_anon_vma(a, b);
}

/* As vma_can_join, but for flags mprotect could make equal (2.6.23's anon_vma-compatible). */
static bool vma_can_share_anon_vma(const struct vm_area_struct *a,
				   const struct vm_area_struct *b)
{
	const unsigned long prot = VM_READ | VM_WRITE | VM_EXEC;

	return a->vm_end == b->vm_start && !((a->vm_flags ^ b->vm_flags) & ~prot) &&
	       a->vm_file == b->vm_file && a->vm_ops == b->vm_ops &&
	       a->vm_private_data == b->vm_private_data &&
	       a->vm_pgoff + vma_pages(a) == b->vm_pgoff;
}

struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma)
{
	struct vm_area_struct *near = vma_next(vma->vm_mm, vma);

	/* (Not a forked VMA's: the two could never merge.) */
	if (near && near->anon_vma && !near->anon_vma_forked && vma_can_share_anon_vma(vma, near))
		return near->anon_vma;
	near = vma_prev(vma->vm_mm, vma);
	if (near && near->anon_vma && !near->anon_vma_forked && vma_can_share_anon_vma(near, vma))
		return near->anon_vma;
	return NULL;
}

/* Make a absorb b, the VMA right after it: b is unlinked and freed. Returns a. */
static struct vm_area_struct *vma_absorb_next(struct mm_struct *mm, struct vm_area_struct *a,
					      struct vm_area_struct *b)
{
	unsigned long end = b->vm_end;

	/* Unlink b first: only then is the range up to its end free for a's new key. */
	vma_unlink(mm, b);
	a->vm_end = end;
	__anon_vma_merge(a, b); /* b's pages may be a's anon_vma's now; vma_free unlinks b */
	vma_free(b);
	return a;
}

struct vm_area_struct *vma_merge(struct mm_struct *mm, struct vm_area_struct *prev,
				 unsigned long addr, unsigned long end, unsigned long vm_flags,
				 struct file *file, unsigned long pgoff,
				 const struct vm_operations_struct *vm_ops)
{
	/* What the new range would be as a VMA of its own, to compare with its neighbours. */
	struct vm_area_struct area = {
		.vm_mm = mm,
		.vm_start = addr,
		.vm_end = end,
		.vm_page_prot = vm_get_page_prot(vm_flags),
		.vm_flags = vm_flags,
		.vm_pgoff = pgoff,
		.vm_file = file,
		.vm_ops = vm_ops,
	};
	struct vm_area_struct *next = prev ? vma_next(mm, prev) : vma_first(mm);
	bool join_prev, join_next;

	if (addr >= end || !IS_ALIGNED(addr, PAGE_SIZE) || !IS_ALIGNED(end, PAGE_SIZE))
		return NULL;
	if ((prev && prev->vm_end > addr) || (next && next->vm_start < end))
		return NULL; /* not a hole, or prev is not the VMA before it */

	join_prev = prev && vma_can_join(prev, &area);
	join_next = next && vma_can_join(&area, next);
	if (join_prev && join_next && is_mergeable_anon_vma(prev, next)) {
		/* Both are compatible with the range, so with each other: one VMA of all three. */
		return vma_absorb_next(mm, prev, next);
	}
	if (join_prev) {
		prev->vm_end = end; /* end is still below next's start: the tree stays sorted */
		return prev;
	}
	if (join_next) {
		next->vm_start = addr; /* its key, vm_end, is unchanged */
		next->vm_pgoff = pgoff;
		return next;
	}
	return NULL;
}

struct vm_area_struct *vma_merge_prev_head(struct mm_struct *mm, struct vm_area_struct *vma,
					   unsigned long end, unsigned long newflags)
{
	struct vm_area_struct *prev = vma_prev(mm, vma), area;

	if (!prev || vma->vm_file || vma->vm_ops || end <= vma->vm_start || end >= vma->vm_end ||
	    prev->anon_vma != vma->anon_vma)
		return NULL;
	/* What the head would be as a VMA of its own, to compare with prev. */
	area = *vma;
	area.vm_end = end;
	area.vm_flags = newflags;
	area.vm_page_prot = vm_get_page_prot(newflags);
	if (!vma_can_join(prev, &area))
		return NULL;
	/* Rmap walkers compute addresses from vm_start and vm_pgoff without mmap_sem: they see
	 * both boundaries moved or neither (the order expand_stack keeps too). The tree stays
	 * sorted: prev's end moves into the range vma gives up, vma's end is unchanged. */
	if (vma->anon_vma)
		spin_lock(&vma->anon_vma->lock);
	prev->vm_end = end;
	vma->vm_pgoff += (end - vma->vm_start) >> PAGE_SHIFT;
	vma->vm_start = end;
	if (vma->anon_vma)
		spin_unlock(&vma->anon_vma->lock);
	return prev;
}

struct vm_area_struct *vma_merge_neighbours(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vm_area_struct *next = vma_next(mm, vma), *prev = vma_prev(mm, vma);

	if (next && vma_can_join(vma, next))
		vma_absorb_next(mm, vma, next);
	if (prev && vma_can_join(prev, vma))
		vma = vma_absorb_next(mm, prev, vma);
	return vma;
}

/* ---------------------------------------------------------------- vma_verify */

/*
 * Check the red-black rules and parent pointers in the subtree at node, whose parent must be
 * parent. Returns its black height (black nodes on each path down to a NULL child, the NULL
 * counted as one), or -1 after printing the first rule broken. Recursion depth is the tree
 * height, at most 2 log2(n + 1).
 */
static int rb_check_subtree(const struct rb_node *node, const struct rb_node *parent)
{
	int left, right;

	if (!node)
		return 1;
	if (rb_parent(node) != parent) {
		printk("vma_verify: rb node %p has parent %p, expected %p\n", (void *)node,
		       (void *)rb_parent(node), (void *)parent);
		return -1;
	}
	if (rb_is_red(node) && ((node->rb_left && rb_is_red(node->rb_left)) ||
				(node->rb_right && rb_is_red(node->rb_right)))) {
		printk("vma_verify: red rb node %p has a red child\n", (void *)node);
		return -1;
	}
	left = rb_check_subtree(node->rb_left, node);
	if (left < 0)
		return -1;
	right = rb_check_subtree(node->rb_right, node);
	if (right < 0)
		return -1;
	if (left != right) {
		printk("vma_verify: rb node %p has black heights %d (left) and %d (right)\n",
		       (void *)node, left, right);
		return -1;
	}
	return left + rb_is_black(node);
}

int vma_verify(struct mm_struct *mm)
{
	struct list_head *pos;
	struct rb_node *node;
	struct vm_area_struct *vma, *prev = NULL;
	bool cache_seen = mm->mmap_cache == NULL;
	int count = 0;

	/* The list: every VMA sane, sorted, not overlapping its predecessor. */
	list_for_each(pos, &mm->mmap) {
		vma = list_entry(pos, struct vm_area_struct, vm_list);
		if (vma->vm_mm != mm || vma->vm_start >= vma->vm_end ||
		    !IS_ALIGNED(vma->vm_start, PAGE_SIZE) || !IS_ALIGNED(vma->vm_end, PAGE_SIZE)) {
			printk("vma_verify: bad VMA [%lx, %lx) (vm_mm %p)\n", vma->vm_start,
			       vma->vm_end, (void *)vma->vm_mm);
			return -EINVAL;
		}
		if (prev && prev->vm_end > vma->vm_start) {
			printk("vma_verify: [%lx, %lx) then [%lx, %lx): unsorted or overlapping\n",
			       prev->vm_start, prev->vm_end, vma->vm_start, vma->vm_end);
			return -EINVAL;
		}
		if (vma == mm->mmap_cache)
			cache_seen = true;
		prev = vma;
		count++;
	}
	if (count != mm->map_count) {
		printk("vma_verify: %d VMAs listed, map_count %d\n", count, mm->map_count);
		return -EINVAL;
	}
	if (!cache_seen) {
		printk("vma_verify: mmap_cache %p is not a VMA of the mm\n",
		       (void *)mm->mmap_cache);
		return -EINVAL;
	}

	/* The tree: its shape, then its in-order walk against the list. */
	if (mm->mm_rb.rb_node && rb_is_red(mm->mm_rb.rb_node)) {
		printk("vma_verify: the rb root is red\n");
		return -EINVAL;
	}
	if (rb_check_subtree(mm->mm_rb.rb_node, NULL) < 0)
		return -EINVAL;
	node = rb_first(&mm->mm_rb);
	list_for_each(pos, &mm->mmap) {
		vma = list_entry(pos, struct vm_area_struct, vm_list);
		if (rb_to_vma(node) != vma) {
			printk("vma_verify: tree in-order has %p where the list has [%lx, %lx)\n",
			       (void *)rb_to_vma(node), vma->vm_start, vma->vm_end);
			return -EINVAL;
		}
		node = rb_next(node);
	}
	if (node) {
		printk("vma_verify: the tree has VMAs the list lacks\n");
		return -EINVAL;
	}
	return 0;
}

struct vm_area_struct *vma_modify_flags(struct mm_struct *mm, struct vm_area_struct *vma,
					uint64_t start, uint64_t end, unsigned long newflags)
{
	return vma_modify_flags_uffd(mm, vma, start, end, newflags, vma->vm_userfaultfd_ctx.ctx);
}

struct vm_area_struct *vma_modify_flags_uffd(struct mm_struct *mm, struct vm_area_struct *vma,
					     uint64_t start, uint64_t end, unsigned long newflags,
					     struct userfaultfd_ctx *ctx)
{
	if (vma->vm_flags == newflags && vma->vm_userfaultfd_ctx.ctx == ctx)
		return vma;
	if (start > vma->vm_start && split_vma(mm, vma, start, 1))
		return NULL;
	vma = find_vma(mm, start);
	if (end < vma->vm_end && split_vma(mm, vma, end, 0))
		return NULL;
	vma = find_vma(mm, start);
	vma->vm_flags = newflags;
	vma->vm_userfaultfd_ctx.ctx = ctx;
	return vma_merge_neighbours(mm, vma);
}
