/* inotify's limits (kernel/fs/inotify_user.c), which /proc/sys/fs/inotify shows and sets: the
 * events an instance queues before IN_Q_OVERFLOW (read when it is made), and the instances
 * and watches one user may hold. */
#ifndef KERNEL_FS_INOTIFY_H
#define KERNEL_FS_INOTIFY_H

extern int inotify_max_queued_events;
extern int inotify_max_user_instances;
extern int inotify_max_user_watches;

#endif
