/* coredump: children die of signals that dump core, under several settings (RLIMIT_CORE 0,
 * small, unlimited; core_pattern's % expansions and core_uses_pid; PR_SET_DUMPABLE 0; an old
 * file in the way; a directory the dumper may not write), and the parent checks WCOREDUMP,
 * the file's name, owner and mode, and its ELF header, program headers and notes (NT_PRSTATUS
 * of each thread with the signal and the faulting rip, NT_SIGINFO, NT_PRPSINFO, NT_AUXV,
 * NT_FILE, NT_PRFPREG) and memory. Runs as root; natively too (the host's core_pattern,
 * core_uses_pid and suid_dumpable are saved and put back at exit). "coredump crash" just
 * dies so, for a debugger to read its core. */
#define _GNU_SOURCE
#define UTEST_NAME "coredump"
#include "utest.h"
#include <dirent.h>
#include <elf.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define MAGIC	  0x1122334455667788UL
#define XMM_MAGIC 0x0badc0ffee0ddf00UL

/* The faulting instructions, at known addresses: r12 and xmm0 hold markers first. */
extern char crash_segv[], crash_ill[];
asm(".pushsection .text\n"
    ".globl crash_segv_fn\n"
    "crash_segv_fn:\n"
    "\tmovabs $0x1122334455667788, %r12\n"
    "\tmovabs $0x0badc0ffee0ddf00, %rax\n"
    "\tmovq %rax, %xmm0\n"
    ".globl crash_segv\n"
    "crash_segv:\n"
    "\tmovl $42, 0x40\n"
    "\tud2\n"
    ".globl crash_ill_fn\n"
    "crash_ill_fn:\n"
    "\tmovabs $0x1122334455667788, %r12\n"
    ".globl crash_ill\n"
    "crash_ill:\n"
    "\tud2\n"
    ".popsection");
void crash_segv_fn(void);
void crash_ill_fn(void);

static char dir[64], saved_pattern[256], saved_uses_pid[32], saved_suid[32];
static char exe[256], comm[16]; /* this program's path and name, the child's too */
static volatile uint64_t *anon; /* 4 pages: the first written with MAGIC, the rest never */
static int suid_dumpable; /* what the children set fs.suid_dumpable to: 2 keeps it */
static int raise_sig;     /* RAISE's signal */

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	long n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (long)strlen(text) ? 0 : -1;
}

/* Remove path and, for a directory, everything under it. */
static void remove_tree(const char *path)
{
	struct dirent *d;
	char sub[512];
	DIR *dp = opendir(path);

	while (dp && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name);
		if (d->d_type == DT_DIR)
			remove_tree(sub);
		else
			unlink(sub);
	}
	if (dp)
		closedir(dp);
	rmdir(path);
}

/* At exit, whatever happened: the host's settings back, the directory gone. */
static void restore(void)
{
	if (saved_pattern[0]) {
		write_proc("/proc/sys/kernel/core_pattern", saved_pattern);
		write_proc("/proc/sys/kernel/core_uses_pid", saved_uses_pid);
		write_proc("/proc/sys/fs/suid_dumpable", saved_suid);
	}
	if (dir[0])
		remove_tree(dir);
}

static void set_pattern(const char *pattern)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s\n", pattern);
	CHECK(write_proc("/proc/sys/kernel/core_pattern", buf) == 0);
}

/* What the child does before it dies. */
enum how { SEGV, ILL, ABRT, THREADS, THREAD_CRASH, WAIT_QUIT, FILTER0, RAISE };

static void *crashing_thread(void *arg)
{
	(void)arg;
	crash_segv_fn();
	return NULL;
}

static void *blocked_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The child: its limit, its ids (uid != 0: drop to that uid, dumpable made 1 again unless
 * nodump), its working directory, then how it dies. */
