/* do_page_fault: the #PF handler, in the order Linux 2.6.23's arch/x86_64/mm/fault.c checks
 * things: which address, which VMA (growing a stack if that is what it is), whether the access
 * is allowed, then handle_mm_fault, then what its VM_FAULT_* bits mean for the process. */
#include "kernel/lib/cmdline.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/arch/uaccess.h"
#include "kernel/locking/smp_lock.h"
#include "mm/fault.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/oom.h"
#include "mm/rmap.h"
#include "mm/vma.h"

static int faulttrace = -1; /* -1: not yet read from the command line */

bool faulttrace_enabled(void)
{
	if (faulttrace < 0)
		faulttrace = cmdline_has("faulttrace");
	return faulttrace;
}

void set_faulttrace(bool on)
{
	faulttrace = on;
}

const char *pf_bits(uint64_t e, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s %s%s%s", (e & PF_PROT) ? "protection" : "not-present",
		 (e & PF_WRITE) ? "write" : "read", (e & PF_USER) ? "user" : "kernel",
		 (e & PF_RSVD) ? " reserved-bit" : "", (e & PF_INSTR) ? " fetch" : "");
	return buf;
}

struct fault_record fault_ring[FAULT_RING_SIZE];
uint64_t fault_ring_next; /* records ever written; the newest is at (next - 1) % size */

/* The faulttrace line for the fault r records, if the parameter is on (the first call reads
 * the command line). From the record, noinline and called last: computed in trace_fault,
 * printk's arguments made it save five registers (two now) and set up a stack buffer on
 * every fault, traced or not (docs/bench.md, "Design choices, measured"). */
static __attribute__((noinline, cold)) void print_fault(const struct fault_record *r)
{
	int ret = r->result;
	char bits[64];

	if (!faulttrace_enabled())
		return;
	printk("faulttrace: pid %d (%s) addr %016lx pgoff %lu%s error 0x%lx (%s) vma %lx-%lx %s "
	       "-> 0x%x%s%s%s%s%s%s%s\n", r->pid, current->comm, r->address, r->pgoff,
	       r->nonlinear ? " (nonlinear, from the PTE)" : "", r->error,
	       pf_bits(r->error, bits, sizeof(bits)), r->vm_start, r->vm_end, r->op, ret,
	       ret < 0 ? " bad-area" : "", (ret > 0 && (ret & VM_FAULT_MAJOR)) ? " MAJOR" : "",
	       (ret > 0 && (ret & VM_FAULT_WRITE)) ? " WRITE" : "",
	       (ret > 0 && (ret & VM_FAULT_OOM)) ? " OOM" : "",
	       (ret > 0 && (ret & VM_FAULT_SIGBUS)) ? " SIGBUS" : "",
	       (ret > 0 && (ret & VM_FAULT_NOPAGE)) ? " NOPAGE" : "",
	       (ret > 0 && (ret & VM_FAULT_RETRY)) ? " RETRY" : "");
}

/* Every fault goes into the ring (the gdb helper `faults` and fl_vminfo read it); with the
 * faulttrace parameter it is also printed. vmf is what handle_mm_fault worked out (the page
 * of the file, and whether it came from a file PTE), NULL when no fault was handled. */
static void trace_fault(struct vm_area_struct *vma, uint64_t address, uint64_t error, int ret,
			const struct vm_fault *vmf)
{
	struct fault_record *r = &fault_ring[fault_ring_next++ % FAULT_RING_SIZE];
	bool nonlinear = vmf && (vmf->flags & FAULT_FLAG_NONLINEAR);
	unsigned long pgoff = 0;

	if (vmf)
		pgoff = vmf->pgoff;
	else if (vma)
		pgoff = linear_page_index(vma, ALIGN_DOWN(address, PAGE_SIZE));
	/* Field by field and the op's name by pointer: a struct literal is built and then copied,
	 * a string copied byte by byte, on every fault (docs/bench.md, "Design choices,
	 * measured"). */
	r->seq = fault_ring_next;
	r->pid = current->pid;
	r->address = address;
	r->pgoff = pgoff;
	r->error = error;
	r->vm_start = vma ? vma->vm_start : 0;
	r->vm_end = vma ? vma->vm_end : 0;
	r->result = ret;
	r->nonlinear = nonlinear;
	r->op = !vma ? "none" : vma->vm_ops ? vma->vm_ops->name : "anon";
	if (faulttrace) /* -1 (not read yet) too */
		print_fault(r);
}

