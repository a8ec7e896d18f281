/* Host unit test of the line discipline (drivers/tty/n_tty.c): canonical editing (erase, kill,
 * word erase, end of file), echo, signals from keys, input and output mapping, and the
 * VMIN/VTIME cases of a raw read, on a tty whose driver writes into a buffer here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The interrupt flag cannot be touched in user space: the kernel's x86.h is replaced. */
#define KERNEL_X86_H
static inline uint64_t local_irq_save(void)
{
	return 0;
}
static inline void local_irq_restore(uint64_t flags)
{
	(void)flags;
}

#include "tests/host/check.h"
#include "drivers/tty/n_tty.c"

static struct signal_struct host_signal; /* the process's pending set: empty */
static struct task_struct host_task = { .signal = &host_signal };
struct task_struct *current = &host_task;

/* What the driver was given to show: echo and output. */
static char out[8192];
static size_t out_len;

static int host_write(struct tty_struct *tty, const uint8_t *buf, size_t n)
{
	(void)tty;
	if (out_len + n < sizeof(out)) {
		memcpy(out + out_len, buf, n);
		out_len += n;
		out[out_len] = '\0';
	}
	return (int)n;
}

static const struct tty_operations host_ops = { .write = host_write };

/* kill_pgrp: the last signal and group, and how many were sent. */
static int sent_sig, sent_pgrp, nr_sent;

long kill_pgrp(int pgrp, int sig)
{
	sent_pgrp = pgrp;
	sent_sig = sig;
	nr_sent++;
	return 0;
}

void __wake_up(struct wait_queue_head *q, unsigned long key)
{
	(void)q, (void)key;
}

/* tty_wait_input: a script of what happens while the reader sleeps. Each wait records the
 * timeout it was given, then feeds the next string of the script (NULL: time runs out). */
static struct tty_struct tty;
static const char *script[8];
static uint64_t waited[8];
static int nr_waits;

uint64_t tty_wait_input(struct tty_struct *t, uint64_t timeout)
{
	const char *feed = script[nr_waits];

	if (nr_waits >= 7)
		return 0; /* a test that never ends its script: stop the read */
	waited[nr_waits++] = timeout;
	if (!feed)
		return 0;
	n_tty_receive_buf(t, (const uint8_t *)feed, strlen(feed));
	return timeout;
}

static void reset(void)
{
	struct ktermios std = { .c_iflag = TTY_STD_IFLAG,
				.c_oflag = TTY_STD_OFLAG,
				.c_cflag = B38400 | CS8 | CREAD,
				.c_lflag = TTY_STD_LFLAG,
				.c_cc = INIT_C_CC };

	memset(&tty, 0, sizeof(tty));
	tty.ops = &host_ops;
	tty.termios = std;
	tty.pgrp = 42;
	n_tty_open(&tty);
	out_len = 0;
	out[0] = '\0';
	nr_sent = sent_sig = sent_pgrp = 0;
	memset(script, 0, sizeof(script));
	nr_waits = 0;
	host_task.pending = 0;
}

static void type(const char *s)
{
	n_tty_receive_buf(&tty, (const uint8_t *)s, strlen(s));
}

/* read(nr) into a string: the bytes, or "" with *ret the result */
static const char *rd(size_t nr, long *ret)
{
	static uint8_t buf[N_TTY_BUF_SIZE + 1];
	long r = n_tty_read(&tty, buf, nr, false);

	*ret = r;
	buf[r > 0 ? r : 0] = '\0';
	return (const char *)buf;
}

