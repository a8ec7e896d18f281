/* The list of registered consoles; console_write sends every byte to each of them, the
 * terminals' output goes untranslated to all of them or to the screens. */
#include "drivers/console.h"

static struct console *consoles;

void register_console(struct console *con)
{
	struct console **p = &consoles;

	while (*p)
		p = &(*p)->next;
	con->next = NULL;
	*p = con;
}

void console_write(const char *s, size_t n)
{
	for (struct console *c = consoles; c; c = c->next)
		c->write(s, n);
}

void console_write_raw(const char *s, size_t n)
{
	for (struct console *c = consoles; c; c = c->next)
		(c->write_raw ? c->write_raw : c->write)(s, n);
}

void console_write_screen(const char *s, size_t n)
{
	for (struct console *c = consoles; c; c = c->next)
		if (c->screen)
			c->write(s, n);
}
