/* Resource usage of tasks (kernel/process/rusage.c): CPU time in ticks, counted by the timer as
 * Linux's tick accounting does, the peak resident set, and what getrusage, wait4 and times
 * report from them. */
#ifndef KERNEL_RUSAGE_H
#define KERNEL_RUSAGE_H

#include "kernel/compiler.h"

struct pt_regs;
struct task_struct;

/* One task's (or its reaped children's) usage, in ticks and pages. */
struct rusage_acct {
	uint64_t utime, stime;
	unsigned long min_flt, maj_flt, nvcsw, nivcsw, maxrss;
};

/* The timer tick interrupted regs: charge the tick to current, in user or kernel mode. */
void account_process_tick(struct pt_regs *regs);
/* Keep t->maxrss at least its mm's resident pages now (before an unmap, exec or exit). */
void acct_update_maxrss(struct task_struct *t);
/* wait4 reaps child: its usage and its children's, into *out and into parent's c* counts. */
void acct_reap(struct task_struct *parent, struct task_struct *child, struct rusage_acct *out);
/* The usage of t's whole process: its exited threads' and each live thread's. */
void acct_group(struct task_struct *t, struct rusage_acct *u);
/* *u as Linux's struct rusage at user address urusage: 0 or -EFAULT. */
long rusage_to_user(uint64_t urusage, const struct rusage_acct *u);

#endif