/* Grow a VM_GROWSDOWN VMA down to cover address: never below mmap_min_addr (else a stack
 * just above it would make NULL a valid pointer), within the stack limit, and never closer
 * than the guard gap to the VMA below. 0, -EPERM or -ENOMEM. Faults hold mmap_sem only for
 * reading, so two threads may grow one stack at once: as 2.6.23, the VMA's anon_vma lock
 * (made first if need be) orders them, and keeps rmap walkers, which compute addresses from
 * vm_start and vm_pgoff, from seeing one changed without the other. */
int expand_stack(struct vm_area_struct *vma, uint64_t address)
{
	struct vm_area_struct *prev = vma_prev(vma->vm_mm, vma);
	uint64_t start = ALIGN_DOWN(address, PAGE_SIZE);
	int ret = 0;

	if (start < mmap_min_addr)
		return -EPERM;
	if (anon_vma_prepare(vma))
		return -ENOMEM;
	spin_lock(&vma->anon_vma->lock);
	if (start >= vma->vm_start) /* another thread grew it meanwhile */
		goto out;
	/* The growth is promised as it happens; as Linux's acct_stack_growth, even for a stack
	 * that is not VM_ACCOUNT (read-only, or MAP_NORESERVE), whose munmap gives none back. */
	if (vma->vm_end - start > STACK_LIMIT || (prev && prev->vm_end + STACK_GUARD_GAP > start) ||
	    security_vm_enough_memory_mm(vma->vm_mm,
					 (long)((vma->vm_start - start) >> PAGE_SHIFT))) {
		ret = -ENOMEM;
		goto out;
	}
	vma->vm_pgoff -= (vma->vm_start - start) >> PAGE_SHIFT;
	vma->vm_start = start; /* the tree is keyed by vm_end: nothing to re-sort */
out:
	spin_unlock(&vma->anon_vma->lock);
	return ret;
}

/* A kernel-mode fault the VM cannot satisfy: a uaccess routine returns -EFAULT, a self-test
 * expecting it resumes, anything else is a kernel bug. */
static void no_context(struct pt_regs *regs, uint64_t address)
{
	uint64_t fixup = search_exception_tables(regs->rip);

	if (fixup && address < USER_TOP) {
		regs->rip = fixup;
		return;
	}
	if (fault_catch_handle(regs))
		return;
	die(regs, "page fault (#PF)");
}

/* A bad access: SIGSEGV with si_code (SEGV_MAPERR: nothing mapped there; SEGV_ACCERR: the
 * VMA does not allow it) for user mode, with why in the report; an oops or a fixup for the
 * kernel. */
static void bad_area(struct pt_regs *regs, uint64_t address, int si_code, const char *why)
{
	char bits[64];

	if (!(regs->cs & 3)) {
		no_context(regs, address);
		return;
	}
	lock_kernel(); /* signals and the actions are the big kernel lock's data */
	if (unhandled_signal(SIGSEGV)) /* a handler gets siginfo instead of the report */
		printk("segfault: pid %d (%s): SIGSEGV (%s) at %016lx, rip %016lx, "
		       "error 0x%lx (%s)\n", current->pid, current->comm, why, address, regs->rip,
		       regs->error_code, pf_bits(regs->error_code, bits, sizeof(bits)));
	force_sig_fault(SIGSEGV, si_code, address);
	unlock_kernel();
}

