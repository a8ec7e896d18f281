/* execve: replace the calling process's program. The new address space is built completely
 * before the old one is dropped, so a failing execve returns to the old program unharmed. */
#include "drivers/random.h"
#include "kernel/process/elf.h"
#include "kernel/errno.h"
#include "kernel/process/exec.h"
#include "kernel/process/personality.h"
#include "kernel/time/posix-timers.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"
#include "mm/filemap_rw.h"
#include "kernel/printk/printk.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "kernel/process/user_stack.h"
#include "kernel/arch/x86.h"
#include "mm/gfp.h"
#include "mm/fault.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

#define ARGS_AREA (64UL << 10) /* room for argv, envp and auxv at the top of the stack */
#define MAX_ARG_STRINGS 256
#define MAX_ARG_BYTES (32UL << 10)


/* Map each PT_LOAD segment as Linux's binfmt_elf does: the file part as a private file
 * mapping (text shared with the file until written), the rest of the last file page zeroed,
 * and the bss beyond it anonymous. Nothing is read yet: the pages fault in on first use. */
static int map_segments(struct mm_struct *mm, struct file *file, const struct elf_image *img)
{
	int err = 0;

	for (int i = 0; i < img->ehdr->e_phnum && !err; i++) {
		const Elf64_Phdr *ph = &img->phdr[i];
		uint64_t start = ph->p_vaddr + img->load_bias, file_end = start + ph->p_filesz;
		uint64_t map_start = ALIGN_DOWN(start, PAGE_SIZE);
		uint64_t map_end = ALIGN_UP(file_end, PAGE_SIZE);
		uint64_t mem_end = ALIGN_UP(start + ph->p_memsz, PAGE_SIZE), prot = 0;
		long r = 0;

		if (ph->p_type != PT_LOAD)
			continue;
		prot |= (ph->p_flags & PF_R) ? PROT_READ : 0;
		prot |= (ph->p_flags & PF_W) ? PROT_WRITE : 0;
		prot |= (ph->p_flags & PF_X) ? PROT_EXEC : 0;
		if (ph->p_filesz)
			r = do_mmap(mm, file, map_start, map_end - map_start, prot,
				    MAP_PRIVATE | MAP_FIXED,
				    ALIGN_DOWN(ph->p_offset, PAGE_SIZE) >> PAGE_SHIFT);
		else
			map_end = map_start;
		/* bss inside the last file page: those bytes of the file are not the program's. */
		if (r >= 0 && ph->p_memsz > ph->p_filesz && ph->p_filesz && (file_end & ~PAGE_MASK))
			r = copy_to_mm(mm, file_end, NULL,
				       MIN(map_end, start + ph->p_memsz) - file_end);
		if (r >= 0 && mem_end > map_end)
			r = do_mmap(mm, NULL, map_end, mem_end - map_end, prot,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
		if (r < 0)
			err = (int)r;
		if (mem_end > mm->start_brk)
			mm->start_brk = mem_end;
		if (ph->p_flags & PF_X) {
			mm->start_code = start;
			mm->end_code = start + ph->p_memsz;
		} else if (ph->p_flags & PF_W) {
			mm->start_data = start;
			mm->end_data = start + ph->p_memsz;
		}
	}
	mm->brk = mm->start_brk;
	return err;
}

/* Read permission for owner, group and others: whoever runs it may read it, no check needed
 * (the common case of every exec's dumpable test). */
static bool readable_by_all(const struct inode *ino)
{
	return (ino->i_mode & 0444) == 0444;
}

/* The stack: a VM_GROWSDOWN VMA holding argv, envp and the auxiliary vector at its top. */
static int setup_stack(struct mm_struct *mm, const char *path, const char *const *argv,
		       const char *const *envp, const struct elf_image *img,
		       const struct task_cred *cred, uint64_t *sp)
{
	struct user_stack_args sa = { .argv = argv, .envp = envp, .execfn = path, .img = img,
				      .uid = cred->uid, .euid = cred->euid, .gid = cred->gid,
				      .egid = cred->egid, .secure = cred_secure(cred),
				      .auxv_copy = mm->saved_auxv, .auxv_max = AT_VECTOR_SIZE };
	uint64_t base, size = PAGE_SIZE;
	uint8_t *buf;
	long err = 0;

	get_random_bytes(sa.random, sizeof(sa.random)); /* AT_RANDOM: libc's stack canary seed */
	/* Most programs' arguments, environment and auxiliary vector fit in a page: they are laid
	 * out in one, and in the whole area only when they do not (a block of 16 frames costs the
	 * buddy allocator a split and a merge on every exec). */
	for (;;) {
		buf = kmalloc(size);
		if (!buf)
			return -ENOMEM;
		*sp = build_user_stack(buf, size, USER_STACK_TOP, &sa);
		if (*sp || size == ARGS_AREA)
			break;
		kfree(buf);
		size = ARGS_AREA;
	}
	if (!*sp) {
		kfree(buf);
		return -E2BIG;
	}
	base = ALIGN_DOWN(*sp, PAGE_SIZE);
	err = do_mmap(mm, NULL, base - PAGE_SIZE, USER_STACK_TOP - base + PAGE_SIZE,
		      PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, 0);
	if (err >= 0)
		err = copy_to_mm(mm, *sp, buf + (*sp - (USER_STACK_TOP - size)),
				 USER_STACK_TOP - *sp);
	mm->start_stack = *sp;
	mm->mmap_base = USER_STACK_TOP - STACK_LIMIT - STACK_GUARD_GAP;
	kfree(buf);
	return err < 0 ? (int)err : 0;
}

/* Wait until every other thread of current's group is gone; the leader may stay a zombie. */
static void wait_other_threads(struct task_struct *tsk)
{
	struct task_struct *leader = tsk->group_leader, *t;
	bool others;

	for (;;) {
		others = false;
		for_each_thread(tsk, t)
			if (t != tsk && (t != leader || t->state != EXIT_ZOMBIE))
				others = true;
		if (!others)
			return;
		tsk->state = TASK_UNINTERRUPTIBLE; /* each exiting thread wakes us */
		schedule();
	}
}

/* The exec'ing thread becomes the process's only one (Linux's de_thread): the other threads
 * are killed and waited for, and a thread other than the leader takes the leader's place
 * and pid, the old leader's zombie being freed. Then current gets signal actions of its own
 * if it shared them with another process. 0, or -EAGAIN when the group is already dying. */
static int de_thread(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct task_struct *leader = tsk->group_leader;
	struct sighand_struct *sh;

	if (!thread_group_empty(tsk)) {
		if (signal_group_exit(sig))
			return -EAGAIN;
		sig->group_exit_task = tsk;
		zap_other_threads(tsk);
		wait_other_threads(tsk);
		if (leader != tsk) {
			tsk->start_time = leader->start_time;
			detach_pid(leader);
			detach_pid(tsk);
			leader->pid = tsk->pid;
			tsk->pid = tsk->tgid;
			attach_pid(tsk);
			list_add(&tsk->sibling, &leader->sibling); /* its place as a child */
			list_del(&leader->sibling);
			list_del(&leader->thread_group);
			tsk->group_leader = tsk;
			tsk->exit_signal = SIGCHLD;
			account_thread_exit(leader);
			release_task(leader);
		}
		sig->group_exit_task = NULL;
	}
	if (tsk->sighand->count > 1) {
		sh = copy_sighand(tsk->sighand);
		if (!sh)
			return -ENOMEM;
		put_sighand(tsk->sighand);
		tsk->sighand = sh;
	}
	return 0;
}

/* A descriptor table shared with another process (CLONE_FILES) is copied before exec closes
 * its close-on-exec descriptors (Linux's unshare_files). 0 or -ENOMEM. */
static int unshare_files(void)
{
	struct files_struct *files;

	if (current->files->count == 1)
		return 0;
	files = dup_files(current->files);
	if (!files)
		return -ENOMEM;
	put_files(current->files);
	current->files = files;
	return 0;
}

/* Load the program open on file (path) with cred and switch to it: 0, or -errno with the old
 * program untouched. */
static int exec_binary(struct file *file, const char *path, const char *const *argv,
		       const char *const *envp, const struct task_cred *cred)
{
	struct inode *ino = file->f_inode;
	struct pt_regs *regs = task_pt_regs(current);
	struct mm_struct *mm, *old;
	struct elf_image img;
	const char *why;
	uint8_t *hdr;
	uint64_t sp = 0;
	long n;
	int err;

	/* The headers come through the page cache, like everything else of the file. */
	hdr = kmalloc(PAGE_SIZE);
	if (!hdr)
		return -ENOMEM;
	n = kernel_read(ino, 0, hdr, PAGE_SIZE);
	if (n < 0 || elf_check(hdr, (uint64_t)n, ino->i_size, &img, &why)) {
		if (n >= 0)
			printk("exec: %s: %s\n", path, why);
		kfree(hdr);
		return n < 0 ? (int)n : -ENOEXEC;
	}
	mm = mm_alloc();
	if (!mm) {
		kfree(hdr);
		return -ENOMEM;
	}
	mm->mmap_base = USER_STACK_TOP - STACK_LIMIT - STACK_GUARD_GAP;
	/* The program's file, kept from writers while the address space lives (today's Linux's
	 * set_mm_exe_file; the exec's own denial holds now, so this one cannot fail). */
	get_file(file);
	err = deny_write_access(file);
	BUG_ON(err);
	mm->exe_file = file;
	/* Nobody else sees the new mm yet; its mmap_sem is taken anyway, as every VMA change
	 * takes it (argv and envp are already in kernel memory: nothing here faults). */
	down_write(&mm->mmap_sem);
	err = map_segments(mm, file, &img);
	if (!err)
		err = setup_stack(mm, path, argv, envp, &img, cred, &sp);
	up_write(&mm->mmap_sem);
	kfree(hdr); /* nothing below reads img's headers again */
	if (!err)
		err = unshare_files();
	if (!err)
		err = de_thread(current);
	if (err) {
		mmput(mm);
		return err;
	}

	/* The point of no return: switch to the new program. */
	acct_update_maxrss(current); /* the peak survives exec, as Linux's does */
	mm_release(current, current->mm); /* a vfork parent resumes: its memory is its own */
	old = current->mm;
	current->mm = mm;
	sched_mm_changed(current);
	switch_mm(mm);
	mmput(old);
	current->clear_child_tid = 0; /* the address was in the old program's memory */
	task_set_comm(current, path);
	files_close_on_exec(current->files);
	signals_exec(current);
	exit_itimers(current->signal); /* POSIX timers do not survive exec */
	personality_exec(cred_secure(cred));
	/* A set-user-ID program, or one its user may not read, is nobody else's to read: the
	 * dumpable state becomes fs.suid_dumpable's (Linux's would_dump and begin_new_exec). */
	mm->dumpable = cred_secure(cred) || (!readable_by_all(ino) &&
					     inode_permission(ino, MAY_READ))
			       ? READ_ONCE(suid_dumpable)
			       : SUID_DUMP_USER;
	cred_exec_commit(cred);
	current->did_exec = true;
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

int do_execve(const char *path, const char *const *argv, const char *const *envp)
{
	struct task_cred cred;
	struct inode *ino;
	struct dentry *d;
	struct file *file;
	int err;

	/* the name found is the program's (/proc/PID/exe, maps), of its hard links */
	err = path_lookup_dentry(current_pwd(), path, true, &d);
	if (err)
		return err;
	ino = d->d_inode;
	if (!S_ISREG(ino->i_mode) || (ino->i_sb->s_flags & MS_NOEXEC))
		return -EACCES;
	err = inode_permission(ino, MAY_EXEC); /* no read permission needed */
	if (err)
		return err;
	/* No program runs from a file open for writing (ETXTBSY, before its contents are
	 * looked at), and while it loads nobody opens it for writing (Linux's do_open_execat). */
	err = dentry_open(d, O_RDONLY, &file); /* it holds the name too */
	if (err)
		return err;
	err = deny_write_access(file);
	if (err) {
		fput(file);
		return err;
	}
	/* On a nosuid mount the set-user-ID and set-group-ID bits give nothing. */
	cred_exec_prepare(&cred, (ino->i_sb->s_flags & MS_NOSUID) ? ino->i_mode & ~06000U
								   : ino->i_mode,
			  ino->i_uid, ino->i_gid);
	/* Until its mappings hold it open, a disk's read of the file may sleep: its file system
	 * must stay mounted meanwhile. */
	ino->i_sb->s_inflight++;
	err = exec_binary(file, path, argv, envp, &cred);
	ino->i_sb->s_inflight--;
	allow_write_access(file);
	fput(file); /* the new address space holds its own (exe_file) */
	return err;
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
	if (err == 0) { /* today's Linux: no program starts with argc 0, which many mistake */
		static bool warned;

		if (!warned)
			printk("exec: process '%s' launched '%s' with NULL argv: empty string "
			       "added\n", current->comm, path);
		warned = true;
		argv[0] = "";
		argv[1] = NULL;
	}
	if (err >= 0)
		err = copy_strings(uenvp, envp, MAX_ARG_STRINGS, &p, strings + MAX_ARG_BYTES);
	if (err >= 0)
		err = do_execve(path, argv, envp);
out:
	kfree(strings);
	kfree(argv);
	return err;
}
