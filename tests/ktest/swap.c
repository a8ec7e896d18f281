/* Self-tests of swap areas on disks in RAM (polled, as tests/ktest/block.c): headers refused,
 * slots handed out in runs and by priority, counts up and down, pages written to their slots
 * and read back, a failing sector as -EIO, swapoff refused while a slot is in use. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/test/ktest.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/swap.h"

#define KT_ORDER 6                 /* 64 pages, 256 KiB per disk */
#define KT_PAGES (1U << KT_ORDER)
#define KT_BAD_PAGE 10             /* listed in the header: never handed out */
#define KT_EIO_PAGE 20             /* its sectors fail to read */

struct kt_swapdisk {
	struct gendisk disk;
	uint8_t *bytes;
};

static void kt_request_fn(struct request_queue *q)
{
	(void)q;
}

static void kt_poll(struct request_queue *q)
{
	struct request *req = elv_next_request(q);
	struct kt_swapdisk *d;
	uint8_t *at;
	size_t bytes;

	if (!req)
		return;
	d = req->rq_disk->private_data;
	if (req->cmd == READ && !strcmp(req->rq_disk->disk_name, "kts0") &&
	    req->sector < (KT_EIO_PAGE + 1) * 8UL &&
	    req->sector + req->nr_sectors > KT_EIO_PAGE * 8UL) {
		end_request(req, -EIO);
		return;
	}
	at = d->bytes + req->sector * SECTOR_SIZE;
	bytes = (size_t)req->nr_sectors * SECTOR_SIZE;
	if (req->cmd == WRITE)
		memcpy(at, req->buffer, bytes);
	else
		memcpy(req->buffer, at, bytes);
	end_request(req, 0);
}

/* mkswap's header on page 0 of d: last_page, one bad page (or none: bad 0). */
static void kt_mkswap(struct kt_swapdisk *d, uint32_t last_page, uint32_t bad)
{
	union swap_header *h = (void *)d->bytes;

	memset(h, 0, PAGE_SIZE);
	h->info.version = 1;
	h->info.last_page = last_page;
	if (bad) {
		h->info.nr_badpages = 1;
		h->info.badpages[0] = bad;
	}
	memcpy(h->magic.magic, "SWAPSPACE2", 10);
}

static bool kt_disk_init(struct kt_swapdisk *d, const char *name)
{
	struct page *pages = alloc_pages(GFP_KERNEL, KT_ORDER);
	struct request_queue *q = blk_init_queue(kt_request_fn, NULL);

	memset(d, 0, sizeof(*d));
	if (!pages || !q) {
		if (pages)
			__free_pages(pages, KT_ORDER);
		kfree(q);
		return false;
	}
	q->poll = kt_poll;
	q->name = name;
	strlcpy(d->disk.disk_name, name, sizeof(d->disk.disk_name));
	d->disk.capacity = KT_PAGES * 8;
	d->disk.queue = q;
	d->disk.private_data = d;
	d->bytes = page_address(pages);
	memset(d->bytes, 0, KT_PAGES * PAGE_SIZE);
	return true;
}

static void kt_disk_free(struct kt_swapdisk *d)
{
	if (d->bytes)
		__free_pages(virt_to_page(d->bytes), KT_ORDER);
	kfree(d->disk.queue);
}

/* The header on d must be refused; if it is not, the area goes again (the disk is freed at
 * the end of the test, and no area may be left on it). */
static void kt_refused(struct kt_swapdisk *d)
{
	int err = swapon_disk(&d->disk, NULL, "kts1", 0);

	KT_CHECK(err == -EINVAL);
	if (!err)
		swapoff_disk(&d->disk);
}

KTEST(swap_header_checks)
{
	struct kt_swapdisk d;
	union swap_header *h;

	KT_CHECK(kt_disk_init(&d, "kts1"));
	if (!d.bytes)
		return;
	h = (void *)d.bytes;
	kt_mkswap(&d, KT_PAGES, 0); /* one page more than the disk has */
	kt_refused(&d);
	kt_mkswap(&d, KT_PAGES - 1, 0);
	memcpy(h->magic.magic, "SWAPSPACE3", 10);
	kt_refused(&d);
	memcpy(h->magic.magic, "SWAP-SPACE", 10);
	kt_refused(&d);
	kt_mkswap(&d, KT_PAGES - 1, 0);
	h->info.version = 2;
	kt_refused(&d);
	kt_mkswap(&d, KT_PAGES - 1, KT_PAGES); /* a bad page beyond last_page */
	kt_refused(&d);
	kt_mkswap(&d, KT_PAGES - 1, 0);
	h->info.nr_badpages = MAX_SWAP_BADPAGES + 1;
	kt_refused(&d);
	kt_mkswap(&d, 0, 0);
	kt_refused(&d);
	/* made for 16 KiB pages: the magic at the end of the first 16 KiB */
	kt_mkswap(&d, KT_PAGES / 4 - 1, 0);
	memset(h->magic.magic, 0, 10);
	memcpy(d.bytes + 16384 - 10, "SWAPSPACE2", 10);
	kt_refused(&d);
	KT_CHECK(MAX_SWAP_BADPAGES == 637);
	/* and a good one works, once: a second swapon of the disk is EBUSY */
	kt_mkswap(&d, KT_PAGES - 1, KT_BAD_PAGE);
	KT_CHECK(swapon_disk(&d.disk, NULL, "kts1", 0) == 0);
	KT_CHECK(swapon_disk(&d.disk, NULL, "kts1", 0) == -EBUSY);
	KT_CHECK(swapoff_disk(&d.disk) == 0);
	KT_CHECK(swapoff_disk(&d.disk) == -EINVAL);
	kt_disk_free(&d);
}

