/* A text console on the linear framebuffer, drawn with a PSF bitmap font from Debian's
 * console-setup (embedded by drivers/font.S). A shadow buffer holds the text: scrolling and
 * redraws come from it, never from reading the framebuffer back (slow, uncached). */
#include "drivers/console.h"
#include "drivers/fb.h"
#include "kernel/arch/x86.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"

/* The font file exactly as the Makefile decompressed it from the package. */
extern const uint8_t fbcon_font_psf[], fbcon_font_psf_end[];

/* PSF version 1: 4-byte header, 8 pixels wide, 256 or 512 glyphs, 16-bit unicode table. */
#define PSF1_MAGIC0 0x36
#define PSF1_MAGIC1 0x04
#define PSF1_MODE512 0x01
#define PSF1_MODEHASTAB 0x02
#define PSF1_SEPARATOR 0xffff /* ends one glyph's list of code points */
#define PSF1_STARTSEQ 0xfffe  /* the rest of the list are combining sequences */
/* PSF version 2: 32-byte (or longer) header, any size and count, UTF-8 unicode table. */
#define PSF2_MAGIC 0x864ab572
#define PSF2_HAS_UNICODE_TABLE 0x01
#define PSF2_SEPARATOR 0xff
#define PSF2_STARTSEQ 0xfe
#define PSF2_HEADER_SIZE 32

#define FONT_MAX_WIDTH 32 /* one glyph row fits a uint32_t */
#define FONT_MAX_HEIGHT 64
#define NO_GLYPH 0xffff

/* A bigger text grid than this (a 4K screen) uses its top-left part only. */
#define MAX_COLS 256
#define MAX_ROWS 128

#define CELL_CURSOR 0x100 /* in drawn[]: this cell shows the cursor under its character */
#define CELL_UNKNOWN 0xffff

static struct {
	const uint8_t *glyphs;
	uint32_t count, width, height, row_bytes, glyph_bytes;
	int version;
	uint16_t map[256]; /* a byte written to the console -> its glyph */
} font;

static uint8_t text[MAX_ROWS * MAX_COLS];   /* the shadow: rows of cols characters */
static uint16_t drawn[MAX_ROWS * MAX_COLS]; /* what each cell of the screen shows now */
static uint32_t cols, rows, cur_x, cur_y;
static uint32_t dirty_lo, dirty_hi; /* rows that may differ from drawn[]; lo > hi: none */
static uint32_t fg, bg;		    /* pixel values */
static bool started, paused, busy;
static int esc_state; /* inside an escape sequence: 1 after ESC, 2 inside ESC [ ... */

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first glyph listed for a code point wins; only Latin-1 matters to a byte console. */
static void map_code_point(uint32_t cp, uint32_t glyph)
{
	if (cp < ARRAY_SIZE(font.map) && font.map[cp] == NO_GLYPH)
		font.map[cp] = (uint16_t)glyph;
}

/* PSF1 table: for each glyph, 16-bit code points, maybe sequences, then 0xffff. */
static void parse_psf1_table(const uint8_t *p, const uint8_t *end)
{
	uint32_t glyph = 0;
	bool seq = false;

	for (; end - p >= 2 && glyph < font.count; p += 2) {
		uint16_t v = p[0] | p[1] << 8;

		if (v == PSF1_SEPARATOR) {
			glyph++;
			seq = false;
		} else if (v == PSF1_STARTSEQ) {
			seq = true;
		} else if (!seq) {
			map_code_point(v, glyph);
		}
	}
}

/* PSF2 table: the same in UTF-8, with 0xfe and 0xff (never valid UTF-8) as markers. */
static void parse_psf2_table(const uint8_t *p, const uint8_t *end)
{
	uint32_t glyph = 0;
	bool seq = false;

	while (p < end && glyph < font.count) {
		uint8_t c = *p;
		uint32_t len, cp;

		if (c == PSF2_SEPARATOR || c == PSF2_STARTSEQ) {
			seq = c == PSF2_STARTSEQ;
			glyph += c == PSF2_SEPARATOR;
			p++;
			continue;
		}
		len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
		if ((size_t)(end - p) < len)
			break;
		cp = len == 1 ? c : c & (0x7fu >> len);
		for (uint32_t i = 1; i < len; i++)
			cp = cp << 6 | (p[i] & 0x3f);
		if (!seq)
			map_code_point(cp, glyph);
		p += len;
	}
}

