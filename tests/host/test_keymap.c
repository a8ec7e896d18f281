/* Host unit test of the keyboard's keymap (drivers/tty/keymap.c): scancode set 1 sequences,
 * as the i8042 hands them over, to the bytes a terminal reads. */
#include <stdint.h>
#include <string.h>

#include "tests/host/check.h"
#include "drivers/tty/keymap.c"

static struct kbd_state st;

/* Feed the scancodes of codes (n of them), return every byte they gave as a string. */
static const char *keys(const uint8_t *codes, size_t n)
{
	static char got[256];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char out[KBD_MAX_BYTES];
		int k = kbd_translate(&st, codes[i], out);

		CHECK(k >= 0 && k <= KBD_MAX_BYTES);
		memcpy(got + len, out, (size_t)k);
		len += (size_t)k;
	}
	got[len] = '\0';
	return got;
}
#define KEYS(...) keys((const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void letters_digits_enter(void)
{
	memset(&st, 0, sizeof(st));
	/* h i press and release, then 1 and Enter */
	CHECK_STR(KEYS(0x23, 0xa3, 0x17, 0x97, 0x02, 0x82, 0x1c, 0x9c), "hi1\r");
	CHECK_STR(KEYS(0x0e, 0x8e, 0x0f, 0x39, 0x01), "\x7f\t \x1b"); /* Backspace is DEL */
	CHECK_STR(KEYS(0x0c, 0x0d, 0x1a, 0x1b, 0x27, 0x28, 0x29, 0x2b, 0x33, 0x34, 0x35),
		  "-=[];'`\\,./");
}

static void shift_and_caps(void)
{
	memset(&st, 0, sizeof(st));
	CHECK_STR(KEYS(0x2a, 0x23, 0x02, 0xaa, 0x23), "H!h"); /* left shift held, released */
	CHECK_STR(KEYS(0x36, 0x0d, 0x28, 0xb6), "+\"");	      /* right shift */
	CHECK_STR(KEYS(0x3a, 0xba, 0x1e, 0x02), "A1");	      /* caps lock: letters only */
	CHECK_STR(KEYS(0x2a, 0x1e, 0xaa), "a");		      /* shift inverts caps */
	CHECK_STR(KEYS(0x3a, 0xba, 0x1e), "a");		      /* pressed again: off */
}

static void ctrl_and_alt(void)
{
	memset(&st, 0, sizeof(st));
	CHECK_STR(KEYS(0x1d, 0x2e, 0x9d), "\x03");			   /* ^C */
	CHECK_STR(KEYS(0x1d, 0x20, 0x2b, 0x2c, 0x9d), "\x04\x1c\x1a");	   /* ^D ^\ ^Z */
	CHECK_STR(KEYS(0xe0, 0x1d, 0x16, 0xe0, 0x9d, 0x16), "\x15u");	   /* right ctrl */
	CHECK_STR(KEYS(0x1d, 0x3a, 0xba, 0x2e, 0x9d, 0x3a, 0xba), "\x03"); /* caps + ctrl */
	CHECK_STR(KEYS(0x38, 0x30, 0xb8, 0x30), "\033bb"); /* Alt: an ESC prefix */
	const char *nul = KEYS(0x1d, 0x39, 0x9d);	    /* Ctrl-Space: a NUL byte */
	CHECK(nul[0] == '\0');
}

static void cursor_and_function_keys(void)
{
	memset(&st, 0, sizeof(st));
	CHECK_STR(KEYS(0xe0, 0x48, 0xe0, 0xc8), "\033[A");
	CHECK_STR(KEYS(0xe0, 0x50, 0xe0, 0x4d, 0xe0, 0x4b), "\033[B\033[C\033[D");
	CHECK_STR(KEYS(0xe0, 0x47, 0xe0, 0x4f, 0xe0, 0x53), "\033[1~\033[4~\033[3~");
	/* the fake shift around cursor keys changes nothing */
	CHECK_STR(KEYS(0xe0, 0x2a, 0xe0, 0x48, 0xe0, 0xc8, 0xe0, 0xaa, 0x1e), "\033[Aa");
	CHECK_STR(KEYS(0x3b, 0x3f, 0x58), "\033[[A\033[[E\033[24~");
	CHECK_STR(KEYS(0xe0, 0x1c, 0xe0, 0x35), "\r/"); /* keypad Enter and / */
	/* Pause's six bytes give nothing, and the next key is itself */
	CHECK_STR(KEYS(0xe1, 0x1d, 0x45, 0xe1, 0x9d, 0xc5, 0x1e), "a");
	CHECK_STR(KEYS(0x45, 0x46, 0x80, 0xff), ""); /* locks we ignore, stray codes */
}

int main(void)
{
	RUN_TEST(letters_digits_enter);
	RUN_TEST(shift_and_caps);
	RUN_TEST(ctrl_and_alt);
	RUN_TEST(cursor_and_function_keys);
	return check_total_failed;
}
