/* System V shared memory (shmget, shmat, shmdt, shmctl), as Linux's ipc/shm.c: a segment is
 * an unlinked shmem file; each attach is a MAP_SHARED mapping of it whose VMA open and close
 * count shm_nattch, so fork, exit and exec keep the count with no code of their own. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/syscalls.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"
#include "mm/filemap.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/shmem.h"
#include "mm/slab.h"
#include "mm/vma.h"

#define IPC_PRIVATE  0
#define IPC_CREAT    01000
#define IPC_EXCL     02000
#define IPC_RMID     0
#define IPC_SET	     1
#define IPC_STAT     2
#define IPC_INFO     3
#define SHM_STAT     13
#define SHM_INFO     14
#define SHM_STAT_ANY 15
#define SHM_NORESERVE 010000 /* shmget: reserve nothing for it */
#define SHM_RDONLY   010000
#define SHM_RND	     020000
#define SHM_REMAP    040000
#define SHM_EXEC     0100000
#define SHM_DEST     01000 /* in shm_perm.mode: removed, destroyed with its last attach */

#define SHMMIN	       1UL
#define SHMMAX	       (~0UL - (1UL << 24)) /* Linux's default limits */
#define SHMALL	       (~0UL - (1UL << 24))
#define SHMMNI	       4096
#define SHMLBA	       PAGE_SIZE
#define SEQ_MULTIPLIER 32768 /* an id is index + seq * this, as Linux's ipc ids */

/* Linux x86-64's struct ipc64_perm and struct shmid64_ds (what IPC_STAT fills). */
struct ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;
	uint16_t seq, __pad2;
	uint64_t __unused1, __unused2;
};

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

/* One segment: its permissions, its times and pids, and the shmem file holding its pages. */
struct shmid_kernel {
	struct ipc64_perm perm;
	struct file *shm_file;
	uint64_t segsz;
	int64_t atim, dtim, ctim;
	int cprid, lprid;
	unsigned long nattch;
};

static struct shmid_kernel *shm_segs[SHMMNI];
static uint16_t shm_seq;      /* bumped per new segment: an old id does not name a new one */
static unsigned long shm_tot; /* pages of every segment, against SHMALL */

static int shm_id(int idx)
{
	return idx + shm_segs[idx]->perm.seq * SEQ_MULTIPLIER;
}

/* The segment an id names, or NULL. */
static struct shmid_kernel *shm_lock(long id)
{
	struct shmid_kernel *shp;

	if (id < 0)
		return NULL;
	shp = shm_segs[id % SEQ_MULTIPLIER < SHMMNI ? id % SEQ_MULTIPLIER : 0];
	if (id % SEQ_MULTIPLIER >= SHMMNI || !shp || shp->perm.seq != id / SEQ_MULTIPLIER)
		return NULL;
	return shp;
}

/* The segment is gone: its slot frees, its pages go with the last reference to its inode. */
static void shm_destroy(struct shmid_kernel *shp)
{
	for (int i = 0; i < SHMMNI; i++)
		if (shm_segs[i] == shp)
			shm_segs[i] = NULL;
	shm_tot -= ALIGN_UP(shp->segsz, PAGE_SIZE) >> PAGE_SHIFT;
	fput(shp->shm_file);
	kfree(shp);
}

/* Every attach VMA (fork's copies and split halves too) is one shm_nattch. */
static void shm_open(struct vm_area_struct *vma)
{
	struct shmid_kernel *shp = vma->vm_file->private_data;

	filemap_vma_open(vma);
	shp->nattch++;
	shp->atim = current_time().tv_sec;
	shp->lprid = current->pid;
}

static void shm_close(struct vm_area_struct *vma)
{
	struct shmid_kernel *shp = vma->vm_file->private_data;

	shp->nattch--;
	shp->dtim = current_time().tv_sec;
	shp->lprid = current->pid;
	filemap_vma_close(vma);
	if (!shp->nattch && (shp->perm.mode & SHM_DEST))
		shm_destroy(shp);
}

static const struct vm_operations_struct shm_vm_ops = {
	.open = shm_open,
	.close = shm_close,
	.fault = shmem_fault,
	.name = "sysv-shm",
};

/* An attach's file maps as shmem does, with the counting ops. */
static int shm_mmap(struct file *file, struct vm_area_struct *vma)
{
	int err = shmem_mmap(file, vma);

	vma->vm_ops = &shm_vm_ops;
	vma->vm_flags &= ~VM_CAN_NONLINEAR;
	return err;
}

static const struct file_operations shm_file_operations = {
	.mmap = shm_mmap,
};

