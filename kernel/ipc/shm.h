/* System V shared memory inside kernel/ipc/: a segment (struct shmid_kernel), the table of
 * them that shm.c (shmget, shmat, shmdt) and shmctl.c (shmctl, /proc/sysvipc/shm) share, and
 * the limits /proc/sys/kernel/ sets (shmmax, shmall, shmmni). */
#ifndef KERNEL_IPC_SHM_H
#define KERNEL_IPC_SHM_H

#include "kernel/ipc/util.h"
#include "kernel/process/cred.h"

#define IPC_PRIVATE  0
#define IPC_CREAT    01000
#define IPC_EXCL     02000
#define IPC_RMID     0
#define IPC_SET	     1
#define IPC_STAT     2
#define IPC_INFO     3
#define SHM_LOCK     11
#define SHM_UNLOCK   12
#define SHM_STAT     13
#define SHM_INFO     14
#define SHM_STAT_ANY 15
#define SHM_NORESERVE 010000 /* shmget: reserve nothing for it */
#define SHM_RDONLY   010000
#define SHM_RND	     020000
#define SHM_REMAP    040000
#define SHM_EXEC     0100000
#define SHM_DEST     01000 /* in shm_perm.mode: removed, destroyed with its last attach */
#define SHM_LOCKED   02000 /* in shm_perm.mode: SHM_LOCK holds its pages in memory */

#define SHMMIN	       1UL
#define SHMMAX	       (~0UL - (1UL << 24)) /* Linux's default limits */
#define SHMALL	       (~0UL - (1UL << 24))
#define SHMMNI	       4096
#define SHMLBA	       PAGE_SIZE
#define SEQ_MULTIPLIER IPCMNI

/* /proc/sys/kernel/shmmax (bytes), shmall (pages of all segments) and shmmni (segments) */
extern unsigned long shm_ctlmax, shm_ctlall;
extern int shm_ctlmni;

struct file;

/* One segment: its permissions, its times and pids, and the shmem file holding its pages. */
struct shmid_kernel {
	struct ipc64_perm perm;
	struct file *shm_file;
	uint64_t segsz;
	int64_t atim, dtim, ctim;
	int cprid, lprid;
	unsigned long nattch;
	int idx;	 /* its slot in shm_segs */
	uid_t mlock_uid; /* SHM_LOCKED: the real uid whose RLIMIT_MEMLOCK its pages count in */
};

/* The segments by slot; how many there are, the highest slot in use (-1: none) and their
 * pages (against shmall). */
extern struct shmid_kernel *shm_segs[IPCMNI];
extern int shm_in_use, shm_max_idx;
extern unsigned long shm_tot;

/* The segment id names (its slot and sequence number), or NULL. */
struct shmid_kernel *shm_lock(long id);
/* The id of a segment, and its size in pages. */
int shm_id(const struct shmid_kernel *shp);
unsigned long shm_pages(const struct shmid_kernel *shp);
/* IPC_RMID's end: the segment leaves the table now; it is freed with its last attach. */
void do_shm_rmid(struct shmid_kernel *shp);

#endif
