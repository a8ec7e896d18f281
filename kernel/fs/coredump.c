/* Dumping core (Linux's fs/coredump.c): the other threads stopped where they are, the file
 * named from core_pattern and opened with Linux's precautions, the ELF writer called
 * (kernel/fs/binfmt_elf_core.c), and the group's exit code marked with 0x80 when a file was
 * written. A pattern that pipes to a helper program writes nothing: faultline starts no
 * helpers from the kernel. */
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/syscall.h"
#include "kernel/time/time.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/vma.h"

char core_pattern[CORENAME_MAX_SIZE] = "core";
int core_uses_pid;
int suid_dumpable; /* SUID_DUMP_DISABLE: a process whose ids changed dumps nothing */

#define SIG_KERNEL_COREDUMP_MASK                                                                   \
	(sigmask(SIGQUIT) | sigmask(SIGILL) | sigmask(SIGTRAP) | sigmask(SIGABRT) |                \
	 sigmask(SIGFPE) | sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGSYS) |                  \
	 sigmask(SIGXCPU) | sigmask(SIGXFSZ))

bool sig_kernel_coredump(int sig)
{
	return sig > 0 && sig < SIGRTMIN && (sigmask(sig) & SIG_KERNEL_COREDUMP_MASK);
}

/* The name being made (Linux's struct core_name): false once it no longer fits. */
struct core_name {
	char *buf;
	size_t used, size;
};

static bool cn_printf(struct core_name *cn, bool escape, const char *fmt, ...) __printf(3, 4);
/* Append; with escape, a '/' of the text becomes '!' (a name is one file, not a path). */
static bool cn_printf(struct core_name *cn, bool escape, const char *fmt, ...)
{
	size_t start = cn->used;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cn->buf + cn->used, cn->size - cn->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cn->size - cn->used)
		return false;
	cn->used += (size_t)n;
	for (size_t k = start; escape && k < cn->used; k++)
		if (cn->buf[k] == '/')
			cn->buf[k] = '!';
	return true;
}

/* %E: the executable's path, as /proc/PID/exe gives it ('/' escaped). */
static bool cn_print_exe_file(struct core_name *cn, struct mm_struct *mm)
{
	struct vm_area_struct *vma = find_vma(mm, mm->start_code);
	char *path;
	bool ok;

	if (!vma || vma->vm_start > mm->start_code || !vma->vm_file)
		return cn_printf(cn, true, "%s (path unknown)", current->comm);
	path = kmalloc(PATH_MAX);
	if (!path)
		return false;
	d_path(vma->vm_file->f_dentry, path, PATH_MAX);
	ok = cn_printf(cn, true, "%s", path);
	kfree(path);
	return ok;
}

/* core_pattern expanded (Linux's format_corename): 1 for a pipe ("|..."), 0 for a file name,
 * -ENAMETOOLONG when the name does not fit. */
static int format_corename(struct core_name *cn, const struct coredump_params *cprm)
{
	const struct task_cred *cred = &current->cred;
	const char *p = core_pattern;
	bool ispipe = *p == '|', pid_in_pattern = false, ok = true;
	struct timespec64 now;

	cn->used = 0;
	cn->buf[0] = '\0';
	if (ispipe)
		p++;
	for (; *p && ok; p++) {
		if (*p != '%') {
			ok = cn_printf(cn, false, "%c", *p);
			continue;
		}
		switch (*++p) {
		case '\0': /* a lone '%' at the end is dropped */
			p--;
			break;
		case '%':
			ok = cn_printf(cn, false, "%%");
			break;
		case 'p': /* no pid namespaces: the pid seen is the global one, %P */
			pid_in_pattern = true;
			ok = cn_printf(cn, false, "%d", current->tgid);
			break;
		case 'P':
			ok = cn_printf(cn, false, "%d", current->tgid);
			break;
		case 'i':
		case 'I':
			ok = cn_printf(cn, false, "%d", current->pid);
			break;
		case 'u':
			ok = cn_printf(cn, false, "%u", cred->uid);
			break;
		case 'g':
			ok = cn_printf(cn, false, "%u", cred->gid);
			break;
		case 'd':
			ok = cn_printf(cn, false, "%d", current->mm->dumpable);
			break;
		case 's':
			ok = cn_printf(cn, false, "%d", cprm->siginfo->signo);
			break;
		case 't':
			ktime_get_real_ts64(&now);
			ok = cn_printf(cn, false, "%ld", (long)now.tv_sec);
			break;
		case 'h':
			ok = cn_printf(cn, true, "%s", UTS_NODENAME);
			break;
		case 'e':
			ok = cn_printf(cn, true, "%s", current->comm);
			break;
		case 'E':
			ok = cn_print_exe_file(cn, current->mm);
			break;
		case 'c':
			ok = cn_printf(cn, false, "%lu", (unsigned long)cprm->limit);
			break;
		default: /* an unknown one is dropped, both characters */
			break;
		}
	}
	/* core_uses_pid: ".PID" after a file name whose pattern has no %p */
	if (ok && !ispipe && !pid_in_pattern && READ_ONCE(core_uses_pid))
		ok = cn_printf(cn, false, ".%d", current->tgid);
	return ok ? ispipe : -ENAMETOOLONG;
}

