/* The terminal layer in Linux's shape: a struct tty_struct per terminal, the driver's
 * operations (the hardware side: a UART, the screen), the line discipline n_tty between them
 * (editing, echo, signals from keys), and the termios settings user space reads and sets. */
#ifndef DRIVERS_TTY_TTY_H
#define DRIVERS_TTY_TTY_H

#include "kernel/compiler.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/wait.h"
#include "kernel/workqueue.h"

/* struct termios as the kernel's TCGETS/TCSETS pass it on x86-64 (not glibc's, which is
 * longer): 17 bytes of flags and line, 19 control characters. */
#define NCCS 19
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[NCCS];
};

struct winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};

/* c_cc indices */
#define VINTR 0
#define VQUIT 1
#define VERASE 2
#define VKILL 3
#define VEOF 4
#define VTIME 5
#define VMIN 6
#define VSWTC 7
#define VSTART 8
#define VSTOP 9
#define VSUSP 10
#define VEOL 11
#define VREPRINT 12
#define VDISCARD 13
#define VWERASE 14
#define VLNEXT 15
#define VEOL2 16
#define __DISABLED_CHAR '\0' /* a c_cc entry of 0 turns that function off */

/* c_iflag */
#define IGNBRK 0000001
#define BRKINT 0000002
#define ISTRIP 0000040
#define INLCR 0000100
#define IGNCR 0000200
#define ICRNL 0000400
#define IUCLC 0001000
#define IXON 0002000
#define IXANY 0004000
#define IXOFF 0010000
#define IMAXBEL 0020000
#define IUTF8 0040000
/* c_oflag */
#define OPOST 0000001
#define OLCUC 0000002
#define ONLCR 0000004
#define OCRNL 0000010
#define ONOCR 0000020
#define ONLRET 0000040
#define TABDLY 0014000
#define XTABS 0014000
/* c_cflag */
#define B9600 0000015
#define B38400 0000017
#define CS8 0000060
#define CREAD 0000200
#define HUPCL 0002000
#define CLOCAL 0004000
#define B115200 0010002
/* c_lflag */
#define ISIG 0000001
#define ICANON 0000002
#define ECHO 0000010
#define ECHOE 0000020
#define ECHOK 0000040
#define ECHONL 0000100
#define NOFLSH 0000200
#define TOSTOP 0000400
#define ECHOCTL 0001000
#define ECHOPRT 0002000
#define ECHOKE 0004000
#define IEXTEN 0100000

/* Linux's tty_std_termios: what a terminal starts with. */
#define INIT_C_CC "\003\034\177\025\004\0\1\0\021\023\032\0\022\017\027\026\0"
#define TTY_STD_IFLAG (ICRNL | IXON)
#define TTY_STD_OFLAG (OPOST | ONLCR)
#define TTY_STD_LFLAG (ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN)

#define N_TTY_BUF_SIZE 4096 /* a power of two: read_head and read_tail run freely */

struct tty_struct;

/* The hardware side of a terminal. write sends bytes as they are (the line discipline did
 * the output processing) and returns how many it took; put_char is one byte. */
struct tty_operations {
	int (*write)(struct tty_struct *tty, const uint8_t *buf, size_t n);
	int (*put_char)(struct tty_struct *tty, uint8_t c);
	unsigned int (*write_room)(struct tty_struct *tty); /* NULL: never full */
	void (*set_termios)(struct tty_struct *tty, const struct ktermios *old); /* may be NULL */
	void (*flush_buffer)(struct tty_struct *tty);                           /* may be NULL */
};

#define TTY_FLIP_SIZE 512

struct tty_struct {
	const char *name;  /* "ttyS0", "tty1" */
	uint32_t dev;      /* its device number */
	const struct tty_operations *ops;
	struct ktermios termios;
	struct winsize winsize;
	int pgrp;          /* the foreground process group (0: none) */
	int session;       /* the session it controls (0: none) */
	int count;         /* open files */

