/* Credentials: who a task is (real, effective, saved and file-system user and group ids, the
 * supplementary groups) and what it may do beyond the permission bits (capabilities), in
 * Linux 2.6.23's shape: the fields live in task_struct (struct task_cred below). */
#ifndef KERNEL_CRED_H
#define KERNEL_CRED_H

#include "kernel/compiler.h"

typedef uint32_t uid_t;
typedef uint32_t gid_t;
typedef uint64_t kernel_cap_t; /* bit n: capability n */

#define NGROUPS_MAX 65536

/* The capabilities faultline decides anything by (Linux's numbers). */
#define CAP_CHOWN 0
#define CAP_DAC_OVERRIDE 1
#define CAP_DAC_READ_SEARCH 2
#define CAP_FOWNER 3
#define CAP_FSETID 4
#define CAP_KILL 5
#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_IPC_LOCK 14
#define CAP_IPC_OWNER 15
#define CAP_SYS_RAWIO 17
#define CAP_SYS_PTRACE 19
#define CAP_SYS_ADMIN 21
#define CAP_MKNOD 27
#define CAP_SYS_RESOURCE 24
#define CAP_LAST_CAP 40
#define CAP_TO_MASK(c) (1ULL << (c))
#define CAP_FULL_SET ((CAP_TO_MASK(CAP_LAST_CAP) << 1) - 1)
/* The ones tied to the file-system uid: setfsuid drops them leaving 0 and raises them back
 * (CAP_LINUX_IMMUTABLE, CAP_MKNOD and CAP_MAC_OVERRIDE with the five above). */
#define CAP_FS_MASK (0x1fULL | CAP_TO_MASK(9) | CAP_TO_MASK(27) | CAP_TO_MASK(32))

/* The supplementary groups, sorted ascending (setgroups sorts; groups_search bisects). Shared
 * between tasks (fork) and replaced whole by setgroups, never changed in place. */
struct group_info {
	int usage;
	int ngroups;
	gid_t gid[];
};

/* A task's identity. fsuid/fsgid decide file access; uid/euid/suid decide signals and the
 * set*id calls. cap_effective is what capable() tests; cap_permitted what a return to euid 0
 * may take back. "root" is euid 0 with every capability in both sets. */
struct task_cred {
	uid_t uid, euid, suid, fsuid;
	gid_t gid, egid, sgid, fsgid;
	struct group_info *group_info;
	kernel_cap_t cap_effective, cap_permitted;
};

struct task_struct;

/* The idle task's (and so every kernel thread's) credentials: root, no supplementary groups. */
void cred_init_root(struct task_cred *c);
/* fork: the child shares the parent's groups and copies the rest. */
void cred_fork(struct task_struct *child, const struct task_struct *parent);
/* The reaped task's reference to its groups goes. */
void cred_release(struct task_struct *t);
/* Does current have capability cap in its effective set? */
bool capable(int cap);
/* Is gid current's fsgid or one of its supplementary groups? */
bool in_group_p(gid_t gid);

/* execve's new credentials: the file's set-user-ID and set-group-ID bits applied to euid and
 * egid, the saved and file-system ids following them, the capabilities recomputed as Linux
 * does for root (full if the real or effective uid is 0, effective only if euid is 0).
 * cred_exec_prepare computes into *c; cred_exec_commit installs it past the point of no
 * return. secure: the ids differ (AT_SECURE). */
void cred_exec_prepare(struct task_cred *c, uint32_t i_mode, uid_t i_uid, gid_t i_gid);
void cred_exec_commit(const struct task_cred *c);
bool cred_secure(const struct task_cred *c);

/* kill(2)'s rule: may current send a user signal to t? (real or effective uid of the sender
 * matching the real or saved uid of t, or CAP_KILL.) */
bool kill_ok_by_cred(const struct task_struct *t);

/* groups.c, for cred.c */
extern struct group_info init_groups; /* none: the idle task's, never freed */
struct group_info *groups_alloc(int n);
void get_group_info(struct group_info *g);
void put_group_info(struct group_info *g);
bool groups_search(const struct group_info *g, gid_t gid);

#endif