/* A new segment of size bytes under key, with mode's permission bits: its id or -errno. */
static long newseg(int32_t key, uint64_t size, unsigned int mode)
{
	unsigned long pages = ALIGN_UP(size, PAGE_SIZE) >> PAGE_SHIFT;
	struct shmid_kernel *shp;
	char name[16];
	bool noreserve;
	int idx;

	if (size < SHMMIN || size > SHMMAX)
		return -EINVAL;
	if (shm_tot + pages < shm_tot || shm_tot + pages > SHMALL)
		return -ENOSPC;
	for (idx = 0; idx < SHMMNI && shm_segs[idx]; idx++)
		;
	if (idx == SHMMNI)
		return -ENOSPC;
	shp = kzalloc(sizeof(*shp));
	if (!shp)
		return -ENOMEM;
	snprintf(name, sizeof(name), "SYSV%08x", (unsigned int)key);
	/* SHM_NORESERVE is honoured unless the overcommit policy is strict (Linux's newseg). */
	noreserve = (mode & SHM_NORESERVE) &&
		    READ_ONCE(sysctl_overcommit_memory) != OVERCOMMIT_NEVER;
	shp->shm_file = shmem_file_setup(name, size, noreserve ? VM_NORESERVE : 0);
	if (!shp->shm_file) {
		kfree(shp);
		return -ENOMEM;
	}
	shp->perm.key = key;
	shp->perm.uid = shp->perm.cuid = 0;
	shp->perm.gid = shp->perm.cgid = 0;
	shp->perm.mode = mode & 0777;
	shp->perm.seq = shm_seq++ % (0x7fffffff / SEQ_MULTIPLIER);
	shp->segsz = size;
	shp->ctim = current_time().tv_sec;
	shp->cprid = current->pid;
	shm_segs[idx] = shp;
	shm_tot += pages;
	return shm_id(idx);
}

/* The segment of key (IPC_PRIVATE: always a new one) of at least size bytes: its id. */
long sys_shmget(int64_t key, uint64_t size, uint64_t shmflg)
{
	int32_t k = (int32_t)key;
	int idx;

	if (k == IPC_PRIVATE)
		return newseg(k, size, (unsigned int)shmflg);
	for (idx = 0; idx < SHMMNI; idx++)
		if (shm_segs[idx] && shm_segs[idx]->perm.key == k)
			break;
	if (idx == SHMMNI)
		return (shmflg & IPC_CREAT) ? newseg(k, size, (unsigned int)shmflg) : -ENOENT;
	if ((shmflg & IPC_CREAT) && (shmflg & IPC_EXCL))
		return -EEXIST;
	if (shm_segs[idx]->segsz < size)
		return -EINVAL;
	return shm_id(idx);
}

static long do_shmat_locked(int64_t shmid, uint64_t addr, uint64_t shmflg)
{
	struct shmid_kernel *shp = shm_lock(shmid);
	uint64_t prot = PROT_READ, flags = MAP_SHARED, len;
	unsigned int oflags = O_RDONLY;
	struct file *file;
	long ret;

	if (!shp)
		return -EINVAL;
	if (addr) {
		if (addr & (SHMLBA - 1)) {
			if (!(shmflg & SHM_RND))
				return -EINVAL;
			addr &= ~(SHMLBA - 1);
			if (!addr && (shmflg & SHM_REMAP))
				return -EINVAL;
		}
		flags |= MAP_FIXED;
	} else if (shmflg & SHM_REMAP) {
		return -EINVAL;
	}
	if (!(shmflg & SHM_RDONLY)) {
		prot |= PROT_WRITE;
		oflags = O_RDWR;
	}
	if (shmflg & SHM_EXEC)
		prot |= PROT_EXEC;
	len = ALIGN_UP(shp->segsz, PAGE_SIZE);
	if (addr && !(shmflg & SHM_REMAP) &&
	    (addr + len < addr || find_vma_intersection(current->mm, addr, addr + len)))
		return -EINVAL;
	ret = dentry_open(shp->shm_file->f_inode, oflags, &file);
	if (ret)
		return ret;
	file->f_op = &shm_file_operations;
	file->private_data = shp;
	/* The segment lives while attached, even if removed meanwhile (the VMAs hold it). */
	ret = do_mmap(current->mm, file, addr, len, prot, flags, 0);
	fput(file); /* the VMA's open took its own reference */
	return ret;
}

/* Map segment shmid at addr (0: where there is room): the address. The call above with
 * current->mm's mmap_sem held for writing (it changes VMAs and touches no user memory). */
long sys_shmat(int64_t shmid, uint64_t addr, uint64_t shmflg)
{
	struct rw_semaphore *sem = &current->mm->mmap_sem;
	long ret;

	down_write(sem);
	ret = do_shmat_locked(shmid, addr, shmflg);
	up_write(sem);
	return ret;
}

