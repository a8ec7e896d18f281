/* ELF64 executables: the header layouts (as in the System V ABI) and the loader's checks.
 * elf_check() decides whether a file may be run, before any memory is touched. */
#ifndef KERNEL_ELF_H
#define KERNEL_ELF_H

#include "kernel/compiler.h"

#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_INTERP 3
#define PF_X 1
#define PF_W 2
#define PF_R 4

typedef struct {
	uint8_t e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} Elf64_Phdr;

/* Where a static-PIE (ET_DYN) program is placed; ET_EXEC programs stay where they are linked. */
#define ELF_ET_DYN_BASE 0x0000555555554000UL

struct elf_image {
	const Elf64_Ehdr *ehdr;
	const Elf64_Phdr *phdr; /* inside the file */
	uint64_t load_bias;     /* added to every p_vaddr and to e_entry (0 for ET_EXEC) */
	uint64_t entry;         /* e_entry + load_bias */
	uint64_t lo, hi;        /* the page-aligned span of all PT_LOAD segments, biased */
	uint64_t phdr_addr;     /* where the program headers are in the loaded image (AT_PHDR) */
};

/* Check the size bytes at data as a static x86-64 executable. Returns 0 and fills *img, or
 * -ENOEXEC with *why set to a one-line reason (wrong class, machine, a segment past the end of
 * the file or into the kernel half, a dynamic loader requested, ...). */
int elf_check(const uint8_t *data, uint64_t avail, uint64_t size, struct elf_image *img,
	      const char **why);

#endif
