/* The user's vectors of buffers (Linux's include/linux/uio.h): struct iovec, and the import
 * that the vector calls (kernel/fs/read_write.c) and process_vm_readv/writev share. */
#ifndef KERNEL_FS_UIO_H
#define KERNEL_FS_UIO_H

#include "kernel/compiler.h"

#define UIO_MAXIOV 1024 /* segments in one call at most */
#define UIO_FASTIOV 8   /* segments kept on the stack; more are kmalloc'ed */

struct iovec {
	uint64_t iov_base, iov_len;
};

/* Copy the user's cnt iovecs at uiov into *iovp: fast (UIO_FASTIOV entries) or kmalloc'ed, to
 * be kfreed by the caller if it is not fast, even on an error. 0, or -EINVAL (more than
 * UIO_MAXIOV, a negative length), -EFAULT, -ENOMEM. Nothing about where the buffers are. */
long iovec_from_user(uint64_t uiov, uint64_t cnt, struct iovec *fast, struct iovec **iovp);
/* iovec_from_user, then each buffer must be in user space (-EFAULT) and they are cut so that
 * their sum stays within MAX_RW_COUNT: that sum, or -errno. */
long import_iovec(uint64_t uiov, uint64_t cnt, struct iovec *fast, struct iovec **iovp);

#endif
