/* n_tty: the line discipline between a terminal's hardware and its readers, as Linux's
 * drivers/char/n_tty.c: canonical line editing (erase, kill, word erase, end of file), echo,
 * signals from keys (ISIG), input and output mapping, and raw reads timed by VMIN/VTIME. */
#include "drivers/tty/tty.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/time/time.h"

#define I_FLAG(t, f) ((t)->termios.c_iflag & (f))
#define O_FLAG(t, f) ((t)->termios.c_oflag & (f))
#define L_FLAG(t, f) ((t)->termios.c_lflag & (f))
#define CC(t, i)     ((t)->termios.c_cc[i])
#define RING(i)	     ((i) & (N_TTY_BUF_SIZE - 1))

/* The read buffer is big-kernel-lock data: characters arrive through the flip buffer, which
 * the events thread empties with the lock held (tty_buffer.c), and readers are system calls;
 * no interrupt handler touches it, so no interrupt needs to be kept out. */

enum { ERASE, WERASE, KILL };

static bool is_cntrl(uint8_t c)
{
	return c < 0x20 || c == 0x7f;
}

/* c is the enabled control character at c_cc[i]. */
static bool is_cc(const struct tty_struct *tty, uint8_t c, int i)
{
	return CC(tty, i) != __DISABLED_CHAR && c == CC(tty, i);
}

static unsigned int read_cnt(const struct tty_struct *tty)
{
	return tty->read_head - tty->read_tail;
}

/* ---------------------------------------------------------------- output */

/* One byte of output through OPOST (ONLCR, OCRNL, ONOCR, ONLRET, XTABS), into out (room for
 * 8 bytes), keeping the column echo erasing relies on. Returns the bytes to send. */
static size_t output_char(struct tty_struct *tty, uint8_t c, uint8_t *out)
{
	size_t n = 0;

	if (!O_FLAG(tty, OPOST)) {
		out[0] = c;
		return 1;
	}
	switch (c) {
	case '\n':
		if (O_FLAG(tty, ONLRET))
			tty->column = 0;
		if (O_FLAG(tty, ONLCR)) {
			out[n++] = '\r';
			tty->column = 0;
		}
		tty->canon_column = tty->column;
		break;
	case '\r':
		if (O_FLAG(tty, ONOCR) && tty->column == 0)
			return 0;
		if (O_FLAG(tty, OCRNL)) {
			c = '\n';
			if (O_FLAG(tty, ONLRET))
				tty->canon_column = tty->column = 0;
			break;
		}
		tty->canon_column = tty->column = 0;
		break;
	case '\t': {
		unsigned int spaces = 8 - (tty->column & 7);

		tty->column += spaces;
		if ((tty->termios.c_oflag & TABDLY) == XTABS) {
			while (spaces--)
				out[n++] = ' ';
			return n;
		}
		break;
	}
	case '\b':
		if (tty->column > 0)
			tty->column--;
		break;
	default:
		if (!is_cntrl(c)) {
			if (O_FLAG(tty, OLCUC) && c >= 'a' && c <= 'z')
				c -= 'a' - 'A';
			if (!I_FLAG(tty, IUTF8) || (c & 0xc0) != 0x80)
				tty->column++;
		}
		break;
	}
	out[n++] = c;
	return n;
}

long n_tty_write(struct tty_struct *tty, const uint8_t *buf, size_t n)
{
	uint8_t out[256];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (len > sizeof(out) - 8) {
			tty->ops->write(tty, out, len);
			len = 0;
		}
		len += output_char(tty, buf[i], out + len);
	}
	if (len)
		tty->ops->write(tty, out, len);
	return (long)n;
}

/* ---------------------------------------------------------------- echo */

static void echo_bytes(struct tty_struct *tty, const char *s, size_t n)
{
	n_tty_write(tty, (const uint8_t *)s, n);
}

/* Echo c as typed: a control character as ^X under ECHOCTL (not tab or newline). */
static void echo_char(struct tty_struct *tty, uint8_t c)
{
	if (L_FLAG(tty, ECHOCTL) && is_cntrl(c) && c != '\t' && c != '\n') {
		char ctl[2] = { '^', (char)(c ^ 0x40) };

		echo_bytes(tty, ctl, 2);
	} else {
		echo_bytes(tty, (const char *)&c, 1);
	}
}

