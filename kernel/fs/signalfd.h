/* signalfd (kernel/fs/signalfd.c): what the process code calls of it. */
#ifndef KERNEL_FS_SIGNALFD_H
#define KERNEL_FS_SIGNALFD_H

struct sighand_struct;

/* sh is being freed: whoever still waits on its signalfd queue (an epoll set watching a
 * signalfd of an exited process) lets go of it (Linux's POLLFREE). */
void signalfd_cleanup(struct sighand_struct *sh);

#endif
