/* do_page_fault: the #PF handler. Until the VMA issue adds Linux's find_vma ->
 * handle_mm_fault path, a user fault is fatal to the program, a kernel fault on a user address
 * inside copy_{from,to}_user returns -EFAULT, and any other kernel fault is a bug. */
#include "kernel/panic.h"
#include "kernel/uaccess.h"
#include "kernel/signal.h"
#include "mm/fault.h"

void do_page_fault(struct pt_regs *regs, uint64_t address)
{
	uint64_t fixup;

	if (regs->cs & 3) {
		user_fault(regs, address);
		return;
	}
	/* A bad user pointer inside copy_from_user/copy_to_user: make the copy return -EFAULT. */
	fixup = search_exception_tables(regs->rip);
	if (fixup && address < USER_TOP) {
		regs->rip = fixup;
		return;
	}
	if (fault_catch_handle(regs))
		return;
	die(regs, "page fault (#PF)");
}