static pid_t crash(enum how how, rlim_t limit, uid_t uid, bool nodump, const char *cwd)
{
	pid_t pid = fork();
	struct rlimit rl = { limit, limit };
	pthread_t t;

	if (pid)
		return pid;
	if (setrlimit(RLIMIT_CORE, &rl) || (cwd && chdir(cwd)))
		_exit(90);
	if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
		    prctl(PR_GET_DUMPABLE) != suid_dumpable ||
		    (!suid_dumpable && prctl(PR_SET_DUMPABLE, 1))))
		_exit(91); /* the change of ids made dumpable fs.suid_dumpable's */
	if (nodump && (prctl(PR_SET_DUMPABLE, 0) || prctl(PR_GET_DUMPABLE) != 0))
		_exit(92);
	anon[0] = MAGIC;
	switch (how) {
	case FILTER0: /* nothing of any kind of memory */
		if (write_proc("/proc/self/coredump_filter", "0\n"))
			_exit(95);
		/* fall through */
	case SEGV:
		crash_segv_fn();
		break;
	case ILL:
		crash_ill_fn();
		break;
	case ABRT:
		abort();
	case RAISE:
		raise(raise_sig);
		break;
	case THREADS:
		for (int k = 0; k < 2; k++)
			if (pthread_create(&t, NULL, blocked_thread, NULL))
				_exit(93);
		usleep(20000); /* both blocked in pause() */
		crash_segv_fn();
		break;
	case THREAD_CRASH: /* a thread other than the leader faults, the leader waits */
		if (pthread_create(&t, NULL, crashing_thread, NULL))
			_exit(93);
		/* fall through */
	case WAIT_QUIT:
		for (;;)
			pause();
	}
	_exit(94);
}

static int wait_status(pid_t pid)
{
	int status = 0;

	CHECK_EQ(waitpid(pid, &status, 0), pid);
	return status;
}

