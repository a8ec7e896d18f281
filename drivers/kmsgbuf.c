/* /dev/kmsgbuf (char 240, 0): 64 KiB of kernel memory that ring 3 can map, for testing device
 * mappings without a display. Its frames are taken at boot and flagged reserved, so to the
 * VM they are device memory: no struct page reference or map count is ever taken on them. */
#include "drivers/kmsgbuf.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/pfnmap.h"
#include "mm/vma.h"

#define KMSGBUF_MAJOR 240 /* Linux's first number "for local or experimental use" */
#define KMSGBUF_ORDER 4   /* 16 frames */
#define KMSGBUF_BYTES (PAGE_SIZE << KMSGBUF_ORDER)

static struct page *frames;

/* ioctls: what the kernel sees in the buffer through its own (direct-map) view of it. */
static long kmsgbuf_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	const uint8_t *p = page_address(frames);
	uint64_t v = 0;

	(void)f;
	switch (cmd) {
	case KMSGBUF_SUM: /* FNV-1a over the whole buffer */
		v = 0xcbf29ce484222325ULL;
		for (uint64_t i = 0; i < KMSGBUF_BYTES; i++)
			v = (v ^ p[i]) * 0x100000001b3ULL;
		break;
	case KMSGBUF_REFS: /* the frames' reference and map counts: must never change */
		for (int i = 0; i < (1 << KMSGBUF_ORDER); i++)
			v += (uint64_t)frames[i]._count + (uint64_t)(frames[i]._mapcount + 1);
		break;
	case KMSGBUF_SIZE:
		v = KMSGBUF_BYTES;
		break;
	default:
		return -ENOTTY;
	}
	return copy_to_user(arg, &v, sizeof(v));
}

/* The frame behind page pgoff of the buffer; past its end, SIGBUS. */
static int kmsgbuf_vm_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	if (vmf->pgoff >= (1UL << KMSGBUF_ORDER))
		return VM_FAULT_SIGBUS;
	if (vmf_insert_pfn(vma, vmf, page_to_pfn(frames) + vmf->pgoff))
		return VM_FAULT_OOM;
	return VM_FAULT_NOPAGE;
}

/* Each VMA holds a reference to its file (split and fork call open for each copy). */
static void kmsgbuf_vm_open(struct vm_area_struct *vma)
{
	get_file(vma->vm_file);
}

static void kmsgbuf_vm_close(struct vm_area_struct *vma)
{
	fput(vma->vm_file);
}

static const struct vm_operations_struct kmsgbuf_vm_ops = {
	.open = kmsgbuf_vm_open,
	.close = kmsgbuf_vm_close,
	.fault = kmsgbuf_vm_fault,
	.name = "device",
};

/* Shared only: the frames are the device's, never copied. */
static int kmsgbuf_mmap(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vma->vm_flags |= VM_PFNMAP | VM_IO;
	vma->vm_ops = &kmsgbuf_vm_ops;
	return 0;
}

static const struct file_operations kmsgbuf_fops = {
	.ioctl = kmsgbuf_ioctl,
	.mmap = kmsgbuf_mmap,
};

static void kmsgbuf_init(void)
{
	frames = alloc_pages(__GFP_ZERO, KMSGBUF_ORDER);
	if (!frames || register_chrdev_region(KMSGBUF_MAJOR, 0, 1, "kmsgbuf", &kmsgbuf_fops) ||
	    vfs_mknod("/dev/kmsgbuf", S_IFCHR | 0666, MKDEV(KMSGBUF_MAJOR, 0))) {
		printk("kmsgbuf: cannot set up /dev/kmsgbuf\n");
		return;
	}
	for (int i = 0; i < (1 << KMSGBUF_ORDER); i++)
		SetPageFlag(&frames[i], PG_reserved);
}
device_initcall(kmsgbuf_init);
