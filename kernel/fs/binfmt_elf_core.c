/* The ELF core file (Linux's binfmt_elf.c elf_core_dump): the ELF header, a PT_NOTE program
 * header then a PT_LOAD one per VMA, the notes (each thread's NT_PRSTATUS and NT_PRFPREG, the
 * process's NT_PRPSINFO, NT_SIGINFO, NT_AUXV and NT_FILE), and from the next page on the
 * memory coredump_filter asks for, pages never touched left as holes. */
#include "kernel/arch/uaccess.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/string.h"
#include "kernel/process/elf.h"
#include "kernel/process/exec.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

#define ET_CORE	    4
#define PT_NOTE	    4
#define NT_PRSTATUS 1
#define NT_PRFPREG  2
#define NT_PRPSINFO 3
#define NT_AUXV	    6
#define NT_SIGINFO  0x53494749
#define NT_FILE	    0x46494c45
#define ELF_PRARGSZ 80

/* The x86-64 layouts gdb reads (Linux's struct elf_prstatus, elf_prpsinfo). */
struct elf_siginfo {
	int32_t si_signo, si_code, si_errno;
};

struct core_timeval {
	int64_t tv_sec, tv_usec;
};

struct elf_prstatus {
	struct elf_siginfo pr_info;
	int16_t pr_cursig;
	uint64_t pr_sigpend, pr_sighold;
	int32_t pr_pid, pr_ppid, pr_pgrp, pr_sid;
	struct core_timeval pr_utime, pr_stime, pr_cutime, pr_cstime;
	uint64_t pr_reg[27]; /* user_regs_struct: r15 ... rdi, orig_rax, rip ... gs */
	int32_t pr_fpvalid;
};
_Static_assert(sizeof(struct elf_prstatus) == 336, "elf_prstatus as Linux's");

struct elf_prpsinfo {
	char pr_state, pr_sname, pr_zomb, pr_nice;
	uint64_t pr_flag;
	uint32_t pr_uid, pr_gid;
	int32_t pr_pid, pr_ppid, pr_pgrp, pr_sid;
	char pr_fname[16];
	char pr_psargs[ELF_PRARGSZ];
};
_Static_assert(sizeof(struct elf_prpsinfo) == 136, "elf_prpsinfo as Linux's");

/* One note to write (Linux's struct memelfnote). */
struct memelfnote {
	uint32_t type;
	uint64_t datasz;
	const void *data;
};

/* A VMA as the dump sees it, taken once (Linux's core_vma_metadata). */
struct core_vma {
	uint64_t start, end, flags, dump_size;
};

/* What the notes are made of, for one dump. */
struct elf_note_info {
	struct elf_prstatus *prstatus; /* one per thread, the dumper's first */
	struct task_struct **threads;
	int nr_threads;
	struct elf_prpsinfo psinfo;
	uint8_t siginfo[128];
	void *files;
	uint64_t files_size;
	uint64_t size; /* of all the notes */
};

static uint64_t notesize(uint64_t datasz)
{
	return 12 + 8 + ALIGN_UP(datasz, 4); /* header, "CORE\0" padded, the data padded */
}

static bool writenote(struct coredump_params *cprm, const struct memelfnote *n)
{
	uint32_t hdr[3] = { 5, (uint32_t)n->datasz, n->type };
	static const char name[8] = "CORE";

	return dump_emit(cprm, hdr, sizeof(hdr)) && dump_emit(cprm, name, sizeof(name)) &&
	       dump_emit(cprm, n->data, n->datasz) && dump_align(cprm, 4);
}

static struct core_timeval ticks_to_timeval(uint64_t ticks)
{
	return (struct core_timeval){ (int64_t)(ticks / HZ), (int64_t)(ticks % HZ) * 1000000 / HZ };
}

/* A thread's registers as they were when it entered the kernel (Linux's ELF_CORE_COPY_REGS):
 * orig_rax is the system call's number, -1 for a trap. */
