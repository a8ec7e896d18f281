/* Credentials: the user ids and the capabilities they carry. The get and set*id system calls
 * with Linux's rules, and the capability fix-ups that go with a change of uid (Linux's
 * cap_emulate_setxuid): euid leaving 0 drops every effective capability, returning to 0
 * takes the permitted ones back, and none of uid, euid, suid being 0 any more drops them for
 * good. Groups live in kernel/process/groups.c. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/mm_types.h"

#define S_ISUID 04000
#define S_ISGID 02000
#define S_IXGRP 00010
#define NO_CHANGE ((uint32_t)-1) /* -1 in a set*id call: leave that id as it is */

void cred_init_root(struct task_cred *c)
{
	*c = (struct task_cred){ .group_info = &init_groups, .cap_effective = CAP_FULL_SET,
				 .cap_permitted = CAP_FULL_SET };
	get_group_info(&init_groups);
}

void cred_fork(struct task_struct *child, const struct task_struct *parent)
{
	child->cred = parent->cred;
	get_group_info(child->cred.group_info);
}

void cred_release(struct task_struct *t)
{
	put_group_info(t->cred.group_info);
}

bool capable(int cap)
{
	return current->cred.cap_effective & CAP_TO_MASK(cap);
}

/* After a change of uid, euid or suid (old: the ids before): Linux's capability rules. */
static void cap_emulate_setxuid(struct task_cred *c, uid_t old_ruid, uid_t old_euid,
				uid_t old_suid)
{
	if ((old_ruid == 0 || old_euid == 0 || old_suid == 0) &&
	    (c->uid != 0 && c->euid != 0 && c->suid != 0)) {
		c->cap_permitted = 0;
		c->cap_effective = 0;
	}
	if (old_euid == 0 && c->euid != 0)
		c->cap_effective = 0;
	if (old_euid != 0 && c->euid == 0)
		c->cap_effective = c->cap_permitted;
}

/* The ids were old: a process whose effective or file-system ids changed is no longer
 * dumpable by its user (Linux's commit_creds): fs.suid_dumpable says what it becomes (0: no
 * core dump, no other user's process_vm_readv). */
static void commit_dumpable(const struct task_cred *old)
{
	const struct task_cred *c = &current->cred;

	if (old->euid != c->euid || old->egid != c->egid || old->fsuid != c->fsuid ||
	    old->fsgid != c->fsgid) {
		if (current->mm)
			current->mm->dumpable = READ_ONCE(suid_dumpable);
		current->pdeath_signal = 0; /* as Linux: no signal the new ids did not ask for */
	}
}

/* Install new ids (new fsuid = its euid, as every call but setfsuid has it) and fix up the
 * capabilities. */
static long commit_uids(uid_t ruid, uid_t euid, uid_t suid)
{
	struct task_cred *c = &current->cred, old = *c;

	c->uid = ruid;
	c->euid = c->fsuid = euid;
	c->suid = suid;
	cap_emulate_setxuid(c, old.uid, old.euid, old.suid);
	commit_dumpable(&old);
	return 0;
}

long sys_getuid(void)
{
	return current->cred.uid;
}

long sys_geteuid(void)
{
	return current->cred.euid;
}

long sys_getgid(void)
{
	return current->cred.gid;
}

long sys_getegid(void)
{
	return current->cred.egid;
}

/* setuid: with CAP_SETUID all four ids; without, only euid and fsuid, and only to the real
 * or saved uid. -1 is no uid: EINVAL. */
long sys_setuid(uint64_t arg)
{
	const struct task_cred *c = &current->cred;
	uid_t uid = (uid_t)arg;

	if (uid == NO_CHANGE)
		return -EINVAL;
	if (capable(CAP_SETUID))
		return commit_uids(uid, uid, uid);
	if (uid != c->uid && uid != c->suid)
		return -EPERM;
	return commit_uids(c->uid, uid, c->suid);
}

/* setreuid: the real uid may become the real or effective one, the effective uid any of the
 * three (anything with CAP_SETUID). The saved uid follows the new euid when the real uid is
 * set or the euid set to other than the old real uid. */
