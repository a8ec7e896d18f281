/* Inside procfs (kernel/fs/proc/): files whose text is made when they are opened. */
#ifndef KERNEL_FS_PROC_INTERNAL_H
#define KERNEL_FS_PROC_INTERNAL_H

#include "kernel/fs/fs.h"
#include "kernel/fs/proc/proc.h"

/* A proc_text of room for cap bytes (len 0), or NULL. */
struct proc_text *proc_text_alloc(size_t cap);
/* read and release for a file whose open() put a proc_text in private_data. */
long proc_text_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
/* write for a file that takes none: -EIO, Linux's procfs answer */
long proc_write_eio(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
void proc_text_release(struct inode *ino, struct file *f);

extern const struct proc_entry proc_meminfo, proc_uptime, proc_loadavg, proc_cpuinfo,
	proc_stat, proc_vmstat; /* meminfo.c, uptime.c, ..., stat.c, vmstat.c */
extern const struct proc_entry proc_diskstats; /* diskstats.c */
extern const struct proc_entry proc_filesystems; /* kernel/fs/super.c */

/* root.c: a procfs inode (a directory lists its children, a file gets no operations), and
 * one named name in dir with fop (NULL: the default for its mode). NULL without memory. */
struct inode *proc_new_inode(struct super_block *sb, uint32_t mode);
struct inode *proc_add(struct inode *dir, const char *name, uint32_t mode,
		       const struct file_operations *fop);

struct task_struct;

/* A file of /proc/PID: with show, its text is made at open from the process (size bytes at
 * most); else fop (a file), or iop (a link: its readlink). */
struct pid_entry {
	const char *name;
	uint32_t mode;
	const struct file_operations *fop;
	const struct inode_operations *iop;
	void (*show)(struct proc_text *t, struct task_struct *task);
	size_t size;
};

/* base.c: the root's lookup and readdir (its fixed files, then one directory per process),
 * /proc/self, and the process a file of /proc/PID (or the directory) belongs to: NULL once
 * it has been reaped. */
struct inode *proc_root_lookup(struct inode *root, const char *name, size_t len);
int proc_root_readdir(struct file *f, void *dirent,
		      int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				     unsigned long ino, unsigned int type));
int proc_self_init(struct inode *root); /* /proc/self and /proc/mounts, links */
/* Unmounting the procfs sb: its PID directories go (nothing holds them any more). */
void proc_pid_dirs_forget(struct super_block *sb);
struct task_struct *proc_task(const struct inode *ino);
/* A directory's "." and ".." (positions 1 and 2) from f_pos on, which ends at PROC_DOTS_POS;
 * false if filldir's buffer filled first. */
#define PROC_DOTS_POS 2
bool proc_readdir_dots(struct file *f, void *dirent,
		       int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				      unsigned long ino, unsigned int type));

/* array.c: /proc/PID/stat, status, comm, cmdline (at most PROC_CMDLINE_MAX bytes). */
#define PROC_CMDLINE_MAX 16384
void proc_pid_stat(struct proc_text *t, struct task_struct *task);
void proc_pid_status(struct proc_text *t, struct task_struct *task);
void proc_pid_comm(struct proc_text *t, struct task_struct *task);
void proc_pid_cmdline(struct proc_text *t, struct task_struct *task);

/* mounts.c: /proc/PID/mounts and mountinfo (every process sees the one mount table). */
void proc_pid_mounts(struct proc_text *t, struct task_struct *task);
void proc_pid_mountinfo(struct proc_text *t, struct task_struct *task);

/* fd.c: /proc/PID/fd, a directory of one link per open descriptor, and /proc/PID/fdinfo, of
 * one file of text per descriptor (both directories read with proc_fd_operations). */
extern const struct file_operations proc_fd_operations;
extern const struct inode_operations proc_fd_inode_operations, proc_fdinfo_inode_operations;

/* task_mmu.c: /proc/PID/maps and pagemap. */
extern const struct file_operations proc_maps_operations, proc_pagemap_operations;
extern const struct file_operations proc_smaps_operations;
/* coredump_filter.c: /proc/PID/coredump_filter. */
extern const struct file_operations proc_coredump_filter_operations;

/* page.c: /proc/kpagecount, /proc/kpageflags; proc_sysctl.c: /proc/sys/vm/. */
int proc_page_init(struct inode *root);
int proc_sys_init(struct inode *root);

/* May the opener of a pagemap see frame numbers? Linux asks for CAP_SYS_ADMIN; every
 * process is root here, so yes. The credentials code replaces this with its check. */
static inline bool proc_pfn_visible(void)
{
	return true;
}

#endif
