/* Virtual memory areas: each struct vm_area_struct is one run of pages of an mm_struct with
 * the same permissions and backing (Linux's <linux/mm.h> names), and the fault interface. */
#ifndef MM_VMA_H
#define MM_VMA_H

#include "kernel/lib/list.h"
#include "kernel/lib/rbtree.h"
#include "mm/mm_types.h"
#include "mm/pgtable.h"

struct file;
struct page;
struct userfaultfd_ctx;
struct vm_operations_struct;

/* The userfaultfd a VMA is registered with (kernel/fs/userfaultfd_k.h), NULL if none: Linux's
 * wrapper, so that a VMA's copy carries it and a compare of two VMAs sees it. */
struct vm_userfaultfd_ctx {
	struct userfaultfd_ctx *ctx;
};

/*
 * One VMA covers the page-aligned range [vm_start, vm_end) of vm_mm. The VMAs of an mm never
 * overlap and are never empty. Each VMA is in two structures at once (mm/mm_types.h):
 * mm->mmap, sorted by address, through vm_list, and mm->mm_rb, keyed by vm_end, through
 * vm_rb. Because VMAs do not overlap, sorting by vm_end is the same as sorting by vm_start,
 * so the tree's in-order walk is the list; moving one VMA's start or end inside the gap next
 * to it keeps both sorted and needs no re-insertion (split and merge rely on this).
 */
struct vm_area_struct {
	struct mm_struct *vm_mm; /* the address space it belongs to */
	unsigned long vm_start;	 /* first address inside */
	unsigned long vm_end;	 /* first address after the end */

	struct list_head vm_list; /* in vm_mm->mmap, sorted by address */
	struct rb_node vm_rb;	  /* in vm_mm->mm_rb, keyed by vm_end */

	pte_t vm_page_prot;	/* PTE flags for its pages: vm_get_page_prot(vm_flags) */
	unsigned long vm_flags; /* VM_READ, VM_WRITE, ... below */

	/* For a file mapping: vm_start maps page vm_pgoff of vm_file. For anonymous memory
	 * vm_file is NULL and vm_pgoff is vm_start >> PAGE_SHIFT, as in Linux. */
	unsigned long vm_pgoff;
	struct file *vm_file;

	struct list_head shared; /* file VMAs: on vm_file's i_mmap (or i_mmap_nonlinear) */
	/* The owner of its anonymous pages (mm/rmap.h), NULL until the first one is mapped, and
	 * its place on that anon_vma's list. A private file mapping has one too, for its COW
	 * copies. Copies of the VMA (split, fork, mremap) share it. */
	struct anon_vma *anon_vma;
	struct list_head anon_vma_node;
	/* fork's copy of a VMA that had an anon_vma, and copies of that copy: it shares its
	 * parent's pages (Linux: an anon_vma_chain of more than one). It never merges with a
	 * neighbour that has no anon_vma, nor lends its anon_vma (is_mergeable_anon_vma). */
	bool anon_vma_forked;
	const struct vm_operations_struct *vm_ops; /* NULL: plain anonymous memory */
	void *vm_private_data;			   /* for vm_ops' use */
	struct vm_userfaultfd_ctx vm_userfaultfd_ctx; /* with VM_UFFD_MISSING */
};

/* vm_flags, with Linux 2.6.23's values. The VM_MAY* bits are what mprotect may turn on. */
#define VM_READ		 0x00000001UL
#define VM_WRITE	 0x00000002UL
#define VM_EXEC		 0x00000004UL
#define VM_SHARED	 0x00000008UL
#define VM_MAYREAD	 0x00000010UL
#define VM_MAYWRITE	 0x00000020UL
#define VM_MAYEXEC	 0x00000040UL
#define VM_MAYSHARE	 0x00000080UL
#define VM_GROWSDOWN	 0x00000100UL /* a stack: may grow down into the gap below */
#define VM_UFFD_MISSING	 0x00000200UL /* a missing page's fault goes to its userfaultfd (Linux
				       * 4.3's flag, at its value: 2.6.23's VM_GROWSUP there) */
