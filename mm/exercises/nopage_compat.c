/* Lab nopage_compat (docs/exercises.md): __do_fault's branch for a legacy nopage() op. Built in
 * by `make EXERCISE=nopage_compat`, it replaces the real do_nopage in mm/memory.c. */
#include "mm/memory.h"
#include "mm/vma.h"

int do_nopage(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	/* Call nopage() and turn its answer into what fault() would have said (the page in
	 * vmf->page, unlocked). As it is, every legacy fault is a SIGBUS. */
	(void)vma;
	(void)vmf;
	return VM_FAULT_SIGBUS;
}
