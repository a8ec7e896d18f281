/* Swap, with Linux 2.6.23's names (include/linux/swap.h, swapops.h): areas (mm/swapfile.c),
 * their slots (mm/swap_map.c) and I/O (mm/swap_io.c), the swap cache (mm/swap_state.c), the
 * swap-in fault (mm/swap_fault.c); the header mkswap writes, swap entries (an area's type and
 * a page's offset in it). */
#ifndef MM_SWAP_H
#define MM_SWAP_H

#include "kernel/compiler.h"
#include "kernel/locking/spinlock.h"
#include "mm/mmu.h"
#include "mm/pgtable.h"

struct file;
struct gendisk;
struct mm_struct;
struct page;
struct proc_text;
struct vm_area_struct;

/*
 * Page 0 of a swap area, as util-linux mkswap writes it: 1024 bytes left for a boot block or
 * disk label, the info (little-endian words: this is the x86 layout), and the magic
 * "SWAPSPACE2" in the last 10 bytes of the page. badpages[] runs up to the magic.
 */
union swap_header {
	struct {
		char reserved[PAGE_SIZE - 10];
		char magic[10]; /* "SWAPSPACE2" (version 0's "SWAP-SPACE" is refused) */
	} magic;
	struct {
		char bootbits[1024];
		uint32_t version;     /* 1 */
		uint32_t last_page;   /* the last usable page: the area is last_page + 1 pages */
		uint32_t nr_badpages; /* entries of badpages[] in use */
		unsigned char sws_uuid[16];
		unsigned char sws_volume[16]; /* the label (mkswap -L) */
		uint32_t padding[117];
		uint32_t badpages[1];
	} info;
};

/* How many bad pages page 0 can list: the words from badpages[] up to the magic (637). */
#define MAX_SWAP_BADPAGES                                                                 \
	((__builtin_offsetof(union swap_header, magic.magic) -                            \
	  __builtin_offsetof(union swap_header, info.badpages)) / sizeof(uint32_t))

/* swapon's flags (<sys/swap.h>): a priority of 0..32767 when PREFER is set; the discard
 * flags are accepted and mean nothing here (no disk takes a discard). */
#define SWAP_FLAG_PREFER 0x8000
#define SWAP_FLAG_PRIO_MASK 0x7fff
#define SWAP_FLAG_PRIO_SHIFT 0
#define SWAP_FLAG_DISCARD 0x10000
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#define SWAP_FLAGS_VALID                                                                  \
	(SWAP_FLAG_PRIO_MASK | SWAP_FLAG_PREFER | SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE | \
	 SWAP_FLAG_DISCARD_PAGES)

/*
 * A swap entry: which area (type) and which page in it (offset). 2.6.23's arch-independent
 * form keeps the type in the top bits of a long; a PTE holds it in its own encoding
 * (pte_to_swp_entry, swp_entry_to_pte below).
 */
typedef struct {
	unsigned long val;
} swp_entry_t;

#define MAX_SWAPFILES_SHIFT 5
#define MAX_SWAPFILES (1 << MAX_SWAPFILES_SHIFT) /* 32 areas, as 2.6.23 */
#define SWP_TYPE_SHIFT(e) (sizeof(e.val) * 8 - MAX_SWAPFILES_SHIFT)
#define SWP_OFFSET_MASK(e) ((1UL << SWP_TYPE_SHIFT(e)) - 1)

static inline swp_entry_t swp_entry(unsigned long type, unsigned long offset)
{
	swp_entry_t ret;

	ret.val = (type << SWP_TYPE_SHIFT(ret)) | (offset & SWP_OFFSET_MASK(ret));
	return ret;
}

static inline unsigned int swp_type(swp_entry_t entry)
{
	return (unsigned int)(entry.val >> SWP_TYPE_SHIFT(entry));
}

static inline unsigned long swp_offset(swp_entry_t entry)
{
	return entry.val & SWP_OFFSET_MASK(entry);
}

/*
 * A swapped-out page's PTE, encoded as 2.6.23's x86_64 did: not present (bit 0 clear), the
 * type in bits 1..6, the offset from bit 8 up. Bit 6 is _PAGE_FILE, so types stay below 32
 * (MAX_SWAPFILES) and a swap PTE is never taken for a file PTE; offset 0 is the header,
 * never a slot, so no swap PTE is 0 (pte_none).
 */
