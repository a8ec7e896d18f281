/* The PS/2 keyboard's keymap: scancodes (set 1, as the i8042 translates them) to the bytes a
 * terminal reads, US layout, as Linux's console sends them. A pure function of a small state,
 * so a host test can drive it (tests/host/test_keymap.c). */
#ifndef DRIVERS_TTY_KEYMAP_H
#define DRIVERS_TTY_KEYMAP_H

#include "kernel/compiler.h"

struct kbd_state {
	bool lshift, rshift, lctrl, rctrl, alt;
	bool caps_lock;
	bool e0;     /* the last byte was the 0xe0 prefix */
	int e1_left; /* bytes still to skip of the Pause key's 0xe1 sequence */
};

#define KBD_MAX_BYTES 8

/* One scancode byte: updates st, writes the bytes the key gives into out (at most
 * KBD_MAX_BYTES) and returns how many (0 for a release, a modifier or a prefix). */
int kbd_translate(struct kbd_state *st, uint8_t scancode, char *out);

#endif
