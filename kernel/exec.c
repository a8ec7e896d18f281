/* execve: replace the calling process's program. The new address space is built completely
 * before the old one is dropped, so a failing execve returns to the old program unharmed. */
#include "kernel/elf.h"
#include "kernel/errno.h"
#include "kernel/exec.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/segment.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"
#include "kernel/user_stack.h"
#include "kernel/x86.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

#define USER_STACK_SIZE (64UL << 10) /* mapped at exec; issue 4 makes it grow on demand */
#define MAX_ARG_STRINGS 256
#define MAX_ARG_BYTES (32UL << 10)


/* Copy each PT_LOAD segment's bytes into freshly allocated frames, bss zeroed. (Eager: the
 * VMA issue turns this into mappings faulted in on demand.) */
static int load_segments(struct mm_struct *mm, const struct inode *ino,
			 const struct elf_image *img)
{
	for (int i = 0; i < img->ehdr->e_phnum; i++) {
		const Elf64_Phdr *ph = &img->phdr[i];
		uint64_t start = ph->p_vaddr + img->load_bias, va;
		pte_t prot = _PAGE_PRESENT | _PAGE_USER;

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_flags & PF_W)
			prot |= _PAGE_RW;
		if (!(ph->p_flags & PF_X))
			prot |= _PAGE_NX;
		for (va = ALIGN_DOWN(start, PAGE_SIZE); va < start + ph->p_memsz; va += PAGE_SIZE) {
			pte_t *pte = walk_page_table(mm->pgd, va, true);
			uint64_t lo = MAX(va, start), hi = MIN(va + PAGE_SIZE, start + ph->p_filesz);
			uint8_t *kva;

			if (!pte)
				return -ENOMEM;
			if (pte_present(*pte)) { /* two segments sharing a page: widen it */
				*pte |= (prot & _PAGE_RW);
				if (!(prot & _PAGE_NX))
					*pte &= ~_PAGE_NX;
			} else if (map_anon_pages(mm, va, va + PAGE_SIZE, prot)) {
				return -ENOMEM;
			}
			kva = __va(*pte & PTE_PFN_MASK);
			if (lo < hi)
				memcpy(kva + (lo - va), ino->i_data + ph->p_offset + (lo - start),
				       hi - lo);
		}
		if (start + ph->p_memsz > mm->start_brk)
			mm->start_brk = ALIGN_UP(start + ph->p_memsz, PAGE_SIZE);
		if (ph->p_flags & PF_X) {
			mm->start_code = start;
			mm->end_code = start + ph->p_memsz;
		} else if (ph->p_flags & PF_W) {
			mm->start_data = start;
			mm->end_data = start + ph->p_memsz;
		}
	}
	mm->brk = mm->start_brk;
	return 0;
}

/* Map the stack and lay out argv, envp and the auxiliary vector on it. */
static int setup_stack(struct mm_struct *mm, const char *path, const char *const *argv,
		       const char *const *envp, const struct elf_image *img, uint64_t *sp)
{
	struct user_stack_args sa = { .argv = argv, .envp = envp, .execfn = path, .img = img };
	uint64_t base = USER_STACK_TOP - USER_STACK_SIZE;
	uint8_t *buf = kmalloc(USER_STACK_SIZE);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < 16; i++)
		sa.random[i] = (uint8_t)(rdtsc() >> (i % 8));
	*sp = build_user_stack(buf, USER_STACK_SIZE, USER_STACK_TOP, &sa);
	if (!*sp)
		err = -E2BIG;
	else if (map_anon_pages(mm, base, USER_STACK_TOP, PAGE_SHARED))
		err = -ENOMEM;
	for (uint64_t va = base; !err && va < USER_STACK_TOP; va += PAGE_SIZE)
		memcpy(__va(translate(mm->pgd, va, NULL)), buf + (va - base), PAGE_SIZE);
	mm->start_stack = *sp;
	kfree(buf);
	return err;
}

int do_execve(const char *path, const char *const *argv, const char *const *envp)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct mm_struct *mm, *old;
	struct elf_image img;
	struct inode *ino;
	const char *why;
	uint64_t sp;
	int err;

	err = ramfs_lookup(path, &ino);
	if (err)
		return err;
	if (S_ISDIR(ino->i_mode))
		return -EACCES;
	if (elf_check(ino->i_data, ino->i_size, &img, &why)) {
		printk("exec: %s: %s\n", path, why);
		return -ENOEXEC;
	}
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	err = load_segments(mm, ino, &img);
	if (!err)
		err = setup_stack(mm, path, argv, envp, &img, &sp);
	if (err) {
		mmput(mm);
		return err;
	}

	/* The point of no return: switch to the new program. */
	old = current->mm;
	current->mm = mm;
	write_cr3(__pa(mm->pgd));
	mmput(old);
	task_set_comm(current, path);
	files_close_on_exec(current->files);
	for (int i = 0; i < NSIG; i++) /* handlers are gone with the old program; SIG_IGN stays */
		if (current->sigaction[i].sa_handler != SIG_IGN)
			current->sigaction[i] = (struct k_sigaction){ 0 };
	memset(regs, 0, sizeof(*regs));
	regs->rip = img.entry;
	regs->cs = __USER_CS;
	regs->rflags = 0x202; /* IF */
	regs->rsp = sp;
	regs->ss = __USER_DS;
	current->thread.fs_base = 0;
	wrmsr(MSR_FS_BASE, 0);
	fpu_init_task(current);
	asm volatile("fxrstor %0" ::"m"(current->thread.fxsave));
	return 0;
}

/* Copy a NULL-terminated array of user strings into buf; the kernel pointers go to out[]. */
static long copy_strings(uint64_t uarr, const char **out, int max, char **buf, char *end)
{
	int n = 0;

	for (; uarr; n++) {
		uint64_t up;
		long len;

		if (n == max)
			return -E2BIG;
		if (copy_from_user(&up, uarr + n * sizeof(up), sizeof(up)))
			return -EFAULT;
		if (!up)
			break;
		len = strncpy_from_user(*buf, up, (size_t)(end - *buf));
		if (len < 0)
			return len;
		if (*buf + len == end)
			return -E2BIG;
		out[n] = *buf;
		*buf += len + 1;
	}
	out[n] = NULL;
	return n;
}

long sys_execve(uint64_t upath, uint64_t uargv, uint64_t uenvp)
{
	char *strings = kmalloc(MAX_ARG_BYTES), *p = strings;
	const char **argv = kmalloc(2 * (MAX_ARG_STRINGS + 1) * sizeof(char *));
	const char **envp = argv + MAX_ARG_STRINGS + 1;
	const char *path = strings;
	long err;

	if (!strings || !argv) {
		err = -ENOMEM;
		goto out;
	}
	err = strncpy_from_user(p, upath, PATH_MAX);
	if (err < 0)
		goto out;
	if (err == PATH_MAX) {
		err = -ENAMETOOLONG;
		goto out;
	}
	p += err + 1;
	err = copy_strings(uargv, argv, MAX_ARG_STRINGS, &p, strings + MAX_ARG_BYTES);
	if (err >= 0)
		err = copy_strings(uenvp, envp, MAX_ARG_STRINGS, &p, strings + MAX_ARG_BYTES);
	if (err >= 0)
		err = do_execve(path, argv, envp);
out:
	kfree(strings);
	kfree(argv);
	return err;
}