	/* The line discipline's state (n_tty.c). The ring holds what was typed; in canonical
	 * mode read_flags marks the last byte of each finished line. */
	uint8_t read_buf[N_TTY_BUF_SIZE];
	uint8_t read_flags[N_TTY_BUF_SIZE / 8];
	unsigned int read_head, read_tail, canon_head; /* free-running indices */
	int canon_data;           /* finished lines not yet read */
	unsigned int column;      /* output column, for erasing what echo showed */
	unsigned int canon_column; /* the column where the line being edited began */
	bool lnext;               /* the next byte is taken literally (VLNEXT) */
	struct wait_queue_head read_wait, write_wait;

	/* The flip buffer (tty_buffer.c): bytes from the interrupt handler, waiting for the
	 * events thread to give them to the line discipline under the big kernel lock. */
	uint8_t flip_buf[TTY_FLIP_SIZE];
	unsigned int flip_head, flip_tail; /* free-running indices */
	spinlock_t flip_lock;
	struct work_struct flip_work;
};

/* tty_buffer.c: from the interrupt handler, a byte into the flip buffer (dropped when full),
 * then one push for what the interrupt brought. */
void tty_buffer_init(struct tty_struct *tty);
void tty_insert_flip_char(struct tty_struct *tty, uint8_t c);
void tty_flip_buffer_push(struct tty_struct *tty);

struct file;

/* n_tty.c: the line discipline. */
void n_tty_open(struct tty_struct *tty);
/* One byte from the hardware (the events thread, from the flip buffer): edit, echo, signal,
 * queue. */
void n_tty_receive_char(struct tty_struct *tty, uint8_t c);
void n_tty_receive_buf(struct tty_struct *tty, const uint8_t *buf, size_t n);
/* Read into the kernel buffer buf: canonical lines or VMIN/VTIME raw bytes. Bytes read,
 * 0 at end of file, -EAGAIN (nonblock), -ERESTARTSYS (a signal came before any byte). */
long n_tty_read(struct tty_struct *tty, uint8_t *buf, size_t nr, bool nonblock);
/* Write n bytes through OPOST processing to the driver: n. */
long n_tty_write(struct tty_struct *tty, const uint8_t *buf, size_t n);
bool n_tty_input_available(struct tty_struct *tty, bool poll);
unsigned int n_tty_chars_in_buffer(struct tty_struct *tty); /* FIONREAD */
void n_tty_flush_input(struct tty_struct *tty);
/* After the settings changed: a switch of ICANON re-frames what is waiting. */
void n_tty_set_termios(struct tty_struct *tty, const struct ktermios *old);
/* Sleep until input may have come or timeout ticks pass (UINT64_MAX: none). Returns the
 * ticks left (tty_io.c; the host test supplies its own). */
uint64_t tty_wait_input(struct tty_struct *tty, uint64_t timeout);

/* tty_io.c: the terminals as files. */
/* Make tty (with its driver and device number) known; call once per terminal. */
void tty_register(struct tty_struct *tty, const char *name, uint32_t dev,
		  const struct tty_operations *ops, const struct ktermios *init);
void tty_set_console(struct tty_struct *tty, bool boot); /* the tty behind /dev/console */
/* The session leader current gives up its terminal (TIOCNOTTY) or exits (on_exit): it is no
 * one's; the foreground group gets SIGHUP (and SIGCONT unless on_exit), as Linux's. */
void disassociate_ctty(bool on_exit);
/* Job control (Linux's tty_check_change): may current change tty's settings or, with TOSTOP,
 * write to it? 0, -EIO, or -ERESTARTSYS after SIGTTOU to its group. */
int tty_check_change(struct tty_struct *tty);
/* A winsize change: SIGWINCH to the foreground group. */
void tty_set_winsize(struct tty_struct *tty, const struct winsize *ws);
/* tty_ioctl.c */
long tty_ioctl(struct file *f, uint64_t cmd, uint64_t arg);
struct tty_struct *file_tty(struct file *f);
/* Make tty current's controlling terminal (its session's); steal: take it from another. */
int tiocsctty(struct tty_struct *tty, bool steal);

#endif
