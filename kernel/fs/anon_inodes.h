/* Anonymous inodes (kernel/fs/anon_inodes.c): the one inode behind every file that has no name
 * of its own (eventfd, epoll, timerfd, signalfd, userfaultfd), as Linux's fs/anon_inodes.c. */
#ifndef KERNEL_FS_ANON_INODES_H
#define KERNEL_FS_ANON_INODES_H

#include "kernel/fs/fs.h"

/* A new open file (count 1) on the anonymous inode: f_op fops, private_data priv, and name
 * (a constant string, "[eventfd]") as the name Linux's dentry of it carries. flags: O_ACCMODE
 * and O_NONBLOCK are kept (F_GETFL shows them and nothing else). ERR_PTR(-ENOMEM), -ENFILE
 * before anon_inode_init. fops->open is not called; release is, at the last fput. */
struct file *anon_inode_getfile(const char *name, const struct file_operations *fops,
				void *priv, unsigned int flags);
/* The same, installed at current's lowest free descriptor (O_CLOEXEC in flags: close-on-exec).
 * The descriptor, or -EMFILE (the file is released: fops->release sees priv), -ENOMEM. */
long anon_inode_getfd(const char *name, const struct file_operations *fops, void *priv,
		      unsigned int flags);
/* Is f a file on the anonymous inode? Its kind is then f->f_dentry->d_name. */
bool is_anon_inode_file(const struct file *f);
/* Mount anon_inodefs and make its inode, once at boot. */
void anon_inode_init(void);

#endif
