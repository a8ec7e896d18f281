/* Core dumps (Linux's fs/coredump.c and binfmt_elf.c's elf_core_dump): a process killed by a
 * signal whose default action dumps core writes an ELF core file of its threads' registers and
 * its memory, named by /proc/sys/kernel/core_pattern. */
#ifndef KERNEL_FS_COREDUMP_H
#define KERNEL_FS_COREDUMP_H

#include "kernel/compiler.h"

struct file;
struct ksiginfo;
struct mm_struct;
struct pt_regs;
struct signal_struct;
struct task_struct;

#define CORENAME_MAX_SIZE 128 /* core_pattern's longest value, and a file name's */

/* Linux's mm->dumpable values: no dump, the owner's, root's (suid_dumpable 2: as root, only
 * to an absolute path). */
#define SUID_DUMP_DISABLE 0
#define SUID_DUMP_USER	  1
#define SUID_DUMP_ROOT	  2

/* /proc/PID/coredump_filter's bits (Linux's MMF_DUMP_*), and its default 0x33. */
#define MMF_DUMP_ANON_PRIVATE	 0
#define MMF_DUMP_ANON_SHARED	 1
#define MMF_DUMP_MAPPED_PRIVATE	 2
#define MMF_DUMP_MAPPED_SHARED	 3
#define MMF_DUMP_ELF_HEADERS	 4
#define MMF_DUMP_HUGETLB_PRIVATE 5
#define MMF_DUMP_HUGETLB_SHARED	 6
#define MMF_DUMP_FILTER_BITS	 9
#define MMF_DUMP_FILTER_DEFAULT	 0x33

/* The sysctls: kernel.core_pattern, kernel.core_uses_pid, fs.suid_dumpable. */
extern char core_pattern[CORENAME_MAX_SIZE];
extern int core_uses_pid;
extern int suid_dumpable;

/* A thread of a dumping process, stopped in do_exit until the dump is written: on its own
 * kernel stack, linked from the dumper's (Linux's struct core_thread). */
struct core_thread {
	struct task_struct *task; /* NULL once the dump is done: the thread may go on */
	struct core_thread *next;
};

/* A dump under way (signal->core_state): the threads still to stop, and the stopped ones. */
struct core_state {
	int nr_threads;
	struct core_thread dumper;
};

/* What the dumper writes with (Linux's struct coredump_params). */
struct coredump_params {
	const struct ksiginfo *siginfo;
	struct file *file;
	uint64_t limit;	  /* RLIMIT_CORE: no byte is written at or past it */
	uint64_t written; /* bytes of the file so far, holes included */
	uint64_t to_skip; /* a hole still to leave before the next bytes */
	uint64_t pos;
	unsigned long mm_flags; /* coredump_filter */
	struct core_state *core_state;
};

/* Does sig's default action dump core (Linux's SIG_KERNEL_COREDUMP_MASK)? */
bool sig_kernel_coredump(int sig);
/* current dies of info's signal, whose default action dumps core: stop the other threads,
 * write the core file if allowed; the group's exit code is then the signal, with 0x80 when a
 * file was written. The caller then calls do_group_exit. */
void do_coredump(const struct ksiginfo *info);
/* do_exit of a thread whose group is dumping core: wait, stopped, until the dump is written
 * (Linux's exit_mm). */
void coredump_exit_mm(struct signal_struct *sig);

/* The file's writing (kernel/fs/coredump.c): false when the limit or an error stops it. */
bool dump_emit(struct coredump_params *cprm, const void *addr, uint64_t nr);
bool dump_skip(struct coredump_params *cprm, uint64_t nr);
bool dump_align(struct coredump_params *cprm, uint64_t align);
/* The ELF core file (kernel/fs/binfmt_elf_core.c): true when it was begun (a file cut at the
 * limit counts, as Linux's has_dumped). */
bool elf_core_dump(struct coredump_params *cprm);

#endif