static void fill_prstatus(struct elf_prstatus *s, struct task_struct *t, int signr)
{
	const struct pt_regs *regs = task_pt_regs(t);
	const struct signal_struct *sig = t->signal;
	uint64_t utime = t->utime, stime = t->stime;

	if (thread_group_leader(t)) { /* the leader stands for the process: all its threads */
		struct task_struct *o;

		utime = sig->utime, stime = sig->stime;
		for_each_thread(t, o) {
			utime += o->utime;
			stime += o->stime;
		}
	}
	*s = (struct elf_prstatus){ .pr_cursig = (int16_t)signr,
				    .pr_sigpend = t->pending,
				    .pr_sighold = t->blocked,
				    .pr_pid = t->pid,
				    .pr_ppid = t->parent->pid,
				    .pr_pgrp = t->pgrp,
				    .pr_sid = t->session,
				    .pr_fpvalid = 1 };
	s->pr_info.si_signo = signr;
	s->pr_utime = ticks_to_timeval(utime);
	s->pr_stime = ticks_to_timeval(stime);
	s->pr_cutime = ticks_to_timeval(sig->cutime);
	s->pr_cstime = ticks_to_timeval(sig->cstime);
	memcpy(s->pr_reg, regs, 15 * sizeof(uint64_t)); /* r15 ... rdi: pt_regs' own order */
	s->pr_reg[15] = regs->vector == (uint64_t)-1 ? regs->error_code : (uint64_t)-1;
	s->pr_reg[16] = regs->rip;
	s->pr_reg[17] = regs->cs;
	s->pr_reg[18] = regs->rflags;
	s->pr_reg[19] = regs->rsp;
	s->pr_reg[20] = regs->ss;
	s->pr_reg[21] = t->thread.fs_base; /* gs_base and the data selectors stay 0 */
}

/* The process: its state letter, ids, name and the start of its arguments, NULs as spaces. */
static void fill_psinfo(struct elf_prpsinfo *p, struct task_struct *leader)
{
	struct mm_struct *mm = leader->mm ? leader->mm : current->mm;
	unsigned int state = (unsigned int)leader->state, i = state ? __builtin_ctz(state) + 1 : 0;
	uint64_t argc = 0, argv0 = 0, nuls = 0, len = 0;

	*p = (struct elf_prpsinfo){ .pr_state = (char)i,
				    .pr_sname = i > 5 ? '.' : "RSDTZW"[i],
				    .pr_flag = leader->flags,
				    .pr_uid = leader->cred.uid,
				    .pr_gid = leader->cred.gid,
				    .pr_pid = leader->tgid,
				    .pr_ppid = leader->parent->tgid,
				    .pr_pgrp = leader->pgrp,
				    .pr_sid = leader->session };
	p->pr_zomb = p->pr_sname == 'Z';
	memcpy(p->pr_fname, leader->comm, sizeof(p->pr_fname));
	/* argv's strings lie in a row on the stack exec built (mm->start_stack: argc, argv) */
	if (copy_from_user(&argc, mm->start_stack, 8) ||
	    copy_from_user(&argv0, mm->start_stack + 8, 8))
		return;
	while (nuls < argc && len < ELF_PRARGSZ - 1 && argv0 + len < USER_STACK_TOP &&
	       !copy_from_user(&p->pr_psargs[len], argv0 + len, 1)) {
		if (!p->pr_psargs[len]) {
			p->pr_psargs[len] = ' ';
			nuls++;
		}
		len++;
	}
	p->pr_psargs[len] = '\0';
}

/* NT_FILE: the count, the page size, (start, end, file page) of each file mapping, then their
 * paths, each NUL-terminated. */
static bool fill_files_note(struct elf_note_info *info, struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	char *path = kmalloc(PATH_MAX);
	uint64_t count = 0, names = 0, *w;
	char *s;

	if (!path)
		return false;
	list_for_each_entry(vma, &mm->mmap, vm_list)
	{
		if (!vma->vm_file)
			continue;
		count++;
		d_path(vma->vm_file->f_dentry, path, PATH_MAX);
		names += strlen(path) + 1;
	}
	info->files_size = 16 + count * 24 + names;
	info->files = kmalloc(info->files_size);
	if (!info->files) {
		kfree(path);
		return false;
	}
	w = info->files;
	*w++ = count;
	*w++ = PAGE_SIZE;
	s = (char *)(w + 3 * count);
	list_for_each_entry(vma, &mm->mmap, vm_list)
	{
		if (!vma->vm_file)
			continue;
		*w++ = vma->vm_start;
		*w++ = vma->vm_end;
		*w++ = vma->vm_pgoff;
		d_path(vma->vm_file->f_dentry, path, PATH_MAX);
		strlcpy(s, path, PATH_MAX);
		s += strlen(path) + 1;
	}
	kfree(path);
	return true;
}

static uint64_t auxv_size(const struct mm_struct *mm)
{
	uint64_t k = 0;

	do
		k += 2;
	while (mm->saved_auxv[k - 2] != 0 && k < AT_VECTOR_SIZE);
	return k * sizeof(uint64_t);
}

