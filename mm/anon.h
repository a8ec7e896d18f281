/* Anonymous memory (mm/anon.c): the shared zero page and do_anonymous_page. */
#ifndef MM_ANON_H
#define MM_ANON_H

#include "mm/page.h"
#include "mm/pgtable.h"

struct mm_struct;
struct vm_area_struct;

extern struct page *zero_page; /* one frame of zeroes, mapped read-only wherever read */

void anon_init(void);
/* First touch of an anonymous page: a read maps the zero page read-only, a write a new zeroed
 * page, writable. VM_FAULT_MINOR or VM_FAULT_OOM. */
int do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		      pte_t *pte, bool write);

#endif
