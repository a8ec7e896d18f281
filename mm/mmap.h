/* The kernel-internal forms of the address-space system calls (mm/mmap.c, mm/mprotect.c). */
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
#define MAP_NORESERVE 0x4000 /* no commit charged (unless vm.overcommit_memory is 2) */
#define MAP_POPULATE 0x8000
#define MAP_SHARED_VALIDATE 0x03 /* MAP_SHARED that refuses flags it does not know */
#define MAP_TYPE 0x0f		 /* the bits that say shared or private */
#define MAP_32BIT 0x40		 /* in [MAP_32BIT_LOW, MAP_32BIT_HIGH) */
#define MAP_DENYWRITE 0x800	 /* ignored, as Linux ignores it */
#define MAP_EXECUTABLE 0x1000	 /* ignored */
#define MAP_NONBLOCK 0x10000	 /* ignored */
#define MAP_STACK 0x20000	 /* ignored: faultline has no huge pages to avoid */
#define MAP_HUGETLB 0x40000
#define MAP_UNINITIALIZED 0x4000000
#define MAP_FIXED_NOREPLACE 0x100000 /* MAP_FIXED, but -EEXIST rather than replacing */
/* The flags MAP_SHARED_VALIDATE accepts (Linux's LEGACY_MAP_MASK). */
#define LEGACY_MAP_MASK                                                                     \
	(MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE | MAP_EXECUTABLE | \
	 MAP_UNINITIALIZED | MAP_GROWSDOWN | MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE |        \
	 MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB)
#define MAP_32BIT_LOW 0x40000000UL
#define MAP_32BIT_HIGH 0x80000000UL
#define PROT_SEM 0x8		      /* accepted, means nothing on x86 */
#define PROT_GROWSDOWN 0x01000000 /* mprotect: extend the range down to the VMA's start */
#define PROT_GROWSUP 0x02000000	  /* mprotect: no VMA grows up on x86: -EINVAL */

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
/* Fault in every page of [start, end) inside vma now (MAP_POPULATE, mlock, madvise's
 * POPULATE); nothing for a VMA that allows no access. 0 or -ENOMEM. */
int make_pages_present(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t start,
		       uint64_t end);
/* A free range of len bytes: at addr if it is free there, else the highest gap below
 * mmap_base (top-down, as Linux lays out x86-64 processes). 0 when there is none. */
uint64_t get_unmapped_area(struct mm_struct *mm, uint64_t addr, uint64_t len);
/* Remove every mapping in [start, start + len): 0 or -EINVAL / -ENOMEM. */
long do_munmap(struct mm_struct *mm, uint64_t start, uint64_t len);
/* Unmap everything below USER_TOP and free the page-table pages (the last user of mm went). */
void exit_mmap(struct mm_struct *mm);

/* mremap(2) on mm (mmap_sem held for writing): the new address or -errno (mm/mremap.c). */
long do_mremap(struct mm_struct *mm, uint64_t addr, uint64_t old_len, uint64_t new_len,
	       uint64_t flags, uint64_t new_addr);

#endif