static void canonical_line_and_echo(void)
{
	long r;

	reset();
	type("abc");
	CHECK(!n_tty_input_available(&tty, false)); /* no line yet */
	CHECK_EQ(n_tty_chars_in_buffer(&tty), 0);
	type("\r");		   /* ICRNL */
	CHECK_STR(out, "abc\r\n"); /* echo; ONLCR */
	CHECK_EQ(n_tty_chars_in_buffer(&tty), 4);
	CHECK_STR(rd(100, &r), "abc\n");
	CHECK_EQ(r, 4);
	/* one line per read; a short read leaves the rest of the line */
	type("one\ntwo\n");
	CHECK_STR(rd(100, &r), "one\n");
	CHECK_STR(rd(2, &r), "tw");
	CHECK_STR(rd(100, &r), "o\n");
	CHECK(!n_tty_input_available(&tty, false));
}

static void erase_kill_werase(void)
{
	long r;

	reset();
	type("ab\x7f"
	     "c\n");
	CHECK_STR(out, "ab\b \bc\r\n");
	CHECK_STR(rd(100, &r), "ac\n");
	/* ^H is no erase character unless VERASE says so */
	reset();
	type("a\b\n");
	CHECK_STR(rd(100, &r), "a\b\n");
	CHECK_STR(out, "a^H\r\n");
	reset();
	tty.termios.c_cc[VERASE] = '\b';
	type("ab\b\n");
	CHECK_STR(rd(100, &r), "a\n");
	/* erase never crosses into a finished line */
	reset();
	type("x\n\x7f\x7fy\n");
	CHECK_STR(rd(100, &r), "x\n");
	CHECK_STR(rd(100, &r), "y\n");
	/* kill: ECHOKE erases the line on the screen */
	reset();
	type("abc\x15xy\n");
	CHECK_STR(rd(100, &r), "xy\n");
	CHECK_STR(out, "abc\b \b\b \b\b \bxy\r\n");
	/* without ECHOKE: the kill character, then a newline (ECHOK) */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ECHOKE;
	type("abc\x15xy\n");
	CHECK_STR(out, "abc^U\r\nxy\r\n");
	/* word erase: the spaces, then the word; a non-word character ends it */
	reset();
	type("foo bar  \x17"
	     "baz\n");
	CHECK_STR(rd(100, &r), "foo baz\n");
	type("foo.bar\x17\n");
	CHECK_STR(rd(100, &r), "foo.\n");
	/* without ECHOE an erase echoes the erase character */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ECHOE;
	type("ab\x7f");
	CHECK_STR(out, "ab^?");
	/* control characters show as ^X and take two columns back; a tab its own width */
	reset();
	type("\x01\x7f");
	CHECK_STR(out, "^A\b \b\b \b");
	reset();
	type("ab\t\x7f");
	CHECK_STR(out, "ab\t\b\b\b\b\b\b");
	/* IUTF8: one erase takes a whole character, one column back on the screen */
	reset();
	tty.termios.c_iflag |= IUTF8;
	type("a\xc3\xa9\x7f\n");
	CHECK_STR(rd(100, &r), "a\n");
	CHECK_STR(out, "a\xc3\xa9\b \b\r\n");
}

static void end_of_file(void)
{
	long r;

	reset();
	type("\x04");
	CHECK(n_tty_input_available(&tty, false));
	CHECK_STR(rd(100, &r), "");
	CHECK_EQ(r, 0);
	CHECK_STR(out, ""); /* EOF is not echoed */
	type("ab\x04");
	CHECK_STR(rd(100, &r), "ab");
	CHECK_EQ(r, 2);
	/* ^D in raw mode is a plain byte */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	type("\x04");
	CHECK_STR(rd(100, &r), "\x04");
}