long sys_setreuid(uint64_t arg_r, uint64_t arg_e)
{
	const struct task_cred *c = &current->cred;
	uid_t ruid = (uid_t)arg_r, euid = (uid_t)arg_e, nr = c->uid, ne = c->euid, ns = c->suid;
	bool cap = capable(CAP_SETUID);

	if (ruid != NO_CHANGE) {
		if (ruid != c->uid && ruid != c->euid && !cap)
			return -EPERM;
		nr = ruid;
	}
	if (euid != NO_CHANGE) {
		if (euid != c->uid && euid != c->euid && euid != c->suid && !cap)
			return -EPERM;
		ne = euid;
	}
	if (ruid != NO_CHANGE || (euid != NO_CHANGE && euid != c->uid))
		ns = ne;
	return commit_uids(nr, ne, ns);
}

/* May an unprivileged caller take id for one of its three ids? (One of the current three.) */
static bool one_of(uint32_t id, uint32_t a, uint32_t b, uint32_t c)
{
	return id == NO_CHANGE || id == a || id == b || id == c;
}

/* setresuid: each id not -1 is set; without CAP_SETUID each must be one of the current
 * real, effective or saved uids. Nothing to change (a given euid equal to the fsuid too)
 * leaves even fsuid alone. */
long sys_setresuid(uint64_t arg_r, uint64_t arg_e, uint64_t arg_s)
{
	const struct task_cred *c = &current->cred;
	uid_t r = (uid_t)arg_r, e = (uid_t)arg_e, s = (uid_t)arg_s;

	if ((r == NO_CHANGE || r == c->uid) &&
	    (e == NO_CHANGE || (e == c->euid && e == c->fsuid)) &&
	    (s == NO_CHANGE || s == c->suid))
		return 0;
	if (!capable(CAP_SETUID) && !(one_of(r, c->uid, c->euid, c->suid) &&
				      one_of(e, c->uid, c->euid, c->suid) &&
				      one_of(s, c->uid, c->euid, c->suid)))
		return -EPERM;
	return commit_uids(r != NO_CHANGE ? r : c->uid, e != NO_CHANGE ? e : c->euid,
			   s != NO_CHANGE ? s : c->suid);
}

/* Three ids out to user memory, each written before the next is tried (Linux's order). */
static long put_three(uint64_t u1, uint32_t v1, uint64_t u2, uint32_t v2, uint64_t u3,
		      uint32_t v3)
{
	if (copy_to_user(u1, &v1, 4) || copy_to_user(u2, &v2, 4) || copy_to_user(u3, &v3, 4))
		return -EFAULT;
	return 0;
}

long sys_getresuid(uint64_t ur, uint64_t ue, uint64_t us)
{
	const struct task_cred *c = &current->cred;

	return put_three(ur, c->uid, ue, c->euid, us, c->suid);
}

long sys_getresgid(uint64_t ur, uint64_t ue, uint64_t us)
{
	const struct task_cred *c = &current->cred;

	return put_three(ur, c->gid, ue, c->egid, us, c->sgid);
}

/* setfsuid: always answers the old fsuid; changes it to one of the four uids (any with
 * CAP_SETUID). Leaving 0 drops the file-system capabilities, reaching 0 raises them. */
long sys_setfsuid(uint64_t arg)
{
	struct task_cred *c = &current->cred;
	uid_t uid = (uid_t)arg, old = c->fsuid;

	if (uid == NO_CHANGE || uid == old)
		return old;
	if (uid != c->uid && uid != c->euid && uid != c->suid && !capable(CAP_SETUID))
		return old;
	c->fsuid = uid;
	if (current->mm)
		/* (commit_dumpable's rule: the fsuid changed) */
		current->mm->dumpable = READ_ONCE(suid_dumpable);
	if (old == 0)
		c->cap_effective &= ~CAP_FS_MASK;
	if (uid == 0)
		c->cap_effective |= c->cap_permitted & CAP_FS_MASK;
	return old;
}

