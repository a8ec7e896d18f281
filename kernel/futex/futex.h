/* Fast user-space locking (kernel/futex/futex.c): threads sleep on a 32-bit word of their
 * memory until another wakes them, Linux's futex(2). */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include "kernel/compiler.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_BITSET_MATCH_ANY 0xffffffffU

/* Wake up to nr (at least one, as Linux) waiters on current's word at uaddr whose bitset
 * meets bitset; the number woken, or -EINVAL / -EFAULT for a bad address. */
int futex_wake(uint64_t uaddr, int nr, uint32_t bitset, bool shared);
struct task_struct;
/* A thread lets go of its memory (exit, exec): its robust futexes are marked FUTEX_OWNER_DIED
 * and their waiters woken (futex_robust.c). With t current and its memory still in. */
void exit_robust_list(struct task_struct *t);

#endif
