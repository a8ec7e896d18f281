/* The OOM killer (mm/oom_kill.c): when no frame can be found or freed, pick the process whose
 * death frees the most for the least lost work (Linux 2.6.23's badness), adjusted by today's
 * /proc/PID/oom_score_adj, and kill it with SIGKILL. */
#ifndef MM_OOM_H
#define MM_OOM_H

#include "mm/gfp.h"

struct task_struct;

/* /proc/PID/oom_score_adj's range (Linux's <uapi/linux/oom.h>); the minimum: never killed. */
#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

/* How bad p is, in pages: 0 for a task never to be killed (no mm: a kernel thread; init;
 * oom_score_adj -1000), else at least 1. uptime in seconds. /proc/PID/oom_score shows it. */
unsigned long badness(struct task_struct *p, unsigned long uptime);
/* badness at this moment (task context, the big kernel lock held). */
unsigned long oom_score(struct task_struct *p);
/* Nothing more can be freed for an allocation of 2^order frames: print the report and kill
 * the worst process, unless a victim is still on its way out. Task context only: it takes
 * the big kernel lock and sleeps a tick; callers hold no spinlock. Panics if no process can
 * be killed, as Linux does. */
void out_of_memory(gfp_t gfp_mask, int order);
/* A page fault returned VM_FAULT_OOM (Linux's pagefault_out_of_memory): the OOM killer runs;
 * the faulting task then returns and faults again, unless it was the one killed. */
void pagefault_out_of_memory(void);
/* Is t of the process the OOM killer chose last, still exiting? (Linux's TIF_MEMDIE: the
 * allocator could let it dip into reserves; faultline keeps none yet.) */
bool oom_task_is_victim(const struct task_struct *t);

#endif
