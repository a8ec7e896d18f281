/* epoll (kernel/fs/eventpoll.c): what the rest of the VFS calls of it. */
#ifndef KERNEL_FS_EVENTPOLL_H
#define KERNEL_FS_EVENTPOLL_H

#include "kernel/fs/fs.h"

/* f's last reference is going: every epoll set watching it forgets it (Linux's
 * eventpoll_release, from __fput). */
void eventpoll_release(struct file *f);

#endif
