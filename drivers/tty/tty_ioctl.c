/* A terminal's ioctls, with Linux's numbers and errors (drivers/char/tty_ioctl.c and the
 * job-control ones of tty_io.c): termios, window size, foreground group, controlling tty. */
#include "drivers/tty/tty.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"

#define TCGETS	   0x5401
#define TCSETS	   0x5402
#define TCSETSW	   0x5403
#define TCSETSF	   0x5404
#define TCSBRK	   0x5409
#define TCXONC	   0x540a
#define TCFLSH	   0x540b
#define TIOCSCTTY  0x540e
#define TIOCGPGRP  0x540f
#define TIOCSPGRP  0x5410
#define TIOCOUTQ   0x5411
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414
#define FIONREAD   0x541b
#define TIOCNOTTY  0x5422
#define TIOCGSID   0x5429
#define TCSBRKP	   0x5425

#define TCIFLUSH  0
#define TCOFLUSH  1
#define TCIOFLUSH 2

/* TCSETS and its variants: SF drops unread input first; W and SF would first wait for output
 * to drain, which the polled drivers never leave behind. */
static long set_termios(struct tty_struct *tty, uint64_t cmd, uint64_t arg)
{
	struct ktermios t, old;
	long err = tty_check_change(tty);

	if (err)
		return err;
	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	if (cmd == TCSETSF)
		n_tty_flush_input(tty);
	old = tty->termios;
	tty->termios = t;
	n_tty_set_termios(tty, &old);
	if (tty->ops->set_termios)
		tty->ops->set_termios(tty, &old);
	return 0;
}

/* TIOCSPGRP: only on one's own controlling terminal, to a group of one's own session. */
static long tiocspgrp(struct tty_struct *tty, uint64_t arg)
{
	long err = tty_check_change(tty);
	int pgrp;

	if (err == -EIO)
		return -ENOTTY;
	if (err)
		return err;
	if (current->tty != tty || tty->session != current->session)
		return -ENOTTY;
	if (copy_from_user(&pgrp, arg, sizeof(pgrp)))
		return -EFAULT;
	if (pgrp < 0)
		return -EINVAL;
	if (kill_pgrp(pgrp, 0))
		return -ESRCH; /* no process is in that group */
	if (!pgrp_in_session(pgrp, current->session))
		return -EPERM;
	tty->pgrp = pgrp;
	return 0;
}

/* A number of the caller's own terminal (TIOCGPGRP, TIOCGSID): ENOTTY on another's. */
static long put_own_id(struct tty_struct *tty, int id, uint64_t arg)
{
	if (current->tty != tty)
		return -ENOTTY;
	return copy_to_user(arg, &id, sizeof(id));
}

long tty_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct tty_struct *tty = file_tty(f);
	struct task_struct *w;
	struct winsize ws;
	long err;
	int n;

	switch (cmd) {
	case TCGETS:
		return copy_to_user(arg, &tty->termios, sizeof(tty->termios));
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		return set_termios(tty, cmd, arg);
	case TIOCGWINSZ:
		return copy_to_user(arg, &tty->winsize, sizeof(tty->winsize));
	case TIOCSWINSZ:
		if (copy_from_user(&ws, arg, sizeof(ws)))
			return -EFAULT;
		tty_set_winsize(tty, &ws);
		return 0;
	case TIOCGPGRP:
		return put_own_id(tty, tty->pgrp, arg);
	case TIOCSPGRP:
		return tiocspgrp(tty, arg);
	case TIOCGSID:
		if (current->tty == tty && !tty->session)
			return -ENOTTY;
		return put_own_id(tty, tty->session, arg);
	case TIOCSCTTY:
		return tiocsctty(tty, arg == 1);
	case TIOCNOTTY:
		if (current->tty != tty)
			return -ENOTTY;
		if (current->session == current->tgid)
			disassociate_ctty(false);
		for_each_thread(current, w)
			w->tty = NULL;
		return 0;
	case FIONREAD:
		n = (int)n_tty_chars_in_buffer(tty);
		return copy_to_user(arg, &n, sizeof(n));
	case TIOCOUTQ:
		n = 0; /* the polled drivers keep nothing back */
		return copy_to_user(arg, &n, sizeof(n));
	case TCFLSH:
		err = tty_check_change(tty);
		if (err)
			return err;
		if (arg > TCIOFLUSH)
			return -EINVAL;
		if (arg != TCOFLUSH)
			n_tty_flush_input(tty);
		return 0;
	case TCXONC:
		err = tty_check_change(tty);
		if (err)
			return err;
		return arg > 3 ? -EINVAL : 0; /* nothing is ever held back to stop or start */
	case TCSBRK:
	case TCSBRKP:
		return tty_check_change(tty); /* tcdrain: all output is already out */
	}
	return -ENOTTY;
}