/* The whole file path, or NULL if absent; its size in *size. */
static unsigned char *slurp(const char *path, size_t *size)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	fstat(fd, &st);
	buf = malloc(st.st_size + 1);
	*size = (size_t)st.st_size;
	if (buf && read(fd, buf, *size) != (long)*size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

/* The note parser's findings. */
struct notes {
	int prstatus, fpregs, psinfo, siginfo, auxv, file;
	int cursig[8], pids[8];
	unsigned long rip[8], r12[8], xmm0[8];
	siginfo_t si;
	char fname[16];
	int pspid;
	bool auxv_ok, file_has_exe;
};

static void parse_notes(const unsigned char *p, size_t n, struct notes *nt)
{
	size_t off = 0;

	memset(nt, 0, sizeof(*nt));
	while (off + 12 <= n) {
		const Elf64_Nhdr *h = (const void *)(p + off);
		const unsigned char *desc = p + off + 12 + ((h->n_namesz + 3) & ~3U);
		int k;

		if (desc + h->n_descsz > p + n)
			break;
		switch (h->n_type) {
		case NT_PRSTATUS:
			k = nt->prstatus++;
			if (k < 8) {
				nt->cursig[k] = *(const short *)(desc + 12);
				nt->pids[k] = *(const int *)(desc + 32);
				nt->r12[k] = *(const unsigned long *)(desc + 112 + 3 * 8);
				nt->rip[k] = *(const unsigned long *)(desc + 112 + 16 * 8);
			}
			break;
		case NT_PRFPREG:
			k = nt->fpregs++;
			if (k < 8)
				nt->xmm0[k] = *(const unsigned long *)(desc + 160);
			break;
		case NT_PRPSINFO:
			nt->psinfo++;
			memcpy(nt->fname, desc + 40, 16);
			nt->pspid = *(const int *)(desc + 24);
			break;
		case NT_SIGINFO:
			nt->siginfo++;
			memcpy(&nt->si, desc, sizeof(nt->si));
			break;
		case NT_AUXV: /* the parent's own vector: the child is its fork */
			nt->auxv++;
			nt->auxv_ok = h->n_descsz >= 32 && !(h->n_descsz % 16) &&
				      !*(const unsigned long *)(desc + h->n_descsz - 16);
			for (size_t w = 0; w + 16 <= h->n_descsz; w += 16) {
				const unsigned long *a = (const void *)(desc + w);

				if (a[0] == AT_PAGESZ || a[0] == AT_ENTRY || a[0] == AT_PHDR)
					nt->auxv_ok &= a[1] == getauxval(a[0]);
			}
			break;
		case NT_FILE:
			nt->file++;
			nt->file_has_exe = memmem(desc, h->n_descsz, exe, strlen(exe) + 1) != NULL;
			break;
		}
		off = desc - p + ((h->n_descsz + 3) & ~3U);
	}
}

/* The bytes of the dump at virtual address va (n of them), NULL if no PT_LOAD holds them. */
static const unsigned char *dump_at(const unsigned char *core, size_t size, unsigned long va,
				    size_t n)
{
	const Elf64_Ehdr *e = (const void *)core;
	const Elf64_Phdr *ph = (const void *)(core + e->e_phoff);

	for (int k = 0; k < e->e_phnum; k++)
		if (ph[k].p_type == PT_LOAD && va >= ph[k].p_vaddr &&
		    va + n <= ph[k].p_vaddr + ph[k].p_filesz &&
		    ph[k].p_offset + ph[k].p_filesz <= size)
			return core + ph[k].p_offset + (va - ph[k].p_vaddr);
	return NULL;
}

/* A whole core of a SIGSEGV or SIGILL at rip by pid with nthreads threads; its size. */
static size_t check_core(const char *path, pid_t pid, int sig, unsigned long rip, int nthreads)
{
	size_t size = 0;
	unsigned char *core = slurp(path, &size);
	const Elf64_Ehdr *e = (const void *)core;
	const Elf64_Phdr *ph;
	extern const char __ehdr_start[];
	const unsigned char *b;
	struct notes nt;
	struct stat st;
	static const unsigned char zero[4096];

	if (!CHECK(core != NULL) || !CHECK(size > sizeof(*e)))
		return 0;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == geteuid());
	CHECK(!memcmp(e->e_ident, ELFMAG, SELFMAG) && e->e_ident[EI_CLASS] == ELFCLASS64);
	CHECK_EQ(e->e_type, ET_CORE);
	CHECK_EQ(e->e_machine, EM_X86_64);
	CHECK_EQ(e->e_phentsize, sizeof(Elf64_Phdr));
	CHECK(e->e_phnum >= 4);
	ph = (const void *)(core + e->e_phoff);
	CHECK_EQ(ph[0].p_type, PT_NOTE); /* the notes first, then a PT_LOAD per VMA */
	for (int k = 1; k < e->e_phnum; k++)
		CHECK(ph[k].p_type == PT_LOAD && !(ph[k].p_offset & 4095) &&
		      ph[k].p_filesz <= ph[k].p_memsz);
	if (!CHECK(ph[0].p_offset + ph[0].p_filesz <= size))
		goto out;
	parse_notes(core + ph[0].p_offset, ph[0].p_filesz, &nt);
	CHECK_EQ(nt.prstatus, nthreads);
	CHECK_EQ(nt.fpregs, nthreads);
	CHECK_EQ(nt.cursig[0], sig);
	if (nthreads == 2) /* THREAD_CRASH: the dumper is not the leader */
		CHECK(nt.pids[0] != pid && nt.pids[0] > 0 && nt.pids[1] == pid);
	else
		CHECK_EQ(nt.pids[0], pid); /* the dumper's first */
	CHECK_EQ(nt.rip[0], rip);
	CHECK_EQ(nt.r12[0], MAGIC);
	if (sig == SIGSEGV)
		CHECK_EQ(nt.xmm0[0], XMM_MAGIC);
	for (int k = 1; k < nthreads && k < 8; k++)
		CHECK(nt.cursig[k] == sig && nt.pids[k] != nt.pids[0] && nt.pids[k] > 0);
	CHECK_EQ(nt.psinfo, 1);
	CHECK(!strcmp(nt.fname, comm) && nt.pspid == pid);
	CHECK_EQ(nt.siginfo, 1);
	CHECK_EQ(nt.si.si_signo, sig);
	if (sig == SIGSEGV)
		CHECK(nt.si.si_code == SEGV_MAPERR && nt.si.si_addr == (void *)0x40);
	CHECK(nt.auxv == 1 && nt.auxv_ok);
	CHECK(nt.file == 1 && nt.file_has_exe);
	/* memory: the written word, the untouched pages after it zeroes, the ELF header page */
	b = dump_at(core, size, (unsigned long)anon, 4 * 4096);
	CHECK(b && *(const unsigned long *)b == MAGIC && !memcmp(b + 4096, zero, 4096) &&
	      !memcmp(b + 3 * 4096, zero, 4096));
	b = dump_at(core, size, (unsigned long)__ehdr_start, 4096);
	CHECK(b && !memcmp(b, ELFMAG, SELFMAG));
out:
	free(core);
	return size;
}

