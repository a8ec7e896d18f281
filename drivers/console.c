/* The list of registered consoles; console_write sends every byte to each of them. */
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
