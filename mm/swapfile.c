/* Swap areas (Linux 2.6.23's mm/swapfile.c): mkswap's header checked, swapon and swapoff,
 * /proc/swaps. What an area is once it is on: its slots, allocated and counted by
 * mm/swap_map.c; swapoff's swap-in of what is still out: mm/swap_unuse.c. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/initcall.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/locking/rwsem.h"
#include "kernel/locking/spinlock.h"
#include "kernel/printk/printk.h"
#include "kernel/process/cred.h"
#include "kernel/syscalls.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/swap.h"

/*
 * swapon_mutex (a sleeping lock: swapon reads the disk) makes swapon and swapoff one at a time,
 * so an area is never half made or half taken down twice. Inside it, swap_lock (mm/swap_map.c)
 * for what the allocator reads: an area's flags and map, swap_list, the counts.
 */
static struct rw_semaphore swapon_mutex;

/* Areas given no priority get -2, -3, ... in order (current Linux; 2.6.23 started at -1). */
static int least_priority = -1;

#define SWAP_MAGIC "SWAPSPACE2"
#define SWAP_MAGIC_V0 "SWAP-SPACE"
#define MAX_SWAP_MAP_BYTES (4UL << 20) /* kmalloc's largest block: 2M slots, 8 GiB */

static bool magic_at(const uint8_t *buf, size_t len, size_t page_size, const char *magic)
{
	return page_size <= len && !memcmp(buf + page_size - 10, magic, 10);
}

/*
 * The checks of 2.6.23's sys_swapon on page 0, with Linux's messages (prefixed by the area's
 * name) and a hint where Linux says nothing more. buf holds the first len bytes of the area
 * (len >= PAGE_SIZE; up to 64 KiB lets a header made for a bigger page size be recognised).
 */
static int check_swap_header(const uint8_t *buf, size_t len, uint64_t size_pages,
			     const char *name, unsigned int *maxpages)
{
	const union swap_header *hdr = (const void *)buf;
	uint32_t last_page, nr_bad;
	unsigned int good;

	if (memcmp(hdr->magic.magic, SWAP_MAGIC, 10)) {
		if (!memcmp(hdr->magic.magic, SWAP_MAGIC_V0, 10)) {
			printk("swapon: %s: Unable to find swap-space signature: version 0 "
			       "(SWAP-SPACE) is no longer supported, run mkswap\n", name);
			return -EINVAL;
		}
		printk("swapon: %s: Unable to find swap-space signature\n", name);
		/* mkswap -p N puts the magic at the end of the N-byte page 0 instead. */
		for (size_t ps = PAGE_SIZE * 2; ps <= 65536; ps *= 2)
			if (magic_at(buf, len, ps, SWAP_MAGIC))
				printk("swapon: %s: page size mismatch: the area was made for "
				       "%zu-byte pages, this kernel's are %lu (mkswap -p %lu)\n",
				       name, ps, PAGE_SIZE, PAGE_SIZE);
		return -EINVAL;
	}
	if (hdr->info.version != 1) {
		printk("swapon: %s: Unable to handle swap header version %u\n", name,
		       hdr->info.version);
		return -EINVAL;
	}
	last_page = hdr->info.last_page;
	nr_bad = hdr->info.nr_badpages;
	if (!last_page) {
		printk("swapon: %s: Empty swap-file\n", name);
		return -EINVAL;
	}
	if ((uint64_t)last_page + 1 > size_pages) {
		printk("swapon: %s: Swap area shorter than signature indicates: last page %u, "
		       "the device has %lu pages\n", name, last_page, (unsigned long)size_pages);
		return -EINVAL;
	}
	if (nr_bad > MAX_SWAP_BADPAGES) {
		printk("swapon: %s: Bad pages list too long: %u entries, at most %lu fit\n", name,
		       nr_bad, (unsigned long)MAX_SWAP_BADPAGES);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < nr_bad; i++) {
		uint32_t page_nr = hdr->info.badpages[i];

		if (page_nr == 0 || page_nr > last_page) {
			printk("swapon: %s: Bad page %u out of range (1..%u)\n", name, page_nr,
			       last_page);
			return -EINVAL;
		}
	}
	*maxpages = last_page + 1;
	if (*maxpages > MAX_SWAP_MAP_BYTES / sizeof(unsigned short)) {
		printk("swapon: %s: Truncating oversized swap area, only using %luk out of "
		       "%luk\n", name, (MAX_SWAP_MAP_BYTES / 2) << (PAGE_SHIFT - 10),
		       (unsigned long)*maxpages << (PAGE_SHIFT - 10));
		*maxpages = MAX_SWAP_MAP_BYTES / sizeof(unsigned short);
	}
	good = *maxpages - 1;
	if (good <= nr_bad) { /* a rough test; swapon counts distinct pages below the cap */
		printk("swapon: %s: Empty swap-file\n", name);
		return -EINVAL;
	}
	return 0;
}

