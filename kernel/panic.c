/* panic(), die(), register dumps and frame-pointer backtraces. Everything here must work on a
 * broken kernel: no allocation, polling consoles only, every pointer checked before use. */
#include "kernel/arch/smp.h"
#include "kernel/arch/x86.h"
#include "kernel/bug.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "mm/mm_init.h"

bool qemu_exit_enabled;
volatile bool oops_in_progress;
static int panic_depth;

void qemu_exit(int code)
{
	if (qemu_exit_enabled)
		outl(0xf4, (uint32_t)code);
}

void panic_begin(void)
{
	local_irq_disable();
	oops_in_progress = true;
	if (panic_depth == 0)
		smp_send_stop(); /* the other CPUs halt: only this one prints */
	if (++panic_depth > 1) {
		/* Something in the panic path itself faulted: say so and stop for good. */
		printk("\n*** nested panic: giving up\n");
		qemu_exit(QEMU_EXIT_PANIC);
		for (;;)
			halt();
	}
}

void __noreturn panic_end(void)
{
	printk("*** faultline halted.\n");
	qemu_exit(QEMU_EXIT_PANIC);
	for (;;) {
		local_irq_disable();
		halt();
	}
}

static void print_sym(uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);

	if (name)
		printk(" <%s+0x%lx>", name, off);
}

/* Walk the chain of saved frame pointers: each frame holds [rbp] = caller's rbp and
 * [rbp+8] = return address. kernel/arch/entry.S and boot.S zero rbp, which ends the walk.
 * gcc gives leaf functions no frame even with -fno-omit-frame-pointer, so a fault inside
 * one would hide its caller; when rsp is known, the word at the top of the stack is shown
 * (marked '?', as Linux does) if it is a text address the frame chain does not explain. */
void show_backtrace(uint64_t rip, uint64_t rbp, uint64_t rsp)
{
	printk("Call Trace:\n");
	printk("  [<%016lx>]", rip);
	print_sym(rip);
	printk("\n");
	if (rsp && !(rsp & 7) && kernel_addr_mapped(rsp)) {
		uint64_t top = *(uint64_t *)rsp, off;
		bool chained = rbp && kernel_addr_mapped(rbp + 8) && !(rbp & 7) &&
			       ((uint64_t *)rbp)[1] == top;

		if (ksym_lookup(top, &off) && !chained) {
			printk("  [<%016lx>] ?", top);
			print_sym(top);
			printk("\n");
		}
	}
	for (int depth = 0; rbp && depth < 32; depth++) {
		if ((rbp & 7) || rbp < 0xffff800000000000UL || !kernel_addr_mapped(rbp) ||
		    !kernel_addr_mapped(rbp + 8)) {
			printk("  (frame pointer %016lx is not a kernel stack address: stop)\n",
			       rbp);
			break;
		}
		uint64_t *frame = (uint64_t *)rbp;
		uint64_t ret = frame[1];

		if (!ret)
			break;
		printk("  [<%016lx>]", ret);
		print_sym(ret);
		printk("\n");
		rbp = frame[0];
	}
}

static uint64_t read_cr3_raw(void)
{
	uint64_t v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

void show_regs(const struct pt_regs *r)
{
	printk("RIP: %04lx:%016lx", r->cs, r->rip);
	print_sym(r->rip);
	printk("\nRSP: %04lx:%016lx  RFLAGS: %08lx  ERR: %lx\n", r->ss, r->rsp, r->rflags,
	       r->error_code);
	printk("RAX: %016lx RBX: %016lx RCX: %016lx\n", r->rax, r->rbx, r->rcx);
	printk("RDX: %016lx RSI: %016lx RDI: %016lx\n", r->rdx, r->rsi, r->rdi);
	printk("RBP: %016lx R8:  %016lx R9:  %016lx\n", r->rbp, r->r8, r->r9);
	printk("R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11, r->r12);
	printk("R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	printk("CR0: %016lx CR2: %016lx CR3: %016lx CR4: %016lx\n", read_cr0(), read_cr2(),
	       read_cr3_raw(), read_cr4());
	show_backtrace(r->rip, r->rbp, r->rsp);
}

/* BUG()'s layout (kernel/bug.h): ud2 (0f 0b), the line as 16 bits, the file's address. */
bool find_bug(uint64_t rip, const char **file, unsigned int *line)
{
	const uint8_t *ip = (const uint8_t *)rip;

	if (rip < 0xffff800000000000UL || !kernel_addr_mapped(rip) ||
	    !kernel_addr_mapped(rip + 11) || ip[0] != 0x0f || ip[1] != 0x0b)
		return false;
	*line = *(const uint16_t *)(ip + 2);
	*file = *(const char *const *)(ip + 4);
	return kernel_addr_mapped((uint64_t)*file);
}

int tainted_mask;

void add_taint(unsigned int flag)
{
	__atomic_or_fetch(&tainted_mask, 1 << flag, __ATOMIC_RELAXED);
}

void warn_slowpath(const char *file, int line, const char *func)
{
	uint64_t rbp;

	add_taint(TAINT_WARN);
	printk("WARNING: at %s:%d %s()\n", file, line, func);
	asm volatile("mov %%rbp, %0" : "=r"(rbp));
	show_backtrace((uint64_t)__builtin_return_address(0), *(uint64_t *)rbp, 0);
}

void __noreturn die(const struct pt_regs *regs, const char *what)
{
	const char *file;
	unsigned int line;

	panic_begin();
	if (regs->vector == X86_TRAP_UD && !(regs->cs & 3) && find_bug(regs->rip, &file, &line))
		printk("\n*** kernel BUG at %s:%u!\n", file, line);
	else
		printk("\n*** kernel oops: %s, vector %lu, error code 0x%lx, in %s mode\n", what,
		       regs->vector, regs->error_code, (regs->cs & 3) ? "user" : "kernel");
	if (regs->vector == X86_TRAP_PF) {
		uint64_t e = regs->error_code;

		printk("*** CR2 (fault address) %016lx: %s, %s, %s%s%s\n", read_cr2(),
		       (e & PF_PROT) ? "protection violation" : "page not present",
		       (e & PF_WRITE) ? "write" : "read", (e & PF_USER) ? "user" : "kernel",
		       (e & PF_RSVD) ? ", reserved bit set" : "",
		       (e & PF_INSTR) ? ", instruction fetch" : "");
	}
	show_regs(regs);
	panic_end();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	uint64_t rbp;

	panic_begin();
	printk("\n*** kernel panic: ");
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	asm volatile("mov %%rbp, %0" : "=r"(rbp));
	show_backtrace((uint64_t)__builtin_return_address(0), *(uint64_t *)rbp, 0);
	panic_end();
}
