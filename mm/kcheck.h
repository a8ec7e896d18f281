/* kcheck (mm/kcheck.c): verify struct page counts against every page table. */
#ifndef MM_KCHECK_H
#define MM_KCHECK_H

/* Check everything; print one summary line (and the first mismatches). Returns mismatches. */
unsigned long kcheck(void);
struct mm_struct;
struct vm_area_struct;
/* With the kcheck parameter: check the reverse map of mm, which is about to be torn down (its
 * mmap_sem held), counting mismatches for the next kcheck(). Programs have ended by the time
 * kcheck() runs; this sees each address space in the state its last task left it. */
void kcheck_mm(struct mm_struct *mm);
/* The same for one VMA that munmap is about to remove. */
void kcheck_vma(struct vm_area_struct *vma);

#endif