static void signals_from_keys(void)
{
	long r;

	reset();
	type("abc\x03");
	CHECK_EQ(nr_sent, 1);
	CHECK_EQ(sent_sig, SIGINT);
	CHECK_EQ(sent_pgrp, 42);
	CHECK_STR(out, "abc^C");
	type("\n"); /* the flushed "abc" is gone */
	CHECK_STR(rd(100, &r), "\n");
	type("\x1c");
	CHECK_EQ(sent_sig, SIGQUIT);
	type("\x1a");
	CHECK_EQ(sent_sig, SIGTSTP);
	CHECK_EQ(nr_sent, 3);
	/* NOFLSH keeps what was typed */
	reset();
	tty.termios.c_lflag |= NOFLSH;
	type("ab\x03"
	     "c\n");
	CHECK_EQ(sent_sig, SIGINT);
	CHECK_STR(rd(100, &r), "abc\n");
	/* without ISIG ^C is a character; with no foreground group nobody is signalled */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ISIG;
	type("\x03\n");
	CHECK_EQ(nr_sent, 0);
	CHECK_STR(rd(100, &r), "\x03\n");
	reset();
	tty.pgrp = 0;
	type("\x03");
	CHECK_EQ(nr_sent, 0);
	/* VLNEXT quotes the next key: ^V^C is a byte */
	reset();
	type("\x16\x03\n");
	CHECK_EQ(nr_sent, 0);
	CHECK_STR(rd(100, &r), "\x03\n");
}

static void input_mapping(void)
{
	long r;

	reset();
	tty.termios.c_iflag = IGNCR;
	type("a\rb\n");
	CHECK_STR(rd(100, &r), "ab\n");
	reset();
	tty.termios.c_iflag = 0; /* no ICRNL: \r is a plain byte, the line goes on */
	type("a\r\n");
	CHECK_STR(rd(100, &r), "a\r\n");
	reset();
	tty.termios.c_iflag = INLCR;
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	type("a\n");
	CHECK_STR(rd(100, &r), "a\r");
	/* no ECHO: nothing shown; ECHONL shows only the newline */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ECHO;
	type("pw\n");
	CHECK_STR(out, "");
	tty.termios.c_lflag |= ECHONL;
	type("pw\n");
	CHECK_STR(out, "\r\n");
}

static void output_processing(void)
{
	reset();
	n_tty_write(&tty, (const uint8_t *)"a\nb\n", 4);
	CHECK_STR(out, "a\r\nb\r\n"); /* ONLCR: one \r each, never doubled */
	reset();
	tty.termios.c_oflag = OPOST; /* no ONLCR */
	n_tty_write(&tty, (const uint8_t *)"a\nb", 3);
	CHECK_STR(out, "a\nb");
	reset();
	tty.termios.c_oflag = 0; /* no OPOST: nothing changes */
	n_tty_write(&tty, (const uint8_t *)"a\n\r", 3);
	CHECK_STR(out, "a\n\r");
	reset();
	tty.termios.c_oflag = OPOST | OCRNL;
	n_tty_write(&tty, (const uint8_t *)"a\r", 2);
	CHECK_STR(out, "a\n");
	reset();
	tty.termios.c_oflag = OPOST | ONLCR | XTABS;
	n_tty_write(&tty, (const uint8_t *)"ab\tc", 4);
	CHECK_STR(out, "ab      c");
	CHECK_EQ(tty.column, 9);
}

