/* clone(2) (kernel/process/clone.c): its flags, and what sys_clone hands do_fork
 * (kernel/process/fork.c). */
#ifndef KERNEL_CLONE_H
#define KERNEL_CLONE_H

#include "kernel/compiler.h"

#define CSIGNAL		     0x000000ffUL /* the signal sent to the parent at exit */
#define CLONE_VM	     0x00000100UL
#define CLONE_FS	     0x00000200UL
#define CLONE_FILES	     0x00000400UL
#define CLONE_SIGHAND	     0x00000800UL
#define CLONE_PIDFD	     0x00001000UL
#define CLONE_PTRACE	     0x00002000UL
#define CLONE_VFORK	     0x00004000UL
#define CLONE_PARENT	     0x00008000UL
#define CLONE_THREAD	     0x00010000UL
#define CLONE_NEWNS	     0x00020000UL
#define CLONE_SYSVSEM	     0x00040000UL
#define CLONE_SETTLS	     0x00080000UL
#define CLONE_PARENT_SETTID  0x00100000UL
#define CLONE_CHILD_CLEARTID 0x00200000UL
#define CLONE_DETACHED	     0x00400000UL
#define CLONE_UNTRACED	     0x00800000UL
#define CLONE_CHILD_SETTID   0x01000000UL
#define CLONE_IO	     0x80000000UL

struct kernel_clone_args {
	uint64_t flags;
	uint64_t stack;	     /* the child's %rsp, 0 for the parent's */
	uint64_t parent_tid; /* CLONE_PARENT_SETTID: int in the parent's memory */
	uint64_t child_tid;  /* CLONE_CHILD_SETTID, _CLEARTID: int in the child's memory */
	uint64_t tls;	     /* CLONE_SETTLS: the child's %fs base */
};

/* The child's first act with CLONE_CHILD_SETTID (from ret_from_clone_settid, kernel/arch/switch.S):
 * its tid at uaddr; a bad address is ignored, as Linux's schedule_tail does. */
void clone_child_settid(uint64_t uaddr);

#endif
