/* The swap slot allocator: each area's swap_map of slot counts, slots handed out by priority
 * (get_swap_page), counted (swap_duplicate) and given back (swap_free), and readahead's
 * cluster (valid_swaphandles). Linux 2.6.23 has it in mm/swapfile.c, with the areas it serves
 * (here mm/swapfile.c: header, swapon, swapoff, /proc/swaps); Linux's mm/swap_slots.c (4.11 on)
 * is something else, a per-CPU cache in front of it. */
#include "kernel/locking/spinlock.h"
#include "kernel/printk/printk.h"
#include "mm/swap.h"

/*
 * swap_lock guards swap_info[]'s flags, maps and counts, swap_list, nr_swap_pages and
 * total_swap_pages: get_swap_page and swap_free run from reclaim and faults on every CPU,
 * swapon and swapoff (mm/swapfile.c) add an area or take one out under it.
 */
DEFINE_SPINLOCK(swap_lock);

struct swap_info_struct swap_info[MAX_SWAPFILES];
unsigned int nr_swapfiles;
struct swap_list_t swap_list = { -1, -1 };
long nr_swap_pages, total_swap_pages;
/* Readahead: valid_swaphandles offers 2^page_cluster slots (Linux: 3 above 16 MiB of RAM);
 * /proc/sys/vm/page-cluster sets it (0: none). */
static int page_cluster = 3;

int get_page_cluster(void)
{
	return READ_ONCE(page_cluster);
}

void set_page_cluster(int value)
{
	WRITE_ONCE(page_cluster, value);
}

/*
 * A free slot of si, or 0. 2.6.23's scan_swap_map, simplified: slots go out in runs of
 * SWAP_CLUSTER_MAX from cluster_next (neighbours on the disk for pages written together);
 * when a run is used up, a wholly free stretch of that length is looked for, else the
 * lowest free slot. Called with swap_lock held.
 */
static unsigned long scan_swap_map(struct swap_info_struct *si)
{
	unsigned long offset, run_end;
	bool wrapped = false;

	if (!si->highest_bit || si->inuse_pages >= si->pages)
		return 0;
	if (si->cluster_nr) {
		si->cluster_nr--;
		offset = si->cluster_next;
	} else {
		si->cluster_nr = SWAP_CLUSTER_MAX - 1;
		offset = si->lowest_bit;
		if (si->pages - si->inuse_pages >= SWAP_CLUSTER_MAX) {
			/* the first free stretch of SWAP_CLUSTER_MAX slots, at any alignment */
			for (run_end = offset + SWAP_CLUSTER_MAX - 1; run_end <= si->highest_bit;
			     offset++) {
				if (si->swap_map[offset])
					run_end = offset + SWAP_CLUSTER_MAX;
				else if (offset == run_end) {
					offset -= SWAP_CLUSTER_MAX - 1;
					break;
				}
			}
			if (run_end > si->highest_bit)
				offset = si->lowest_bit;
		}
	}
	for (;;) {
		if (offset > si->highest_bit || offset < si->lowest_bit) {
			if (wrapped)
				return 0; /* cannot happen while inuse_pages < pages */
			wrapped = true;
			offset = si->lowest_bit;
		}
		if (!si->swap_map[offset])
			break;
		offset++;
	}
	if (offset == si->lowest_bit)
		si->lowest_bit++;
	if (offset == si->highest_bit)
		si->highest_bit--;
	si->inuse_pages++;
	if (si->inuse_pages == si->pages) { /* full: nothing to scan */
		si->lowest_bit = si->max;
		si->highest_bit = 0;
	}
	si->swap_map[offset] = 1;
	si->cluster_next = (unsigned int)offset + 1;
	return offset;
}

swp_entry_t get_swap_page(void)
{
	swp_entry_t entry = { 0 };
	int type, next, wrapped = 0;

	spin_lock(&swap_lock);
	if (nr_swap_pages <= 0)
		goto out;
	/* From swap_list.next: to the next area of the same priority, then back to the head;
	 * once round all of them twice without a slot, swap is full. */
	for (type = swap_list.next; type >= 0 && wrapped < 2; type = next) {
		struct swap_info_struct *si = &swap_info[type];
		unsigned long offset;

		next = si->next;
		if (next < 0 || (!wrapped && si->prio != swap_info[next].prio)) {
			next = swap_list.head;
			wrapped++;
		}
		if (!(si->flags & SWP_WRITEOK) || !si->highest_bit)
			continue;
		swap_list.next = next;
		offset = scan_swap_map(si);
		if (offset) {
			nr_swap_pages--;
			entry = swp_entry((unsigned long)type, offset);
			break;
		}
		next = swap_list.next;
	}
out:
	spin_unlock(&swap_lock);
	return entry;
}

/* The area of entry with swap_lock held, or NULL (unlocked) after saying what is wrong. */
static struct swap_info_struct *swap_info_get(swp_entry_t entry, const char *who)
{
	struct swap_info_struct *p;
	unsigned long offset = swp_offset(entry);

