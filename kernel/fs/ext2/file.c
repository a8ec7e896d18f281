/* ext2's regular files (Linux 2.6.23's fs/ext2/file.c): read(), write() and mmap() through the
 * page cache, whose pages ext2_aops read from and write to the disk through ext2_get_block; a
 * fault on a mapping of one goes filemap_fault -> readpage -> ext2_get_block, and the first
 * store to a page of a shared one ext2_page_mkwrite -> ext2_get_block(create). */
#include "kernel/fs/ext2/ext2.h"
#include "kernel/fs/writeback.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/vma.h"

/*
 * 2.6.23's ext2_sync_file, with what its do_fsync did around it and today's Linux's way of
 * reporting: the file's dirty pages and its inode written and waited for (write_inode_now),
 * then the device's dirty buffers, where the bitmaps, the indirect blocks and the inode table
 * lie (no list of one inode's metadata buffers is kept: all of them go, and a failed one is
 * reported to the first fsync on the file system, through the device's AS_EIO). Last, the
 * error a write of the file's pages met since this open file last asked, whoever wrote them
 * (the periodic writeback, reclaim, another fsync): each open file hears of it once.
 */
int ext2_fsync(struct file *f, int datasync)
{
	struct inode *inode = f->f_inode;
	int err, r;

	(void)datasync; /* the inode is written whenever it is dirty */
	err = write_inode_now(inode, 1);
	r = sync_blockdev(inode->i_sb->s_bdev);
	if (!err)
		err = r;
	r = file_check_and_advance_wb_err(f);
	return r ? r : err;
}

/* A store into a page of a shared mapping: its blocks allocated now (SIGBUS on a full disk). */
static int ext2_page_mkwrite(struct vm_area_struct *vma, struct page *page)
{
	return block_page_mkwrite(vma, page, ext2_get_block);
}

static const struct vm_operations_struct ext2_file_vm_ops = {
	.open = filemap_vma_open,
	.close = filemap_vma_close,
	.fault = filemap_fault,
	.page_mkwrite = ext2_page_mkwrite,
	.name = "file",
};

/* generic_file_mmap, with ext2's page_mkwrite (the legacy_nopage knob's VMAs keep theirs). */
static int ext2_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	int err = generic_file_mmap(f, vma);

	if (!err && vma->vm_ops == &generic_file_vm_ops)
		vma->vm_ops = &ext2_file_vm_ops;
	return err;
}

const struct file_operations ext2_file_operations = {
	.read = generic_file_read,
	.write = generic_file_write,
	.splice_write = generic_file_splice_write, /* sendfile's, a core dump's */
	.mmap = ext2_file_mmap,
	.fsync = ext2_fsync,
};

const struct inode_operations ext2_file_inode_operations = {
	.truncate = ext2_truncate,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
