/* ext2's symbolic links (Linux 2.6.23's fs/ext2/symlink.c): a short target lives in i_block
 * itself (a fast symlink, no data block), a longer one in a data block read through the
 * link's page cache. */
#include "kernel/fs/ext2/ext2.h"
#include "kernel/lib/string.h"
#include "mm/filemap_rw.h"

static int ext2_fast_readlink(struct inode *link, char *buf, size_t size)
{
	size_t n = MIN(MIN(size, link->i_size), sizeof(EXT2_I(link)->i_data));

	memcpy(buf, EXT2_I(link)->i_data, n);
	return (int)n;
}

static int ext2_readlink(struct inode *link, char *buf, size_t size)
{
	return (int)kernel_read(link, 0, buf, MIN(size, link->i_size));
}

const struct inode_operations ext2_fast_symlink_inode_operations = {
	.readlink = ext2_fast_readlink,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};

const struct inode_operations ext2_symlink_inode_operations = {
	.readlink = ext2_readlink,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
