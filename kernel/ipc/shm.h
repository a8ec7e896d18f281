/* System V shared memory (kernel/ipc/shm.c): the four system calls. */
#ifndef KERNEL_IPC_SHM_H
#define KERNEL_IPC_SHM_H

#include <stdint.h>

/* The segment of key (IPC_PRIVATE: always a new one) of at least size bytes: its id. */
long sys_shmget(int64_t key, uint64_t size, uint64_t shmflg);
/* Map segment shmid at addr (0: where there is room): the address. */
long sys_shmat(int64_t shmid, uint64_t addr, uint64_t shmflg);
/* Unmap the attach that starts at addr: 0 or -EINVAL. */
long sys_shmdt(uint64_t addr);
/* IPC_STAT, IPC_SET, IPC_RMID, IPC_INFO, SHM_INFO, SHM_STAT(_ANY) on a segment. */
long sys_shmctl(int64_t shmid, int64_t cmd, uint64_t ubuf);

#endif
