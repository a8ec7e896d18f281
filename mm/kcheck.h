/* kcheck (mm/kcheck.c): verify struct page counts against every page table. */
#ifndef MM_KCHECK_H
#define MM_KCHECK_H

/* Check everything; print one summary line (and the first mismatches). Returns mismatches. */
unsigned long kcheck(void);

#endif
