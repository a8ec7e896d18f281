/* /dev/kmsgbuf: 64 KiB of kernel memory that ring 3 can map, for testing device mappings
 * without a display. Its frames are taken at boot and flagged reserved, so to the VM they
 * are device memory: no struct page reference or map count is ever taken on them. */
#include "drivers/kmsgbuf.h"
#include "kernel/errno.h"
#include "kernel/fs.h"
#include "kernel/printk.h"
#include "kernel/uaccess.h"
#include "mm/gfp.h"

#define KMSGBUF_ORDER 4 /* 16 frames */

static struct page *frames;

/* ioctls: what the kernel sees in the buffer through its own (direct-map) view of it. */
static long kmsgbuf_ioctl(struct inode *ino, uint64_t cmd, uint64_t arg)
{
	const uint8_t *p = page_address(frames);
	uint64_t v = 0;

	(void)ino;
	switch (cmd) {
	case KMSGBUF_SUM: /* FNV-1a over the whole buffer */
		v = 0xcbf29ce484222325ULL;
		for (uint64_t i = 0; i < (PAGE_SIZE << KMSGBUF_ORDER); i++)
			v = (v ^ p[i]) * 0x100000001b3ULL;
		break;
	case KMSGBUF_REFS: /* the frames' reference and map counts: must never change */
		for (int i = 0; i < (1 << KMSGBUF_ORDER); i++)
			v += (uint64_t)frames[i]._count + (uint64_t)(frames[i]._mapcount + 1);
		break;
	case KMSGBUF_SIZE:
		v = PAGE_SIZE << KMSGBUF_ORDER;
		break;
	default:
		return -ENOTTY;
	}
	return copy_to_user(arg, &v, sizeof(v));
}

static struct device_ops kmsgbuf_ops = {
	.name = "kmsgbuf",
	.ioctl = kmsgbuf_ioctl,
};

void kmsgbuf_init(void)
{
	struct inode *ino;

	frames = alloc_pages(__GFP_ZERO, KMSGBUF_ORDER);
	if (!frames || ramfs_create("/dev/kmsgbuf", S_IFCHR | 0666, NULL, 0, &ino)) {
		printk("kmsgbuf: cannot set up /dev/kmsgbuf\n");
		return;
	}
	for (int i = 0; i < (1 << KMSGBUF_ORDER); i++)
		SetPageFlag(&frames[i], PG_reserved);
	kmsgbuf_ops.phys = PFN_PHYS(page_to_pfn(frames));
	kmsgbuf_ops.size = PAGE_SIZE << KMSGBUF_ORDER;
	ino->i_dev = &kmsgbuf_ops;
}
