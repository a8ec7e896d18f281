/* /dev/fb0 (char 29, 0): the framebuffer as a device file, as Linux's fbdev has it: two ioctls
 * describe it (Linux's struct layouts), and mmap(MAP_SHARED) maps its frames, a fault at a
 * time (VM_FAULT_NOPAGE). While a program has it mapped the console does not draw on it. */
#include "drivers/fb.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/pfnmap.h"
#include "mm/vma.h"

#define FB_MAJOR 29

#define FBIOGET_VSCREENINFO 0x4600
#define FBIOGET_FSCREENINFO 0x4602

struct fb_bitfield {
	uint32_t offset, length, msb_right;
};

struct fb_var_screeninfo { /* 160 bytes */
	uint32_t xres, yres, xres_virtual, yres_virtual, xoffset, yoffset;
	uint32_t bits_per_pixel, grayscale;
	struct fb_bitfield red, green, blue, transp;
	uint32_t nonstd, activate, height, width, accel_flags, pixclock;
	uint32_t left_margin, right_margin, upper_margin, lower_margin;
	uint32_t hsync_len, vsync_len, sync, vmode, rotate, colorspace, reserved[4];
};

struct fb_fix_screeninfo { /* 80 bytes on x86-64 */
	char id[16];
	uint64_t smem_start;
	uint32_t smem_len, type, type_aux, visual;
	uint16_t xpanstep, ypanstep, ywrapstep;
	uint32_t line_length;
	uint64_t mmio_start;
	uint32_t mmio_len, accel;
	uint16_t capabilities, reserved[2];
};

static long fb_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	(void)f;
	if (cmd == FBIOGET_VSCREENINFO) {
		struct fb_var_screeninfo v = {
			.xres = fb_info.width, .yres = fb_info.height,
			.xres_virtual = fb_info.width, .yres_virtual = fb_info.height,
			.bits_per_pixel = fb_info.bpp,
			.red = { fb_info.red_pos, fb_info.red_size, 0 },
			.green = { fb_info.green_pos, fb_info.green_size, 0 },
			.blue = { fb_info.blue_pos, fb_info.blue_size, 0 },
			.height = UINT32_MAX, .width = UINT32_MAX, /* size in mm: unknown */
		};

		return copy_to_user(arg, &v, sizeof(v));
	}
	if (cmd == FBIOGET_FSCREENINFO) {
		struct fb_fix_screeninfo f = {
			.smem_start = fb_info.phys,
			.smem_len = (uint32_t)fb_info.size,
			.visual = 2, /* FB_VISUAL_TRUECOLOR */
			.line_length = fb_info.pitch,
		};

		strlcpy(f.id, "faultline fb", sizeof(f.id));
		return copy_to_user(arg, &f, sizeof(f));
	}
	return -ENOTTY;
}

/* The framebuffer's frames, worked out once at boot: the fault is on make bench's
 * device_nopage_read path. */
static unsigned long fb_first_pfn, fb_pages;

/* The frame behind page pgoff of the framebuffer; past its end, SIGBUS as Linux's fb. */
static int fb_vm_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	if (vmf->pgoff >= fb_pages)
		return VM_FAULT_SIGBUS;
	if (vmf_insert_pfn(vma, vmf, fb_first_pfn + vmf->pgoff))
		return VM_FAULT_OOM;
	return VM_FAULT_NOPAGE;
}

/* The console must not draw over a program's pixels, nor them over its text: it pauses
 * while any VMA maps the framebuffer (split and fork call open for each copy). */
static int nr_fb_vmas;

static void fb_vm_open(struct vm_area_struct *vma)
{
	get_file(vma->vm_file);
	if (nr_fb_vmas++ == 0)
		fbcon_pause(true);
}

static void fb_vm_close(struct vm_area_struct *vma)
{
	if (--nr_fb_vmas == 0)
		fbcon_pause(false);
	fput(vma->vm_file);
}

/* No VM_CAN_NONLINEAR: the fault uses pgoff as a frame offset that remap_file_pages could
 * not rearrange. */
static const struct vm_operations_struct fb_vm_ops = {
	.open = fb_vm_open,
	.close = fb_vm_close,
	.fault = fb_vm_fault,
	.name = "device",
};

/* Shared only: the frames are the device's, never copied. */
static int fb_mmap(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vma->vm_flags |= VM_PFNMAP | VM_IO;
	vma->vm_page_prot |= fb_cache_bits();
	vma->vm_ops = &fb_vm_ops;
	return 0;
}

static const struct file_operations fb_fops = {
	.ioctl = fb_ioctl,
	.mmap = fb_mmap,
};

static void fbdev_init(void)
{
	if (!fb_info.phys || !fb_info.virt)
		return; /* no framebuffer (EGA text mode, or none at all) */
	fb_first_pfn = fb_info.phys >> PAGE_SHIFT;
	fb_pages = ALIGN_UP(fb_info.size, PAGE_SIZE) >> PAGE_SHIFT;
	if (register_chrdev_region(FB_MAJOR, 0, 1, "fb", &fb_fops) ||
	    vfs_mknod("/dev/fb0", S_IFCHR | 0666, MKDEV(FB_MAJOR, 0))) {
		printk("fbdev: cannot create /dev/fb0\n");
		return;
	}
	printk("fbdev: /dev/fb0 %ux%u, %u bpp, %lu KiB at %lx\n", fb_info.width, fb_info.height,
	       fb_info.bpp, fb_info.size >> 10, fb_info.phys);
}
device_initcall(fbdev_init);
