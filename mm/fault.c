/* do_page_fault: the #PF handler. For now it only tells an expected self-test fault from a
 * kernel bug; the VMA issue turns it into Linux's find_vma -> handle_mm_fault path. */
#include "kernel/panic.h"
#include "mm/fault.h"

void do_page_fault(struct pt_regs *regs, uint64_t address)
{
	(void)address;
	if (!(regs->cs & 3) && fault_catch_handle(regs))
		return;
	die(regs, "page fault (#PF)");
}
