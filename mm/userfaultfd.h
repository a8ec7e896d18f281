/* The pages a userfaultfd's ioctls put in (mm/userfaultfd.c, Linux's mm/userfaultfd.c); the
 * descriptor itself is kernel/fs/userfaultfd_k.h's. */
#ifndef MM_USERFAULTFD_H
#define MM_USERFAULTFD_H

#include "kernel/compiler.h"

struct userfaultfd_ctx;

/* UFFDIO_COPY (*src a user address; src NULL: UFFDIO_ZEROPAGE) of len bytes at dst of ctx's
 * address space, page by page: the bytes filled in, or -errno if none was (-EEXIST: a page was
 * there, -ENOENT: dst is not registered with ctx, -EFAULT: *src cannot be read). */
long mfill_atomic(struct userfaultfd_ctx *ctx, uint64_t dst, const uint64_t *src, uint64_t len);

#endif
