/* The kernel's GDTs and TSSs, one of each per CPU. In long mode segments barely matter; the TSS
 * does: it holds the ring-0 stack for traps from user mode and the IST stacks for #DF, NMI and
 * #MC, which give those exceptions a known-good stack even when the current one has overflowed. */
#include "kernel/arch/percpu.h"
#include "kernel/arch/segment.h"
#include "kernel/compiler.h"
#include "kernel/lib/string.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __packed;

static uint64_t gdts[NR_CPUS][GDT_ENTRIES] __aligned(16);
static struct tss tsss[NR_CPUS] __aligned(16);
static uint8_t boot_ist_stacks[3][IST_STACK_SIZE] __aligned(16); /* the boot CPU's */

/* Code/data descriptor: flags in bits 52-55 (L=bit 53, D/B=bit 54, G=bit 55), access byte
 * in bits 40-47 (P, DPL, S, type). Base and limit are ignored in 64-bit mode. */
#define SEG(access, flags) (((uint64_t)(flags) << 52) | ((uint64_t)(access) << 40) | 0xffff | \
			    (0xfULL << 48))

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __packed;

void gdt_init(void)
{
	gdt_init_cpu(0, boot_ist_stacks[0]);
}

/*
 * Build and load CPU cpu's GDT and TSS; ist points at 3 * IST_STACK_SIZE bytes for its #DF,
 * NMI and #MC stacks. Its per-CPU area (GS) must already be set: the TSS is recorded there.
 */
void gdt_init_cpu(int cpu, void *ist)
{
	uint64_t *gdt = gdts[cpu];
	struct tss *tss = &tsss[cpu];
	uint64_t base = (uint64_t)tss;
	struct gdt_ptr ptr = { sizeof(gdts[0]) - 1, (uint64_t)gdt };
	uint8_t *stacks = ist;

	gdt[GDT_ENTRY_KERNEL_CS] = SEG(0x9a, 0xa); /* present, ring 0, code, L */
	gdt[GDT_ENTRY_KERNEL_DS] = SEG(0x92, 0xc); /* present, ring 0, data */
	gdt[GDT_ENTRY_USER32_CS] = SEG(0xfa, 0xc); /* ring 3 compat code (unused, for STAR) */
	gdt[GDT_ENTRY_USER_DS] = SEG(0xf2, 0xc);   /* ring 3 data */
	gdt[GDT_ENTRY_USER_CS] = SEG(0xfa, 0xa);   /* ring 3 64-bit code */

	memset(tss, 0, sizeof(*tss));
	tss->ist[IST_DF - 1] = (uint64_t)stacks + IST_STACK_SIZE;
	tss->ist[IST_NMI - 1] = (uint64_t)stacks + 2 * IST_STACK_SIZE;
	tss->ist[IST_MC - 1] = (uint64_t)stacks + 3 * IST_STACK_SIZE;
	tss->iomap_base = sizeof(*tss); /* no I/O permission bitmap: ring 3 gets no ports */
	this_cpu_ptr()->tss = tss;

	/* 64-bit TSS descriptor: type 9 (available TSS), present, base split over 16 bytes. */
	gdt[GDT_ENTRY_TSS] = (sizeof(*tss) - 1) | ((base & 0xffffff) << 16) | (0x89ULL << 40) |
			     (((base >> 24) & 0xff) << 56);
	gdt[GDT_ENTRY_TSS + 1] = base >> 32;

	asm volatile("lgdt %0\n\t"
		     "pushq %1\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movw %w2, %%ds\n\t"
		     "movw %w2, %%es\n\t"
		     "movw %w2, %%ss\n\t"
		     "ltr %w3"
		     :
		     : "m"(ptr), "i"(__KERNEL_CS), "r"(__KERNEL_DS), "r"(__TSS_SEL)
		     : "rax", "memory");
}

void tss_set_rsp0(uint64_t rsp0)
{
	this_cpu_ptr()->tss->rsp[0] = rsp0;
}
