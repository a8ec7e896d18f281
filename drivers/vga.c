/* The VGA text screen (80x25 at 0xb8000) that GRUB leaves under BIOS when no framebuffer is
 * asked for. It scrolls and moves the hardware cursor; colours are fixed light grey on black. */
#include "drivers/console.h"
#include "kernel/arch/x86.h"
#include "kernel/lib/string.h"
#include "mm/mmu.h"

#define VGA_ATTR 0x0700 /* light grey on black */

static volatile uint16_t *vga_mem;
static uint32_t vga_cols, vga_rows, vga_x, vga_y;

static void vga_set_cursor(void)
{
	uint16_t pos = (uint16_t)(vga_y * vga_cols + vga_x);

	outb(0x3d4, 0x0f);
	outb(0x3d5, (uint8_t)pos);
	outb(0x3d4, 0x0e);
	outb(0x3d5, (uint8_t)(pos >> 8));
}

static void vga_scroll(void)
{
	for (uint32_t i = 0; i < (vga_rows - 1) * vga_cols; i++)
		vga_mem[i] = vga_mem[i + vga_cols];
	for (uint32_t i = 0; i < vga_cols; i++)
		vga_mem[(vga_rows - 1) * vga_cols + i] = VGA_ATTR | ' ';
	vga_y = vga_rows - 1;
}

static void vga_putc(char c)
{
	if (c == '\n') {
		vga_x = 0;
		vga_y++;
	} else if (c == '\r') {
		vga_x = 0;
	} else if (c == '\t') {
		vga_x = (vga_x + 8) & ~7u;
	} else if (c == '\b') {
		if (vga_x)
			vga_x--;
	} else {
		vga_mem[vga_y * vga_cols + vga_x] = VGA_ATTR | (uint8_t)c;
		vga_x++;
	}
	if (vga_x >= vga_cols) {
		vga_x = 0;
		vga_y++;
	}
	if (vga_y >= vga_rows)
		vga_scroll();
}

static void vga_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vga_putc(s[i]);
	vga_set_cursor();
}

static struct console vga_console = { .name = "vga", .write = vga_write, .screen = true };

/* Take over the text screen at physical address phys, clearing what GRUB left on it. */
void vga_init(uint64_t phys, uint32_t cols, uint32_t rows)
{
	vga_mem = (volatile uint16_t *)__va(phys);
	vga_cols = cols ? cols : 80;
	vga_rows = rows ? rows : 25;
	for (uint32_t i = 0; i < vga_cols * vga_rows; i++)
		vga_mem[i] = VGA_ATTR | ' ';
	vga_x = vga_y = 0;
	register_console(&vga_console);
}
