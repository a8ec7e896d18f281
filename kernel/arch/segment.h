/* GDT selectors, laid out as Linux x86-64 does so that syscall/sysret find the user
 * segments where STAR expects them: user 32-bit code, then user data, then user 64-bit code. */
#ifndef KERNEL_SEGMENT_H
#define KERNEL_SEGMENT_H

#define GDT_ENTRY_KERNEL_CS 2
#define GDT_ENTRY_KERNEL_DS 3
#define GDT_ENTRY_USER32_CS 4
#define GDT_ENTRY_USER_DS 5
#define GDT_ENTRY_USER_CS 6
#define GDT_ENTRY_TSS 8 /* a 16-byte descriptor: entries 8 and 9 */
#define GDT_ENTRIES 10

#define __KERNEL_CS (GDT_ENTRY_KERNEL_CS * 8)
#define __KERNEL_DS (GDT_ENTRY_KERNEL_DS * 8)
#define __USER32_CS (GDT_ENTRY_USER32_CS * 8 + 3)
#define __USER_DS (GDT_ENTRY_USER_DS * 8 + 3)
#define __USER_CS (GDT_ENTRY_USER_CS * 8 + 3)
#define __TSS_SEL (GDT_ENTRY_TSS * 8)

/* Interrupt stack table slots (1-based in the IDT, 0-based in tss.ist[]). */
#define IST_DF 1  /* double fault: a kernel stack overflow lands here */
#define IST_NMI 2
#define IST_MC 3

#define IST_STACK_SIZE 16384

#ifndef __ASSEMBLER__
#include "kernel/compiler.h"

void gdt_init(void);                    /* the boot CPU's */
void gdt_init_cpu(int cpu, void *ist); /* ist: 3 * IST_STACK_SIZE bytes */
void tss_set_rsp0(uint64_t rsp0); /* kernel stack used on entry from ring 3 */
#endif

#endif