/* Check the embedded PSF file and fill in font. Every size comes from the untrusted header. */
static bool font_load(void)
{
	const uint8_t *f = fbcon_font_psf;
	size_t n = (size_t)(fbcon_font_psf_end - fbcon_font_psf);
	uint32_t hdr;
	uint16_t fallback;
	bool table;

	if (n >= 4 && f[0] == PSF1_MAGIC0 && f[1] == PSF1_MAGIC1) {
		font.version = 1;
		font.count = f[2] & PSF1_MODE512 ? 512 : 256;
		font.width = 8;
		font.height = f[3];
		font.glyph_bytes = f[3];
		table = f[2] & PSF1_MODEHASTAB;
		hdr = 4;
	} else if (n >= PSF2_HEADER_SIZE && rd32(f) == PSF2_MAGIC) {
		font.version = 2;
		hdr = rd32(f + 8);
		table = rd32(f + 12) & PSF2_HAS_UNICODE_TABLE;
		font.count = rd32(f + 16);
		font.glyph_bytes = rd32(f + 20);
		font.height = rd32(f + 24);
		font.width = rd32(f + 28);
	} else {
		printk("fbcon: the embedded font is neither PSF1 nor PSF2\n");
		return false;
	}
	font.row_bytes = (font.width + 7) / 8;
	if (!font.width || font.width > FONT_MAX_WIDTH || !font.height ||
	    font.height > FONT_MAX_HEIGHT || font.glyph_bytes < font.row_bytes * font.height ||
	    !font.count || hdr < (font.version == 1 ? 4 : PSF2_HEADER_SIZE) || hdr > n ||
	    (n - hdr) / font.glyph_bytes < font.count) {
		printk("fbcon: bad PSF%d font: %ux%u, %u glyphs of %u bytes in %lu bytes\n",
		       font.version, font.width, font.height, font.count, font.glyph_bytes, n);
		return false;
	}
	font.glyphs = f + hdr;

	for (size_t c = 0; c < ARRAY_SIZE(font.map); c++)
		font.map[c] = NO_GLYPH;
	if (table) {
		const uint8_t *t = font.glyphs + (size_t)font.count * font.glyph_bytes;

		if (font.version == 1)
			parse_psf1_table(t, f + n);
		else
			parse_psf2_table(t, f + n);
	} else {
		/* No table: glyph i is character i, as in the VGA ROM fonts PSF1 came from. */
		for (uint32_t c = 0; c < ARRAY_SIZE(font.map) && c < font.count; c++)
			font.map[c] = (uint16_t)c;
	}
	fallback = font.map['?'] != NO_GLYPH ? font.map['?'] : 0;
	for (size_t c = 0; c < ARRAY_SIZE(font.map); c++)
		if (font.map[c] == NO_GLYPH)
			font.map[c] = fallback;
	return true;
}

static const uint8_t *glyph_of(uint8_t c)
{
	return font.glyphs + (size_t)font.map[c] * font.glyph_bytes;
}

/* Glyph row y as a bit mask, the leftmost pixel in bit 31 (PSF rows are MSB first). */
static uint32_t glyph_row(const uint8_t *g, uint32_t y)
{
	uint32_t bits = 0;

	for (uint32_t b = 0; b < font.row_bytes; b++)
		bits |= (uint32_t)g[y * font.row_bytes + b] << (24 - 8 * b);
	return bits;
}

static void put_pixel(volatile uint8_t *p, uint32_t v)
{
	switch (fb_info.bpp) {
	case 32:
		*(volatile uint32_t *)p = v;
		break;
	case 24:
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
		p[2] = (uint8_t)(v >> 16);
		break;
	default:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	}
}

/*
 * Draw one cell: every pixel of it is written, foreground where the glyph has a bit, so
 * nothing of the old character needs erasing. The cursor is a bar over the last two rows.
 */
static void draw_cell(uint32_t col, uint32_t row, uint16_t cell)
{
	const uint8_t *g = glyph_of((uint8_t)cell);
	uint32_t bytes_pp = fb_info.bpp / 8;
	volatile uint8_t *line = fb_info.virt + (size_t)row * font.height * fb_info.pitch +
				 (size_t)col * font.width * bytes_pp;

	for (uint32_t y = 0; y < font.height; y++, line += fb_info.pitch) {
		uint32_t bits = glyph_row(g, y);

		if ((cell & CELL_CURSOR) && y + 2 >= font.height)
			bits = ~0u;
		if (bytes_pp == 4) { /* the common case, written without the per-pixel switch */
			volatile uint32_t *px = (volatile uint32_t *)line;

			for (uint32_t x = 0; x < font.width; x++, bits <<= 1)
				px[x] = bits & 0x80000000u ? fg : bg;
		} else {
			for (uint32_t x = 0; x < font.width; x++, bits <<= 1)
				put_pixel(line + x * bytes_pp, bits & 0x80000000u ? fg : bg);
		}
	}
}

static void mark_dirty(uint32_t row)
{
	dirty_lo = MIN(dirty_lo, row);
	dirty_hi = MAX(dirty_hi, row);
}

/*
 * Bring the screen up to date with the shadow: only cells of dirty rows whose character
 * (or cursor) differs from what they show are drawn. After a scroll that skips the blank
 * cells that stay blank, most of a screen of log lines.
 */
