/* Self-tests of the framebuffer (drivers/fb.c, drivers/fbcon.c): its kernel mapping and memory
 * type, and that a paused console leaves the screen alone and redraws all of it on resume.
 * Boots without a linear framebuffer (EGA text) have nothing to check and pass. */
#include "drivers/fb.h"
#include "kernel/arch/x86.h"
#include "kernel/printk/printk.h"
#include "kernel/test/ktest.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define MSR_IA32_PAT 0x277
#define MAGENTA 0xff00ff /* neither FBCON_FG nor FBCON_BG */

KTEST(fb_mapping)
{
	uint64_t va = (uint64_t)fb_info.virt;
	pte_t leaf = 0;

	if (!fb_info.virt)
		return;
	KT_CHECK(va >= FB_VIRT_BASE && va < FB_VIRT_BASE + PAGE_SIZE);
	KT_CHECK(translate(kernel_pgd, va, &leaf) == fb_info.phys);
	KT_CHECK(translate(kernel_pgd, va + fb_info.size - 1, NULL) ==
		 fb_info.phys + fb_info.size - 1);
	/* kernel data: writable, never executable, not user; and not write-back cached */
	KT_CHECK((leaf & (_PAGE_RW | _PAGE_NX | _PAGE_USER)) == (_PAGE_RW | _PAGE_NX));
	KT_CHECK((leaf & (_PAGE_PCD | _PAGE_PWT)) == fb_cache_bits());
	if (fb_info.write_combining) /* PAT entry 1, what PWT alone selects, is WC (1) */
		KT_CHECK(((rdmsr(MSR_IA32_PAT) >> 8) & 7) == 1);
}

static void put_pixel(uint32_t x, uint32_t y, uint32_t v)
{
	volatile uint8_t *p = fb_info.virt + (size_t)y * fb_info.pitch + x * (fb_info.bpp / 8);

	for (uint32_t b = 0; b < fb_info.bpp / 8; b++)
		p[b] = (uint8_t)(v >> (8 * b));
}

static uint32_t get_pixel(uint32_t x, uint32_t y)
{
	volatile uint8_t *p = fb_info.virt + (size_t)y * fb_info.pitch + x * (fb_info.bpp / 8);
	uint32_t v = 0;

	for (uint32_t b = 0; b < fb_info.bpp / 8; b++)
		v |= (uint32_t)p[b] << (8 * b);
	return v;
}

/* How many pixels of the screen hold the value v (reading back: fine under QEMU). */
static uint64_t count_pixels(uint32_t v)
{
	uint64_t n = 0;

	for (uint32_t y = 0; y < fb_info.height; y++)
		for (uint32_t x = 0; x < fb_info.width; x++)
			n += get_pixel(x, y) == v;
	return n;
}

/* What a user program that owns the framebuffer does: paints it while the console is paused. */
KTEST(fbcon_pause)
{
	uint32_t magenta = fb_rgb(MAGENTA);
	uint64_t all = (uint64_t)fb_info.width * fb_info.height;

	if (!fb_info.virt)
		return;
	fbcon_pause(true);
	for (uint32_t y = 0; y < fb_info.height; y++)
		for (uint32_t x = 0; x < fb_info.width; x++)
			put_pixel(x, y, magenta);
	printk("ktest: fbcon paused: this line goes to the serial line and the shadow only\n");
	KT_CHECK(count_pixels(magenta) == all);
	fbcon_pause(false);
	KT_CHECK(count_pixels(magenta) == 0);
	KT_CHECK(count_pixels(fb_rgb(FBCON_BG)) > all / 2);
}