void do_page_fault(struct pt_regs *regs, uint64_t address)
{
	uint64_t error = regs->error_code;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct vm_fault vmf;
	bool write = error & PF_WRITE;
	/* Only this caller may let the fault drop mmap_sem, sleep and come back (a userfaultfd's
	 * missing page): Linux 2.6.36's FAULT_FLAG_ALLOW_RETRY, with today's loop below. USER
	 * goes for a uaccess routine's fault, WRITE comes with the access check: set where those
	 * branches are taken anyway, they cost a fault no test of its own. */
	unsigned int flags = FAULT_FLAG_ALLOW_RETRY | FAULT_FLAG_USER;
	int ret;

	if (error & PF_RSVD) /* a reserved bit in a paging entry: our page tables are broken */
		die(regs, "page fault with a reserved bit set (corrupt page table)");
	/* The gate turned interrupts off; back on as the faulting code had them (2.6.23 does
	 * the same): a fault may wait for a lock whose holder waits for this CPU's answer to a
	 * TLB shootdown. CR2 is already read. */
	if (regs->rflags & X86_EFLAGS_IF)
		local_irq_enable();
	/* Kernel code touches user memory only inside the uaccess routines. */
	if (address >= USER_TOP || !mm ||
	    (!(regs->cs & 3) && !search_exception_tables(regs->rip))) {
		trace_fault(NULL, address, error, -1, NULL);
		if (regs->cs & 3)
			bad_area(regs, address, SEGV_MAPERR,
				 address >= USER_TOP ? "kernel address" : "no mm");
		else
			no_context(regs, address);
		return;
	}
	if (!(regs->cs & 3))
		flags = FAULT_FLAG_ALLOW_RETRY;

	/*
	 * mmap_sem for reading, as 2.6.23 (which tries first so that a kernel fault outside
	 * the uaccess routines never waits: those were sent away above). A uaccess fault in a
	 * system call that holds it for writing would wait for itself: down_read's slow path
	 * panics saying so (system calls copy user memory outside mmap_sem).
	 */
retry:
	down_read(&mm->mmap_sem);
	vma = find_vma(mm, address);
	if (!vma)
		goto bad_area_maperr;
	if (vma->vm_start > address) {
		if (!(vma->vm_flags & VM_GROWSDOWN))
			goto bad_area_maperr;
		/* An access far below the stack pointer is a wild pointer, not stack growth
		 * (Linux allows 64 KiB + 32 words below %rsp, for "enter" and "pusha"). */
		if ((regs->cs & 3) && address + 65536 + 32 * 8 < regs->rsp)
			goto bad_area_maperr;
		if (expand_stack(vma, address))
			goto bad_area_maperr;
	}

	/* The access must be one the VMA allows. */
	if (write) {
		if (!(vma->vm_flags & VM_WRITE))
			goto bad_area_accerr;
		flags |= FAULT_FLAG_WRITE;
	} else if ((error & PF_PROT) && !(error & PF_INSTR)) {
		goto bad_area_accerr; /* a read of a present page cannot fault */
	} else if (!(vma->vm_flags & (VM_READ | VM_EXEC | VM_WRITE))) {
		goto bad_area_accerr;
	}
	if ((error & PF_INSTR) && !(vma->vm_flags & VM_EXEC))
		goto bad_area_accerr; /* stricter than 2.6.23, which let NX alone catch it */

	ret = handle_mm_fault(mm, vma, address, flags, &vmf);
	/* (vmf.vma: NULL when the fault let go of mmap_sem meanwhile, and vma may be gone) */
	trace_fault(vmf.vma, address, error, ret, &vmf);
	up_read(&mm->mmap_sem);
	if (likely(!(ret & (VM_FAULT_ERROR | VM_FAULT_RETRY))))
		goto done;
	if (ret & VM_FAULT_RETRY) {
		/* Again from the start, unless a signal came: ring 3 takes it and then makes the
		 * access again (a kernel fault waits on unless it is fatal: handle_userfault). */
		if ((regs->cs & 3) && signal_pending(current))
			return;
		flags |= FAULT_FLAG_TRIED;
		goto retry;
	}
	if (ret & VM_FAULT_OOM) {
		/* The OOM killer picks the worst process and kills it (mm/oom_kill.c). A user
		 * fault is then retried: the instruction runs again on the way back to ring 3,
		 * unless this task was the victim. A uaccess fault still fails (-EFAULT) after
		 * memory was freed for the next try: Linux's allocator would have killed first. */
		pagefault_out_of_memory();
		if (!(regs->cs & 3))
			no_context(regs, address);
		return;
	}
	if (ret & VM_FAULT_SIGBUS) {
		if (!(regs->cs & 3)) {
			no_context(regs, address);
			return;
		}
		lock_kernel();
		if (unhandled_signal(SIGBUS))
			printk("sigbus: pid %d (%s): SIGBUS at %016lx, rip %016lx: no page "
			       "there in the file behind the mapping\n", current->pid,
			       current->comm, address, regs->rip);
		force_sig_fault(SIGBUS, BUS_ADRERR, address);
		unlock_kernel();
		return;
	}
done:
	/* The task's count only: /proc/vmstat's pgmajfault is counted where the disk was read
	 * (do_swap_page, filemap_fault), as in 2.6.23, so a major fault is counted there once. */
	if (ret & VM_FAULT_MAJOR)
		current->maj_flt++;
	else
		current->min_flt++;
	return;

bad_area_maperr:
	/* No VMA covers the address: find_vma's answer, if any, is the next one above it. */
	trace_fault(NULL, address, error, -1, NULL);
	up_read(&mm->mmap_sem);
	bad_area(regs, address, SEGV_MAPERR, "no mapping");
	return;
bad_area_accerr:
	trace_fault(vma, address, error, -1, NULL);
	up_read(&mm->mmap_sem);
	bad_area(regs, address, SEGV_ACCERR, "access not allowed");
}
