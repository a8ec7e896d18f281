/* The framebuffer console's font (drivers/fbcon.c): a PSF file from Debian's console-setup
 * fonts, decompressed by the Makefile into build/font.psf and embedded here byte for byte,
 * so fbcon parses the real file format rather than a hand-drawn table. */
	.section .rodata
	.balign 16
	.globl fbcon_font_psf, fbcon_font_psf_end
fbcon_font_psf:
	.incbin "font.psf"	/* found through -I$(B) (Makefile) */
fbcon_font_psf_end:

	.section .note.GNU-stack, "", @progbits
