/* The big kernel lock (Linux 2.6.23's <linux/smp_lock.h>): one lock around every system call,
 * so that the VFS, the signal and process lists and the ttys, written for one CPU, stay
 * correct with several. Page faults run outside it, under mmap_sem and the page-table lock. */
#ifndef KERNEL_SMP_LOCK_H
#define KERNEL_SMP_LOCK_H

#include "kernel/compiler.h"

struct task_struct;

/*
 * Recursive per task: current->lock_depth counts the holds beyond the first (-1: not held).
 * Task context only (it sleeps when taken). A holder may sleep: schedule() lets go of the lock
 * and takes it back when the task runs again (release_kernel_lock, reacquire_kernel_lock).
 */
void lock_kernel(void);
void unlock_kernel(void);
/* schedule()'s two halves: let go before the switch, take back after (if the task held it). */
void release_kernel_lock(struct task_struct *t);
void reacquire_kernel_lock(struct task_struct *t);

#endif