static inline bool is_swap_pte(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte) && !pte_file(pte);
}

static inline swp_entry_t pte_to_swp_entry(pte_t pte)
{
	return swp_entry((pte >> 1) & 0x3f, pte >> 8);
}

static inline pte_t swp_entry_to_pte(swp_entry_t entry)
{
	return (pte_t)swp_type(entry) << 1 | (pte_t)swp_offset(entry) << 8;
}

/* swap_map values: a count of the users of a slot (PTEs, the swap cache), or BAD. */
#define SWAP_MAP_MAX 0x7fff
#define SWAP_MAP_BAD 0x8000
#define SWAP_CLUSTER_MAX 32 /* slots get_swap_page hands out in a row before looking again */

enum {
	SWP_USED = 1 << 0,    /* the slot of swap_info[] is taken (also while swapon works) */
	SWP_WRITEOK = 1 << 1, /* get_swap_page may allocate from it (off during swapoff) */
	SWP_ACTIVE = SWP_USED | SWP_WRITEOK,
};

/*
 * One swap area. swap_map[offset] counts the users of each page slot: 0 free, SWAP_MAP_BAD
 * for page 0 (the header) and the bad pages. The free slots lie within
 * [lowest_bit, highest_bit]; cluster_next is where the next search starts, cluster_nr how
 * many more slots the current run may take. Counts and bits change under swap_lock.
 */
struct swap_info_struct {
	unsigned int flags;             /* SWP_* */
	int prio;                       /* higher is used first */
	struct file *swap_file;         /* the block special file, open (NULL: a ktest's disk) */
	struct gendisk *bdev;           /* its disk */
	char name[128];                 /* where it is (d_path), for /proc/swaps */
	unsigned short *swap_map;
	unsigned int lowest_bit, highest_bit;
	unsigned int cluster_next, cluster_nr;
	unsigned int pages;             /* usable slots: all but page 0 and the bad ones */
	unsigned int max;               /* slots in swap_map: last_page + 1 */
	unsigned int inuse_pages;
	int next;                       /* the next area by priority, -1 at the end */
};

/* swapfile.c: the areas. */
/* Make disk a swap area: what sys_swapon does once the path is open as file (kept open while
 * the area is; NULL for a ktest's disk), name for /proc/swaps, the priority from swapon's
 * flags. 0, -EBUSY, -EINVAL, -ENOMEM, -EPERM (all MAX_SWAPFILES in use), -EIO. */
int swapon_disk(struct gendisk *disk, struct file *file, const char *name, int swap_flags);
/* swapoff (mm/swap_unuse.c): bring every page out on area type back into the PTEs holding
 * its slots, until none is in use. 0, -ENOMEM, -EIO (the disk failed a read), -EINTR (a
 * signal), -EBUSY (slots still in use after several passes). */
int try_to_unuse(unsigned int type);
/* Take the area on disk out of use; -EINVAL if it is not one. */
int swapoff_disk(struct gendisk *disk);
/* At boot: swapon of the first disk with the signature, unless the parameter noswap. */
void swap_setup_boot(void);
/* /proc/swaps */
void swaps_show(struct proc_text *t);

/* The areas taking allocations, highest priority first (head), and where get_swap_page
 * starts (next: it goes round areas of equal priority in turn); -1: none. */
struct swap_list_t {
	int head, next;
};

/* swap_map.c: the slot allocator. Its state, which swapon and swapoff change too: */
extern spinlock_t swap_lock;
extern struct swap_info_struct swap_info[MAX_SWAPFILES]; /* by type; read under swap_lock */
extern unsigned int nr_swapfiles; /* entries of swap_info[] ever used */
extern struct swap_list_t swap_list;
extern long nr_swap_pages;       /* free slots in all areas that take allocations */
extern long total_swap_pages;    /* usable slots in all of them */

/* More than half the slots in use: a page in RAM keeps its slot no longer than needed
 * (2.6.23's vm_swap_full). Otherwise a clean page keeps it, so that evicting the page again
 * costs no write. */
static inline bool vm_swap_full(void)
{
	return nr_swap_pages * 2 < total_swap_pages;
}

/* A free slot of the highest-priority area that has one, its count set to 1; val 0 when
 * swap is full (offset 0 is the header, never a slot). */
