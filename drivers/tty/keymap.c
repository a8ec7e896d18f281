/* Scancode set 1 to bytes, US layout, as Linux's default console keymap gives them: Enter is
 * \r, Backspace DEL, the cursor keys VT100 sequences, Alt an ESC prefix, Ctrl the control
 * characters. No hardware here: kbd_translate is a pure function of its state. */
#include "drivers/tty/keymap.h"

#define SC_LCTRL 0x1d
#define SC_LSHIFT 0x2a
#define SC_RSHIFT 0x36
#define SC_ALT 0x38
#define SC_CAPS 0x3a
#define RELEASED 0x80

/* The keys that give one character, unshifted and shifted (0: none). */
static const char plain[0x59] = {
	[0x01] = 0x1b, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', 0x7f, '\t',
	'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\r', [0x1e] = 'a', 's', 'd',
	'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`', [0x2b] = '\\', 'z', 'x', 'c', 'v', 'b', 'n',
	'm', ',', '.', '/', [0x37] = '*', [0x39] = ' ', [0x47] = '7', '8', '9', '-', '4', '5', '6',
	'+', '1', '2', '3', '0', '.',
};
static const char shifted[0x59] = {
	[0x01] = 0x1b, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', 0x7f, '\t',
	'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\r', [0x1e] = 'A', 'S', 'D',
	'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~', [0x2b] = '|', 'Z', 'X', 'C', 'V', 'B', 'N',
	'M', '<', '>', '?', [0x37] = '*', [0x39] = ' ', [0x47] = '7', '8', '9', '-', '4', '5', '6',
	'+', '1', '2', '3', '0', '.',
};

/* Keys that send an escape sequence: function keys, and the 0xe0 editing and cursor keys. */
static const char *const fkeys[0x59] = {
	[0x3b] = "\033[[A", "\033[[B", "\033[[C", "\033[[D", "\033[[E", "\033[17~", "\033[18~",
	"\033[19~", "\033[20~", "\033[21~", [0x57] = "\033[23~", "\033[24~",
};
static const char *const e0keys[0x59] = {
	[0x47] = "\033[1~", "\033[A", "\033[5~", [0x4b] = "\033[D", [0x4d] = "\033[C",
	[0x4f] = "\033[4~", "\033[B", "\033[6~", "\033[2~", "\033[3~",
};

static int put_str(const char *s, bool alt, char *out)
{
	int n = 0;

	if (alt)
		out[n++] = 0x1b;
	while (*s && n < KBD_MAX_BYTES)
		out[n++] = *s++;
	return n;
}

/* What Ctrl makes of c: letters and @[\]^_ their control character; digits 2..8 as Linux's
 * keymap (^@, ESC, ^\, ^], ^^, ^_, DEL), '-' and '/' ^_. Anything else stays. */
static char ctrl_of(char c)
{
	static const char digits[] = { 0, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f };

	if (c >= '2' && c <= '8')
		return digits[c - '2'];
	if (c == ' ')
		return 0;
	if (c == '-' || c == '/')
		return 0x1f;
	if ((c >= '@' && c <= '_') || (c >= 'a' && c <= 'z'))
		return (char)(c & 0x1f);
	return c;
}

/* A press or release of a modifier (st updated): true if sc was one. */
static bool modifier(struct kbd_state *st, uint8_t code, bool up, bool e0)
{
	switch (code) {
	case SC_LSHIFT:
		if (!e0) /* 0xe0 0x2a: a fake shift some keyboards add around cursor keys */
			st->lshift = !up;
		return true;
	case SC_RSHIFT:
		if (!e0)
			st->rshift = !up;
		return true;
	case SC_LCTRL:
		*(e0 ? &st->rctrl : &st->lctrl) = !up;
		return true;
	case SC_ALT:
		st->alt = !up;
		return true;
	case SC_CAPS:
		if (!up)
			st->caps_lock = !st->caps_lock;
		return true;
	}
	return false;
}

int kbd_translate(struct kbd_state *st, uint8_t sc, char *out)
{
	uint8_t code = sc & (uint8_t)~RELEASED;
	bool up = sc & RELEASED, e0 = st->e0, shift = st->lshift || st->rshift;
	char c;
	int n;

	if (st->e1_left) {
		st->e1_left--;
		return 0;
	}
	if (sc == 0xe1) {
		st->e1_left = 5; /* Pause: e1 1d 45 e1 9d c5, no byte for the terminal */
		return 0;
	}
	if (sc == 0xe0) {
		st->e0 = true;
		return 0;
	}
	st->e0 = false;
	if (modifier(st, code, up, e0) || up || code >= sizeof(plain))
		return 0;
	if (e0) {
		if (e0keys[code])
			return put_str(e0keys[code], st->alt, out);
		if (code == 0x1c) /* keypad Enter */
			return put_str("\r", st->alt, out);
		if (code == 0x35) /* keypad / */
			return put_str("/", st->alt, out);
		return 0;
	}
	if (fkeys[code])
		return put_str(fkeys[code], false, out);
	c = shift ? shifted[code] : plain[code];
	if (!c)
		return 0;
	if (st->caps_lock && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
		c ^= 0x20; /* Caps Lock inverts the case Shift gave */
	if (st->lctrl || st->rctrl)
		c = ctrl_of(plain[code]);
	n = 0;
	if (st->alt)
		out[n++] = 0x1b;
	out[n++] = c; /* (Ctrl-Space is a NUL byte) */
	return n;
}
