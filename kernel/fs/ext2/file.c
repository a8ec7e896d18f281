/* ext2's regular files (Linux 2.6.23's fs/ext2/file.c): read() and mmap() through the page
 * cache, whose pages ext2_aops' readpage fills from the disk; a fault on a mapping of one goes
 * filemap_fault -> readpage -> ext2_get_block. */
#include "kernel/fs/ext2/ext2.h"
#include "mm/filemap_rw.h"

const struct file_operations ext2_file_operations = {
	.read = generic_file_read,
	.mmap = generic_file_mmap,
};

const struct inode_operations ext2_file_inode_operations = {
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