/* The column the line being edited reaches after its bytes up to (not including) end, as
 * echo showed them: for erasing a tab. */
static unsigned int line_column(const struct tty_struct *tty, unsigned int end)
{
	unsigned int col = tty->canon_column;

	for (unsigned int i = tty->canon_head; i != end; i++) {
		uint8_t c = tty->read_buf[RING(i)];

		if (c == '\t')
			col = (col | 7) + 1;
		else if (is_cntrl(c))
			col += L_FLAG(tty, ECHOCTL) ? 2 : 0;
		else if (!I_FLAG(tty, IUTF8) || (c & 0xc0) != 0x80)
			col++;
	}
	return col;
}

/* Take back on the screen the byte c just erased (it sat at index at). */
static void echo_erase(struct tty_struct *tty, uint8_t c, unsigned int at)
{
	unsigned int cols = 1;

	if (c == '\t') {
		unsigned int before = line_column(tty, at);

		cols = tty->column > before ? tty->column - before : 0;
		while (cols--)
			echo_bytes(tty, "\b", 1);
		return;
	}
	if (I_FLAG(tty, IUTF8) && (c & 0xc0) == 0x80)
		return; /* a continuation byte took no column */
	if (is_cntrl(c))
		cols = L_FLAG(tty, ECHOCTL) ? 2 : 0;
	while (cols--)
		echo_bytes(tty, "\b \b", 3);
}

/* ---------------------------------------------------------------- input */

static void put_tty_queue(struct tty_struct *tty, uint8_t c)
{
	tty->read_buf[RING(tty->read_head)] = c;
	tty->read_head++;
}

static void set_flag(struct tty_struct *tty, unsigned int i, bool on)
{
	uint8_t bit = (uint8_t)(1u << (RING(i) & 7));

	if (on)
		tty->read_flags[RING(i) / 8] |= bit;
	else
		tty->read_flags[RING(i) / 8] &= (uint8_t)~bit;
}

static bool test_flag(const struct tty_struct *tty, unsigned int i)
{
	return tty->read_flags[RING(i) / 8] & (1u << (RING(i) & 7));
}

/* Erase from the line being edited (never past its start): one character (IUTF8: all its
 * bytes), one word (spaces, then letters, digits and '_' up to anything else) or the whole
 * line, echoing as ECHOE, ECHOK and ECHOKE say. */