/* Put p into swap_list by priority, after the areas of the same priority. */
static void insert_swap_info(struct swap_info_struct *p)
{
	int type = (int)(p - swap_info), prev = -1, i;

	for (i = swap_list.head; i >= 0; i = swap_info[i].next) {
		if (p->prio > swap_info[i].prio)
			break;
		prev = i;
	}
	p->next = i;
	if (prev < 0)
		swap_list.head = swap_list.next = type;
	else
		swap_info[prev].next = type;
	nr_swap_pages += p->pages - p->inuse_pages;
	total_swap_pages += p->pages;
	p->flags |= SWP_WRITEOK;
}

/* The first bytes of disk (up to 64 KiB, whole pages) into buf; the bytes read or -EIO. */
static long read_area_start(struct gendisk *disk, uint8_t *buf, size_t want)
{
	unsigned int per_page = PAGE_SIZE >> SECTOR_SHIFT;
	uint64_t pages = get_capacity(disk) / per_page;
	size_t done = 0;

	for (uint64_t i = 0; i < pages && done < want; i++, done += PAGE_SIZE) {
		int err = blk_rw(disk, READ, i * per_page, per_page, buf + done);

		if (err)
			return done ? (long)done : err;
	}
	return (long)done;
}

#define HEADER_READ (64UL << 10) /* page 0 as any page size up to 64 KiB would have it */

