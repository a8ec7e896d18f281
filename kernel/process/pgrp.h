/* Process groups and sessions (Linux's kernel/sys.c part of them): the ids a shell uses for job
 * control and a terminal uses to pick whom ^C signals. */
#ifndef KERNEL_PGRP_H
#define KERNEL_PGRP_H

#include <stdbool.h>
#include <stdint.h>

struct ksiginfo;
struct task_struct;

/* Send sig with info to every user process of group pgrp. Returns 0 if at least one got it,
 * -ESRCH if the group is empty. Signal 0 only checks that the group exists. */
long kill_pgrp_info(int sig, const struct ksiginfo *info, int pgrp);
/* kill_pgrp_info with si_code SI_KERNEL, for the terminal and the kernel. */
long kill_pgrp(int pgrp, int sig);
/* Every user process but pid 1 and the caller (kill(-1, sig)); -ESRCH if there is none. */
long kill_all_info(int sig, const struct ksiginfo *info);
/* A task of session sid is in group pgrp (setpgid and TIOCSPGRP accept only such groups). */
bool pgrp_in_session(int pgrp, int sid);
/* POSIX's orphaned process group: no member (but ignored, and the dead) has a parent in
 * another group of the same session, other than init. Its members cannot be continued by a
 * shell, so the terminal's stop signals do not stop them. */
bool will_become_orphaned_pgrp(int pgrp, struct task_struct *ignored);
/* t's exit (parent NULL) or its parent's (parent: the exiting one; t already handed to init)
 * may orphan t's group: if it has stopped members, they get SIGHUP then SIGCONT. */
void kill_orphaned_pgrp(struct task_struct *t, struct task_struct *parent);

#endif
