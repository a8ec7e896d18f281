/* The linear framebuffer GRUB hands over (boot/boot.S asks for 1024x768x32): its layout and
 * its kernel mapping (drivers/fb.c), and the text console drawn on it (drivers/fbcon.c).
 * One header so a framebuffer device can map the same memory and pause the console. */
#ifndef DRIVERS_FB_H
#define DRIVERS_FB_H

#include "kernel/arch/multiboot2.h"
#include "kernel/compiler.h"
#include "mm/mmu.h"

/*
 * Where the framebuffer is mapped in the kernel: 1 GiB into the kernel virtual area, far
 * from the kernel stacks and self-test pages at its start (kernel/process/fork.c). Up to
 * FB_VIRT_MAX bytes; the direct map is never used for it (it maps RAM only, cached).
 */
#define FB_VIRT_BASE (VMAP_BASE + (1UL << 30))
#define FB_VIRT_MAX (1UL << 30)

struct fb_info {
	uint64_t phys;		/* physical address of pixel (0, 0): a PCI BAR, not RAM */
	volatile uint8_t *virt; /* its kernel address; NULL until fb_map() succeeded */
	uint32_t width, height; /* visible pixels */
	uint32_t pitch;		/* bytes from one pixel row to the next, >= width * bpp/8 */
	uint32_t bpp;		/* bits per pixel: 16, 24 or 32 */
	uint64_t size;		/* pitch * height: the bytes that show; what is mapped */
	/* Each colour's lowest bit and width in a pixel (xRGB8888: 16/8, 8/8, 0/8). */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
	bool write_combining; /* mapped write-combining through PAT; else uncached */
};

/*
 * The framebuffer, or all zero (phys == 0) when GRUB gave none or one we cannot draw on
 * (EGA text, indexed colour, an unusual bpp). Filled by fb_init, virt set by fb_map.
 */
extern struct fb_info fb_info;

/*
 * Record the framebuffer GRUB described, if it is RGB with 16, 24 or 32 bpp and fits
 * FB_VIRT_MAX. Returns whether there is one. Call before fbcon_init; nothing is mapped yet.
 */
bool fb_init(const struct boot_fb *bf);

/*
 * Map the framebuffer at FB_VIRT_BASE (write-combining, or uncached without PAT) and let
 * fbcon draw what it has kept. Needs the kernel page tables and the page allocator (after
 * mm_init), and must run before the first address space copies the kernel half.
 */
void fb_map(void);

/*
 * The PTE bits giving the framebuffer its memory type (_PAGE_PWT: PAT entry 1, made
 * write-combining; or _PAGE_PCD | _PAGE_PWT: uncached). Use them in every mapping of it,
 * a user one too: one physical page mapped with two memory types is undefined on x86.
 */
uint64_t fb_cache_bits(void);

/* A 0xRRGGBB colour as this framebuffer's pixel value (the low bpp bits are used). */
uint32_t fb_rgb(uint32_t rgb);

/* The console's colours, 0xRRGGBB (tests/screen/check-screen.py checks for the same). */
#define FBCON_FG 0xd0d0d0 /* light grey text */
#define FBCON_BG 0x102040 /* on dark blue: not the black GRUB leaves, so a redraw shows */

/*
 * Start the framebuffer console: parse the embedded PSF font, size the text grid and
 * register as a console. Until fb_map it only records text in its shadow buffer.
 */
void fbcon_init(void);

/*
 * Stop (true) or resume (false) drawing, e.g. while a user program owns the framebuffer.
 * Text written meanwhile still reaches the serial line and the shadow buffer; resuming
 * clears the screen and redraws the whole text grid from the shadow.
 */
void fbcon_pause(bool paused);

/* Once fb_map has mapped the framebuffer: clear it and draw the text kept so far. */
void fbcon_start(void);

#endif