static void raw_min_time(void)
{
	long r;

	/* MIN 0 TIME 0: what is there, at once; nothing: 0 without waiting */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 0;
	tty.termios.c_cc[VTIME] = 0;
	CHECK_STR(rd(10, &r), "");
	CHECK_EQ(r, 0);
	CHECK_EQ(nr_waits, 0);
	type("xy");
	CHECK_STR(rd(10, &r), "xy");
	/* MIN 3 TIME 0: waits, without a timer, until 3 bytes are there */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 3;
	tty.termios.c_cc[VTIME] = 0;
	type("a");
	script[0] = "b";
	script[1] = "cd";
	CHECK_STR(rd(10, &r), "abcd");
	CHECK_EQ(nr_waits, 2);
	CHECK(waited[0] == UINT64_MAX && waited[1] == UINT64_MAX);
	/* ... but never more than asked for, nor waits for more than that */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 5;
	type("abc");
	CHECK_STR(rd(2, &r), "ab");
	CHECK_EQ(nr_waits, 0);
	/* a poll is ready only once MIN bytes are there (TIME 0) */
	CHECK(!n_tty_input_available(&tty, true));
	type("defg");
	CHECK(n_tty_input_available(&tty, true));
	/* MIN 0 TIME 5: one timer of half a second for the first byte */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 0;
	tty.termios.c_cc[VTIME] = 5;
	CHECK_STR(rd(10, &r), ""); /* the script says: time runs out */
	CHECK_EQ(r, 0);
	CHECK_EQ(nr_waits, 1);
	CHECK_EQ(waited[0], 5 * HZ / 10);
	nr_waits = 0;
	script[0] = "q";
	CHECK_STR(rd(10, &r), "q");
	/* MIN 2 TIME 1: no timer before the first byte, then 0.1 s between bytes */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 2;
	tty.termios.c_cc[VTIME] = 1;
	script[0] = "a";
	script[1] = NULL; /* silence: the interbyte timer ends the read */
	CHECK_STR(rd(10, &r), "a");
	CHECK_EQ(nr_waits, 2);
	CHECK(waited[0] == UINT64_MAX);
	CHECK_EQ(waited[1], HZ / 10);
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 2;
	tty.termios.c_cc[VTIME] = 1;
	script[0] = "a";
	script[1] = "b";
	CHECK_STR(rd(10, &r), "ab");
}

static void nonblock_and_signals(void)
{
	uint8_t buf[8];

	reset();
	CHECK_EQ(n_tty_read(&tty, buf, sizeof(buf), true), -EAGAIN);
	type("partial");
	CHECK_EQ(n_tty_read(&tty, buf, sizeof(buf), true), -EAGAIN); /* no whole line yet */
	host_task.pending = sigmask(SIGINT);
	CHECK_EQ(n_tty_read(&tty, buf, sizeof(buf), false), -ERESTARTSYS);
	host_task.blocked = sigmask(SIGINT); /* a blocked signal does not interrupt */
	script[0] = "\n";
	CHECK_EQ(n_tty_read(&tty, buf, sizeof(buf), false), 8);
	host_task.blocked = 0;
	/* raw: bytes already read win over a signal */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	tty.termios.c_cc[VMIN] = 4;
	type("ab");
	script[0] = "";
	host_task.pending = 0;
	CHECK_EQ(n_tty_read(&tty, buf, sizeof(buf), false), 2);
}

static void mode_switch_and_full_buffer(void)
{
	struct ktermios old;
	long r;

	/* raw bytes become a finished line when ICANON comes back */
	reset();
	old = tty.termios;
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	n_tty_set_termios(&tty, &old);
	type("raw");
	old = tty.termios;
	tty.termios.c_lflag |= ICANON;
	n_tty_set_termios(&tty, &old);
	CHECK_STR(rd(100, &r), "raw");
	/* a half-typed line is readable at once in raw mode */
	type("half");
	old = tty.termios;
	tty.termios.c_lflag &= ~(uint32_t)ICANON;
	n_tty_set_termios(&tty, &old);
	CHECK_STR(rd(100, &r), "half");
	/* a full canonical line keeps room for its end */
	reset();
	tty.termios.c_lflag &= ~(uint32_t)ECHO;
	for (int i = 0; i < 5000; i++)
		type("x");
	type("\n");
	rd(N_TTY_BUF_SIZE, &r);
	CHECK_EQ(r, N_TTY_BUF_SIZE);
}

int main(void)
{
	RUN_TEST(canonical_line_and_echo);
	RUN_TEST(erase_kill_werase);
	RUN_TEST(end_of_file);
	RUN_TEST(signals_from_keys);
	RUN_TEST(input_mapping);
	RUN_TEST(output_processing);
	RUN_TEST(raw_min_time);
	RUN_TEST(nonblock_and_signals);
	RUN_TEST(mode_switch_and_full_buffer);
	return check_total_failed;
}
