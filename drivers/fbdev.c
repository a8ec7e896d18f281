/* /dev/fb0: the framebuffer as a device file, as Linux's fbdev has it: two ioctls describe
 * it (Linux's struct layouts), and mmap(MAP_SHARED) maps its frames through mm/pfnmap.c.
 * While a program has it mapped the console stops drawing on it (serial goes on). */
#include "drivers/fb.h"
#include "drivers/fbdev.h"
#include "kernel/errno.h"
#include "kernel/fs.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"

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

static long fb0_ioctl(struct inode *ino, uint64_t cmd, uint64_t arg)
{
	(void)ino;
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

/* The console must not draw over a program's pixels, nor them over its text. */
static void fb0_mapped(bool first)
{
	fbcon_pause(first);
}

static struct device_ops fb0_ops = {
	.name = "fb0",
	.ioctl = fb0_ioctl,
	.mapped = fb0_mapped,
};

void fbdev_init(void)
{
	struct inode *ino;

	if (!fb_info.phys || !fb_info.virt)
		return; /* no framebuffer (EGA text mode, or none at all) */
	if (ramfs_create("/dev/fb0", S_IFCHR | 0666, NULL, 0, &ino)) {
		printk("fbdev: cannot create /dev/fb0\n");
		return;
	}
	fb0_ops.phys = fb_info.phys;
	fb0_ops.size = ALIGN_UP(fb_info.size, PAGE_SIZE);
	fb0_ops.pte_cache = fb_cache_bits();
	ino->i_dev = &fb0_ops;
	printk("fbdev: /dev/fb0 %ux%u, %u bpp, %lu KiB at %lx\n", fb_info.width, fb_info.height,
	       fb_info.bpp, fb_info.size >> 10, fb_info.phys);
}
