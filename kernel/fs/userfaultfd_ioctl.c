/* The ioctls of a userfaultfd (Linux's fs/userfaultfd.c): the handshake UFFDIO_API, ranges
 * registered and unregistered, and the answers to faults (UFFDIO_COPY, ZEROPAGE, WAKE), with
 * Linux's checks and errors in Linux's order. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/userfaultfd_k.h"
#include "kernel/lib/string.h"
#include "mm/mmap.h"
#include "mm/shmem.h"
#include "mm/userfaultfd.h"

/* Page aligned, not empty, inside the user half (Linux's validate_range): 0 or -EINVAL. */
static long validate_range(uint64_t start, uint64_t len)
{
	if ((start & ~PAGE_MASK) || (len & ~PAGE_MASK) || !len)
		return -EINVAL;
	if (start < mmap_min_addr || start >= USER_TOP || len > USER_TOP - start)
		return -EINVAL;
	return 0;
}

static long userfaultfd_api(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_api api;
	long ret;

	if (copy_from_user(&api, arg, sizeof(api)))
		return -EFAULT;
	ret = -EINVAL;
	if (api.api != UFFD_API || (api.features & ~UFFD_API_FEATURES) || ctx->api_done)
		goto err_out;
	ctx->features = api.features; /* the ones asked for; all are told */
	api.features = UFFD_API_FEATURES;
	api.ioctls = UFFD_API_IOCTLS;
	if (copy_to_user(arg, &api, sizeof(api)))
		return -EFAULT;
	ctx->api_done = true;
	return 0;
err_out: /* as Linux: the caller's structure is cleared */
	memset(&api, 0, sizeof(api));
	if (copy_to_user(arg, &api, sizeof(api)))
		ret = -EFAULT;
	return ret;
}

/* Private anonymous memory and shared memory (tmpfs and shared anonymous mappings) have the
 * missing pages a userfaultfd may provide here; not a private mapping of a tmpfs file. */
static bool vma_can_userfault(const struct vm_area_struct *vma)
{
	if (vma->vm_ops == &shmem_vm_ops)
		return (vma->vm_flags & VM_SHARED) && !(vma->vm_flags & VM_NONLINEAR);
	return !vma->vm_ops && !vma->vm_file && !(vma->vm_flags & VM_SHARED);
}

/* Set (ctx) or clear (NULL) the registration of every VMA in [start, end) registered with
 * other (NULL: with none), splitting at the ends. mmap_sem held for writing. */
static long uffd_set_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			   struct userfaultfd_ctx *other, struct userfaultfd_ctx *ctx)
{
	struct vm_area_struct *vma = find_vma(mm, start);

	for (; vma && vma->vm_start < end; vma = vma_next(mm, vma)) {
		unsigned long flags = vma->vm_flags & ~VM_UFFD_MISSING;

		if (vma->vm_userfaultfd_ctx.ctx != other)
			continue;
		vma = vma_modify_flags_uffd(mm, vma, MAX(start, vma->vm_start),
					    MIN(end, vma->vm_end), ctx ? flags | VM_UFFD_MISSING
								     : flags, ctx);
		if (!vma)
			return -ENOMEM;
	}
	return 0;
}

/* Every VMA of [start, end) must be one a userfaultfd can have (-EINVAL), and not another
 * descriptor's (-EBUSY); there must be one at least (-EINVAL). */
static long uffd_check_range(struct userfaultfd_ctx *ctx, uint64_t start, uint64_t end,
			     bool registering)
{
	struct vm_area_struct *vma = find_vma(ctx->mm, start);
	bool found = false;

	for (; vma && vma->vm_start < end; vma = vma_next(ctx->mm, vma)) {
		if (!vma_can_userfault(vma))
			return -EINVAL;
		if (registering && vma->vm_userfaultfd_ctx.ctx &&
		    vma->vm_userfaultfd_ctx.ctx != ctx)
			return -EBUSY;
		found = true;
	}
	return found ? 0 : -EINVAL;
}

