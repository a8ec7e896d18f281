/* Checking an ELF64 file before exec loads it: every offset and address it names must lie
 * inside the file and inside user space, so the loader itself never needs to check again. */
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/process/elf.h"
#include "mm/mmu.h"

static int refuse(const char **why, const char *reason)
{
	*why = reason;
	return -ENOEXEC;
}

int elf_check(const uint8_t *data, uint64_t avail, uint64_t size, struct elf_image *img,
	      const char **why)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool have_load = false;

	if (avail < sizeof(*eh) || size < sizeof(*eh) || memcmp(eh->e_ident, "\177ELF", 4) != 0)
		return refuse(why, "not an ELF file (bad magic)");
	if (eh->e_ident[4] != 2)
		return refuse(why, "not a 64-bit ELF file (ELFCLASS32?)");
	if (eh->e_ident[5] != 1)
		return refuse(why, "not little-endian");
	if (eh->e_machine != EM_X86_64)
		return refuse(why, "not an x86-64 program (e_machine)");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return refuse(why, "not an executable (e_type is neither EXEC nor DYN)");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > 64)
		return refuse(why, "bad program header table (e_phentsize/e_phnum)");
	if (eh->e_phoff > size || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
		return refuse(why, "program headers run past the end of the file");
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > avail)
		return refuse(why, "program headers past the first page of the file");
	if (eh->e_phoff % 8)
		return refuse(why, "misaligned program headers");

	img->ehdr = eh;
	img->phdr = (const Elf64_Phdr *)(data + eh->e_phoff);
	img->load_bias = eh->e_type == ET_DYN ? ELF_ET_DYN_BASE : 0;
	img->phdr_addr = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &img->phdr[i];
		uint64_t start, end;

		if (ph->p_type == PT_INTERP)
			return refuse(why,
				      "dynamically linked (PT_INTERP): only static programs run");
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset)
			return refuse(why, "a segment runs past the end of the file (truncated?)");
		if (ph->p_filesz > ph->p_memsz)
			return refuse(why, "a segment's file size exceeds its memory size");
		if ((ph->p_vaddr - ph->p_offset) % PAGE_SIZE)
			return refuse(why,
				      "a segment's address and offset disagree mod the page size");
		start = ph->p_vaddr + img->load_bias;
		end = start + ph->p_memsz;
		if (start < ph->p_vaddr || end < start || end > USER_TOP || start < PAGE_SIZE)
			return refuse(why,
				      "a segment lies outside user space (in the kernel half?)");
		lo = MIN(lo, ALIGN_DOWN(start, PAGE_SIZE));
		hi = MAX(hi, ALIGN_UP(end, PAGE_SIZE));
		/* AT_PHDR: the loaded copy of the program headers, if a segment contains them. */
		if (eh->e_phoff >= ph->p_offset && eh->e_phoff < ph->p_offset + ph->p_filesz)
			img->phdr_addr = start + (eh->e_phoff - ph->p_offset);
		have_load = true;
	}
	if (!have_load)
		return refuse(why, "no loadable segment");
	img->entry = eh->e_entry + img->load_bias;
	if (img->entry < lo || img->entry >= hi)
		return refuse(why, "the entry point is outside every segment");
	img->lo = lo;
	img->hi = hi;
	return 0;
}