	if (!entry.val)
		return NULL;
	if (swp_type(entry) >= nr_swapfiles) {
		printk("%s: Bad swap file entry %08lx\n", who, entry.val);
		return NULL;
	}
	p = &swap_info[swp_type(entry)];
	spin_lock(&swap_lock);
	if (!(p->flags & SWP_USED))
		printk("%s: Unused swap file entry %08lx\n", who, entry.val);
	else if (offset >= p->max)
		printk("%s: Bad swap offset entry %08lx\n", who, entry.val);
	else if (!p->swap_map[offset])
		printk("%s: Unused swap offset entry %08lx\n", who, entry.val);
	else
		return p;
	spin_unlock(&swap_lock);
	return NULL;
}

void swap_free(swp_entry_t entry)
{
	struct swap_info_struct *p = swap_info_get(entry, "swap_free");
	unsigned long offset = swp_offset(entry);
	unsigned short count;

	if (!p)
		return;
	count = p->swap_map[offset];
	/* SWAP_MAP_MAX sticks: once it overflowed the real count is unknown, the slot leaks
	 * until swapoff (2.6.23 does the same); SWAP_MAP_BAD is never in use. */
	if (count < SWAP_MAP_MAX) {
		p->swap_map[offset] = --count;
		if (!count) {
			if (offset < p->lowest_bit)
				p->lowest_bit = (unsigned int)offset;
			if (offset > p->highest_bit)
				p->highest_bit = (unsigned int)offset;
			if (swap_list.next >= 0 && p->prio > swap_info[swap_list.next].prio &&
			    (p->flags & SWP_WRITEOK))
				swap_list.next = (int)(p - swap_info);
			if (p->flags & SWP_WRITEOK)
				nr_swap_pages++;
			p->inuse_pages--;
		}
	}
	spin_unlock(&swap_lock);
}

int swap_duplicate(swp_entry_t entry)
{
	static int swap_overflow;
	struct swap_info_struct *p;
	unsigned long offset = swp_offset(entry);
	int result = 0;

	if (!entry.val || swp_type(entry) >= nr_swapfiles)
		return 0;
	p = &swap_info[swp_type(entry)];
	spin_lock(&swap_lock);
	if ((p->flags & SWP_USED) && offset < p->max && p->swap_map[offset] &&
	    p->swap_map[offset] != SWAP_MAP_BAD) {
		if (p->swap_map[offset] < SWAP_MAP_MAX - 1) {
			p->swap_map[offset]++;
		} else {
			if (swap_overflow++ < 5)
				printk("swap_dup: swap entry overflow\n");
			p->swap_map[offset] = SWAP_MAP_MAX;
		}
		result = 1;
	}
	spin_unlock(&swap_lock);
	return result;
}

int swap_count(swp_entry_t entry)
{
	struct swap_info_struct *p;
	unsigned long offset = swp_offset(entry);
	int count = -1;

	if (swp_type(entry) >= nr_swapfiles)
		return -1;
	p = &swap_info[swp_type(entry)];
	spin_lock(&swap_lock);
	if ((p->flags & SWP_USED) && offset < p->max)
		count = p->swap_map[offset];
	spin_unlock(&swap_lock);
	return count;
}

int valid_swaphandles(swp_entry_t entry, unsigned long *offset)
{
	struct swap_info_struct *si;
	unsigned long toff;
	int cluster = READ_ONCE(page_cluster), ret = 0, left = 1 << cluster;

	if (!cluster || swp_type(entry) >= nr_swapfiles)
		return 0;
	si = &swap_info[swp_type(entry)];
	toff = swp_offset(entry) & ~((1UL << cluster) - 1);
	if (!toff) { /* page 0 is the header */
		toff++;
		left--;
	}
	*offset = toff;
	spin_lock(&swap_lock);
	for (; left > 0 && toff < si->max; left--, toff++, ret++) {
		if (!si->swap_map || !si->swap_map[toff] || si->swap_map[toff] == SWAP_MAP_BAD)
			break;
	}
	spin_unlock(&swap_lock);
	return ret;
}

void si_swapinfo(unsigned long *totalswap, unsigned long *freeswap)
{
	spin_lock(&swap_lock);
	*totalswap = (unsigned long)total_swap_pages;
	*freeswap = (unsigned long)nr_swap_pages;
	spin_unlock(&swap_lock);
}

/* The area swap_io may use for entry (in use, offset a slot): its disk, or NULL. */
struct gendisk *swap_entry_disk(swp_entry_t entry)
{
	struct swap_info_struct *p;
	unsigned long offset = swp_offset(entry);
	struct gendisk *disk = NULL;

	if (!entry.val || swp_type(entry) >= nr_swapfiles)
		return NULL;
	p = &swap_info[swp_type(entry)];
	spin_lock(&swap_lock);
	if ((p->flags & SWP_USED) && p->swap_map && offset && offset < p->max &&
	    p->swap_map[offset] && p->swap_map[offset] != SWAP_MAP_BAD)
		disk = p->bdev;
	spin_unlock(&swap_lock);
	return disk;
}
