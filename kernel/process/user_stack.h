/* The stack a new program starts on (System V x86-64 ABI, 3.4.1): from the stack pointer up,
 * argc, argv[] and NULL, envp[] and NULL, the auxiliary vector ending in AT_NULL, then the
 * strings and 16 random bytes they point to. musl and glibc read exactly this. */
#ifndef KERNEL_USER_STACK_H
#define KERNEL_USER_STACK_H

#include "kernel/process/elf.h"

#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_EXECFN 31

struct user_stack_args {
	const char *const *argv; /* NULL-terminated */
	const char *const *envp; /* NULL-terminated */
	const char *execfn;      /* the path given to execve (AT_EXECFN) */
	const struct elf_image *img;
	uint8_t random[16];      /* AT_RANDOM's bytes (musl seeds its stack canary from them) */
	uint32_t uid, euid, gid, egid; /* the new program's (AT_UID, AT_EUID, ...) */
	bool secure;                   /* set-user-ID or set-group-ID: AT_SECURE */
	/* where to keep a copy of the auxiliary vector, up to AT_NULL (the new mm's saved_auxv,
	 * for a core dump's NT_AUXV), with room for auxv_max words */
	uint64_t *auxv_copy;
	size_t auxv_max;
};

/* Lay the stack out in buf, a kernel view of the user addresses [top - size, top).
 * Returns the user address where argc lies (the new %rsp, 16-byte aligned), or 0 when the
 * arguments do not fit (execve then fails with -E2BIG). */
uint64_t build_user_stack(uint8_t *buf, uint64_t size, uint64_t top,
			  const struct user_stack_args *a);

#endif