int swapon_disk(struct gendisk *disk, struct file *file, const char *name, int swap_flags)
{
	uint64_t size_pages = get_capacity(disk) >> (PAGE_SHIFT - SECTOR_SHIFT);
	const union swap_header *hdr;
	struct swap_info_struct *p = NULL;
	unsigned short *map = NULL;
	unsigned int maxpages, good, type;
	struct page *buf_page;
	uint8_t *buf = NULL;
	long got;
	int err;

	down_write(&swapon_mutex);
	spin_lock(&swap_lock);
	err = -EBUSY;
	for (type = 0; type < nr_swapfiles; type++)
		if ((swap_info[type].flags & SWP_USED) && swap_info[type].bdev == disk)
			goto out_unlock;
	for (type = 0; type < nr_swapfiles; type++)
		if (!(swap_info[type].flags & SWP_USED))
			break;
	err = -EPERM; /* man 2 swapon: the maximum number of swap areas are in use */
	if (type >= MAX_SWAPFILES)
		goto out_unlock;
	p = &swap_info[type];
	memset(p, 0, sizeof(*p));
	p->flags = SWP_USED; /* claimed: a second swapon of disk is EBUSY from now on */
	p->bdev = disk;
	p->next = -1;
	if (type >= nr_swapfiles)
		nr_swapfiles = type + 1;
	spin_unlock(&swap_lock);

	err = -ENOMEM;
	buf_page = alloc_pages(GFP_KERNEL, 4);
	if (!buf_page)
		goto bad_swap;
	buf = page_address(buf_page);
	memset(buf, 0, HEADER_READ);
	got = read_area_start(disk, buf, HEADER_READ);
	err = -EINVAL;
	if (got == -EIO)
		err = -EIO;
	if (got < (long)PAGE_SIZE) {
		if (got >= 0)
			printk("swapon: %s: Unable to find swap-space signature: the device is "
			       "smaller than a page\n", name);
		goto bad_swap;
	}
	err = check_swap_header(buf, (size_t)got, size_pages, name, &maxpages);
	if (err)
		goto bad_swap;
	hdr = (const void *)buf;
	err = -ENOMEM;
	map = kzalloc(maxpages * sizeof(*map));
	if (!map)
		goto bad_swap;
	map[0] = SWAP_MAP_BAD; /* the header */
	good = maxpages - 1;
	for (uint32_t i = 0; i < hdr->info.nr_badpages; i++) {
		uint32_t nr = hdr->info.badpages[i];

		if (nr < maxpages && map[nr] != SWAP_MAP_BAD) {
			map[nr] = SWAP_MAP_BAD;
			good--;
		}
	}
	err = -EINVAL;
	if (!good) {
		printk("swapon: %s: Empty swap-file\n", name);
		goto bad_swap;
	}

	spin_lock(&swap_lock);
	strlcpy(p->name, name, sizeof(p->name));
	p->swap_file = file;
	p->swap_map = map;
	p->max = maxpages;
	p->pages = good;
	p->lowest_bit = 1;
	p->highest_bit = maxpages - 1;
	p->cluster_next = 1;
	if (swap_flags & SWAP_FLAG_PREFER)
		p->prio = (swap_flags & SWAP_FLAG_PRIO_MASK) >> SWAP_FLAG_PRIO_SHIFT;
	else
		p->prio = --least_priority;
	insert_swap_info(p);
	spin_unlock(&swap_lock);
	printk("Adding %uk swap on %s.  Priority:%d extents:1 across:%luk\n",
	       good << (PAGE_SHIFT - 10), name, p->prio,
	       (unsigned long)(maxpages - 1) << (PAGE_SHIFT - 10));
	__free_pages(buf_page, 4);
	up_write(&swapon_mutex);
	return 0;

bad_swap:
	if (buf)
		__free_pages(buf_page, 4);
	kfree(map);
	spin_lock(&swap_lock);
	p->flags = 0;
	p->bdev = NULL;
out_unlock:
	spin_unlock(&swap_lock);
	up_write(&swapon_mutex);
	return err;
}

/* swapoff found type and took it out of swap_list: put it back (try_to_unuse failed). */
static void reinsert_swap_info(struct swap_info_struct *p)
{
	spin_lock(&swap_lock);
	if (p->prio < 0)
		p->prio = --least_priority;
	insert_swap_info(p);
	spin_unlock(&swap_lock);
}

/* The used area whose disk (a block device) or file is victim; -1 if none. */
static int find_area(struct gendisk *disk, struct inode *victim)
{
	for (unsigned int type = 0; type < nr_swapfiles; type++) {
		const struct swap_info_struct *p = &swap_info[type];

		if (!(p->flags & SWP_WRITEOK))
			continue;
		if ((disk && p->bdev == disk) ||
		    (victim && p->swap_file && p->swap_file->f_inode == victim))
			return (int)type;
	}
	return -1;
}

