/* The list of registered consoles; console_write sends every byte to each of them, the
 * terminals' output goes untranslated to all of them or to the screens. */
#include "drivers/console.h"
#include "kernel/locking/spinlock.h"
#include "kernel/panic.h"

static struct console *consoles;
static DEFINE_SPINLOCK(console_lock);

/* Once a panic began the lock is left alone: the other CPUs are stopped (one may hold it),
 * and only the panicking CPU prints. */
uint64_t console_lock_irqsave(void)
{
	uint64_t flags = local_irq_save();

	while (!oops_in_progress && !spin_trylock(&console_lock))
		cpu_relax();
	return flags;
}

void console_unlock_irqrestore(uint64_t flags)
{
	if (!oops_in_progress)
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
