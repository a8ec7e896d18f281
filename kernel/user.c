/* Loading a static ELF program into a fresh address space and running it in ring 3 until it
 * exits or faults. One program at a time, eagerly mapped: issue 3 turns this into processes
 * and issue 4 into VMAs faulted in on demand. */
#include "kernel/elf.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/segment.h"
#include "kernel/string.h"
#include "kernel/user.h"
#include "kernel/user_stack.h"
#include "kernel/x86.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"

#define USER_STACK_TOP 0x00007ffffffff000UL
#define USER_STACK_ORDER 4 /* 64 KiB */
#define KSTACK_ORDER 2     /* 16 KiB kernel stack for traps and syscalls from ring 3 */
#define MAX_ARGS 32

extern char syscall_entry[];
static struct percpu cpu0;
static pgd_t *user_pgd;
static const char *current_name;

void syscall_init(void)
{
	/* The x86-64 ABI promises user code SSE: CR0.MP on, CR0.EM off, CR4.OSFXSR and
	 * OSXMMEXCPT on. (With one program at a time there is no FPU state to switch yet.) */
	asm volatile("mov %%cr0, %%rax; and $~4, %%rax; or $2, %%rax; mov %%rax, %%cr0\n\t"
		     "mov %%cr4, %%rax; or $0x600, %%rax; mov %%rax, %%cr4" ::: "rax", "memory");
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1); /* SCE: enable syscall/sysret */
	/* STAR: kernel CS in 47:32; user selectors are derived from 63:48 (user32 CS). */
	wrmsr(0xc0000081, ((uint64_t)__USER32_CS << 48) | ((uint64_t)__KERNEL_CS << 32));
	wrmsr(0xc0000082, (uint64_t)syscall_entry); /* LSTAR */
	wrmsr(0xc0000084, 0x47700);                 /* SFMASK: clear IF, TF, DF, AC, NT */
	wrmsr(MSR_GS_BASE, (uint64_t)&cpu0);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

/* Map npages frames starting at page at user address va with prot. */
static int map_user_pages(uint64_t va, struct page *page, unsigned long npages, pte_t prot)
{
	for (unsigned long i = 0; i < npages; i++)
		if (map_page(user_pgd, va + i * PAGE_SIZE, PFN_PHYS(page_to_pfn(page + i)), prot))
			return -ENOMEM;
	return 0;
}

static int load_segments(const struct inode *ino, const struct elf_image *img)
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
			pte_t *pte = walk_page_table(user_pgd, va, true);
			uint8_t *kva;
			uint64_t lo = MAX(va, start), hi = MIN(va + PAGE_SIZE, start + ph->p_filesz);

			if (!pte)
				return -ENOMEM;
			if (pte_present(*pte)) { /* two segments sharing a page: widen it */
				*pte |= (prot & _PAGE_RW);
				if (!(prot & _PAGE_NX))
					*pte &= ~_PAGE_NX;
				kva = __va(*pte & PTE_PFN_MASK);
			} else {
				struct page *p = alloc_page(__GFP_ZERO);

				if (!p)
					return -ENOMEM;
				*pte = pfn_pte(page_to_pfn(p), prot);
				kva = page_address(p);
			}
			if (lo < hi)
				memcpy(kva + (lo - va), ino->i_data + ph->p_offset + (lo - start),
				       hi - lo);
		}
	}
	return 0;
}