static int swapoff_area(struct gendisk *disk, struct inode *victim)
{
	struct swap_info_struct *p;
	struct file *file;
	unsigned short *map;
	int type, prev = -1, i, err;

	down_write(&swapon_mutex);
	spin_lock(&swap_lock);
	type = find_area(disk, victim);
	if (type < 0) {
		spin_unlock(&swap_lock);
		up_write(&swapon_mutex);
		return -EINVAL; /* man 2 swapoff: path is not an active swap area */
	}
	p = &swap_info[type];
	for (i = swap_list.head; i >= 0 && i != type; i = swap_info[i].next)
		prev = i;
	if (prev < 0)
		swap_list.head = p->next;
	else
		swap_info[prev].next = p->next;
	if (swap_list.next == type)
		swap_list.next = swap_list.head;
	if (p->prio < 0) {
		/* The areas below close the gap, so the next default priority is this one's. */
		for (i = p->next; i >= 0; i = swap_info[i].next)
			swap_info[i].prio++;
		least_priority++;
	}
	nr_swap_pages -= p->pages - p->inuse_pages;
	total_swap_pages -= p->pages;
	p->flags &= ~SWP_WRITEOK; /* get_swap_page no longer looks here */
	spin_unlock(&swap_lock);

	err = try_to_unuse((unsigned int)type);
	if (err) {
		reinsert_swap_info(p);
		up_write(&swapon_mutex);
		return err;
	}

	spin_lock(&swap_lock);
	map = p->swap_map;
	file = p->swap_file;
	p->swap_map = NULL;
	p->swap_file = NULL;
	p->bdev = NULL;
	p->flags = 0;
	spin_unlock(&swap_lock);
	kfree(map);
	if (file)
		fput(file);
	up_write(&swapon_mutex);
	return 0;
}

int swapoff_disk(struct gendisk *disk)
{
	return swapoff_area(disk, NULL);
}

/*
 * Resolve path and open it as swapon and swapoff do (O_RDWR: a directory is EISDIR): the
 * open file in *filp, and its disk for a block device. A regular file cannot be swap here:
 * faultline's files live in RAM (ramfs), like Linux's tmpfs, which refuses them too.
 */
static long swap_open(const char *path, struct file **filp)
{
	struct inode *ino, *base;
	struct dentry *d;
	long err;

	err = dirfd_base(AT_FDCWD, path, &base);
	if (!err)
		err = path_lookup_dentry(base, path, true, &d);
	if (err)
		return err;
	ino = d->d_inode;
	if (S_ISDIR(ino->i_mode))
		return -EISDIR;
	err = inode_permission(ino, MAY_READ | MAY_WRITE);
	if (!err)
		err = dentry_open(d, O_RDWR, filp);
	return err;
}

/* swapon of path (in path[PATH_MAX], which it overwrites) once the caller may. */
static long do_swapon(char *path, int swap_flags)
{
	struct file *file;
	struct inode *ino;
	long err;

	err = swap_open(path, &file);
	if (err)
		return err;
	ino = file->f_inode;
	/* /proc/swaps shows where it is (by the name found), not how it was named */
	d_path(file->f_dentry, path, PATH_MAX);
	if (S_ISBLK(ino->i_mode)) {
		const struct block_device *bdev = file->private_data; /* blkdev_open's */
		const struct hd_struct *part = bdev->bd_part;

		if (part->partno) {
			/* swap's sector numbers are the disk's: a partition's offset is not
			 * added yet */
			printk("swapon: %s: swap on a partition is not supported\n", path);
			err = -EINVAL;
		} else {
			err = swapon_disk(part->disk, file, path, swap_flags);
		}
	} else if (S_ISREG(ino->i_mode)) {
		printk("swapon: %s: swapfile has holes: a file of %s lives in RAM\n", path,
		       ino->i_sb->s_type->name);
		err = -EINVAL;
	} else {
		err = -EINVAL; /* neither a block device nor a regular file */
	}
	if (err)
		fput(file);
	return err;
}

/* What swapon and swapoff check first: CAP_SYS_ADMIN, then the path at upath copied into a
 * PATH_MAX buffer, *path (the caller kfrees it, NULL or not). 0, -EPERM, -ENOMEM or
 * path_from_user's error. */
static long swap_path_from_user(uint64_t upath, char **path)
{
	*path = NULL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	*path = kmalloc(PATH_MAX);
	if (!*path)
		return -ENOMEM;
	return path_from_user(upath, *path);
}

long sys_swapon(uint64_t upath, uint64_t swap_flags)
{
	char *path;
	long err;

	if ((int)swap_flags & ~SWAP_FLAGS_VALID) /* an int in Linux: the high half is ignored */
		return -EINVAL;
	err = swap_path_from_user(upath, &path);
	if (!err)
		err = do_swapon(path, (int)swap_flags);
	kfree(path);
	return err;
}