static void eraser(struct tty_struct *tty, uint8_t c, int kind)
{
	bool seen_alnums = false;

	if (tty->read_head == tty->canon_head)
		return; /* nothing on this line to erase */
	if (kind == KILL && (!L_FLAG(tty, ECHO) || !L_FLAG(tty, ECHOK) || !L_FLAG(tty, ECHOKE) ||
			     !L_FLAG(tty, ECHOE))) {
		tty->read_head = tty->canon_head;
		if (L_FLAG(tty, ECHO)) {
			echo_char(tty, c);
			if (L_FLAG(tty, ECHOK))
				echo_bytes(tty, "\n", 1);
		}
		return;
	}
	while (tty->read_head != tty->canon_head) {
		unsigned int at = tty->read_head - 1;
		uint8_t prev = tty->read_buf[RING(at)];

		if (kind == WERASE) {
			bool alnum = (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z') ||
				     (prev >= '0' && prev <= '9') || prev == '_';

			if (alnum)
				seen_alnums = true;
			else if (seen_alnums)
				break;
		}
		tty->read_head = at;
		if (L_FLAG(tty, ECHO)) {
			if (kind == ERASE && !L_FLAG(tty, ECHOE))
				echo_char(tty, c);
			else
				echo_erase(tty, prev, at);
		}
		/* one erase takes a whole UTF-8 character: continuation bytes, then its lead */
		if (kind == ERASE && !(I_FLAG(tty, IUTF8) && (prev & 0xc0) == 0x80))
			break;
	}
}

/* A signal key: the foreground group gets sig; unless NOFLSH what was typed is dropped. */
static void isig(struct tty_struct *tty, int sig, uint8_t c)
{
	if (!L_FLAG(tty, NOFLSH)) {
		n_tty_flush_input(tty);
		if (tty->ops->flush_buffer)
			tty->ops->flush_buffer(tty);
	}
	if (L_FLAG(tty, ECHO))
		echo_char(tty, c);
	if (tty->pgrp)
		kill_pgrp(tty->pgrp, sig);
}

/* The line ends with c (stored; flagged for the reader). EOF is stored as __DISABLED_CHAR,
 * which a read consumes without returning. */
static void end_line(struct tty_struct *tty, uint8_t c)
{
	set_flag(tty, tty->read_head, true);
	put_tty_queue(tty, c);
	tty->canon_head = tty->read_head;
	tty->canon_column = tty->column;
	tty->canon_data++;
	wake_up(&tty->read_wait);
}

/* A byte for the current line, echoed. */
static void receive_plain(struct tty_struct *tty, uint8_t c)
{
	/* A full canonical buffer keeps one byte free for the end of the line. */
	if (L_FLAG(tty, ICANON) ? read_cnt(tty) >= N_TTY_BUF_SIZE - 1
				: read_cnt(tty) >= N_TTY_BUF_SIZE)
		return;
	if (L_FLAG(tty, ECHO))
		echo_char(tty, c);
	else if (L_FLAG(tty, ECHONL) && c == '\n' && L_FLAG(tty, ICANON))
		echo_bytes(tty, "\n", 1);
	put_tty_queue(tty, c);
	if (!L_FLAG(tty, ICANON))
		wake_up(&tty->read_wait);
}

/* The canonical-mode special characters. True if c was one (and is dealt with). */
static bool receive_canon(struct tty_struct *tty, uint8_t c)
{
	if (is_cc(tty, c, VERASE) || (is_cc(tty, c, VKILL)) ||
	    (L_FLAG(tty, IEXTEN) && is_cc(tty, c, VWERASE))) {
		eraser(tty, c,
		       is_cc(tty, c, VERASE)  ? ERASE
		       : is_cc(tty, c, VKILL) ? KILL
					      : WERASE);
		return true;
	}
	if (L_FLAG(tty, IEXTEN) && is_cc(tty, c, VLNEXT)) {
		tty->lnext = true;
		if (L_FLAG(tty, ECHO) && L_FLAG(tty, ECHOCTL))
			echo_bytes(tty, "^\b", 2);
		return true;
	}
	if (c == '\n' || is_cc(tty, c, VEOL) || is_cc(tty, c, VEOL2)) {
		if (read_cnt(tty) >= N_TTY_BUF_SIZE)
			return true;
		if (L_FLAG(tty, ECHO) || (c == '\n' && L_FLAG(tty, ECHONL)))
			echo_char(tty, c);
		end_line(tty, c);
		return true;
	}
	if (is_cc(tty, c, VEOF)) {
		if (read_cnt(tty) < N_TTY_BUF_SIZE)
			end_line(tty, __DISABLED_CHAR);
		return true;
	}
	return false;
}

void n_tty_receive_char(struct tty_struct *tty, uint8_t c)
{
	if (I_FLAG(tty, ISTRIP))
		c &= 0x7f;
	if (I_FLAG(tty, IUCLC) && L_FLAG(tty, IEXTEN) && c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	if (tty->lnext) {
		tty->lnext = false;
		if (L_FLAG(tty, ECHO) && L_FLAG(tty, ECHOCTL))
			echo_bytes(tty, "\b", 1);
		receive_plain(tty, c);
		return;
	}
	if (L_FLAG(tty, ISIG)) {
		int sig = is_cc(tty, c, VINTR)	 ? SIGINT
			  : is_cc(tty, c, VQUIT) ? SIGQUIT
			  : is_cc(tty, c, VSUSP) ? SIGTSTP
						 : 0;

		if (sig) {
			isig(tty, sig, c);
			return;
		}
	}
	if (c == '\r') {
		if (I_FLAG(tty, IGNCR))
			return;
		if (I_FLAG(tty, ICRNL))
			c = '\n';
	} else if (c == '\n' && I_FLAG(tty, INLCR)) {
		c = '\r';
	}
	if (L_FLAG(tty, ICANON) && receive_canon(tty, c))
		return;
	receive_plain(tty, c);
}

void n_tty_receive_buf(struct tty_struct *tty, const uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		n_tty_receive_char(tty, buf[i]);
}

/* ---------------------------------------------------------------- reading */

bool n_tty_input_available(struct tty_struct *tty, bool poll)
{
	unsigned int amt = 1;

	if (L_FLAG(tty, ICANON))
		return tty->canon_data > 0;
	/* poll with VTIME 0 is ready only once VMIN bytes are there, as a read would return */
	if (poll && !CC(tty, VTIME) && CC(tty, VMIN))
		amt = CC(tty, VMIN);
	return read_cnt(tty) >= amt;
}

unsigned int n_tty_chars_in_buffer(struct tty_struct *tty)
{
	if (L_FLAG(tty, ICANON))
		return tty->canon_head - tty->read_tail;
	return read_cnt(tty);
}

void n_tty_flush_input(struct tty_struct *tty)
{
	tty->read_head = tty->read_tail = tty->canon_head = 0;
	tty->canon_data = 0;
	tty->lnext = false;
	memset(tty->read_flags, 0, sizeof(tty->read_flags));
	wake_up(&tty->write_wait);
}

void n_tty_open(struct tty_struct *tty)
{
	n_tty_flush_input(tty);
	tty->column = tty->canon_column = 0;
}

void n_tty_set_termios(struct tty_struct *tty, const struct ktermios *old)
{
	if (!((old->c_lflag ^ tty->termios.c_lflag) & ICANON))
		return;
	memset(tty->read_flags, 0, sizeof(tty->read_flags));
	tty->canon_data = 0;
	tty->canon_head = tty->read_tail;
	/* Bytes typed in raw mode become one finished line when ICANON comes back on. */
	if (L_FLAG(tty, ICANON) && read_cnt(tty)) {
		set_flag(tty, tty->read_head - 1, true);
		tty->canon_head = tty->read_head;
		tty->canon_data = 1;
	}
	tty->lnext = false;
	wake_up(&tty->read_wait);
}

/* Up to nr bytes of the first finished line into buf; its end ('\n', VEOL) is copied, an EOF
 * is not. Returns the bytes copied. */
static size_t canon_copy(struct tty_struct *tty, uint8_t *buf, size_t nr)
{
	size_t n = 0;

	while (n < nr && tty->read_tail != tty->canon_head) {
		unsigned int i = tty->read_tail;
		uint8_t c = tty->read_buf[RING(i)];
		bool eol = test_flag(tty, i);

		tty->read_tail++;
		if (eol) {
			set_flag(tty, i, false);
			tty->canon_data--;
			if (c != __DISABLED_CHAR)
				buf[n++] = c;
			break;
		}
		buf[n++] = c;
	}
	return n;
}

static size_t raw_copy(struct tty_struct *tty, uint8_t *buf, size_t nr)
{
	size_t n = 0;

	while (n < nr && tty->read_tail != tty->read_head)
		buf[n++] = tty->read_buf[RING(tty->read_tail++)];
	return n;
}

/*
 * termios(3)'s four cases of a raw read: MIN 0 TIME 0 returns what is there; MIN > 0 TIME 0
 * waits for MIN bytes; MIN 0 TIME > 0 waits up to TIME tenths for one byte; MIN > 0 TIME > 0
 * waits for the first byte, then until MIN bytes or TIME tenths of silence between bytes.
 * A canonical read returns one line (or its first nr bytes). Never more than nr.
 */
long n_tty_read(struct tty_struct *tty, uint8_t *buf, size_t nr, bool nonblock)
{
	bool canon = L_FLAG(tty, ICANON);
	uint64_t timeout = UINT64_MAX, time = 0;
	size_t minimum = 0, done = 0;
	long ret = 0;

	if (!canon) {
		minimum = CC(tty, VMIN);
		if (minimum) {
			time = (uint64_t)(HZ / 10) * CC(tty, VTIME);
		} else {
			timeout = (uint64_t)(HZ / 10) * CC(tty, VTIME);
			minimum = 1;
		}
	}
	while (nr > done) {
		size_t got;

		if (!n_tty_input_available(tty, false)) {
			if (!timeout)
				break;
			if (nonblock) {
				ret = -EAGAIN;
				break;
			}
			if (signal_pending(current)) {
				ret = -ERESTARTSYS;
				break;
			}
			timeout = tty_wait_input(tty, timeout);
			continue;
		}
		got = canon ? canon_copy(tty, buf + done, nr - done)
			    : raw_copy(tty, buf + done, nr - done);
		done += got;
		if (canon || done >= minimum)
			break;
		if (time)
			timeout = time;
	}
	return done ? (long)done : ret;
}