int run_program(const char *line)
{
	static char words[256];
	const char *argv[MAX_ARGS + 1], *envp[] = { "HOME=/", "PATH=/bin", "TERM=vt100", NULL };
	struct user_stack_args sa = { .argv = argv, .envp = envp };
	struct elf_image img;
	struct inode *ino;
	struct page *stack, *kstack;
	struct pt_regs *regs;
	const char *why;
	uint64_t sp;
	int argc = 0, err;
	long code;

	strlcpy(words, line, sizeof(words));
	for (char *p = words; *p && argc < MAX_ARGS;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	argv[argc] = NULL;
	if (!argc)
		return -EINVAL;
	if ((err = ramfs_lookup(argv[0], &ino)) || !S_ISREG(ino->i_mode)) {
		printk("run: %s: cannot run: %s\n", line, err ? "no such file" : "not a file");
		return -ENOENT;
	}
	if (elf_check(ino->i_data, ino->i_size, &img, &why)) {
		printk("run: %s: cannot run: %s\n", line, why);
		return -ENOEXEC;
	}

	user_pgd = pgd_alloc();
	stack = alloc_pages(__GFP_ZERO, USER_STACK_ORDER);
	kstack = alloc_pages(0, KSTACK_ORDER);
	if (!user_pgd || !stack || !kstack)
		panic("run_program: out of memory");
	memcpy(user_pgd + 256, kernel_pgd + 256, 256 * sizeof(pgd_t)); /* share the kernel half */
	if (load_segments(ino, &img))
		panic("run_program: out of memory loading %s", argv[0]);

	sa.execfn = argv[0];
	sa.img = &img;
	for (int i = 0; i < 16; i++)
		sa.random[i] = (uint8_t)(rdtsc() >> (i % 8));
	sp = build_user_stack(page_address(stack), PAGE_SIZE << USER_STACK_ORDER, USER_STACK_TOP,
			      &sa);
	if (!sp || map_user_pages(USER_STACK_TOP - (PAGE_SIZE << USER_STACK_ORDER), stack,
				  1UL << USER_STACK_ORDER, PAGE_SHARED))
		panic("run_program: cannot build the stack of %s", argv[0]);

	cpu0.kernel_rsp = (uint64_t)page_address(kstack) + (PAGE_SIZE << KSTACK_ORDER);
	tss_set_rsp0(cpu0.kernel_rsp);
	regs = (struct pt_regs *)(cpu0.kernel_rsp - sizeof(*regs));
	memset(regs, 0, sizeof(*regs));
	regs->rip = img.entry;
	regs->cs = __USER_CS;
	regs->rflags = 0x202; /* IF */
	regs->rsp = sp;
	regs->ss = __USER_DS;
	current_name = argv[0];
	files_reset();

	write_cr3(__pa(user_pgd));
	code = user_enter(regs);
	write_cr3(__pa(kernel_pgd));
	wrmsr(MSR_FS_BASE, 0);

	/* Tear the address space down: every user frame, then the page-table pages. */
	for (uint64_t va = img.lo; va < img.hi; va += PAGE_SIZE) {
		pte_t pte = unmap_page(user_pgd, va);

		if (pte_present(pte))
			__free_page(pfn_to_page(pte_pfn(pte)));
	}
	for (unsigned long i = 0; i < (1UL << USER_STACK_ORDER); i++)
		unmap_page(user_pgd, USER_STACK_TOP - ((i + 1) << PAGE_SHIFT));
	free_pgd_range(user_pgd, 0, USER_TOP);
	memset(user_pgd + 256, 0, 256 * sizeof(pgd_t));
	pgd_free(user_pgd);
	__free_pages(stack, USER_STACK_ORDER);
	__free_pages(kstack, KSTACK_ORDER);

	if (code >= 0)
		printk("run: %s: exit %ld\n", line, code);
	else
		printk("run: %s: killed by %s\n", line, signal_name((int)-code));
	return (int)code;
}

const char *current_program(void)
{
	return current_name ? current_name : "?";
}

static const char *pf_bits(uint64_t e, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s %s%s%s", (e & PF_PROT) ? "protection" : "not-present",
		 (e & PF_WRITE) ? "write" : "read", (e & PF_USER) ? "user" : "kernel",
		 (e & PF_RSVD) ? " reserved-bit" : "", (e & PF_INSTR) ? " fetch" : "");
	return buf;
}

const char *signal_name(int sig)
{
	switch (sig) {
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGSEGV: return "SIGSEGV";
	case SIGTERM: return "SIGTERM";
	}
	return "an unknown signal";
}

/* A ring-3 page fault nothing can satisfy yet: report it and end the program with SIGSEGV. */
void user_fault(struct pt_regs *regs, uint64_t address)
{
	char bits[64];

	printk("segfault: pid 1 (%s): SIGSEGV at %016lx, rip %016lx, error 0x%lx (%s)\n",
	       current_name, address, regs->rip, regs->error_code,
	       pf_bits(regs->error_code, bits, sizeof(bits)));
	user_leave(-SIGSEGV);
}

/* Any other exception in ring 3 ends only that program, with Linux's signal for it. */
void user_exception(struct pt_regs *regs)
{
	int sig = SIGSEGV;

	switch (regs->vector) {
	case X86_TRAP_DE:
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		sig = SIGFPE;
		break;
	case X86_TRAP_UD:
		sig = SIGILL;
		break;
	case X86_TRAP_BP:
	case X86_TRAP_DB:
		sig = SIGTRAP;
		break;
	case X86_TRAP_AC:
		sig = SIGBUS;
		break;
	}
	printk("trap: pid 1 (%s): %s at rip %016lx, error 0x%lx: %s\n", current_name,
	       trap_name(regs->vector), regs->rip, regs->error_code, signal_name(sig));
	user_leave(-sig);
}
