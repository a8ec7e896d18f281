/* Ending the kernel readably: die() for an unexpected trap, panic() for a detected bug.
 * Both print registers and a symbolised backtrace, then halt (or end QEMU in test mode). */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "kernel/arch/trap.h"

void __noreturn die(const struct pt_regs *regs, const char *what);
/* Registers and a symbolised backtrace, for panics and unexpected traps. */
void show_regs(const struct pt_regs *regs);
void show_backtrace(uint64_t rip, uint64_t rbp, uint64_t rsp);
void panic_begin(void);            /* stop interrupts, guard against a panic in a panic */
void __noreturn panic_end(void);   /* halt forever, or exit QEMU when qemu_exit is set */

/* QEMU's isa-debug-exit device: QEMU exits with (code << 1) | 1, values no crash produces. */
#define QEMU_EXIT_SUCCESS 0x10 /* exit status 33 */
#define QEMU_EXIT_FAILURE 0x11 /* 35 */
#define QEMU_EXIT_PANIC 0x12   /* 37 */
/* Linux's taint flags (/proc/sys/kernel/tainted): what has happened to the kernel that makes
 * its later behaviour suspect. faultline sets TAINT_WARN at a WARN_ON; a write of the file
 * (root) adds bits, never takes one away. */
#define TAINT_WARN 9
extern int tainted_mask;
void add_taint(unsigned int flag);
extern volatile bool oops_in_progress; /* a panic began: its printing waits for no lock */
extern bool qemu_exit_enabled; /* kernel parameter qemu_exit, implied by ktest= */
void qemu_exit(int code);

#endif
