/* tty1: the screen and the keyboard as one terminal (Linux's virtual console, of which there
 * is one here). Its output goes to the screen consoles (drivers/fbcon.c or drivers/vga.c), its
 * input comes from the PS/2 keyboard (drivers/tty/keyboard.c). Without a serial port it is
 * also /dev/console. */
#include "drivers/console.h"
#include "drivers/tty/tty.h"
#include "drivers/tty/vt.h"
#include "kernel/fs/fs.h"
#include "kernel/initcall.h"

#define TTY_MAJOR 4

static struct tty_struct vt_tty;
static bool vt_registered;

static int vt_write(struct tty_struct *tty, const uint8_t *buf, size_t n)
{
	(void)tty;
	console_write_screen((const char *)buf, n);
	return (int)n;
}

static int vt_put_char(struct tty_struct *tty, uint8_t c)
{
	return vt_write(tty, &c, 1);
}

static const struct tty_operations vt_ops = {
	.write = vt_write,
	.put_char = vt_put_char,
};

void vt_receive(const char *s, size_t n)
{
	if (!vt_registered)
		return;
	for (size_t i = 0; i < n; i++)
		tty_insert_flip_char(&vt_tty, (uint8_t)s[i]);
	tty_flip_buffer_push(&vt_tty);
}

static void vt_init(void)
{
	struct ktermios t = { .c_iflag = TTY_STD_IFLAG | IUTF8,
			      .c_oflag = TTY_STD_OFLAG,
			      .c_cflag = B38400 | CS8 | CREAD | HUPCL,
			      .c_lflag = TTY_STD_LFLAG,
			      .c_cc = INIT_C_CC };

	tty_register(&vt_tty, "tty1", MKDEV(TTY_MAJOR, 1), &vt_ops, &t);
	tty_set_console(&vt_tty, false);
	vt_registered = true;
}
device_initcall(vt_init);