/* Everything the notes say, gathered before anything is written (Linux's fill_note_info). */
static bool fill_note_info(struct elf_note_info *info, struct coredump_params *cprm)
{
	struct mm_struct *mm = current->mm;
	int signr = cprm->siginfo->signo, n = 1;
	struct core_thread *ct;

	for (ct = cprm->core_state->dumper.next; ct; ct = ct->next)
		n++;
	info->prstatus = kzalloc(n * sizeof(*info->prstatus));
	info->threads = kzalloc(n * sizeof(*info->threads));
	if (!info->prstatus || !info->threads || !fill_files_note(info, mm))
		return false;
	info->threads[0] = current;
	for (ct = cprm->core_state->dumper.next, n = 1; ct; ct = ct->next)
		info->threads[n++] = ct->task;
	info->nr_threads = n;
	for (int k = 0; k < n; k++)
		fill_prstatus(&info->prstatus[k], info->threads[k], signr);
	fill_psinfo(&info->psinfo, current->group_leader);
	siginfo_to_user(info->siginfo, cprm->siginfo);
	info->size = n * (notesize(sizeof(struct elf_prstatus)) + notesize(512)) +
		     notesize(sizeof(info->psinfo)) + notesize(sizeof(info->siginfo)) +
		     notesize(auxv_size(mm)) + notesize(info->files_size);
	return true;
}

/* The dumper's notes come first, with the process's after its NT_PRSTATUS, then each other
 * thread's (today's Linux's order). */
static bool write_note_info(struct elf_note_info *info, struct coredump_params *cprm)
{
	struct mm_struct *mm = current->mm;
	uint8_t fx[512] __attribute__((aligned(16))); /* fxsave's alignment */
	bool ok = true;

	for (int k = 0; ok && k < info->nr_threads; k++) {
		struct memelfnote status = { NT_PRSTATUS, sizeof(struct elf_prstatus),
					     &info->prstatus[k] };
		struct memelfnote fpu = { NT_PRFPREG, 512, fx };

		if (info->threads[k] == current) /* live in the CPU: saved now */
			asm volatile("fxsave %0" : "=m"(fx));
		else
			memcpy(fx, info->threads[k]->thread.fxsave, 512);
		ok = writenote(cprm, &status);
		if (ok && k == 0) {
			struct memelfnote notes[] = {
				{ NT_PRPSINFO, sizeof(info->psinfo), &info->psinfo },
				{ NT_SIGINFO, sizeof(info->siginfo), info->siginfo },
				{ NT_AUXV, auxv_size(mm), mm->saved_auxv },
				{ NT_FILE, info->files_size, info->files },
			};

			for (size_t j = 0; ok && j < ARRAY_SIZE(notes); j++)
				ok = writenote(cprm, &notes[j]);
		}
		ok = ok && writenote(cprm, &fpu);
	}
	return ok;
}

/* How much of a VMA the dump holds (Linux's vma_dump_size), by coredump_filter: shared memory
 * by whether its file has a name, private memory whole once written (it has anonymous pages),
 * else only the first page of a mapped ELF file (gdb finds build-ids there), else nothing. */
static uint64_t vma_dump_size(struct vm_area_struct *vma, unsigned long filter)
{
	uint64_t whole = vma->vm_end - vma->vm_start;
	char magic[4];

#define FILTER(type) (filter & (1UL << MMF_DUMP_##type))
	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return 0;
	if ((vma->vm_flags & VM_SHARED) && vma->vm_file) {
		if (vma->vm_file->f_inode->i_nlink == 0 ? FILTER(ANON_SHARED)
							: FILTER(MAPPED_SHARED))
			return whole;
		return 0;
	}
	if (vma->anon_vma && FILTER(ANON_PRIVATE))
		return whole;
	if (!vma->vm_file)
		return 0;
	if (FILTER(MAPPED_PRIVATE))
		return whole;
	if (FILTER(ELF_HEADERS) && vma->vm_pgoff == 0 && (vma->vm_flags & VM_READ)) {
		if (vma->vm_file->f_inode->i_mode & 0111)
			return PAGE_SIZE;
		/* a library need not be executable: its first bytes say whether it is ELF */
		if (kernel_read(vma->vm_file->f_inode, 0, magic, 4) == 4 &&
		    !memcmp(magic, "\177ELF", 4))
			return PAGE_SIZE;
	}
#undef FILTER
	return 0;
}

/* The VMAs and their dump sizes, taken once under mmap_sem (Linux's dump_vma_snapshot). */
static struct core_vma *dump_vma_snapshot(struct mm_struct *mm, unsigned long filter, int *n)
{
	struct vm_area_struct *vma;
	struct core_vma *v;

	down_read(&mm->mmap_sem);
	v = kmalloc((mm->map_count + 1) * sizeof(*v));
	*n = 0;
	list_for_each_entry(vma, &mm->mmap, vm_list)
	{
		if (!v || *n > mm->map_count)
			break;
		v[*n] = (struct core_vma){ vma->vm_start, vma->vm_end, vma->vm_flags,
					   vma_dump_size(vma, filter) };
		(*n)++;
	}
	up_read(&mm->mmap_sem);
	return v;
}

