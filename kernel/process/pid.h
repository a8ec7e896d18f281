/* Process ids (kernel/process/pid.c): a bitmap up to pid_max (/proc/sys/kernel/pid_max),
 * handed out in rising order and reused after the wrap, as Linux's kernel/pid.c. */
#ifndef KERNEL_PROCESS_PID_H
#define KERNEL_PROCESS_PID_H

#define PID_MAX_DEFAULT 0x8000       /* Linux's default on a machine with few CPUs */
#define PID_MAX_LIMIT (4 * 1024 * 1024) /* the most pid_max may be (64-bit Linux) */
#define RESERVED_PIDS 300            /* after the wrap, ids start here: daemons keep theirs */
#define PID_MAX_MIN (RESERVED_PIDS + 1)
#define MIN_THREADS 20               /* threads-max's bounds at boot (kernel/fork.c) */
#define MAX_THREADS 0x3fffffff       /* FUTEX_TID_MASK: a tid must fit a futex word */

extern int pid_max;
/* A free pid, taken: the next above the last one given, or from RESERVED_PIDS after pid_max;
 * an id a process group or a session still goes by is skipped. -EAGAIN if none is left. */
int alloc_pidmap(void);
void free_pidmap(int nr);
void pidmap_init(void); /* pid 0 is the idle task's */

#endif
