/* The linear framebuffer: what GRUB reported, checked, then mapped into the kernel's virtual
 * area with a memory type fit for device memory (write-combining via PAT, else uncached). */
#include "drivers/fb.h"
#include "kernel/arch/x86.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define MSR_IA32_PAT 0x277
#define CPUID_1_EDX_PAT (1u << 16)
#define PAT_TYPE_WC 0x01UL /* write-combining: writes gather in buffers, reads uncached */

struct fb_info fb_info;

bool fb_init(const struct boot_fb *bf)
{
	uint64_t size = (uint64_t)bf->pitch * bf->height;

	memset(&fb_info, 0, sizeof(fb_info));
	if (!bf->present || bf->type == 2) /* none, or EGA text (drivers/vga.c) */
		return false;
	if (bf->type != 1 || (bf->bpp != 16 && bf->bpp != 24 && bf->bpp != 32) ||
	    !bf->red_size || !bf->green_size || !bf->blue_size) {
		printk("fb: type %u, %u bpp: no console on this framebuffer (RGB 16/24/32 only)\n",
		       bf->type, bf->bpp);
		return false;
	}
	if (!bf->addr || !bf->width || !bf->height || bf->pitch < bf->width * (bf->bpp / 8) ||
	    size > FB_VIRT_MAX - PAGE_SIZE) {
		printk("fb: %ux%u pitch %u at %lx: not a usable framebuffer\n", bf->width,
		       bf->height, bf->pitch, bf->addr);
		return false;
	}
	fb_info.phys = bf->addr;
	fb_info.width = bf->width;
	fb_info.height = bf->height;
	fb_info.pitch = bf->pitch;
	fb_info.bpp = bf->bpp;
	fb_info.size = size;
	fb_info.red_pos = bf->red_pos;
	fb_info.red_size = bf->red_size;
	fb_info.green_pos = bf->green_pos;
	fb_info.green_size = bf->green_size;
	fb_info.blue_pos = bf->blue_pos;
	fb_info.blue_size = bf->blue_size;
	return true;
}

/*
 * Make PAT entry 1 write-combining, as Linux does. A PTE selects its PAT entry with the
 * bits PAT:PCD:PWT, so entry 1 is "PWT alone". Its power-on type is write-through, which no
 * mapping of ours uses, so no existing translation changes type and no cache flush is
 * needed; the CR3 reload drops any TLB entry anyway. faultline runs one CPU: an SMP kernel
 * would have to program every CPU's PAT the same. Returns false without PAT.
 */
static bool pat_enable_wc(void)
{
	uint32_t a, b, c, d;
	uint64_t pat;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID_1_EDX_PAT))
		return false;
	pat = rdmsr(MSR_IA32_PAT);
	pat = (pat & ~(0xffUL << 8)) | PAT_TYPE_WC << 8;
	wrmsr(MSR_IA32_PAT, pat);
	write_cr3(read_cr3());
	return true;
}

uint64_t fb_cache_bits(void)
{
	return fb_info.write_combining ? _PAGE_PWT : _PAGE_PCD | _PAGE_PWT;
}

void fb_map(void)
{
	uint64_t start = ALIGN_DOWN(fb_info.phys, PAGE_SIZE);
	uint64_t len = ALIGN_UP(fb_info.phys + fb_info.size, PAGE_SIZE) - start;
	pte_t prot;
	int err;

	if (!fb_info.phys)
		return;
	/*
	 * Never the default write-back: the CPU would keep pixels in its caches and the
	 * display would not see them. Write-combining batches the console's stores into
	 * bus bursts; uncached (PCD|PWT, PAT entry 3) is the safe fallback without PAT.
	 * map_range uses 2 MiB pages where aligned; PWT and PCD sit at the same bits there.
	 */
	fb_info.write_combining = pat_enable_wc();
	prot = PAGE_KERNEL | fb_cache_bits();
	err = map_range(kernel_pgd, FB_VIRT_BASE, start, len, prot);
	if (err) {
		printk("fb: cannot map %lx-%lx (error %d): no framebuffer console\n", start,
		       start + len, err);
		return;
	}
	printk("fb: %ux%ux%u at %lx mapped at %lx, %s\n", fb_info.width, fb_info.height,
	       fb_info.bpp, fb_info.phys, FB_VIRT_BASE + (fb_info.phys - start),
	       fb_info.write_combining ? "write-combining (PAT)" : "uncached (PCD|PWT)");
	/* Set only now, so that line too waits in the shadow for fbcon_start's full redraw. */
	fb_info.virt = (volatile uint8_t *)(FB_VIRT_BASE + (fb_info.phys - start));
	fbcon_start();
}

/* Keep each 8-bit channel's top `size` bits and move them to their place in the pixel. */
static uint32_t channel(uint32_t v8, uint8_t pos, uint8_t size)
{
	if (size >= 8)
		return v8 << pos;
	return (v8 >> (8 - size)) << pos;
}

uint32_t fb_rgb(uint32_t rgb)
{
	return channel((rgb >> 16) & 0xff, fb_info.red_pos, fb_info.red_size) |
	       channel((rgb >> 8) & 0xff, fb_info.green_pos, fb_info.green_size) |
	       channel(rgb & 0xff, fb_info.blue_pos, fb_info.blue_size);
}
