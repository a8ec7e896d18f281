/* personality(2)'s flags, Linux's values (kernel/process/exec_domain.c): the execution domain
 * in the low byte (PER_LINUX, 0, the only one), bug-compatibility flags above it. */
#ifndef KERNEL_PROCESS_PERSONALITY_H
#define KERNEL_PROCESS_PERSONALITY_H

#include <stdbool.h>

#define PER_LINUX 0x0000
#define ADDR_NO_RANDOMIZE 0x0040000 /* kept; faultline places nothing at random anyway */
#define MMAP_PAGE_ZERO 0x0100000
#define ADDR_COMPAT_LAYOUT 0x0200000
#define READ_IMPLIES_EXEC 0x0400000 /* mmap and mprotect: PROT_READ brings PROT_EXEC */
/* what an exec that changes the ids (set-user-ID, set-group-ID) drops */
#define PER_CLEAR_ON_SETID (READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT | \
			    MMAP_PAGE_ZERO)

/* At exec's point of no return: a 64-bit program never reads-implies-exec (x86-64's
 * set_personality_64bit), and a secure exec loses PER_CLEAR_ON_SETID. */
void personality_exec(bool secure);

#endif
