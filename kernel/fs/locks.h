/* POSIX record locks (kernel/fs/locks.c): fcntl's F_GETLK, F_SETLK and F_SETLKW; and flock(2). */
#ifndef KERNEL_FS_LOCKS_H
#define KERNEL_FS_LOCKS_H

#include "kernel/compiler.h"

struct file;
struct files_struct;

#define F_GETLK	 5
#define F_SETLK	 6
#define F_SETLKW 7
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38

/* fcntl(fd, F_GETLK / F_SETLK / F_SETLKW or their F_OFD_ forms, struct flock *) on the
 * open file f. */
long fcntl_getlk(struct file *f, unsigned int cmd, uint64_t uflock);
long fcntl_setlk(struct file *f, unsigned int cmd, uint64_t uflock);
/* A descriptor of f is being closed by the process owning files: its locks on f's inode go,
 * whichever descriptor took them (POSIX's rule). */
void locks_remove_posix(struct file *f, struct files_struct *files);
/* The last reference to f goes: its open file description and flock locks go with it. */
void locks_remove_file(struct file *f);

#endif
