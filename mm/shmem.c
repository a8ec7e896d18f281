/* shmem and tmpfs: memory that belongs to no disk file. A tmpfs file's pages live in its
 * inode's page cache and nowhere else: a page not cached yet is a new zeroed page, and nothing
 * is ever written back. Shared anonymous memory is an unlinked tmpfs file (shmem_zero_setup).
 * Names and design as Linux 2.6.23's mm/shmem.c. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/userfaultfd_k.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/process/resource.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/memfd.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/shmem.h"
#include "mm/slab.h"
#include "mm/vma.h"

#define TMPFS_MAGIC 0x01021994

/* The instance that holds the inodes with no name (shared anonymous memory, SysV segments). */
static struct super_block *shm_mnt;

/*
 * The page of inode at index, locked and with a reference for the caller: the cached one, or
 * a new zeroed page put in the cache (where the cache's own reference keeps it). A page found
 * that a truncate takes out while we wait for its lock is looked up again, and so is one that
 * another CPU added after our look-up. 0 or -ENOMEM.
 */
int shmem_getpage(struct inode *inode, unsigned long index, struct page **pagep)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page;

	for (;;) {
		page = find_get_page(mapping, index);
		if (page) {
			lock_page(page);
			if (page->mapping == mapping) {
				*pagep = page;
				return 0;
			}
			unlock_page(page);
			put_page(page);
			continue;
		}
		page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		SetPageFlag(page, PG_locked);
		SetPageFlag(page, PG_uptodate);
		if (!add_to_page_cache(page, mapping, index)) {
			*pagep = page;
			return 0;
		}
		ClearPageFlag(page, PG_locked); /* another CPU's fault added one: take that */
		put_page(page);
	}
}

/* In a range registered with a userfaultfd, a page the file lacks comes from it (Linux asks
 * in shmem_get_folio_gfp, once the look-up failed): the userfault's answer, or 0 when the file
 * has the page. */
static __attribute__((noinline)) int shmem_userfault(struct inode *inode, struct vm_fault *vmf)
{
	struct page *page = find_get_page(inode->i_mapping, vmf->pgoff);

	if (page) {
		put_page(page); /* shmem_getpage finds it again, and locks it */
		return 0;
	}
	return handle_userfault(vmf, (uint64_t)vmf->virtual_address, VM_UFFD_MISSING);
}

/*
 * The fault() op of every shmem mapping: page vmf->pgoff of the file, found or made zeroed,
 * returned locked with a reference (VM_FAULT_LOCKED). Past the end of the file it is SIGBUS;
 * i_size is checked again under the page lock, as filemap_fault does, since a truncate sets
 * it before taking pages out. Never a major fault: there is no disk to wait for.
 */
int shmem_fault(struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct inode *inode = vma->vm_file->f_inode;
	struct page *page;

	if (vmf->pgoff >= ALIGN_UP(inode->i_size, PAGE_SIZE) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	if (unlikely(userfaultfd_missing(vma))) {
		int ret = shmem_userfault(inode, vmf);

		if (ret)
			return ret;
	}
	if (shmem_getpage(inode, vmf->pgoff, &page))
		return VM_FAULT_OOM;
	if (vmf->pgoff >= ALIGN_UP(inode->i_size, PAGE_SIZE) >> PAGE_SHIFT) {
		unlock_page(page);
		put_page(page);
		return VM_FAULT_SIGBUS;
	}
	vmf->page = page;
	return VM_FAULT_LOCKED;
}

const struct vm_operations_struct shmem_vm_ops = {
	.open = filemap_vma_open,
	.close = filemap_vma_close,
	.fault = shmem_fault,
	.name = "shmem",
};

/* A tmpfs file mapped: its faults go to shmem_fault, linear or nonlinear. */
int shmem_mmap(struct file *file, struct vm_area_struct *vma)
{
	int err = memfd_mmap_check(file->f_inode, vma);

	if (err)
		return err;
	file_accessed(file);
	vma->vm_ops = &shmem_vm_ops;
	vma->vm_flags |= VM_CAN_NONLINEAR;
	return 0;
}

/* Unmap file pages [first, last) of mapping from every VMA that maps them. */
static void unmap_shmem_range(struct address_space *mapping, unsigned long first,
			      unsigned long last)
{
	struct list_head *pos;

	list_for_each(pos, &mapping->i_mmap) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, shared);
		unsigned long lo = MAX(first, vma->vm_pgoff);
		unsigned long hi = MIN(last, vma->vm_pgoff + vma_pages(vma));

		if (lo >= hi)
			continue;
		zap_page_range(vma->vm_mm, vma->vm_start + ((lo - vma->vm_pgoff) << PAGE_SHIFT),
			       vma->vm_start + ((hi - vma->vm_pgoff) << PAGE_SHIFT));
	}
	list_for_each(pos, &mapping->i_mmap_nonlinear) /* layout kept, pages refetched */
		zap_nonlinear_range(list_entry(pos, struct vm_area_struct, shared), first);
}

