/* The list of registered consoles; console_write sends every byte to each of them, the
 * terminals' output goes untranslated to all of them or to the screens. */
#include "drivers/console.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"

static struct console *consoles;
static DEFINE_SPINLOCK(console_lock);
static bool console_locked_by_panic; /* the panicking CPU went ahead without the lock */

uint64_t console_lock_irqsave(void)
{
	uint64_t flags = local_irq_save();

	while (!spin_trylock(&console_lock)) {
		if (oops_in_progress) {
			console_locked_by_panic = true;
			return flags;
		}
		cpu_relax();
	}
	return flags;
}

void console_unlock_irqrestore(uint64_t flags)
{
	if (console_locked_by_panic)
		console_locked_by_panic = false;
	else
		spin_unlock(&console_lock);
	local_irq_restore(flags);
}

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
	uint64_t flags = console_lock_irqsave();

	for (struct console *c = consoles; c; c = c->next)
		c->write(s, n);
	console_unlock_irqrestore(flags);
}

void console_write_raw(const char *s, size_t n)
{
	uint64_t flags = console_lock_irqsave();

	for (struct console *c = consoles; c; c = c->next)
		(c->write_raw ? c->write_raw : c->write)(s, n);
	console_unlock_irqrestore(flags);
}

void console_write_screen(const char *s, size_t n)
{
	uint64_t flags = console_lock_irqsave();

	for (struct console *c = consoles; c; c = c->next)
		if (c->screen)
			c->write(s, n);
	console_unlock_irqrestore(flags);
}