#define VM_PFNMAP	 0x00000400UL /* maps raw frames with no struct page use */
#define VM_LOCKED	 0x00002000UL /* mlock: its pages are faulted in and kept */
#define VM_IO		 0x00004000UL /* device memory */
#define VM_SEQ_READ	 0x00008000UL /* madvise(MADV_SEQUENTIAL) */
#define VM_RAND_READ	 0x00010000UL /* madvise(MADV_RANDOM) */
#define VM_DONTCOPY	 0x00020000UL /* madvise(MADV_DONTFORK): fork leaves it out */
#define VM_LOCKONFAULT	 0x00080000UL /* mlock2(MLOCK_ONFAULT): locked as faults bring pages */
#define VM_ACCOUNT	 0x00100000UL /* its pages are counted in vm_committed_as (mm/mman.h) */
#define VM_NORESERVE	 0x00200000UL /* MAP_NORESERVE honoured: nothing reserved for it */
#define VM_NONLINEAR	 0x00800000UL /* file pages not in vm_pgoff order */
#define VM_WIPEONFORK	 0x02000000UL /* madvise(MADV_WIPEONFORK): a fork's copy starts empty
				       * (Linux 4.14's flag, at today's value) */
#define VM_CAN_NONLINEAR 0x08000000UL /* vm_ops can handle nonlinear mappings */

/* What a fault handler is told (Linux 2.6.23's struct vm_fault). */
struct vm_fault {
	struct vm_area_struct *vma; /* (later Linux's field) NULL once mmap_sem was let go */
	unsigned int flags;    /* FAULT_FLAG_* */
	unsigned long pgoff;   /* the page of the file (or of the VMA) that was touched */
	void *virtual_address; /* the faulting user address */
	struct page *page;     /* out: the page the handler found, unless VM_FAULT_NOPAGE */
	pte_t *pte;            /* the PTE being filled: a VM_FAULT_NOPAGE op installs it here */
};

#define FAULT_FLAG_WRITE     0x01 /* the access was a write */
#define FAULT_FLAG_NONLINEAR 0x02 /* pgoff came from a nonlinear PTE */
/* Later Linux's, at their values: the fault may drop mmap_sem, sleep and answer
 * VM_FAULT_RETRY (only do_page_fault can take that); it is such a retry; it came from ring 3. */
#define FAULT_FLAG_ALLOW_RETRY 0x04
#define FAULT_FLAG_TRIED       0x20
#define FAULT_FLAG_USER	       0x40

/* ->fault()'s return value: a mask of these. */
#define VM_FAULT_OOM	0x0001
#define VM_FAULT_SIGBUS 0x0002
#define VM_FAULT_MAJOR	0x0004 /* needed I/O */
#define VM_FAULT_WRITE	0x0008 /* a copy-on-write happened */
#define VM_FAULT_NOPAGE 0x0100 /* the handler installed the PTE itself; vmf->page unused */
#define VM_FAULT_LOCKED 0x0200 /* vmf->page is returned locked */
/* The fault must be taken again from the start (Linux 2.6.29's, at today's value): mmap_sem
 * was let go meanwhile (handle_userfault's answer once a userfaultfd resolved the page, or was
 * closed), and the VMA may be gone. */
#define VM_FAULT_RETRY	0x0400
#define VM_FAULT_ERROR	(VM_FAULT_OOM | VM_FAULT_SIGBUS)
#define VM_FAULT_MINOR	0 /* no bit: kept for nopage()'s *type (VM_FAULT_MINOR or _MAJOR) */

/* ->nopage()'s two failures, with 2.6.23's values: any other value is the page. */
#define NOPAGE_SIGBUS ((struct page *)0)
#define NOPAGE_OOM    ((struct page *)-1)

/*
 * What a VMA does on the life events that concern its backing. open is called for every
 * VMA made as a copy of another (split_vma's new half; fork later); close for every VMA
 * that goes away (vma_free). So open/close calls pair up, one close per VMA ever made.
 */
struct vm_operations_struct {
	void (*open)(struct vm_area_struct *vma);
	void (*close)(struct vm_area_struct *vma);
	int (*fault)(struct vm_area_struct *vma, struct vm_fault *vmf);
	/*
	 * The legacy interface fault() replaced (docs/history.md), called only when fault is
	 * NULL, as 2.6.23's compat branch in __do_fault did: the page at address (page
	 * aligned) with a reference, unlocked, or NOPAGE_SIGBUS / NOPAGE_OOM; *type gets
	 * VM_FAULT_MINOR or VM_FAULT_MAJOR. Unlocked means truncate can remove the page from
	 * the page cache before __do_fault locks it: the race fault() closed.
	 */
	struct page *(*nopage)(struct vm_area_struct *vma, unsigned long address, int *type);
	/*
	 * A page of a shared writable mapping is about to become writable (2.6.23): the file
	 * system may prepare its blocks (allocate them: a full disk answers -ENOSPC, and the
	 * store gets SIGBUS instead of data lost at writeback). The page is unlocked; 0 or
	 * -errno. NULL (generic filemap's): nothing to prepare. Called with the big kernel lock.
	 */
	int (*page_mkwrite)(struct vm_area_struct *vma, struct page *page);
	const char *name; /* faultline's addition: what traces and dumps call it */
};