/*
 * Punch a hole: file pages [first, last) of inode go, from every mapping and from the cache,
 * and read back as zeroes in every sharer (MADV_REMOVE; Linux 2.6.23's truncate_range op).
 * The size stays.
 */
static void shmem_truncate_range(struct inode *inode, unsigned long first, unsigned long last)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page;

	unmap_shmem_range(mapping, first, last);
	for (unsigned long index = first; mapping->nrpages && index < last; index++)
		if ((page = find_get_page(mapping, index)))
			truncate_page(mapping, page);
}

/* Bytes [from, to) of page index of inode, if it is cached, read as zeroes from now on: the
 * edges of a hole punched inside a page. */
static void shmem_zero_partial(struct inode *inode, unsigned long index, unsigned int from,
			       unsigned int to)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page = find_get_page(mapping, index);

	if (!page)
		return; /* a hole already */
	lock_page(page);
	if (page->mapping == mapping)
		memset((uint8_t *)page_address(page) + from, 0, to - from);
	unlock_page(page);
	put_page(page);
}

/*
 * fallocate (today's shmem_fallocate): PUNCH_HOLE takes the whole pages of the range out of
 * every mapping and the cache and zeroes the parts of pages at its edges; otherwise each page
 * of the range is put in the cache (zeroed if new), and the file grows to its end unless
 * KEEP_SIZE. Other modes: -EOPNOTSUPP. Times and privileges as a write's.
 */
static long shmem_fallocate(struct file *f, int mode, uint64_t offset, uint64_t len)
{
	struct inode *inode = f->f_inode;
	uint64_t end = offset + len;
	long err;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	/* the seals: a hole changes the contents, a range past the end would grow the file */
	if ((mode & FALLOC_FL_PUNCH_HOLE) &&
	    (memfd_seals(inode) & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
		return -EPERM;
	if (!(mode & FALLOC_FL_PUNCH_HOLE) && (memfd_seals(inode) & F_SEAL_GROW) &&
	    end > inode->i_size)
		return -EPERM;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		unsigned long first = ALIGN_UP(offset, PAGE_SIZE) >> PAGE_SHIFT;
		unsigned long last = end >> PAGE_SHIFT; /* [first, last): whole pages */

		if (first > last) { /* inside one page */
			shmem_zero_partial(inode, last, offset & ~PAGE_MASK, end & ~PAGE_MASK);
		} else {
			unsigned int head = offset & ~PAGE_MASK;

			if (head)
				shmem_zero_partial(inode, first - 1, head, PAGE_SIZE);
			if (end & ~PAGE_MASK)
				shmem_zero_partial(inode, last, 0, end & ~PAGE_MASK);
			if (first < last)
				shmem_truncate_range(inode, first, last);
		}
	} else {
		if (end > inode->i_size && (err = fsize_newsize_ok(end)))
			return err;
		for (unsigned long index = offset >> PAGE_SHIFT;
		     index < ALIGN_UP(end, PAGE_SIZE) >> PAGE_SHIFT; index++) {
			struct page *page;

			if (signal_pending(current))
				return -EINTR;
			err = shmem_getpage(inode, index, &page);
			if (err)
				return err;
			unlock_page(page);
			put_page(page);
		}
		if (!(mode & FALLOC_FL_KEEP_SIZE) && end > inode->i_size)
			inode->i_size = end;
	}
	file_remove_privs(f);
	inode_touch_mtime(inode);
	return 0;
}

/* The page cache is a tmpfs file's only store: read() and write() of a page never cached
 * meet a hole (zeroes), and nothing is written back (2.6.23's shmem_aops; swap is not
 * modelled for tmpfs). */
static const struct address_space_operations shmem_aops = {
	.readpage = simple_readpage,
	.prepare_write = simple_prepare_write,
	.commit_write = simple_commit_write,
	.set_page_dirty = __set_page_dirty_no_writeback,
};

static const struct inode_operations shmem_inode_operations = {
	.setattr = memfd_setattr,
	.truncate_range = shmem_truncate_range,
	.fallocate = shmem_fallocate,
};

/* A write (write, pwrite, sendfile's) as far as the file's seals let it (Linux's
 * shmem_write_begin asks them) */
static long shmem_file_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	long err = memfd_write_check(f->f_inode, (f->f_flags & O_APPEND) ? f->f_inode->i_size :
					  *pos, &n);

	return err ? err : generic_file_write(f, ubuf, n, pos);
}

