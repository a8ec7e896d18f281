/* Address-space system calls (mm/mmap.c, mm/mprotect.c) and their kernel-internal forms. */
#ifndef MM_MMAP_H
#define MM_MMAP_H

#include "kernel/compiler.h"

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_GROWSDOWN 0x100
#define MAP_LOCKED 0x2000    /* mlock the mapping: its pages faulted in at once */
#define MAP_NORESERVE 0x4000 /* accepted: faultline never reserves memory ahead */
#define MAP_POPULATE 0x8000

struct mm_struct;
struct file;
struct vm_area_struct;

/* Below this no mapping is made and no stack grows (mm/mmap.c). */
extern const unsigned long mmap_min_addr;

/* VM_* flags for a mapping made with these PROT_* and MAP_* bits. */
unsigned long calc_vm_flags(uint64_t prot, uint64_t flags);
/* Map len bytes (of file from page pgoff, or anonymous if file is NULL) into mm: at addr
 * with MAP_FIXED (replacing what was there), else where there is room. Returns the address
 * or -errno. The VMA takes its own reference on file. */
long do_mmap(struct mm_struct *mm, struct file *file, uint64_t addr, uint64_t len,
	     uint64_t prot, uint64_t flags, uint64_t pgoff);
/* Fault in every page of [start, end) inside vma now (MAP_POPULATE, shared anonymous
 * memory); nothing for a VMA that allows no access. 0 or -ENOMEM. */
int make_pages_present(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t start,
		       uint64_t end);
/* A free range of len bytes: at addr if it is free there, else the highest gap below
 * mmap_base (top-down, as Linux lays out x86-64 processes). 0 when there is none. */
uint64_t get_unmapped_area(struct mm_struct *mm, uint64_t addr, uint64_t len);
/* Remove every mapping in [start, start + len): 0 or -EINVAL / -ENOMEM. */
long do_munmap(struct mm_struct *mm, uint64_t start, uint64_t len);

long sys_brk(uint64_t addr);
long sys_mmap(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, int64_t fd,
	      uint64_t off);
long sys_munmap(uint64_t addr, uint64_t len);
long sys_mprotect(uint64_t addr, uint64_t len, uint64_t prot);
long sys_mremap(uint64_t addr, uint64_t old_len, uint64_t new_len, uint64_t flags,
		uint64_t new_addr);
long sys_remap_file_pages(uint64_t start, uint64_t size, uint64_t prot, uint64_t pgoff,
			  uint64_t flags);

#endif