/* The first VMA of mm, and the one after/before vma, or NULL: O(1) through mm->mmap. */
static inline struct vm_area_struct *vma_first(struct mm_struct *mm)
{
	return list_empty(&mm->mmap) ? NULL
				     : list_first_entry(&mm->mmap, struct vm_area_struct, vm_list);
}

static inline struct vm_area_struct *vma_next(struct mm_struct *mm, struct vm_area_struct *vma)
{
	return vma->vm_list.next == &mm->mmap
		       ? NULL
		       : list_entry(vma->vm_list.next, struct vm_area_struct, vm_list);
}

static inline struct vm_area_struct *vma_prev(struct mm_struct *mm, struct vm_area_struct *vma)
{
	return vma->vm_list.prev == &mm->mmap
		       ? NULL
		       : list_entry(vma->vm_list.prev, struct vm_area_struct, vm_list);
}

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* The page of the file (or of the VMA, for anonymous memory) that address maps when vma is
 * linear: its first page is vm_pgoff (Linux's linear_page_index). */
static inline unsigned long linear_page_index(const struct vm_area_struct *vma,
					      uint64_t address)
{
	return ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

/* for_each_vma(vma, mm): every VMA of mm in address order; the body must not unlink vma. */
#define for_each_vma(vma, mm) for (vma = vma_first(mm); vma; vma = vma_next(mm, vma))

/*
 * The PTE flags for pages of a VMA with these vm_flags (Linux's protection_map[]): present
 * and user; writable only if VM_WRITE and VM_SHARED, because a private writable page starts
 * read-only and is made writable by the write fault (copy-on-write, as Linux does); NX
 * unless VM_EXEC. x86 cannot express write-only or exec-only, so those are also readable.
 * With none of VM_READ/WRITE/EXEC the result is 0: such a VMA never has pages mapped, the
 * fault path must refuse every access to it before mapping anything.
 */
pte_t vm_get_page_prot(unsigned long vm_flags);
/*
 * Is vma a shared writable mapping of a file that writes back (or whose vm_ops has a
 * page_mkwrite)? Then its vm_page_prot leaves _PAGE_RW out: every page starts read-only and
 * the first store to it faults, to dirty it for writeback (2.6.23's vma_wants_writenotify,
 * mm/mmap.c). Not ramfs or tmpfs: they keep writable PTEs and their faults.
 */
bool vma_wants_writenotify(const struct vm_area_struct *vma);

/* Make mm's VMA set empty: empty list and tree, no cached VMA, map_count 0. */
void mm_vma_init(struct mm_struct *mm);

/*
 * A new unlinked VMA for [start, end) of mm (kzalloc'd) with vm_flags flags and vm_page_prot
 * prot, anonymous (vm_pgoff = start >> PAGE_SHIFT, no file, ops or private data). NULL when
 * out of memory. A file mapping sets vm_file, vm_pgoff and vm_ops before inserting it.
 */
struct vm_area_struct *vma_alloc(struct mm_struct *mm, unsigned long start, unsigned long end,
				 unsigned long flags, pte_t prot);
/* End a VMA's life: vm_ops->close (if any), off its anon_vma's list, then free it. It must be
 * unlinked already. */
void vma_free(struct vm_area_struct *vma);

/*
 * The first VMA with vm_end > addr (it contains addr, or is the first one above it), or NULL
 * if none. Checks mm->mmap_cache first, then walks the tree: O(log n). The answer becomes
 * mm->mmap_cache.
 */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* find_vma, and in *pprev the VMA just before the one returned (the last VMA of mm if it
 * returns NULL), or NULL if there is none. */
struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,
				     struct vm_area_struct **pprev);
/* The first VMA that overlaps [start, end) (start < end), or NULL. */
struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start,
					     unsigned long end);

/*
 * Link vma (vma_alloc'd, not yet in any mm) into mm's list and tree and count it; vm_mm is
 * set to mm. Returns 0, or -EINVAL (nothing changed) if its range is empty or not page
 * aligned, or overlaps a VMA already in mm. O(log n).
 */
int insert_vm_struct(struct mm_struct *mm, struct vm_area_struct *vma);
/* Take vma out of mm's list and tree, uncount it, and drop it from mmap_cache. Does not free
 * it (vma_free does): munmap unlinks first, then unmaps the pages, then frees. */
void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma);