static long do_shmdt_locked(uint64_t addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = find_vma(mm, addr), *next;
	struct inode *seg = NULL;
	uint64_t end = 0;

	if (addr & ~PAGE_MASK)
		return -EINVAL;
	/* The attach starting at addr, then every piece of the same segment up to its size
	 * (mprotect or munmap may have split it), as Linux's shmdt. */
	for (; vma; vma = next) {
		next = vma_next(mm, vma);
		if (vma->vm_ops != &shm_vm_ops)
			continue;
		if (!seg) {
			if (vma->vm_start != addr || vma->vm_pgoff != 0)
				continue;
			seg = vma->vm_file->f_inode;
			end = addr + ALIGN_UP(seg->i_size, PAGE_SIZE);
		}
		if (vma->vm_start >= end)
			break;
		if (vma->vm_file->f_inode == seg &&
		    (vma->vm_start - addr) >> PAGE_SHIFT == vma->vm_pgoff)
			do_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start);
	}
	return seg ? 0 : -EINVAL;
}

/* Unmap the attach that starts at addr: 0 or -EINVAL. The call above with current->mm's
 * mmap_sem held for writing (it changes VMAs and touches no user memory). */
long sys_shmdt(uint64_t addr)
{
	struct rw_semaphore *sem = &current->mm->mmap_sem;
	long ret;

	down_write(sem);
	ret = do_shmdt_locked(addr);
	up_write(sem);
	return ret;
}

static void fill_stat(struct shmid_kernel *shp, struct shmid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ds->shm_perm = shp->perm;
	ds->shm_segsz = shp->segsz;
	ds->shm_atime = shp->atim;
	ds->shm_dtime = shp->dtim;
	ds->shm_ctime = shp->ctim;
	ds->shm_cpid = shp->cprid;
	ds->shm_lpid = shp->lprid;
	ds->shm_nattch = shp->nattch;
}

/* IPC_INFO and SHM_INFO: the limits, and what is in use; both return the highest index used. */
static long shm_info(int cmd, uint64_t ubuf)
{
	int max = -1, used = 0;
	uint64_t rss = 0;

	for (int i = 0; i < SHMMNI; i++)
		if (shm_segs[i]) {
			max = i;
			used++;
			rss += shm_segs[i]->shm_file->f_inode->i_mapping->nrpages;
		}
	if (cmd == IPC_INFO) {
		struct shminfo64 in = { .shmmax = SHMMAX,
					.shmmin = SHMMIN,
					.shmmni = SHMMNI,
					.shmseg = SHMMNI,
					.shmall = SHMALL };

		if (copy_to_user(ubuf, &in, sizeof(in)))
			return -EFAULT;
	} else {
		struct shm_info in = { .used_ids = used, .shm_tot = shm_tot, .shm_rss = rss };

		if (copy_to_user(ubuf, &in, sizeof(in)))
			return -EFAULT;
	}
	return max < 0 ? 0 : max;
}

/* IPC_STAT, IPC_SET, IPC_RMID, IPC_INFO, SHM_INFO, SHM_STAT(_ANY) on a segment. */
long sys_shmctl(int64_t shmid, int64_t cmd, uint64_t ubuf)
{
	int id = (int)shmid, c = (int)cmd;
	struct shmid_kernel *shp;
	struct shmid64_ds ds;

	if (c < 0 || id < 0)
		return -EINVAL;
	if (c == IPC_INFO || c == SHM_INFO)
		return shm_info(c, ubuf);
	if (c == SHM_STAT || c == SHM_STAT_ANY) { /* by index; every process is root */
		if (id >= SHMMNI || !shm_segs[id])
			return -EINVAL;
		fill_stat(shm_segs[id], &ds);
		return copy_to_user(ubuf, &ds, sizeof(ds)) ? -EFAULT : shm_id(id);
	}
	if (c != IPC_STAT && c != IPC_SET && c != IPC_RMID)
		return -EINVAL;
	shp = shm_lock(id);
	if (!shp)
		return -EINVAL;
	switch (c) {
	case IPC_STAT:
		fill_stat(shp, &ds);
		return copy_to_user(ubuf, &ds, sizeof(ds)) ? -EFAULT : 0;
	case IPC_SET:
		if (copy_from_user(&ds, ubuf, sizeof(ds)))
			return -EFAULT;
		shp->perm.uid = ds.shm_perm.uid;
		shp->perm.gid = ds.shm_perm.gid;
		shp->perm.mode = (shp->perm.mode & ~0777U) | (ds.shm_perm.mode & 0777);
		shp->ctim = current_time().tv_sec;
		return 0;
	}
	/* IPC_RMID: the key goes now (shmget no longer finds it), the segment with its last
	 * attach. */
	shp->perm.key = IPC_PRIVATE;
	shp->perm.mode |= SHM_DEST;
	if (!shp->nattch)
		shm_destroy(shp);
	return 0;
}