static void flush(void)
{
	if (!fb_info.virt || paused || dirty_lo > dirty_hi)
		return;
	for (uint32_t r = dirty_lo; r <= dirty_hi; r++) {
		for (uint32_t c = 0; c < cols; c++) {
			uint32_t i = r * cols + c;
			uint16_t want = text[i] | (r == cur_y && c == cur_x ? CELL_CURSOR : 0);

			if (drawn[i] != want) {
				draw_cell(c, r, want);
				drawn[i] = want;
			}
		}
	}
	dirty_lo = rows;
	dirty_hi = 0;
}

/* Fill the whole framebuffer (margins too) with the background colour. */
static void clear_screen(void)
{
	for (uint32_t y = 0; y < fb_info.height; y++) {
		volatile uint8_t *line = fb_info.virt + (size_t)y * fb_info.pitch;

		if (fb_info.bpp == 32) {
			void *d = (void *)line;
			size_t n = fb_info.width;

			asm volatile("rep stosl" : "+D"(d), "+c"(n) : "a"(bg) : "memory");
		} else {
			for (uint32_t x = 0; x < fb_info.width; x++)
				put_pixel(line + x * (fb_info.bpp / 8), bg);
		}
	}
}

static void scroll(void)
{
	memmove(text, text + cols, (rows - 1) * cols);
	memset(text + (rows - 1) * cols, ' ', cols);
	dirty_lo = 0;
	dirty_hi = rows - 1;
}

static void newline(void)
{
	cur_x = 0;
	if (++cur_y >= rows) {
		scroll();
		cur_y = rows - 1;
	}
}

static void fbcon_putc(uint8_t c)
{
	/* Escape sequences (colours, cursor moves) from user programs: skipped, not drawn. */
	if (esc_state == 1) {
		esc_state = c == '[' ? 2 : 0;
		return;
	}
	if (esc_state == 2) {
		if (c >= 0x40 && c <= 0x7e)
			esc_state = 0;
		return;
	}
	switch (c) {
	case 0x1b:
		esc_state = 1;
		return;
	case '\n':
		newline();
		return;
	case '\r':
		cur_x = 0;
		return;
	case '\t':
		cur_x = (cur_x + 8) & ~7u;
		if (cur_x >= cols)
			newline();
		return;
	case '\b':
		if (cur_x)
			cur_x--;
		return;
	}
	if (c < 0x20 || c == 0x7f) /* other control characters have no glyph to show */
		return;
	text[cur_y * cols + cur_x] = c;
	mark_dirty(cur_y);
	if (++cur_x >= cols)
		newline();
}

/*
 * The console lock is held (console_write), so output from an interrupt handler or another
 * CPU never lands inside this write. A write that arrives while one is in progress (an oops
 * while drawing) is dropped here; the serial line still has it.
 */
static void fbcon_write(const char *s, size_t n)
{
	if (!busy) {
		busy = true;
		mark_dirty(cur_y); /* the cursor leaves this row */
		for (size_t i = 0; i < n; i++)
			fbcon_putc((uint8_t)s[i]);
		mark_dirty(cur_y);
		flush();
		busy = false;
	}
}

static struct console fbcon_console = { .name = "fbcon", .write = fbcon_write, .screen = true };

void fbcon_init(void)
{
	if (!fb_info.phys || !font_load())
		return;
	cols = MIN(fb_info.width / font.width, (uint32_t)MAX_COLS);
	rows = MIN(fb_info.height / font.height, (uint32_t)MAX_ROWS);
	if (!cols || !rows)
		return;
	memset(text, ' ', sizeof(text));
	fg = fb_rgb(FBCON_FG);
	bg = fb_rgb(FBCON_BG);
	cur_x = cur_y = 0;
	dirty_lo = rows;
	dirty_hi = 0;
	started = true;
	register_console(&fbcon_console);
}

/* Is every row of c's glyph empty (so a cleared cell already shows it)? */
static bool glyph_blank(uint8_t c)
{
	for (uint32_t y = 0; y < font.height; y++)
		if (glyph_row(glyph_of(c), y))
			return false;
	return true;
}

/* Clear the screen, then draw every cell that is not blank, from the shadow. */
static void redraw(void)
{
	uint16_t blank = glyph_blank(' ') ? ' ' : CELL_UNKNOWN;

	if (!started || !fb_info.virt || paused)
		return;
	clear_screen();
	for (uint32_t i = 0; i < rows * cols; i++)
		drawn[i] = blank;
	dirty_lo = 0;
	dirty_hi = rows - 1;
	flush();
}

void fbcon_start(void)
{
	uint64_t flags;

	if (!started)
		return;
	flags = console_lock_irqsave();
	redraw();
	console_unlock_irqrestore(flags);
	printk("fbcon: %ux%u text, %ux%u PSF%d font (%u glyphs)\n", cols, rows, font.width,
	       font.height, font.version, font.count);
}

void fbcon_pause(bool pause)
{
	uint64_t flags = console_lock_irqsave();

	paused = pause;
	if (!pause)
		redraw();
	console_unlock_irqrestore(flags);
}