/* The page at addr to dump, with a reference, or NULL for a hole (Linux's get_dump_page): an
 * anonymous page never touched is not faulted in (it would read as zeroes), nor is the zero
 * page dumped; a file's page is read in as a fault would. */
static struct page *get_dump_page(struct mm_struct *mm, uint64_t addr)
{
	struct vm_area_struct *vma;
	struct page *page = NULL;
	pte_t *pte;
	bool none;

	down_read(&mm->mmap_sem);
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || (vma->vm_flags & (VM_IO | VM_PFNMAP)))
		goto out;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, addr, false);
	none = !pte || pte_none(*pte);
	spin_unlock(&mm->page_table_lock);
	/* (a missing page of a userfaultfd range would wait for a handler that is stopped) */
	if (none && (!vma->vm_file || (vma->vm_flags & VM_UFFD_MISSING)))
		goto out;
	if ((vma->vm_flags & VM_READ) && (handle_mm_fault(mm, vma, addr, 0, NULL) & VM_FAULT_ERROR))
		goto out;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, addr, false);
	if (pte && pte_present(*pte)) {
		page = vm_normal_page(*pte);
		if (page)
			get_page(page);
	}
	spin_unlock(&mm->page_table_lock);
out:
	up_read(&mm->mmap_sem);
	return page;
}

static bool dump_user_range(struct coredump_params *cprm, uint64_t start, uint64_t len)
{
	for (uint64_t addr = start; addr < start + len; addr += PAGE_SIZE) {
		struct page *page = get_dump_page(current->mm, addr);
		bool ok;

		if (!page) {
			dump_skip(cprm, PAGE_SIZE);
			continue;
		}
		ok = dump_emit(cprm, page_address(page), PAGE_SIZE);
		put_page(page);
		if (!ok)
			return false;
	}
	return true;
}

static void fill_elf_header(Elf64_Ehdr *elf, int segs)
{
	static const uint8_t ident[16] = { 0x7f,	   'E',		'L', 'F',
					   2 /* 64-bit */, 1 /* LSB */, 1 /* EV_CURRENT */ };

	*elf = (Elf64_Ehdr){ .e_type = ET_CORE,
			     .e_machine = EM_X86_64,
			     .e_version = 1,
			     .e_phoff = sizeof(Elf64_Ehdr),
			     .e_ehsize = sizeof(Elf64_Ehdr),
			     .e_phentsize = sizeof(Elf64_Phdr),
			     .e_phnum = (uint16_t)segs };
	memcpy(elf->e_ident, ident, sizeof(ident));
}

bool elf_core_dump(struct coredump_params *cprm)
{
	struct elf_note_info info = { 0 };
	struct core_vma *vmas;
	Elf64_Ehdr elf;
	Elf64_Phdr phdr;
	uint64_t offset, dataoff;
	bool has_dumped = false;
	int n;

	vmas = dump_vma_snapshot(current->mm, cprm->mm_flags, &n);
	if (!vmas || n + 1 > 0xffff) /* past 65535 headers ELF needs PN_XNUM: not done here */
		goto out;
	if (!fill_note_info(&info, cprm))
		goto out;
	has_dumped = true;
	fill_elf_header(&elf, n + 1);
	offset = sizeof(elf) + (n + 1) * sizeof(phdr);
	phdr = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = offset, .p_filesz = info.size };
	dataoff = ALIGN_UP(offset + info.size, PAGE_SIZE);
	if (!dump_emit(cprm, &elf, sizeof(elf)) || !dump_emit(cprm, &phdr, sizeof(phdr)))
		goto out;
	offset = dataoff;
	for (int k = 0; k < n; k++) {
		phdr = (Elf64_Phdr){ .p_type = PT_LOAD,
				     .p_offset = offset,
				     .p_vaddr = vmas[k].start,
				     .p_filesz = vmas[k].dump_size,
				     .p_memsz = vmas[k].end - vmas[k].start,
				     .p_align = PAGE_SIZE };
		phdr.p_flags = ((vmas[k].flags & VM_READ) ? PF_R : 0) |
			       ((vmas[k].flags & VM_WRITE) ? PF_W : 0) |
			       ((vmas[k].flags & VM_EXEC) ? PF_X : 0);
		offset += phdr.p_filesz;
		if (!dump_emit(cprm, &phdr, sizeof(phdr)))
			goto out;
	}
	if (!write_note_info(&info, cprm))
		goto out;
	dump_skip(cprm, dataoff - (cprm->pos + cprm->to_skip)); /* the memory from a page on */
	for (int k = 0; k < n; k++)
		if (!dump_user_range(cprm, vmas[k].start, vmas[k].dump_size))
			goto out;
out:
	kfree(info.prstatus);
	kfree(info.threads);
	kfree(info.files);
	kfree(vmas);
	return has_dumped;
}
