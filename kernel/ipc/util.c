/* System V IPC's permission rules (Linux's ipc/util.c ipcperms and ipcctl_obtain_check): who
 * may read, write or attach an object by its mode bits, and who may change or remove it. */
#include "kernel/errno.h"
#include "kernel/ipc/util.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"

int ipcperms(const struct ipc64_perm *perm, unsigned int flag)
{
	unsigned int requested = (flag >> 6) | (flag >> 3) | flag, granted = perm->mode;
	uid_t euid = current->cred.euid;

	if (euid == perm->cuid || euid == perm->uid)
		granted >>= 6;
	else if (in_group_p(perm->cgid) || in_group_p(perm->gid))
		granted >>= 3;
	if ((requested & ~granted & 07) && !capable(CAP_IPC_OWNER))
		return -EACCES;
	return 0;
}

bool ipcctl_may_change(const struct ipc64_perm *perm)
{
	uid_t euid = current->cred.euid;

	return euid == perm->cuid || euid == perm->uid || capable(CAP_SYS_ADMIN);
}

int ipc_update_perm(const struct ipc64_perm *in, struct ipc64_perm *out)
{
	if (in->uid == (uint32_t)-1 || in->gid == (uint32_t)-1)
		return -EINVAL;
	out->uid = in->uid;
	out->gid = in->gid;
	out->mode = (out->mode & ~0777U) | (in->mode & 0777);
	return 0;
}