swp_entry_t get_swap_page(void);
/* Drop one user of entry's slot; the slot is free again at 0. */
void swap_free(swp_entry_t entry);
/* One more user (a forked PTE, the swap cache): 1, or 0 for an entry that is not in use. */
int swap_duplicate(swp_entry_t entry);
/* The count of entry's slot (0 free), or -1 for an invalid entry. */
int swap_count(swp_entry_t entry);
/* /proc/sys/vm/page-cluster: readahead reads 2^N slots (0..31; 0 none; at most 8 a request). */
int get_page_cluster(void);
void set_page_cluster(int value);
/* Slots around entry's worth reading with it (the readahead cluster: 2^page_cluster aligned,
 * stopping at a free or bad slot): their count, the first in *offset. */
int valid_swaphandles(swp_entry_t entry, unsigned long *offset);
/* The disk holding entry's slot if the slot is in use, else NULL (for swap_io.c). */
struct gendisk *swap_entry_disk(swp_entry_t entry);
/* SwapTotal and SwapFree, in pages. */
void si_swapinfo(unsigned long *totalswap, unsigned long *freeswap);

/* swap_io.c (Linux's mm/page_io.c): one page between RAM and entry's slot, synchronously
 * through the block layer. 0, -EIO (a device error), -EINVAL (not a slot in use). */
int swap_readpage(swp_entry_t entry, struct page *page);
int swap_writepage(swp_entry_t entry, struct page *page);
/* A run of n (1..SWAP_IO_MAX) consecutive slots from first, in one request: pages[i] is slot
 * first + i. 0 or -EIO for the whole run. */
#define SWAP_IO_MAX 16 /* the block layer's largest request: 128 sectors */
int swap_readpages(swp_entry_t first, struct page **pages, int n);
int swap_writepages(swp_entry_t first, struct page **pages, int n);

/*
 * swap_state.c (2.6.23's mm/swap_state.c): the swap cache, a page's place between its PTEs and
 * its slot. A page in it has PG_swapcache and its entry in page->private; the cache holds one
 * reference to the page and one count on the slot. A page is in it while it is being written
 * out, while it is on the disk and some PTEs have it back (a forked sharer's still hold the
 * entry), and while a swap-in reads it.
 */
extern unsigned long total_swapcache_pages;

/* The page caching entry, with a reference, or NULL. It may still be locked for its read. */
struct page *lookup_swap_cache(swp_entry_t entry);
/* Reclaim: give a locked anonymous page a slot and put it in the cache, dirty (it must be
 * written there before it can go). 0 when swap is full or off, else 1. */
int add_to_swap(struct page *page);
/* Take a locked page out of the cache: its slot count and its reference go. */
void delete_from_swap_cache(struct page *page);
/* Reclaim: delete a clean, unmapped, locked page from the cache when only the cache and the
 * caller hold it (the caller's reference then frees it). 1 done, 0 kept. */
int remove_swap_mapping(struct page *page);
/* Before a swap-in that must read the disk: the slots in use around entry (the aligned
 * cluster valid_swaphandles gives, 2.6.23's swapin_readahead) that are not cached yet are read
 * into the cache in one request, while free frames are above pages_low. */
void swapin_readahead(swp_entry_t entry);
/* The page for entry, read from the disk into the cache if it is not there.
 * It comes back unlocked with a reference; PG_uptodate clear and PG_error set if the read
 * failed. NULL when out of memory or when entry's slot was freed meanwhile (the PTE changed). */
struct page *read_swap_cache_async(swp_entry_t entry);
/* A PTE holding entry goes (zap): drop its count, and the cached page too when nothing else
 * uses the slot. */
void free_swap_and_cache(swp_entry_t entry);
/* A mapped page's last reference from a PTE goes (zap, after the flush): take it out of the
 * cache when no PTE holds its entry either, then put_page. */
void free_page_and_swap_cache(struct page *page);
/* May a write fault reuse the swap-cache page that only this PTE maps? Only when no other PTE
 * holds its entry; it then leaves the cache (its slot's copy would be stale). Page locked. */
bool reuse_swap_page(struct page *page);

/* swap_fault.c (2.6.23 has it in mm/memory.c): a fault on a swap PTE. orig_pte, read without
 * the lock, holds the entry. VM_FAULT_MINOR or _MAJOR (from the swap cache or the disk),
 * _WRITE, _OOM or _SIGBUS (the disk failed the read). */
int do_swap_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		 pte_t *pte, pte_t orig_pte, bool write);

#endif