static long shmem_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	long err = memfd_write_check(f->f_inode, (f->f_flags & O_APPEND) ? f->f_inode->i_size :
					  *pos, &n);

	return err ? err : generic_file_splice_write(f, kbuf, n, pos);
}

const struct file_operations shmem_file_operations = {
	.read = generic_file_read,
	.write = shmem_file_write,
	.splice_write = shmem_splice_write,
	.mmap = shmem_mmap,
	.fsync = noop_fsync,
};

/* tmpfs: ramfs's in-memory directories; regular files are shmem's. World-writable, sticky
 * root, as Linux's tmpfs on /dev/shm. */
static int shmem_fill_super(struct super_block *sb, void *data, int silent)
{
	static const struct ramfs_file_ops ops = { .fop = &shmem_file_operations,
						   .iop = &shmem_inode_operations,
						   .aops = &shmem_aops };
	int err = ramfs_fill_super_ops(sb, &ops);

	(void)data, (void)silent; /* no options, no device */

	if (!err)
		sb->s_root->i_mode = S_IFDIR | 01777;
	return err;
}

static struct file_system_type tmpfs_fs_type = {
	.name = "tmpfs",
	.magic = TMPFS_MAGIC,
	.fill_super = shmem_fill_super,
};

bool shmem_mapping(const struct address_space *mapping)
{
	return mapping->host->i_sb && mapping->host->i_sb->s_type == &tmpfs_fs_type;
}

/*
 * A nameless file's i_private: the pages its size promised (shmem_acct_size), 0 for one made
 * with VM_NORESERVE. They are given back when the file goes (Linux's shmem_evict_inode). Its
 * size never changes: nothing can truncate it (a memfd, which can, reserves nothing).
 */
static void shmem_delete_inode(struct inode *inode)
{
	vm_unacct_memory((long)(uintptr_t)inode->i_private);
	inode->i_private = NULL;
}

static const struct super_operations shmem_super_operations = {
	.delete_inode = shmem_delete_inode,
};

void shmem_init(void)
{
	register_filesystem(&tmpfs_fs_type);
	shm_mnt = kern_mount(&tmpfs_fs_type);
	if (!shm_mnt)
		printk("shmem: no internal tmpfs: shared anonymous mmap will fail with ENOMEM\n");
	else
		shm_mnt->s_op = &shmem_super_operations;
}

struct file *shmem_file_setup(const char *name, uint64_t size, unsigned long flags)
{
	unsigned long pages = (flags & VM_NORESERVE) ? 0 : ALIGN_UP(size, PAGE_SIZE) >> PAGE_SHIFT;
	struct inode *inode;
	struct file *file;
	size_t len = strlen(name);

	if (!shm_mnt)
		return NULL;
	if (pages && security_vm_enough_memory_mm(current->mm, (long)pages))
		return NULL;
	inode = new_inode(shm_mnt, S_IFREG | 0777);
	if (!inode) {
		vm_unacct_memory((long)pages);
		return NULL;
	}
	inode->i_private = (void *)(uintptr_t)pages;
	inode->i_fop = &shmem_file_operations;
	inode->i_op = &shmem_inode_operations;
	inode->i_mapping = &inode->i_data;
	inode->i_data.host = inode;
	inode->i_data.a_ops = &shmem_aops;
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
	INIT_LIST_HEAD(&inode->i_data.i_mmap_nonlinear);
	inode->i_size = size;
	inode->i_nlink = 0; /* no name: it goes with its last open file */
	/* Not in the directory, but under its root for d_path: "/dev/zero (deleted)" in maps,
	 * as Linux shows shared anonymous memory. */
	inode->i_dentry.d_parent = shm_mnt->s_root;
	memcpy(inode->i_dentry.d_name, name, MIN(len, (size_t)NAME_MAX));
	if (dentry_open(&inode->i_dentry, O_RDWR, &file)) {
		vm_unacct_memory((long)pages);
		kfree(inode);
		return NULL;
	}
	return file;
}

int shmem_zero_setup(struct vm_area_struct *vma)
{
	struct file *file =
		shmem_file_setup("dev/zero", vma->vm_end - vma->vm_start, vma->vm_flags);

	if (!file)
		return -ENOMEM;
	vma->vm_file = file;
	vma->vm_pgoff = 0;
	vma->vm_ops = &shmem_vm_ops;
	vma->vm_flags |= VM_CAN_NONLINEAR;
	return 0;
}
