/* Trap dispatch: the IDT, and the one C function every vector arrives in. Exceptions go to
 * their handlers (the page fault to do_page_fault), hardware interrupts to the handler
 * registered for their line, and anything unexpected ends in a readable panic. */
#include "kernel/bug.h"
#include "kernel/irq.h"
#include "kernel/panic.h"
#include "kernel/arch/smp.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/printk/printk.h"
#include "kernel/arch/segment.h"
#include "kernel/arch/trap.h"
#include "kernel/arch/cpu.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/arch/x86.h"
#include "mm/fault.h"
#include "mm/mm_init.h"

struct idt_entry {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t zero;
} __packed;

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __packed;

extern const uint64_t vector_entries[NR_VECTORS]; /* kernel/arch/entry.S */

static struct idt_entry idt[NR_VECTORS] __aligned(16);
static irq_handler_t irq_handlers[16];
static const struct irq_chip *irq_chip; /* NULL until drivers/pic.c sets the 8259 */
static irq_handler_t vector_handlers[NR_VECTORS]; /* the kernel's own vectors (APIC, IPIs) */

static const char *const exception_names[32] = {
	"divide error (#DE)", "debug (#DB)", "NMI", "breakpoint (#BP)", "overflow (#OF)",
	"bound range (#BR)", "invalid opcode (#UD)", "device not available (#NM)",
	"double fault (#DF)", "coprocessor segment overrun", "invalid TSS (#TS)",
	"segment not present (#NP)", "stack fault (#SS)", "general protection (#GP)",
	"page fault (#PF)", "reserved 15", "x87 FPU error (#MF)", "alignment check (#AC)",
	"machine check (#MC)", "SIMD FP exception (#XF)", "virtualization (#VE)",
	"control protection (#CP)",
};

const char *trap_name(uint64_t vector)
{
	if (vector < 32)
		return exception_names[vector] ? exception_names[vector] : "reserved exception";
	if (vector < IRQ_BASE + 16)
		return "hardware interrupt";
	return "software interrupt";
}

/* Point vector v at its stub. type 0x8e: present, ring 0 only, 64-bit interrupt gate
 * (interrupts stay off in the handler until it enables them). */
static void set_gate(int v, int ist, int dpl)
{
	uint64_t addr = vector_entries[v];

	idt[v] = (struct idt_entry){
		.offset_low = (uint16_t)addr,
		.selector = __KERNEL_CS,
		.ist = (uint8_t)ist,
		.type_attr = (uint8_t)(0x8e | (dpl << 5)),
		.offset_mid = (uint16_t)(addr >> 16),
		.offset_high = (uint32_t)(addr >> 32),
	};
}

void trap_load_idt(void)
{
	struct idt_ptr ptr = { sizeof(idt) - 1, (uint64_t)idt };

	asm volatile("lidt %0" : : "m"(ptr));
}

void trap_init(void)
{
	for (int v = 0; v < NR_VECTORS; v++)
		set_gate(v, 0, 0);
	set_gate(X86_TRAP_DF, IST_DF, 0);
	set_gate(X86_TRAP_NMI, IST_NMI, 0);
	set_gate(X86_TRAP_MC, IST_MC, 0);
	set_gate(X86_TRAP_BP, 0, 3); /* int3 is allowed from ring 3 */
	trap_load_idt();
}

void irq_register(int irq, irq_handler_t fn)
{
	irq_handlers[irq] = fn;
	if (irq_chip)
		irq_chip->unmask(irq);
}

void irq_set_chip(const struct irq_chip *chip)
{
	for (int irq = 0; irq < 16; irq++)
		if (irq_handlers[irq]) {
			if (irq_chip)
				irq_chip->mask(irq);
			chip->unmask(irq);
		}
	irq_chip = chip;
}

void set_vector_handler(int vector, irq_handler_t fn)
{
	BUG_ON(vector < IRQ_BASE + 16 || vector >= NR_VECTORS);
	vector_handlers[vector] = fn;
}

static void handle_irq(struct pt_regs *regs)
{
	int irq = (int)(regs->vector - IRQ_BASE);

	if (irq_chip->is_spurious(irq))
		return;
	if (irq_handlers[irq])
		irq_handlers[irq](regs);
	irq_chip->eoi(irq);
}

/* A double fault means the CPU could not deliver an exception. The usual cause in a kernel
 * is an overflowed stack: the page fault on the guard page cannot push its frame. */
static void __noreturn handle_double_fault(struct pt_regs *regs)
{
	bool overflow = !kernel_addr_mapped(regs->rsp - 8);

	panic_begin();
	printk("\n*** double fault (#DF), handled on its own IST stack\n");
	if (overflow)
		printk("*** kernel stack overflow: RSP %016lx points into an unmapped (guard) page\n",
		       regs->rsp);
	show_regs(regs);
	panic_end();
}

/* A signal for an exception in ring 3: signals are the big kernel lock's data. */
static void user_exception_locked(struct pt_regs *regs)
{
	lock_kernel();
	user_exception(regs);
	unlock_kernel();
}

void trap_dispatch(struct pt_regs *regs)
{
	uint64_t v = regs->vector;

	smap_clac(); /* a trap inside a user copy must not run with user access open */
	if (v == X86_TRAP_PF) /* the most frequent: tested first (docs/bench.md) */
		do_page_fault(regs, read_cr2());
	else if (v >= IRQ_BASE && v < IRQ_BASE + 16)
		handle_irq(regs);
	else if (v == X86_TRAP_NMI && smp_stop_requested())
		smp_stop_this_cpu(); /* another CPU panicked: reads no per-CPU data (GS) */
	else if (vector_handlers[v])
		vector_handlers[v](regs); /* it acknowledges its interrupt itself */
	else if (v == X86_TRAP_DF)
		handle_double_fault(regs);
	else if (regs->cs & 3) {
		local_irq_enable(); /* ring 3 ran with them on (Linux's cond_local_irq_enable) */
		user_exception_locked(regs);
	}
	else if (!fault_catch_handle(regs))
		die(regs, trap_name(v));
	/* Back to ring 3 only through here: where a process is preempted or takes a signal. */
	if (regs->cs & 3)
		exit_to_user_mode_prepare(regs);
	local_irq_disable(); /* (a page fault turned them on) until iretq restores the flags */
}

/* The self-test fault catcher (kernel/arch/entry.S): resume at fault_catch_resume, which unwinds
 * to fault_catch_call's caller with the value 1. */
extern uint64_t fault_catch_armed;
extern struct fault_catch *fault_catch_fc;
extern char fault_catch_resume[];

bool fault_catch_handle(struct pt_regs *regs)
{
	if (!fault_catch_armed)
		return false;
	fault_catch_armed = 0;
	fault_catch_fc->vector = regs->vector;
	fault_catch_fc->error_code = regs->error_code;
	fault_catch_fc->cr2 = regs->vector == X86_TRAP_PF ? read_cr2() : 0;
	fault_catch_fc->rip = regs->rip;
	regs->rip = (uint64_t)fault_catch_resume;
	return true;
}