/*
 * Cut vma in two at addr, page aligned with vm_start < addr < vm_end. The new VMA (a copy,
 * kmalloc'd, inserted into mm, then passed to vm_ops->open if there is one) is the part
 * below addr if new_below, else the part above; vma keeps the other part. The upper part's
 * vm_pgoff advances by (addr - old vm_start) >> PAGE_SHIFT, so every page keeps its offset.
 * Returns 0, -EINVAL for a bad addr, or -ENOMEM (nothing changed).
 *
 * mprotect and munmap on [start, end) inside vma isolate it the way Linux does:
 *	if (start > vma->vm_start) split_vma(mm, vma, start, 1);  vma now starts at start
 *	if (end < vma->vm_end) split_vma(mm, vma, end, 0);        vma now ends at end
 * then change vma's flags and call vma_merge_neighbours(), or unlink and free it.
 */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr, int new_below);
/* vm.max_map_count (/proc/sys/vm): how many VMAs a process may have; mmap, mprotect, mremap and
 * a munmap that splits one VMA in two answer -ENOMEM at it (Linux's checks, mm/mmap.c). */
#define DEFAULT_MAX_MAP_COUNT 65530
extern int sysctl_max_map_count;
/* The same without vm.max_map_count's -ENOMEM: munmap's splits, which end in fewer VMAs. */
int __split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		int new_below);

/*
 * mmap and brk: the hole [addr, end) of mm (page aligned, no VMA inside it) is about to be
 * mapped with these attributes, and prev is the VMA before it (prev->vm_end <= addr), or
 * NULL if there is none. If the range touches prev and/or the VMA after it and can join
 * them (see vma_can_join in mm/vma.c), grow prev, or grow next down, or make prev swallow
 * the range and next (next is freed), and return the VMA that now covers [addr, end).
 * Otherwise (also for a bad range or a hole that is not empty) change nothing, return NULL:
 * the caller then vma_alloc()s and inserts a VMA of its own. pgoff is the file page at
 * addr (addr >> PAGE_SHIFT for anonymous memory). Never allocates.
 */
struct vm_area_struct *vma_merge(struct mm_struct *mm, struct vm_area_struct *prev,
				 unsigned long addr, unsigned long end, unsigned long vm_flags,
				 struct file *file, unsigned long pgoff,
				 const struct vm_operations_struct *vm_ops);

/*
 * For anon_vma_prepare (Linux 2.6.23's find_mergeable_anon_vma): the anon_vma of a neighbour
 * of vma that could merge with it if their protections were equal, or NULL: sharing it lets
 * an mprotect undone later merge the two again.
 */
struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma);

/*
 * mprotect, after changing vma's flags: join vma with the VMA before and/or after it where
 * they touch and are compatible. Returns the VMA that now covers vma's range: vma itself or
 * its predecessor. vma may have been freed, so use only the returned pointer.
 */
struct vm_area_struct *vma_merge_neighbours(struct mm_struct *mm, struct vm_area_struct *vma);
/*
 * mprotect's cheap case (2.6.23's vma_merge moving a boundary, vma_adjust): [vma->vm_start,
 * end) is the head of an anonymous vma, and prev, just before it, could join a VMA of
 * newflags there: prev grows to end and vma starts there, with no split and no VMA made or
 * freed. Returns prev, which now covers the head, or NULL (nothing changed) when it cannot.
 */
struct vm_area_struct *vma_merge_prev_head(struct mm_struct *mm, struct vm_area_struct *vma,
					   unsigned long end, unsigned long newflags);
/* Give [start, end) of vma (inside it) the flags newflags: split off what lies outside, set
 * them, merge with neighbours that became alike (mlock_fixup, madvise_update_vma). The VMA
 * that now covers [start, end), or NULL when out of memory. */
struct vm_area_struct *vma_modify_flags(struct mm_struct *mm, struct vm_area_struct *vma,
					uint64_t start, uint64_t end, unsigned long newflags);
/* The same with the userfaultfd too (UFFDIO_REGISTER and UNREGISTER). */
struct vm_area_struct *vma_modify_flags_uffd(struct mm_struct *mm, struct vm_area_struct *vma,
					     uint64_t start, uint64_t end, unsigned long newflags,
					     struct userfaultfd_ctx *ctx);

/*
 * Check every invariant of mm's VMA set: each VMA non-empty, page aligned and pointing to mm;
 * the list sorted and non-overlapping; the tree's in-order walk equal to the list, with
 * correct parent pointers; the red-black rules (black root, no red node with a red child,
 * equal black height on every path); map_count equal to the list length; mmap_cache NULL or
 * one of the VMAs. Returns 0 if all hold, else printk()s the first violation and returns
 * -EINVAL. O(n): for tests and debugging.
 */
int vma_verify(struct mm_struct *mm);

#endif