/* The child died of sig, dumped (WCOREDUMP) or not. */
static void check_status(int status, int sig, bool dumped)
{
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), sig);
	CHECK_EQ(!!WCOREDUMP(status), dumped);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
	char path[256], want[512];
	struct utsname u;
	struct stat st;
	size_t size, full;
	pid_t pid;
	int status;

	if (argc > 1 && !strcmp(argv[1], "crash")) {
		/* "coredump crash": die of SIGSEGV at crash_segv with a core, for a debugger
		 * (tests/boot/ext2-write.sh) */
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_CORE, &rl);
		crash_segv_fn();
	}
	if (geteuid() != 0) {
		printf("coredump: skipped (needs root)\n");
		return 0;
	}
	if (utest_slurp("/proc/sys/kernel/core_pattern", saved_pattern, 256) <= 0 ||
	    utest_slurp("/proc/sys/kernel/core_uses_pid", saved_uses_pid, 32) <= 0 ||
	    utest_slurp("/proc/sys/fs/suid_dumpable", saved_suid, 32) <= 0) {
		CHECK(!"the core dump sysctls are readable");
		return utest_done();
	}
	atexit(restore);
	CHECK(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0 &&
	      prctl(PR_GET_NAME, comm) == 0);
	snprintf(dir, sizeof(dir), "/tmp/coredump-XXXXXX");
	if (!CHECK(mkdtemp(dir) != NULL)) {
		dir[0] = '\0';
		return utest_done();
	}
	chmod(dir, 0755);
	CHECK(write_proc("/proc/sys/kernel/core_uses_pid", "0\n") == 0);
	CHECK(write_proc("/proc/sys/fs/suid_dumpable", "0\n") == 0);
	anon = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(anon != MAP_FAILED))
		return utest_done();

	/* The pattern is read back as written; a file pattern with %p and %s. */
	snprintf(path, sizeof(path), "%s/core.%%p.%%s", dir);
	set_pattern(path);
	CHECK(utest_slurp("/proc/sys/kernel/core_pattern", want, sizeof(want)) > 0 &&
	      !strncmp(want, path, strlen(path)) && want[strlen(path)] == '\n');

	/* SIGSEGV, unlimited: a whole core at the faulting instruction, WCOREDUMP */
	pid = crash(SEGV, RLIM_INFINITY, 0, false, NULL);
	status = wait_status(pid);
	check_status(status, SIGSEGV, true);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	full = check_core(path, pid, SIGSEGV, (unsigned long)crash_segv, 1);

	/* SIGILL; three threads: each its NT_PRSTATUS, the dumper's first */
	pid = crash(ILL, RLIM_INFINITY, 0, false, NULL);
	check_status(wait_status(pid), SIGILL, true);
	snprintf(path, sizeof(path), "%s/core.%d.4", dir, pid);
	check_core(path, pid, SIGILL, (unsigned long)crash_ill, 1);
	pid = crash(THREADS, RLIM_INFINITY, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	check_core(path, pid, SIGSEGV, (unsigned long)crash_segv, 3);

	pid = crash(THREAD_CRASH, RLIM_INFINITY, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	check_core(path, pid, SIGSEGV, (unsigned long)crash_segv, 2);

	/* SIGQUIT from kill and abort's SIGABRT dump too; SIGKILL and SIGTERM never */
	pid = crash(WAIT_QUIT, RLIM_INFINITY, 0, false, NULL);
	usleep(10000);
	kill(pid, SIGQUIT);
	check_status(wait_status(pid), SIGQUIT, true);
	snprintf(path, sizeof(path), "%s/core.%d.3", dir, pid);
	CHECK(exists(path));
	pid = crash(ABRT, RLIM_INFINITY, 0, false, NULL);
	check_status(wait_status(pid), SIGABRT, true);
	snprintf(path, sizeof(path), "%s/core.%d.6", dir, pid);
	CHECK(exists(path));
	pid = crash(WAIT_QUIT, RLIM_INFINITY, 0, false, NULL);
	kill(pid, SIGTERM);
	check_status(wait_status(pid), SIGTERM, false);
	snprintf(path, sizeof(path), "%s/core.%d.15", dir, pid);
	CHECK(!exists(path));

	/* RLIMIT_CORE 0, and below a page: nothing; 3 pages: a core cut short, still dumped */
	pid = crash(SEGV, 0, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, false);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	CHECK(!exists(path));
	pid = crash(SEGV, 4095, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, false);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	CHECK(!exists(path));
	pid = crash(SEGV, 3 * 4096, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	{
		unsigned char *core = slurp(path, &size);

		CHECK(core && size > 64 && !memcmp(core, ELFMAG, SELFMAG) && core[16] == ET_CORE);
		/* the writing stopped at the limit: less than the whole core (holes do not count
		 * against the limit, so the size itself may pass it) */
		CHECK(core && size > 4096 && size < full);
		free(core);
	}

	/* coredump_filter: 0x33 by default, the known bits kept, hex or decimal; 0 leaves out
	 * the written anonymous memory, which the default dumps (above) */
	CHECK(utest_slurp("/proc/self/coredump_filter", want, sizeof(want)) == 9 &&
	      !strcmp(want, "00000033\n"));
	CHECK(write_proc("/proc/self/coredump_filter", "0x3ff\n") == 0);
	CHECK(utest_slurp("/proc/self/coredump_filter", want, sizeof(want)) == 9 &&
	      !strcmp(want, "000001ff\n"));
	CHECK(write_proc("/proc/self/coredump_filter", "zz") == -1 && errno == EINVAL);
	CHECK(write_proc("/proc/self/coredump_filter", "51") == 0);
	CHECK(utest_slurp("/proc/self/coredump_filter", want, sizeof(want)) == 9 &&
	      !strcmp(want, "00000033\n"));
	pid = crash(FILTER0, RLIM_INFINITY, 0, false, NULL);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	{
		unsigned char *core = slurp(path, &size);

		CHECK(core && size > 64 && !memcmp(core, ELFMAG, SELFMAG));
		CHECK(core && !dump_at(core, size, (unsigned long)anon, 8));
		free(core);
	}

	/* LTP's waitpid01: with RLIMIT_CORE one page, each signal whose action is to dump core
	 * dumps (the notes fit, the memory is cut), the others do not */
	{
		static const int sigs[] = { SIGBUS, SIGFPE, SIGSYS, SIGTRAP, SIGXCPU, SIGXFSZ,
					    SIGALRM, SIGHUP, SIGUSR1, SIGPIPE };

		for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
			bool core = k < 6;

			raise_sig = sigs[k];
			pid = crash(RAISE, 4096, 0, false, NULL);
			check_status(wait_status(pid), sigs[k], core);
			snprintf(path, sizeof(path), "%s/core.%d.%d", dir, pid, sigs[k]);
			CHECK_EQ(exists(path), core);
		}
	}

	/* PR_SET_DUMPABLE 0: no core; a uid change clears it, PR_SET_DUMPABLE 1 brings it back */
	pid = crash(SEGV, RLIM_INFINITY, 0, true, NULL);
	check_status(wait_status(pid), SIGSEGV, false);
	snprintf(path, sizeof(path), "%s/core.%d.11", dir, pid);
	CHECK(!exists(path));

	/* The expansions, relative to the dumper's working directory; core_uses_pid's suffix */
	set_pattern("c-%%-%p-%P-%i-%s-%e-%u-%g-%c-%h-%z%");
	pid = crash(SEGV, 1 << 20, 0, false, dir);
	check_status(wait_status(pid), SIGSEGV, true);
	uname(&u);
	snprintf(want, sizeof(want), "%s/c-%%-%d-%d-%d-11-%s-0-0-1048576-%s-", dir, pid, pid, pid,
		 comm, u.nodename);
	CHECK(exists(want));
	CHECK(write_proc("/proc/sys/kernel/core_uses_pid", "1\n") == 0);
	set_pattern("core-%s");
	pid = crash(SEGV, RLIM_INFINITY, 0, false, dir);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(want, sizeof(want), "%s/core-11.%d", dir, pid);
	CHECK(exists(want));
	CHECK(write_proc("/proc/sys/kernel/core_uses_pid", "0\n") == 0);

	/* An old file of the name, another user's, is replaced: the core is root's, mode 0600 */
	snprintf(path, sizeof(path), "%s/core-11", dir);
	CHECK(close(open(path, O_CREAT | O_WRONLY, 0644)) == 0 && chown(path, 1234, 1234) == 0);
	pid = crash(SEGV, RLIM_INFINITY, 0, false, dir);
	check_status(wait_status(pid), SIGSEGV, true);
	CHECK(stat(path, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0600 &&
	      st.st_size > 4096);
	/* a symbolic link of the name is replaced, its target untouched */
	snprintf(want, sizeof(want), "%s/target", dir);
	CHECK(close(open(want, O_CREAT | O_WRONLY, 0644)) == 0);
	unlink(path);
	CHECK(symlink(want, path) == 0);
	pid = crash(SEGV, RLIM_INFINITY, 0, false, dir);
	check_status(wait_status(pid), SIGSEGV, true);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 4096);
	CHECK(stat(want, &st) == 0 && st.st_size == 0);

	/* Another user: in a sticky directory another's file cannot be replaced (no dump); a
	 * directory it may not write gets none; one it may write gets its core, its own */
	snprintf(path, sizeof(path), "%s/sticky", dir);
	CHECK(mkdir(path, 0777) == 0 && chmod(path, 01777) == 0);
	snprintf(want, sizeof(want), "%s/core-11", path);
	CHECK(close(open(want, O_CREAT | O_WRONLY, 0644)) == 0 && chown(want, 1234, 1234) == 0);
	pid = crash(SEGV, RLIM_INFINITY, 1000, false, path);
	check_status(wait_status(pid), SIGSEGV, false);
	CHECK(stat(want, &st) == 0 && st.st_uid == 1234 && st.st_size == 0);
	snprintf(path, sizeof(path), "%s/ro", dir);
	CHECK(mkdir(path, 0555) == 0 && chmod(path, 0555) == 0);
	pid = crash(SEGV, RLIM_INFINITY, 1000, false, path);
	check_status(wait_status(pid), SIGSEGV, false);
	snprintf(want, sizeof(want), "%s/core-11", path);
	CHECK(!exists(want));
	CHECK(chmod(path, 0777) == 0);
	pid = crash(SEGV, RLIM_INFINITY, 1000, false, path);
	check_status(wait_status(pid), SIGSEGV, true);
	CHECK(stat(want, &st) == 0 && st.st_uid == 1000 && (st.st_mode & 07777) == 0600);

	/* fs.suid_dumpable 2: a process whose ids changed dumps as root, only to an absolute
	 * path */
	CHECK(write_proc("/proc/sys/fs/suid_dumpable", "2\n") == 0);
	suid_dumpable = 2;
	pid = crash(SEGV, RLIM_INFINITY, 1000, false, path);
	check_status(wait_status(pid), SIGSEGV, false);
	snprintf(want, sizeof(want), "%s/suid-%%s", dir);
	set_pattern(want);
	pid = crash(SEGV, RLIM_INFINITY, 1000, false, path);
	check_status(wait_status(pid), SIGSEGV, true);
	snprintf(want, sizeof(want), "%s/suid-11", dir);
	CHECK(stat(want, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0600);
	CHECK(write_proc("/proc/sys/fs/suid_dumpable", "0\n") == 0);
	return utest_done();
}
