/* The flip buffer (2.6.23's tty_buffer.c, as one ring): an interrupt handler stores what the
 * hardware received; the events thread hands it to the line discipline, whose editing, echo
 * and signals need task context and the big kernel lock. */
#include "drivers/tty/tty.h"
#include "kernel/compiler.h"

#define FLIP_CHUNK 64

/* The events thread: every byte waiting, a chunk at a time, in the order received. */
static void flush_to_ldisc(struct work_struct *work)
{
	struct tty_struct *tty = container_of(work, struct tty_struct, flip_work);
	uint8_t chunk[FLIP_CHUNK];

	for (;;) {
		uint64_t flags;
		size_t n = 0;

		spin_lock_irqsave(&tty->flip_lock, flags);
		while (n < FLIP_CHUNK && tty->flip_tail != tty->flip_head)
			chunk[n++] = tty->flip_buf[tty->flip_tail++ % TTY_FLIP_SIZE];
		spin_unlock_irqrestore(&tty->flip_lock, flags);
		if (!n)
			return;
		n_tty_receive_buf(tty, chunk, n);
	}
}

void tty_buffer_init(struct tty_struct *tty)
{
	spin_lock_init(&tty->flip_lock);
	tty->flip_head = tty->flip_tail = 0;
	INIT_WORK(&tty->flip_work, flush_to_ldisc);
}

void tty_insert_flip_char(struct tty_struct *tty, uint8_t c)
{
	spin_lock(&tty->flip_lock); /* (interrupt context: interrupts are off) */
	if (tty->flip_head - tty->flip_tail < TTY_FLIP_SIZE)
		tty->flip_buf[tty->flip_head++ % TTY_FLIP_SIZE] = c;
	spin_unlock(&tty->flip_lock);
}

void tty_flip_buffer_push(struct tty_struct *tty)
{
	schedule_work(&tty->flip_work);
}
