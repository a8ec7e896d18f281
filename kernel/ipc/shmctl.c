/* shmctl and /proc/sysvipc/shm, as Linux's ipc/shm.c: a segment's state read (IPC_STAT,
 * SHM_STAT, SHM_STAT_ANY), changed or removed by its owner (IPC_SET, IPC_RMID), its pages held
 * in memory (SHM_LOCK, SHM_UNLOCK), and the limits and totals (IPC_INFO, SHM_INFO). */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/initcall.h"
#include "kernel/ipc/shm.h"
#include "kernel/ipc/util.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/process/cred.h"
#include "kernel/process/resource.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"

/* Linux x86-64's struct shmid64_ds (IPC_STAT, IPC_SET), shminfo64 (IPC_INFO), shm_info
 * (SHM_INFO). */
struct shmid64_ds {
	struct ipc64_perm shm_perm;
	uint64_t shm_segsz;
	int64_t shm_atime, shm_dtime, shm_ctime;
	int32_t shm_cpid, shm_lpid;
	uint64_t shm_nattch;
	uint64_t __unused4, __unused5;
};

struct shminfo64 {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall;
	uint64_t __unused1, __unused2, __unused3, __unused4;
};

struct shm_info {
	int32_t used_ids;
	uint64_t shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

/* The pages of the segment in memory (shmem has no swap: nothing is out). */
static unsigned long shm_rss(const struct shmid_kernel *shp)
{
	return shp->shm_file->f_inode->i_mapping->nrpages;
}

/* What IPC_INFO and SHM_INFO return: the highest slot in use (Linux's ipc_get_maxidx), 0 with
 * no segment. */
static int shm_maxidx(void)
{
	if (!shm_in_use)
		return 0;
	return shm_in_use == IPCMNI ? IPCMNI - 1 : shm_max_idx;
}

static long shmctl_ipc_info(uint64_t ubuf)
{
	struct shminfo64 in = { .shmmax = READ_ONCE(shm_ctlmax),
				.shmmin = SHMMIN,
				.shmmni = (uint64_t)READ_ONCE(shm_ctlmni),
				.shmseg = (uint64_t)READ_ONCE(shm_ctlmni),
				.shmall = READ_ONCE(shm_ctlall) };

	return copy_to_user(ubuf, &in, sizeof(in)) ? -EFAULT : shm_maxidx();
}

static long shmctl_shm_info(uint64_t ubuf)
{
	struct shm_info in = { .used_ids = shm_in_use, .shm_tot = shm_tot };

	for (int i = 0; i <= shm_max_idx; i++)
		if (shm_segs[i])
			in.shm_rss += shm_rss(shm_segs[i]);
	return copy_to_user(ubuf, &in, sizeof(in)) ? -EFAULT : shm_maxidx();
}

/* IPC_STAT (an id: 0), SHM_STAT and SHM_STAT_ANY (a slot: the segment's id). Reading needs
 * read permission, except SHM_STAT_ANY's, which shows what /proc/sysvipc/shm shows anyway. */
static long shmctl_stat(int id, int cmd, uint64_t ubuf)
{
	struct shmid_kernel *shp = cmd == IPC_STAT ? shm_lock(id) : shm_segs[id % IPCMNI];
	struct shmid64_ds ds;

	if (!shp)
		return -EINVAL;
	if (cmd != SHM_STAT_ANY && ipcperms(&shp->perm, 0444))
		return -EACCES;
	memset(&ds, 0, sizeof(ds));
	ds.shm_perm = shp->perm;
	ds.shm_segsz = shp->segsz;
	ds.shm_atime = shp->atim;
	ds.shm_dtime = shp->dtim;
	ds.shm_ctime = shp->ctim;
	ds.shm_cpid = shp->cprid;
	ds.shm_lpid = shp->lprid;
	ds.shm_nattch = shp->nattch;
	if (copy_to_user(ubuf, &ds, sizeof(ds)))
		return -EFAULT;
	return cmd == IPC_STAT ? 0 : shm_id(shp);
}

/* IPC_SET (ds read already) and IPC_RMID: the owner's, the creator's or CAP_SYS_ADMIN's. */
static long shmctl_down(int id, int cmd, const struct shmid64_ds *ds)
{
	struct shmid_kernel *shp = shm_lock(id);
	int err;

	if (!shp)
		return -EINVAL;
	if (!ipcctl_may_change(&shp->perm))
		return -EPERM;
	if (cmd == IPC_RMID) {
		do_shm_rmid(shp);
		return 0;
	}
	err = ipc_update_perm(&ds->shm_perm, &shp->perm);
	if (!err)
		shp->ctim = current_time().tv_sec;
	return err;
}

/* Pages of the segments uid keeps locked: Linux counts SHM_LOCK per user (user_shm_lock). */
static unsigned long shm_locked_pages(uid_t uid)
{
	unsigned long pages = 0;

	for (int i = 0; i <= shm_max_idx; i++)
		if (shm_segs[i] && (shm_segs[i]->perm.mode & SHM_LOCKED) &&
		    shm_segs[i]->mlock_uid == uid)
			pages += shm_pages(shm_segs[i]);
	return pages;
}

/* Linux's user_shm_lock: may the caller's user lock pages more? Within RLIMIT_MEMLOCK (what
 * it locked before counted), or with CAP_IPC_LOCK. */
static bool user_shm_lock(unsigned long pages)
{
	uint64_t limit = rlimit(RLIMIT_MEMLOCK);

	if (limit != RLIM_INFINITY)
		limit >>= PAGE_SHIFT;
	return shm_locked_pages(current->cred.uid) + pages <= limit || capable(CAP_IPC_LOCK);
}

/*
 * SHM_LOCK and SHM_UNLOCK (Linux's shmctl_do_lock): without CAP_IPC_LOCK only the owner or
 * the creator, and SHM_LOCK only with a RLIMIT_MEMLOCK above 0 (EPERM); past the limit
 * -ENOMEM. A locked segment shows SHM_LOCKED in its mode, and reclaim leaves its pages alone
 * (AS_UNEVICTABLE). Locking twice or unlocking what is not locked changes nothing.
 */
static long shmctl_do_lock(int id, int cmd)
{
	struct shmid_kernel *shp = shm_lock(id);
	struct address_space *mapping;

	if (!shp)
		return -EINVAL;
	if (!capable(CAP_IPC_LOCK)) {
		uid_t euid = current->cred.euid;

		if (euid != shp->perm.uid && euid != shp->perm.cuid)
			return -EPERM;
		if (cmd == SHM_LOCK && !rlimit(RLIMIT_MEMLOCK))
			return -EPERM;
	}
	mapping = shp->shm_file->f_inode->i_mapping;
	if (cmd == SHM_LOCK) {
		if (shp->perm.mode & SHM_LOCKED)
			return 0;
		if (!user_shm_lock(shm_pages(shp)))
			return -ENOMEM;
		shp->mlock_uid = current->cred.uid;
		shp->perm.mode |= SHM_LOCKED;
		mapping_set_unevictable(mapping, true);
		return 0;
	}
	shp->perm.mode &= ~SHM_LOCKED;
	mapping_set_unevictable(mapping, false);
	return 0;
}

long sys_shmctl(int64_t shmid, int64_t cmd, uint64_t ubuf)
{
	int id = (int)shmid, c = (int)cmd;
	struct shmid64_ds ds;

	if (c < 0 || id < 0)
		return -EINVAL;
	switch (c) {
	case IPC_INFO:
		return shmctl_ipc_info(ubuf);
	case SHM_INFO:
		return shmctl_shm_info(ubuf);
	case IPC_STAT:
	case SHM_STAT:
	case SHM_STAT_ANY:
		return shmctl_stat(id, c, ubuf);
	case IPC_SET:
		if (copy_from_user(&ds, ubuf, sizeof(ds)))
			return -EFAULT;
		return shmctl_down(id, c, &ds);
	case IPC_RMID:
		return shmctl_down(id, c, NULL);
	case SHM_LOCK:
	case SHM_UNLOCK:
		return shmctl_do_lock(id, c);
	default:
		return -EINVAL;
	}
}

#define SHM_PROC_LINE 256 /* a line's most bytes: 16 fields of 21 characters at most */

/* /proc/sysvipc/shm: a header, then a line per segment in slot order, Linux's format for
 * 64-bit (every segment, whatever its permissions: SHM_STAT_ANY's view). */
static void sysvipc_shm_show(struct proc_text *t)
{
	proc_printf(t, "       key      shmid perms                  size  cpid  lpid nattch   uid"
		       "   gid  cuid  cgid      atime      dtime      ctime                   rss"
		       "                  swap\n");
	for (int i = 0; i <= shm_max_idx; i++) {
		const struct shmid_kernel *shp = shm_segs[i];

		if (!shp)
			continue;
		proc_printf(t,
			    "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10lld %10lld "
			    "%10lld %21lu %21lu\n",
			    shp->perm.key, shm_id(shp), shp->perm.mode, (unsigned long)shp->segsz,
			    shp->cprid, shp->lprid, shp->nattch, shp->perm.uid, shp->perm.gid,
			    shp->perm.cuid, shp->perm.cgid, (long long)shp->atim,
			    (long long)shp->dtim, (long long)shp->ctim, shm_rss(shp) * PAGE_SIZE,
			    0UL);
	}
}

static size_t sysvipc_shm_size(void)
{
	return SHM_PROC_LINE * (size_t)(shm_in_use + 1);
}

static const struct proc_entry proc_sysvipc_shm = { "shm", 0, sysvipc_shm_show, sysvipc_shm_size };

static void shm_init(void)
{
	if (proc_create("sysvipc/shm", &proc_sysvipc_shm))
		printk("shm: cannot create /proc/sysvipc/shm\n");
}
device_initcall(shm_init);
