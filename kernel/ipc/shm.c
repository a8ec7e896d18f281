/* System V shared memory (shmget, shmat, shmdt, shmctl), as Linux's ipc/shm.c: a segment is
 * an unlinked shmem file; each attach is a MAP_SHARED mapping of it whose VMA open and close
 * count shm_nattch, so fork, exit and exec keep the count with no code of their own. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/ipc/shm.h"
#include "kernel/ipc/util.h"
#include "kernel/process/cred.h"
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

unsigned long shm_ctlmax = SHMMAX, shm_ctlall = SHMALL;
int shm_ctlmni = SHMMNI;

struct shmid_kernel *shm_segs[IPCMNI];
int shm_in_use, shm_max_idx = -1;
unsigned long shm_tot;
static uint16_t shm_seq; /* bumped per new segment: an old id does not name a new one */

int shm_id(const struct shmid_kernel *shp)
{
	return shp->idx + shp->perm.seq * SEQ_MULTIPLIER;
}

unsigned long shm_pages(const struct shmid_kernel *shp)
{
	return ALIGN_UP(shp->segsz, PAGE_SIZE) >> PAGE_SHIFT;
}

struct shmid_kernel *shm_lock(long id)
{
	struct shmid_kernel *shp;

	if (id < 0)
		return NULL;
	shp = shm_segs[id % SEQ_MULTIPLIER];
	if (!shp || shp->perm.seq != id / SEQ_MULTIPLIER)
		return NULL;
	return shp;
}

/* The segment is gone: its slot frees (and with it any SHM_LOCK's charge), its pages go with
 * the last reference to its inode. */
static void shm_destroy(struct shmid_kernel *shp)
{
	shm_segs[shp->idx] = NULL;
	shm_in_use--;
	while (shm_max_idx >= 0 && !shm_segs[shm_max_idx])
		shm_max_idx--;
	shm_tot -= shm_pages(shp);
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
	shp->lprid = current->tgid;
}

static void shm_close(struct vm_area_struct *vma)
{
	struct shmid_kernel *shp = vma->vm_file->private_data;

	shp->nattch--;
	shp->dtim = current_time().tv_sec;
	shp->lprid = current->tgid;
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

/* A new segment of size bytes under key, with mode's permission bits, owned and created by
 * current's effective ids: its id or -errno. Linux's limits: the size within [SHMMIN, shmmax],
 * the pages of all within shmall, the segments within shmmni. */
static long newseg(int32_t key, uint64_t size, unsigned int mode)
{
	unsigned long pages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	struct shmid_kernel *shp;
	char name[16];
	bool noreserve;
	int idx;

	if (size < SHMMIN || size > READ_ONCE(shm_ctlmax))
		return -EINVAL;
	if (pages << PAGE_SHIFT < size) /* the rounding wrapped */
		return -ENOSPC;
	if (shm_tot + pages < shm_tot || shm_tot + pages > READ_ONCE(shm_ctlall))
		return -ENOSPC;
	if (shm_in_use >= MIN(READ_ONCE(shm_ctlmni), IPCMNI))
		return -ENOSPC;
	for (idx = 0; shm_segs[idx]; idx++) /* a free one exists: in_use < IPCMNI */
		;
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
	shp->perm.uid = shp->perm.cuid = current->cred.euid;
	shp->perm.gid = shp->perm.cgid = current->cred.egid;
	shp->perm.mode = mode & 0777;
	shp->perm.seq = shm_seq++ % (0x7fffffff / SEQ_MULTIPLIER);
	shp->segsz = size;
	shp->ctim = current_time().tv_sec;
	shp->cprid = current->tgid;
	shp->idx = idx;
	shm_segs[idx] = shp;
	shm_in_use++;
	shm_max_idx = MAX(shm_max_idx, idx);
	shm_tot += pages;
	return shm_id(shp);
}

/* The segment of key (IPC_PRIVATE: always a new one) of at least size bytes: its id. An
 * existing one is the caller's if shmflg's permission bits are within what it grants (Linux's
 * ipcget_public: EEXIST, then the size, then EACCES). */
long sys_shmget(int64_t key, uint64_t size, uint64_t shmflg)
{
	int32_t k = (int32_t)key;
	struct shmid_kernel *shp = NULL;

	if (k == IPC_PRIVATE)
		return newseg(k, size, (unsigned int)shmflg);
	for (int idx = 0; idx <= shm_max_idx && !shp; idx++)
		if (shm_segs[idx] && shm_segs[idx]->perm.key == k)
			shp = shm_segs[idx];
	if (!shp)
		return (shmflg & IPC_CREAT) ? newseg(k, size, (unsigned int)shmflg) : -ENOENT;
	if ((shmflg & IPC_CREAT) && (shmflg & IPC_EXCL))
		return -EEXIST;
	if (shp->segsz < size)
		return -EINVAL;
	if (ipcperms(&shp->perm, (unsigned int)shmflg))
		return -EACCES;
	return shm_id(shp);
}

/* Linux's do_shmat, in its order: the id's sign, the address, the segment, the permission
 * the attach needs (read; write unless SHM_RDONLY; execute with SHM_EXEC), the room. */
static long do_shmat_locked(int64_t shmid, uint64_t addr, uint64_t shmflg)
{
	uint64_t prot = PROT_READ, flags = MAP_SHARED, len;
	unsigned int oflags = O_RDONLY, acc_mode = 0444;
	struct shmid_kernel *shp;
	struct file *file;
	long ret;

	if ((int)shmid < 0)
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
		acc_mode |= 0222;
	}
	if (shmflg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc_mode |= 0111;
	}
	shp = shm_lock((int)shmid);
	if (!shp)
		return -EINVAL;
	if (ipcperms(&shp->perm, acc_mode))
		return -EACCES;
	len = ALIGN_UP(shp->segsz, PAGE_SIZE);
	if (addr && !(shmflg & SHM_REMAP) &&
	    (addr + len < addr || find_vma_intersection(current->mm, addr, addr + len)))
		return -EINVAL;
	ret = dentry_open(shp->shm_file->f_dentry, oflags, &file);
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

void do_shm_rmid(struct shmid_kernel *shp)
{
	/* The key goes now (shmget no longer finds it), the segment with its last attach. */
	shp->perm.key = IPC_PRIVATE;
	shp->perm.mode |= SHM_DEST;
	if (!shp->nattch)
		shm_destroy(shp);
}