/* The group calls: the same rules with CAP_SETGID, and no capability changes. */
long sys_setgid(uint64_t arg)
{
	struct task_cred *c = &current->cred;
	gid_t gid = (gid_t)arg;

	if (gid == NO_CHANGE)
		return -EINVAL;
	struct task_cred old = *c;

	if (capable(CAP_SETGID))
		c->gid = c->sgid = gid;
	else if (gid != c->gid && gid != c->sgid)
		return -EPERM;
	c->egid = c->fsgid = gid;
	commit_dumpable(&old);
	return 0;
}

long sys_setregid(uint64_t arg_r, uint64_t arg_e)
{
	struct task_cred *c = &current->cred;
	gid_t rgid = (gid_t)arg_r, egid = (gid_t)arg_e, nr = c->gid, ne = c->egid;
	bool cap = capable(CAP_SETGID);
	struct task_cred old;

	if (rgid != NO_CHANGE) {
		if (rgid != c->gid && rgid != c->egid && !cap)
			return -EPERM;
		nr = rgid;
	}
	if (egid != NO_CHANGE) {
		if (egid != c->gid && egid != c->egid && egid != c->sgid && !cap)
			return -EPERM;
		ne = egid;
	}
	old = *c;
	if (rgid != NO_CHANGE || (egid != NO_CHANGE && egid != c->gid))
		c->sgid = ne;
	c->gid = nr;
	c->egid = c->fsgid = ne;
	commit_dumpable(&old);
	return 0;
}

long sys_setresgid(uint64_t arg_r, uint64_t arg_e, uint64_t arg_s)
{
	struct task_cred *c = &current->cred;
	gid_t r = (gid_t)arg_r, e = (gid_t)arg_e, s = (gid_t)arg_s;
	struct task_cred old;

	if ((r == NO_CHANGE || r == c->gid) &&
	    (e == NO_CHANGE || (e == c->egid && e == c->fsgid)) &&
	    (s == NO_CHANGE || s == c->sgid))
		return 0;
	if (!capable(CAP_SETGID) && !(one_of(r, c->gid, c->egid, c->sgid) &&
				      one_of(e, c->gid, c->egid, c->sgid) &&
				      one_of(s, c->gid, c->egid, c->sgid)))
		return -EPERM;
	old = *c;
	if (r != NO_CHANGE)
		c->gid = r;
	if (e != NO_CHANGE)
		c->egid = e;
	if (s != NO_CHANGE)
		c->sgid = s;
	c->fsgid = c->egid;
	commit_dumpable(&old);
	return 0;
}

long sys_setfsgid(uint64_t arg)
{
	struct task_cred *c = &current->cred;
	gid_t gid = (gid_t)arg, old = c->fsgid;

	if (gid == NO_CHANGE)
		return old;
	if ((gid == c->gid || gid == c->egid || gid == c->sgid || gid == old ||
	     capable(CAP_SETGID)) && gid != old) {
		c->fsgid = gid;
		if (current->mm)
			/* (commit_dumpable's rule) */
			current->mm->dumpable = READ_ONCE(suid_dumpable);
	}
	return old;
}

void cred_exec_prepare(struct task_cred *c, uint32_t i_mode, uid_t i_uid, gid_t i_gid)
{
	*c = current->cred;
	if (i_mode & S_ISUID)
		c->euid = i_uid;
	if ((i_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		c->egid = i_gid;
	c->suid = c->fsuid = c->euid;
	c->sgid = c->fsgid = c->egid;
	c->cap_permitted = c->uid == 0 || c->euid == 0 ? CAP_FULL_SET : 0;
	c->cap_effective = c->euid == 0 ? c->cap_permitted : 0;
}

void cred_exec_commit(const struct task_cred *c)
{
	current->cred = *c; /* the same group_info: its reference carries over */
}

bool cred_secure(const struct task_cred *c)
{
	return c->uid != c->euid || c->gid != c->egid;
}

bool kill_ok_by_cred(const struct task_struct *t)
{
	const struct task_cred *c = &current->cred, *tc = &t->cred;

	return c->euid == tc->suid || c->euid == tc->uid || c->uid == tc->suid ||
	       c->uid == tc->uid || capable(CAP_KILL);
}
