/* A process's place in the file tree (kernel/fs/fs_struct.c): its working directory, where
 * relative paths start, and its umask. Shared by the tasks that share it (threads, later),
 * copied by fork. */
#ifndef KERNEL_FS_FS_STRUCT_H
#define KERNEL_FS_FS_STRUCT_H

#include "kernel/fs/fs.h"

struct fs_struct {
	int users;          /* tasks using it */
	struct inode *pwd;  /* the working directory; holds a reference (i_count) */
	uint32_t umask;     /* permission bits open(O_CREAT) and mkdir leave out (022 at boot) */
};

/* The permission bits a new file of current gets from mode: mode less current's umask. */
uint32_t apply_umask(uint32_t mode);

struct fs_struct *fs_alloc_root(void);                    /* pwd "/", or NULL */
struct fs_struct *copy_fs_struct(struct fs_struct *old);  /* fork: NULL when out of memory */
void put_fs_struct(struct fs_struct *fs);                 /* exit */
void set_fs_pwd(struct fs_struct *fs, struct inode *dir); /* chdir */

#endif
