/* memfd_create(2) and file seals (Linux's mm/memfd.c): an unlinked tmpfs file named
 * "memfd:NAME", and the F_SEAL_* that fcntl adds to it and that tmpfs's write, truncate,
 * fallocate, chmod and mmap then keep. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/lib/string.h"
#include "kernel/syscalls.h"
#include "mm/memfd.h"
#include "mm/shmem.h"
#include "mm/vma.h"

#define MFD_CLOEXEC 0x1U
#define MFD_ALLOW_SEALING 0x2U
#define MFD_HUGETLB 0x4U
#define MFD_NOEXEC_SEAL 0x8U
#define MFD_EXEC 0x10U
#define MFD_ALL_FLAGS (MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB | MFD_NOEXEC_SEAL | MFD_EXEC)
#define MFD_HUGE_MASK (0x3fU << 26) /* MFD_HUGETLB's page size, log2 in bits 26-31 */
#define MFD_PREFIX "memfd:"
#define MFD_NAME_MAX_LEN (NAME_MAX - (sizeof(MFD_PREFIX) - 1))

#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | \
		     F_SEAL_FUTURE_WRITE | F_SEAL_EXEC)

/* A tmpfs inode's i_seals is 0 unless memfd_create made it sealable: then SEALS_OPEN and the
 * seals so far. 0 reads as F_SEAL_SEAL, what Linux gives every other tmpfs file. */
#define SEALS_OPEN 0x80000000U

unsigned int memfd_seals(const struct inode *inode)
{
	return inode->i_seals ? inode->i_seals & F_ALL_SEALS : F_SEAL_SEAL;
}

long sys_memfd_create(uint64_t uname, uint64_t flags)
{
	char name[NAME_MAX + 1] = MFD_PREFIX;
	size_t pre = sizeof(MFD_PREFIX) - 1;
	struct file *file;
	long len;

	if (flags & MFD_HUGETLB) {
		if (flags & ~(uint64_t)(MFD_ALL_FLAGS | MFD_HUGE_MASK))
			return -EINVAL;
	} else if (flags & ~(uint64_t)MFD_ALL_FLAGS) {
		return -EINVAL;
	}
	if ((flags & MFD_EXEC) && (flags & MFD_NOEXEC_SEAL))
		return -EINVAL;
	len = strncpy_from_user(name + pre, uname, MFD_NAME_MAX_LEN + 1);
	if (len < 0)
		return len;
	if ((size_t)len > MFD_NAME_MAX_LEN)
		return -EINVAL;
	if (flags & MFD_HUGETLB)
		return -ENOSYS; /* as a Linux without hugetlbfs: faultline has no huge pages */
	/* Reserves nothing (Linux counts a memfd's pages as they come: not modelled). */
	file = shmem_file_setup(name, 0, VM_NORESERVE);
	if (!file)
		return -ENOMEM;
	file->f_mode |= FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;
	if (flags & MFD_NOEXEC_SEAL) {
		file->f_inode->i_mode &= ~0111U;
		file->f_inode->i_seals = SEALS_OPEN | F_SEAL_EXEC;
	} else if (flags & MFD_ALLOW_SEALING) {
		file->f_inode->i_seals = SEALS_OPEN;
	}
	return fd_install_lowest(file, 0, flags & MFD_CLOEXEC);
}

/* Does a VMA map mapping shared and may it write (now or after mprotect)? Linux counts those
 * in i_mmap_writable; walking the file's VMAs gives the same answer. */
static bool mapping_writably_mapped(struct address_space *mapping)
{
	struct list_head *lists[2] = { &mapping->i_mmap, &mapping->i_mmap_nonlinear }, *pos;

	for (int i = 0; i < 2; i++)
		list_for_each(pos, lists[i]) {
			struct vm_area_struct *vma =
				list_entry(pos, struct vm_area_struct, shared);

			if ((vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) ==
			    (VM_SHARED | VM_MAYWRITE))
				return true;
		}
	return false;
}

/* Linux's memfd_add_seals, in its order of errors */
static long memfd_add_seals(struct file *f, uint64_t seals)
{
	struct inode *inode = f->f_inode;

	if (!(f->f_mode & FMODE_WRITE))
		return -EPERM;
	if (seals & ~(uint64_t)F_ALL_SEALS)
		return -EINVAL;
	if (memfd_seals(inode) & F_SEAL_SEAL)
		return -EPERM;
	if ((seals & F_SEAL_WRITE) && !(inode->i_seals & F_SEAL_WRITE) &&
	    mapping_writably_mapped(inode->i_mapping))
		return -EBUSY;
	/* F_SEAL_EXEC on an executable file seals its contents too: W^X from then on */
	if ((seals & F_SEAL_EXEC) && (inode->i_mode & 0111))
		seals |= F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE;
	inode->i_seals |= (unsigned int)seals;
	return 0;
}

long memfd_fcntl(struct file *f, uint64_t cmd, uint64_t arg)
{
	if (!f->f_inode->i_mapping || !shmem_mapping(f->f_inode->i_mapping))
		return -EINVAL;
	if (cmd == F_GET_SEALS)
		return memfd_seals(f->f_inode);
	if (arg > 0xffffffffUL)
		return -EINVAL;
	return memfd_add_seals(f, arg);
}

long memfd_write_check(struct inode *inode, uint64_t pos, uint64_t *n)
{
	unsigned int seals = memfd_seals(inode);
	uint64_t whole;

	if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
		return -EPERM;
	if (!(seals & F_SEAL_GROW) || pos + *n <= inode->i_size)
		return 0;
	/* Linux writes page by page and stops at the first page that would grow the file */
	whole = inode->i_size & PAGE_MASK;
	if (pos >= whole)
		return -EPERM;
	*n = MIN(*n, whole - pos);
	return 0;
}

int memfd_mmap_check(struct inode *inode, struct vm_area_struct *vma)
{
	if (!(memfd_seals(inode) & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) ||
	    !(vma->vm_flags & VM_SHARED))
		return 0;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE; /* nor may mprotect make it writable */
	return 0;
}

int memfd_setattr(struct inode *inode, const struct iattr *attr)
{
	unsigned int seals = memfd_seals(inode);

	if ((attr->ia_valid & ATTR_SIZE) &&
	    ((attr->ia_size < inode->i_size && (seals & F_SEAL_SHRINK)) ||
	     (attr->ia_size > inode->i_size && (seals & F_SEAL_GROW))))
		return -EPERM;
	if ((attr->ia_valid & ATTR_MODE) && (seals & F_SEAL_EXEC) &&
	    ((inode->i_mode ^ attr->ia_mode) & 0111))
		return -EPERM;
	return 0;
}