/* Stop every other thread of the group (Linux's zap_threads and coredump_wait): each is sent
 * SIGKILL and waits in do_exit, its registers saved, until coredump_finish. The count of
 * those threads, or -EAGAIN when the group is already exiting (another thread dumps). */
static int coredump_wait(int exit_code, struct core_state *cs)
{
	struct signal_struct *sig = current->signal;
	struct core_thread *ct;
	struct task_struct *t;
	int nr = 0;

	if (signal_group_exit(sig))
		return -EAGAIN;
	cs->dumper.task = current;
	cs->dumper.next = NULL;
	sig->core_state = cs;
	sig->flags = SIGNAL_GROUP_EXIT;
	sig->group_exit_code = exit_code;
	sig->group_stop_count = 0;
	for_each_thread(current, t) {
		if (t != current && t->mm)
			nr++;
	}
	cs->nr_threads = nr;
	zap_other_threads(current);
	for (;;) {
		current->state = TASK_UNINTERRUPTIBLE;
		if (!READ_ONCE(cs->nr_threads))
			break;
		schedule();
	}
	current->state = TASK_RUNNING;
	/* Their registers are in memory once they are off their CPUs (the switch saves them). */
	for (ct = cs->dumper.next; ct; ct = ct->next)
		wait_task_inactive(ct->task);
	return nr;
}

void coredump_exit_mm(struct signal_struct *sig)
{
	struct core_state *cs = sig->core_state;
	struct core_thread self = { current, cs->dumper.next };

	cs->dumper.next = &self;
	if (--cs->nr_threads == 0)
		wake_up_process(cs->dumper.task);
	for (;;) {
		current->state = TASK_UNINTERRUPTIBLE;
		if (!__atomic_load_n(&self.task, __ATOMIC_ACQUIRE))
			break;
		schedule();
	}
	current->state = TASK_RUNNING;
}

/* The dump is over: the exit code says whether a file was written (unless a SIGKILL cut it
 * short), and the stopped threads go on to exit (Linux's coredump_finish). */
static void coredump_finish(struct core_state *cs, bool dumped)
{
	struct signal_struct *sig = current->signal;
	struct core_thread *curr, *next = cs->dumper.next;

	if (dumped && !((current->pending | sig->shared_pending) & sigmask(SIGKILL)))
		sig->group_exit_code |= 0x80;
	while ((curr = next)) {
		struct task_struct *t = curr->task;

		next = curr->next; /* read before the thread may return and free its node */
		__atomic_store_n(&curr->task, NULL, __ATOMIC_RELEASE);
		wake_up_process(t);
	}
	sig->core_state = NULL;
}

/* A SIGKILL stops the dump where it is (Linux's dump_interrupted). */
static bool dump_interrupted(void)
{
	return fatal_signal_pending(current);
}

static bool __dump_emit(struct coredump_params *cprm, const void *addr, uint64_t nr)
{
	struct file *f = cprm->file;

	if (cprm->written + nr > cprm->limit || dump_interrupted())
		return false;
	if (f->f_op->splice_write(f, addr, nr, &cprm->pos) != (long)nr)
		return false;
	cprm->written += nr;
	return true;
}

/* Bytes to the file. A hole waiting before them is left first: a seek, counted in the file's
 * size but not against the limit, as Linux's. */
