/* shmem and tmpfs (mm/shmem.c): files whose pages live only in their page cache, and the
 * unlinked ones behind shared anonymous memory and System V segments. */
#ifndef MM_SHMEM_H
#define MM_SHMEM_H

#include "kernel/fs/fs.h"
#include "mm/page.h"

struct vm_area_struct;
struct vm_fault;

extern const struct vm_operations_struct shmem_vm_ops;
extern const struct file_operations shmem_file_operations;

/* Register "tmpfs" and mount the internal instance the nameless files live in. */
void shmem_init(void);
/* Is mapping a tmpfs inode's page cache? (kcheck counts those pages.) */
bool shmem_mapping(const struct address_space *mapping);
/* Page index of inode, locked with a reference: cached, or new and zeroed. 0 or -ENOMEM. */
int shmem_getpage(struct inode *inode, unsigned long index, struct page **pagep);
/* The fault() op of shmem mappings: the page at vmf->pgoff, VM_FAULT_SIGBUS past i_size. */
int shmem_fault(struct vm_area_struct *vma, struct vm_fault *vmf);
/* A tmpfs file's mmap: shmem_vm_ops. */
int shmem_mmap(struct file *file, struct vm_area_struct *vma);
/* A new unlinked tmpfs file of size bytes, open read-write (one reference), or NULL (also
 * when the overcommit policy refuses its size: flags without VM_NORESERVE promise it all
 * until the file goes, mm/mman.h). */
struct file *shmem_file_setup(const char *name, uint64_t size, unsigned long flags);
/* Shared anonymous memory: vma becomes a mapping of a new unlinked tmpfs file as large as
 * itself, from offset 0. The VMA's file reference is the setup's (the caller's open takes
 * another, which do_mmap drops). 0 or -ENOMEM. */
int shmem_zero_setup(struct vm_area_struct *vma);

#endif