/*
 * At boot, before the first program: the first disk whose page 0 carries the signature
 * becomes a swap area (what a distribution's fstab line "/dev/sda none swap" does), so that
 * `make run` has swap; the kernel parameter noswap turns this off.
 */
void swap_setup_boot(void)
{
	struct page *page;
	char *path;

	if (cmdline_has("noswap"))
		return;
	page = alloc_page(GFP_KERNEL);
	path = kmalloc(PATH_MAX);
	for (unsigned int n = 0; page && path && n < 26; n++) {
		unsigned int partno;
		struct gendisk *disk = get_gendisk(MKDEV(SCSI_DISK0_MAJOR, n * DISK_MINORS),
						   &partno);
		const union swap_header *hdr = page_address(page);
		long err;

		if (!disk || get_capacity(disk) < PAGE_SIZE >> SECTOR_SHIFT ||
		    blk_rw(disk, READ, 0, PAGE_SIZE >> SECTOR_SHIFT, page_address(page)) ||
		    memcmp(hdr->magic.magic, SWAP_MAGIC, 10))
			continue;
		snprintf(path, PATH_MAX, "/dev/%s", disk->disk_name);
		printk("swap: %s carries a swap signature: swapon (noswap: not at boot)\n", path);
		err = do_swapon(path, 0);
		if (err)
			printk("swap: swapon %s: error %ld\n", path, err);
		break;
	}
	kfree(path);
	if (page)
		__free_page(page);
}

long sys_swapoff(uint64_t upath)
{
	struct file *file;
	struct block_device *bdev;
	struct inode *ino;
	char *path;
	long err;

	err = swap_path_from_user(upath, &path);
	if (!err)
		err = swap_open(path, &file);
	if (!err) {
		ino = file->f_inode;
		bdev = S_ISBLK(ino->i_mode) ? file->private_data : NULL; /* blkdev_open's */
		err = swapoff_area(bdev ? bdev->bd_disk : NULL, ino);
		fput(file);
	}
	kfree(path);
	return err;
}

/* seq_path's escapes: a space, tab, newline or backslash in the name as \ooo. */
static void show_escaped(struct proc_text *t, const char *s, int *len)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\') {
			proc_printf(t, "\\%03o", (unsigned char)*s);
			*len += 4;
		} else {
			proc_printf(t, "%c", *s);
			(*len)++;
		}
	}
}

/* Linux's format as current kernels write it (Size and Used two tabs wide; 2.6.23: one). */
void swaps_show(struct proc_text *t)
{
	proc_printf(t, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	down_read(&swapon_mutex); /* no area appears or goes meanwhile */
	for (unsigned int type = 0; type < nr_swapfiles; type++) {
		const struct swap_info_struct *p = &swap_info[type];
		unsigned long bytes, inuse;
		int len = 0;

		if (!(p->flags & SWP_WRITEOK))
			continue;
		bytes = (unsigned long)p->pages << (PAGE_SHIFT - 10);
		inuse = (unsigned long)p->inuse_pages << (PAGE_SHIFT - 10);
		show_escaped(t, p->name, &len);
		proc_printf(t, "%*s%s\t%lu\t%s%lu\t%s%d\n", len < 40 ? 40 - len : 1, " ",
			    p->swap_file && !S_ISBLK(p->swap_file->f_inode->i_mode) ? "file\t"
										     : "partition",
			    bytes, bytes < 10000000 ? "\t" : "", inuse,
			    inuse < 10000000 ? "\t" : "", p->prio);
	}
	up_read(&swapon_mutex);
}

/* the header, and a line per area: its name (escaped, once in a while longer) and 60 more */
static const struct proc_entry proc_swaps = { "swaps", 64 + MAX_SWAPFILES * 256, swaps_show, NULL };

static void swapfile_init(void)
{
	init_rwsem(&swapon_mutex);
	if (proc_create("swaps", &proc_swaps))
		printk("swap: cannot create /proc/swaps\n");
}
device_initcall(swapfile_init);