bool dump_emit(struct coredump_params *cprm, const void *addr, uint64_t nr)
{
	if (cprm->to_skip) {
		if (dump_interrupted())
			return false;
		cprm->pos += cprm->to_skip;
		cprm->to_skip = 0;
	}
	return __dump_emit(cprm, addr, nr);
}

bool dump_skip(struct coredump_params *cprm, uint64_t nr)
{
	cprm->to_skip += nr;
	return true;
}

bool dump_align(struct coredump_params *cprm, uint64_t align)
{
	uint64_t mod = (cprm->pos + cprm->to_skip) & (align - 1);

	return mod ? dump_skip(cprm, align - mod) : true;
}

/* Open the core file (today's Linux): an old file of that name is unlinked first (unless
 * dumping as root for a set-user-ID process), then a new one made exclusively, mode 0600,
 * without following a symbolic link; it must be a regular file with one name, owned by the
 * dumper's fsuid, mode 0600, writable. 0 or -errno. */
static int open_core_file(const char *name, bool suid_safe, struct file **out)
{
	struct inode *base = current_pwd(), *ino;
	struct file *f;
	int err;

	if (!suid_safe)
		vfs_unlink(base, name, false); /* whatever it answers: the open decides */
	err = do_filp_open(base, name, O_CREAT | O_WRONLY | O_NOFOLLOW | O_LARGEFILE | O_EXCL, 0600,
			   &f);
	if (err)
		return err;
	ino = f->f_inode;
	if (ino->i_nlink > 1)
		err = -EMLINK;
	else if (!S_ISREG(ino->i_mode) || !ino->i_mapping)
		err = -EINVAL;
	else if (ino->i_uid != current->cred.fsuid)
		err = -EPERM; /* cannot preserve the file's owner */
	else if ((ino->i_mode & 0677) != 0600)
		err = -EPERM; /* cannot preserve its permissions (a umask took the owner's) */
	else if (!(f->f_mode & FMODE_WRITE) || !f->f_op || !f->f_op->splice_write)
		err = -EINVAL;
	if (err) {
		fput(f);
		return err;
	}
	*out = f;
	return 0;
}

void do_coredump(const struct ksiginfo *info)
{
	struct mm_struct *mm = current->mm;
	struct core_state cs;
	struct core_name cn = { .size = PATH_MAX };
	struct coredump_params cprm = { .siginfo = info, .limit = rlimit(RLIMIT_CORE) };
	int dumpable = mm->dumpable, ispipe, err;
	uid_t fsuid = current->cred.fsuid;
	bool dumped = false;

	if (dumpable == SUID_DUMP_DISABLE)
		return;
	cprm.mm_flags = mm->coredump_filter;
	if (coredump_wait(info->signo, &cs) < 0)
		return;
	cprm.core_state = &cs;
	/* A process whose ids changed dumps as root, only to an absolute path. */
	if (dumpable == SUID_DUMP_ROOT)
		current->cred.fsuid = 0;
	cn.buf = kmalloc(cn.size);
	if (!cn.buf)
		goto finish;
	ispipe = format_corename(&cn, &cprm);
	if (ispipe > 0) {
		printk("coredump: pid %d (%s): core_pattern pipes to a program, which faultline "
		       "does not start: no core dump\n",
		       current->tgid, current->comm);
		goto finish;
	}
	if (ispipe < 0 || cprm.limit < PAGE_SIZE) /* binfmt_elf's min_coredump */
		goto finish;
	if (dumpable == SUID_DUMP_ROOT && cn.buf[0] != '/') {
		printk("coredump: pid %d (%s): this process can only dump core to an absolute "
		       "path: no core dump\n",
		       current->tgid, current->comm);
		goto finish;
	}
	err = open_core_file(cn.buf, dumpable == SUID_DUMP_ROOT, &cprm.file);
	if (err)
		goto finish;
	if (!dump_interrupted()) {
		dumped = elf_core_dump(&cprm);
		/* a hole at the end still counts in the file's size: its last byte is written */
		if (cprm.to_skip) {
			cprm.to_skip--;
			dump_emit(&cprm, "", 1);
		}
	}
	fput(cprm.file);
finish:
	kfree(cn.buf);
	current->cred.fsuid = fsuid;
	coredump_finish(&cs, dumped);
}