static long userfaultfd_register(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_register reg;
	struct mm_struct *mm = ctx->mm;
	uint64_t end;
	long ret;

	if (copy_from_user(&reg, arg, sizeof(reg) - sizeof(reg.ioctls)))
		return -EFAULT;
	/* Write-protect and minor modes are Linux's, not faultline's yet. */
	if (reg.mode != UFFDIO_REGISTER_MODE_MISSING)
		return -EINVAL;
	ret = validate_range(reg.range.start, reg.range.len);
	if (ret)
		return ret;
	end = reg.range.start + reg.range.len;
	down_write(&mm->mmap_sem);
	ret = uffd_check_range(ctx, reg.range.start, end, true);
	if (!ret)
		ret = uffd_set_range(mm, reg.range.start, end, NULL, ctx);
	up_write(&mm->mmap_sem);
	if (ret)
		return ret;
	reg.ioctls = UFFD_API_RANGE_IOCTLS;
	if (copy_to_user(arg + offsetof(struct uffdio_register, ioctls), &reg.ioctls,
			 sizeof(reg.ioctls)))
		return -EFAULT;
	return 0;
}

/* The range's faults asleep are woken too: with no registration left they will not be
 * resolved, and are taken again as ordinary ones. */
static long userfaultfd_unregister(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_range r;
	struct mm_struct *mm = ctx->mm;
	long ret;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	ret = validate_range(r.start, r.len);
	if (ret)
		return ret;
	down_write(&mm->mmap_sem);
	ret = uffd_check_range(ctx, r.start, r.start + r.len, false);
	if (!ret)
		ret = uffd_set_range(mm, r.start, r.start + r.len, ctx, NULL);
	up_write(&mm->mmap_sem);
	if (!ret)
		userfaultfd_wake_range(ctx, r.start, r.len);
	return ret;
}

static long userfaultfd_wake(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_range r;
	long ret;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	ret = validate_range(r.start, r.len);
	if (!ret)
		userfaultfd_wake_range(ctx, r.start, r.len);
	return ret;
}

/*
 * UFFDIO_COPY (*src: the bytes) and UFFDIO_ZEROPAGE (src NULL): fill [dst, dst + len), tell how
 * much at out (copy or zeropage), wake the faults of what was filled unless DONTWAKE. A
 * partial fill is -EAGAIN (the caller goes on from there), as Linux's.
 */
static long uffd_fill(struct userfaultfd_ctx *ctx, uint64_t dst, const uint64_t *src, uint64_t len,
		      uint64_t mode, uint64_t out)
{
	long ret = mfill_atomic(ctx, dst, src, len);
	int64_t told = ret;

	if (copy_to_user(out, &told, sizeof(told)))
		return -EFAULT;
	if (ret < 0)
		return ret;
	if (!(mode & UFFDIO_COPY_MODE_DONTWAKE))
		userfaultfd_wake_range(ctx, dst, (uint64_t)ret);
	return (uint64_t)ret == len ? 0 : -EAGAIN;
}

static long userfaultfd_copy(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_copy c;

	if (copy_from_user(&c, arg, sizeof(c) - sizeof(c.copy)))
		return -EFAULT;
	if (c.src + c.len < c.src) /* (the source is checked by reading it: EFAULT) */
		return -EINVAL;
	if (validate_range(c.dst, c.len) || (c.mode & ~UFFDIO_COPY_MODE_DONTWAKE))
		return -EINVAL;
	return uffd_fill(ctx, c.dst, &c.src, c.len, c.mode,
			 arg + offsetof(struct uffdio_copy, copy));
}

static long userfaultfd_zeropage(struct userfaultfd_ctx *ctx, uint64_t arg)
{
	struct uffdio_zeropage z;

	if (copy_from_user(&z, arg, sizeof(z) - sizeof(z.zeropage)))
		return -EFAULT;
	if (validate_range(z.range.start, z.range.len) ||
	    (z.mode & ~UFFDIO_ZEROPAGE_MODE_DONTWAKE))
		return -EINVAL;
	return uffd_fill(ctx, z.range.start, NULL, z.range.len, z.mode,
			 arg + offsetof(struct uffdio_zeropage, zeropage));
}

long userfaultfd_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct userfaultfd_ctx *ctx = f->private_data;

	if (cmd != UFFDIO_API && !ctx->api_done)
		return -EINVAL;
	switch (cmd) {
	case UFFDIO_API:
		return userfaultfd_api(ctx, arg);
	case UFFDIO_REGISTER:
		return userfaultfd_register(ctx, arg);
	case UFFDIO_UNREGISTER:
		return userfaultfd_unregister(ctx, arg);
	case UFFDIO_WAKE:
		return userfaultfd_wake(ctx, arg);
	case UFFDIO_COPY:
		return userfaultfd_copy(ctx, arg);
	case UFFDIO_ZEROPAGE:
		return userfaultfd_zeropage(ctx, arg);
	}
	return -EINVAL;
}