KTEST(swap_slots_and_io)
{
	static swp_entry_t e[3], all[KT_PAGES];
	struct kt_swapdisk d, hi;
	long total0 = total_swap_pages, free0 = nr_swap_pages;
	struct page *page = alloc_page(GFP_KERNEL), *back = alloc_page(GFP_KERNEL);
	unsigned long first;
	unsigned int n = 0, type;
	bool seen[KT_PAGES] = { false };

	KT_CHECK(kt_disk_init(&d, "kts0") && kt_disk_init(&hi, "kts2") && page && back);
	if (!d.bytes || !hi.bytes || !page || !back)
		goto out;
	kt_mkswap(&d, KT_PAGES - 1, KT_BAD_PAGE);
	KT_CHECK(swapon_disk(&d.disk, NULL, "kts0", 0) == 0);
	/* 64 pages: the header and one bad page are not slots */
	KT_CHECK(total_swap_pages == total0 + KT_PAGES - 2);
	KT_CHECK(nr_swap_pages == free0 + KT_PAGES - 2);

	/* a run starts at the first SWAP_CLUSTER_MAX free slots in a row: past the bad page */
	e[0] = get_swap_page();
	type = swp_type(e[0]);
	KT_CHECK(e[0].val && swp_offset(e[0]) == KT_BAD_PAGE + 1);
	e[1] = get_swap_page();
	KT_CHECK(swp_type(e[1]) == type && swp_offset(e[1]) == KT_BAD_PAGE + 2);
	KT_CHECK(swap_count(e[0]) == 1 && nr_swap_pages == free0 + KT_PAGES - 4);

	/* a page out to its slot and back */
	for (unsigned int i = 0; i < PAGE_SIZE; i++)
		((uint8_t *)page_address(page))[i] = (uint8_t)(i * 7 + 3);
	KT_CHECK(swap_writepage(e[1], page) == 0);
	KT_CHECK(d.bytes[(KT_BAD_PAGE + 2) * PAGE_SIZE + 5] == (uint8_t)(5 * 7 + 3));
	memset(page_address(back), 0, PAGE_SIZE);
	KT_CHECK(swap_readpage(e[1], back) == 0);
	KT_CHECK(!memcmp(page_address(page), page_address(back), PAGE_SIZE));
	KT_CHECK(swap_readpage(swp_entry(type, KT_BAD_PAGE), back) == -EINVAL);
	KT_CHECK(swap_readpage(swp_entry(type, 3), back) == -EINVAL); /* not allocated */
	KT_CHECK(swap_readpage(swp_entry(type, KT_PAGES), back) == -EINVAL); /* beyond */

	/* counts: a second user, then both gone */
	KT_CHECK(swap_duplicate(e[0]) == 1 && swap_count(e[0]) == 2);
	swap_free(e[0]);
	KT_CHECK(swap_count(e[0]) == 1 && nr_swap_pages == free0 + KT_PAGES - 4);
	swap_free(e[0]);
	KT_CHECK(swap_count(e[0]) == 0 && nr_swap_pages == free0 + KT_PAGES - 3);
	KT_CHECK(swap_duplicate(e[0]) == 0); /* free: nothing to duplicate */
	KT_CHECK(swap_duplicate(swp_entry(type, KT_BAD_PAGE)) == 0);

	/* swapoff while a slot is used: refused for now, the area stays usable */
	KT_CHECK(swapoff_disk(&d.disk) == -EBUSY);
	KT_CHECK(total_swap_pages == total0 + KT_PAGES - 2);

	/* a higher priority area is used first */
	kt_mkswap(&hi, KT_PAGES - 1, 0);
	KT_CHECK(swapon_disk(&hi.disk, NULL, "kts2", SWAP_FLAG_PREFER | 10) == 0);
	e[2] = get_swap_page();
	KT_CHECK(e[2].val && swp_type(e[2]) != type);
	swap_free(e[2]);
	KT_CHECK(swapoff_disk(&hi.disk) == 0);

	/* every slot of the area, each once, never the header or the bad page */
	if (total0 == 0) {
		seen[KT_BAD_PAGE + 2] = true; /* e[1] still holds it */
		for (n = 0;; n++) {
			swp_entry_t x = get_swap_page();

			if (!x.val)
				break;
			KT_CHECK(swp_type(x) == type && swp_offset(x) < KT_PAGES);
			KT_CHECK(swp_offset(x) != 0 && swp_offset(x) != KT_BAD_PAGE);
			KT_CHECK(!seen[swp_offset(x) % KT_PAGES]);
			seen[swp_offset(x) % KT_PAGES] = true;
			all[n] = x;
		}
		KT_CHECK(n == KT_PAGES - 3 && nr_swap_pages == 0);
		/* readahead: the aligned run of 8 around slot 17, all in use */
		KT_CHECK(valid_swaphandles(swp_entry(type, 17), &first) == 8 && first == 16);
		KT_CHECK(valid_swaphandles(swp_entry(type, 3), &first) == 7 && first == 1);
		/* a read of a slot whose sectors fail */
		KT_CHECK(swap_readpage(swp_entry(type, KT_EIO_PAGE), back) == -EIO);
		for (unsigned int i = 0; i < n; i++)
			swap_free(all[i]);
		KT_CHECK(valid_swaphandles(swp_entry(type, 17), &first) == 0);
	}
	swap_free(e[1]);
	KT_CHECK(nr_swap_pages == free0 + KT_PAGES - 2);
	KT_CHECK(swapoff_disk(&d.disk) == 0);
	KT_CHECK(total_swap_pages == total0 && nr_swap_pages == free0);
out:
	if (page)
		__free_page(page);
	if (back)
		__free_page(back);
	kt_disk_free(&d);
	kt_disk_free(&hi);
}
