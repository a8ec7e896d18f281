/* memfd_create and file seals (mm/memfd.c): the checks tmpfs (mm/shmem.c) asks before a
 * write, a size change, a chmod or a shared mapping, and fcntl's F_ADD_SEALS/F_GET_SEALS. */
#ifndef MM_MEMFD_H
#define MM_MEMFD_H

#include "kernel/fs/fs.h"

#define F_SEAL_SEAL 0x0001	   /* no more seals */
#define F_SEAL_SHRINK 0x0002	   /* the size may not go down */
#define F_SEAL_GROW 0x0004	   /* nor up */
#define F_SEAL_WRITE 0x0008	   /* the contents are fixed */
#define F_SEAL_FUTURE_WRITE 0x0010 /* fixed for new writes and mappings; old ones go on */
#define F_SEAL_EXEC 0x0020	   /* the exec bits are fixed */

#define F_ADD_SEALS 1033 /* fcntl's commands */
#define F_GET_SEALS 1034

struct vm_area_struct;

/* The seals of a tmpfs inode (F_SEAL_SEAL for one memfd_create did not make sealable). */
unsigned int memfd_seals(const struct inode *inode);
/* fcntl's F_ADD_SEALS and F_GET_SEALS on f: the seals, 0 or -errno (-EINVAL: not tmpfs). */
long memfd_fcntl(struct file *f, uint64_t cmd, uint64_t arg);
/* A write of *n bytes at pos: -EPERM, or 0 with *n cut to what F_SEAL_GROW allows. */
long memfd_write_check(struct inode *inode, uint64_t pos, uint64_t *n);
/* A new mapping: -EPERM for a shared writable one of a write-sealed file; a shared read-only
 * one loses VM_MAYWRITE. */
int memfd_mmap_check(struct inode *inode, struct vm_area_struct *vma);
/* tmpfs's setattr: a size or mode change the seals forbid is -EPERM. */
int memfd_setattr(struct inode *inode, const struct iattr *attr);

#endif
