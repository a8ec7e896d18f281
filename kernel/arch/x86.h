/* Thin wrappers for the x86 instructions C cannot express: port I/O, control registers,
 * MSRs, interrupts on/off. One line each so a student can see exactly what runs. */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H

#include "kernel/compiler.h"

static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outw(uint16_t port, uint16_t v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outl(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* About a millisecond per 1000 iterations on a PC: a write to the POST-code port 0x80 is a slow
 * ISA cycle (Linux's io_delay). For the ends of the machine, where interrupts are off and no
 * timer can be waited on. */
static inline void io_delay(unsigned long n)
{
	while (n--)
		outb(0x80, 0);
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;
	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}
static inline uint64_t read_cr2(void)
{
	uint64_t v;
	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline uint64_t read_cr4(void)
{
	uint64_t v;
	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	asm volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

#define X86_EFLAGS_IF 0x200 /* interrupts enabled */

static inline void local_irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}
static inline void local_irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}
static inline uint64_t local_irq_save(void)
{
	uint64_t flags;
	asm volatile("pushfq; pop %0; cli" : "=r"(flags) : : "memory");
	return flags;
}
static inline void local_irq_restore(uint64_t flags)
{
	asm volatile("push %0; popfq" : : "r"(flags) : "memory", "cc");
}
static inline bool irqs_disabled(void)
{
	uint64_t flags;
	asm volatile("pushfq; pop %0" : "=r"(flags));
	return !(flags & X86_EFLAGS_IF);
}
static inline void halt(void)
{
	asm volatile("hlt" ::: "memory");
}

#define MSR_EFER 0xc0000080
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

#endif
