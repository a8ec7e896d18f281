/* What every System V IPC object shares (Linux's ipc/util.c): its permission block, the check
 * of an access against its mode bits, and who may change or remove it. */
#ifndef KERNEL_IPC_UTIL_H
#define KERNEL_IPC_UTIL_H

#include "kernel/compiler.h"

#define IPCMNI 32768 /* the most objects of one kind; an id is index + seq * IPCMNI */

/* Linux x86-64's struct ipc64_perm: what IPC_STAT shows and IPC_SET reads. */
struct ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;
	uint16_t seq, __pad2;
	uint64_t __unused1, __unused2;
};

/* May current access an object with perm as flag's rwx bits ask (in any of the three
 * places: shmget's flags, or S_IRUGO | S_IWUGO)? The owner's or creator's bits, else the
 * group's, else the others'; CAP_IPC_OWNER overrides. 0 or -EACCES. */
int ipcperms(const struct ipc64_perm *perm, unsigned int flag);
/* IPC_SET and IPC_RMID: current is the owner or the creator, or has CAP_SYS_ADMIN. */
bool ipcctl_may_change(const struct ipc64_perm *perm);
/* IPC_SET: owner, group and the nine permission bits from in. 0 or -EINVAL (an id -1). */
int ipc_update_perm(const struct ipc64_perm *in, struct ipc64_perm *out);

#endif
