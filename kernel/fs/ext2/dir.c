/* ext2's directories (Linux 2.6.23's fs/ext2/dir.c, the reading half): a directory is a file
 * whose blocks are cut into entries (inode, rec_len, name_len, file_type, name), read through
 * its page cache. Each page is checked before use: an entry whose rec_len is wrong is -EIO
 * with a line naming the directory, never a walk past the block or a loop on rec_len 0. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/mmu.h"

/* getdents' d_type of each EXT2_FT_* */
static const unsigned char ext2_filetype_table[EXT2_FT_MAX] = {
	[EXT2_FT_UNKNOWN] = 0, [EXT2_FT_REG_FILE] = 8, [EXT2_FT_DIR] = 4, [EXT2_FT_CHRDEV] = 2,
	[EXT2_FT_BLKDEV] = 6,  [EXT2_FT_FIFO] = 1,     [EXT2_FT_SOCK] = 12, [EXT2_FT_SYMLINK] = 10,
};

static unsigned long dir_pages(struct inode *dir)
{
	return (unsigned long)((dir->i_size + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/* The bytes of page n that belong to the directory. */
static unsigned int ext2_last_byte(struct inode *dir, unsigned long n)
{
	uint64_t last = dir->i_size - ((uint64_t)n << PAGE_SHIFT);

	return (unsigned int)MIN(last, PAGE_SIZE);
}

static struct ext2_dir_entry_2 *ext2_next_entry(struct ext2_dir_entry_2 *p)
{
	return (struct ext2_dir_entry_2 *)((char *)p + p->rec_len);
}

/* Every entry of page n of dir well formed: 0, or -EIO with a line saying which is not. */
static int ext2_check_page(struct inode *dir, unsigned long n, char *kaddr)
{
	struct super_block *sb = dir->i_sb;
	unsigned int chunk = (unsigned int)sb->s_blocksize, limit = PAGE_SIZE, offs, rec_len = 0;
	struct ext2_dir_entry_2 *p = NULL;
	const char *error;

	if ((dir->i_size >> PAGE_SHIFT) == n) {
		limit = dir->i_size & ~PAGE_MASK;
		if (limit & (chunk - 1)) {
			ext2_msg(sb, "size of directory #%lu is not a multiple of %u", dir->i_ino,
				 chunk);
			return -EIO;
		}
	}
	for (offs = 0; offs + EXT2_DIR_REC_LEN(1) <= limit; offs += rec_len) {
		p = (struct ext2_dir_entry_2 *)(kaddr + offs);
		rec_len = p->rec_len;
		if (rec_len < EXT2_DIR_REC_LEN(1))
			error = "rec_len is smaller than minimal";
		else if (rec_len & 3)
			error = "unaligned directory entry";
		else if (rec_len < EXT2_DIR_REC_LEN(p->name_len))
			error = "rec_len is too small for name_len";
		else if (((offs + rec_len - 1) ^ offs) & ~(chunk - 1))
			error = "directory entry across blocks";
		else if (p->inode > EXT2_SB(sb)->s_es->s_inodes_count)
			error = "inode out of bounds";
		else
			continue;
		ext2_msg(sb, "bad entry in directory #%lu: %s - offset=%llu, inode=%u, rec_len=%u, "
			 "name_len=%u", dir->i_ino, error,
			 ((unsigned long long)n << PAGE_SHIFT) + offs, p->inode, rec_len,
			 p->name_len);
		return -EIO;
	}
	if (offs != limit) {
		ext2_msg(sb, "entry in directory #%lu spans the page boundary - offset=%llu",
			 dir->i_ino, ((unsigned long long)n << PAGE_SHIFT) + offs);
		return -EIO;
	}
	return 0;
}

/* Page n of dir, read and checked, with a reference (put_page): 0, -ENOMEM or -EIO. */
static int ext2_get_page(struct inode *dir, unsigned long n, struct page **pagep)
{
	int err = read_mapping_page(NULL, dir->i_mapping, n, pagep);

	if (err)
		return err;
	err = ext2_check_page(dir, n, page_address(*pagep));
	if (err)
		put_page(*pagep);
	return err;
}

/* The offset of the first entry at or after offset in its block (an lseek may have left
 * f_pos anywhere): entries are found by walking the block from its start. */
static unsigned int ext2_validate_entry(char *base, unsigned int offset, unsigned int mask)
{
	struct ext2_dir_entry_2 *de = (struct ext2_dir_entry_2 *)(base + offset);
	struct ext2_dir_entry_2 *p = (struct ext2_dir_entry_2 *)(base + (offset & mask));

	while ((char *)p < (char *)de)
		p = ext2_next_entry(p); /* rec_len checked: never 0 */
	return (unsigned int)((char *)p - base);
}

static int ext2_readdir(struct file *f, void *dirent,
			int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				       unsigned long ino, unsigned int type))
{
	struct inode *dir = f->f_inode;
	unsigned int offset = f->f_pos & ~PAGE_MASK;
	unsigned int mask = ~(unsigned int)(dir->i_sb->s_blocksize - 1);
	unsigned long n = f->f_pos >> PAGE_SHIFT, npages = dir_pages(dir);
	bool types = EXT2_HAS_INCOMPAT_FEATURE(dir->i_sb, EXT2_FEATURE_INCOMPAT_FILETYPE);

	if (f->f_pos > dir->i_size - EXT2_DIR_REC_LEN(1))
		return 0;
	for (; n < npages; n++, offset = 0) {
		struct page *page;
		char *kaddr, *limit;
		struct ext2_dir_entry_2 *de;
		int err = ext2_get_page(dir, n, &page);

		if (err) {
			/* a later call goes on after the bad page */
			f->f_pos = (uint64_t)(n + 1) << PAGE_SHIFT;
			return err;
		}
		kaddr = page_address(page);
		offset = ext2_validate_entry(kaddr, offset, mask);
		limit = kaddr + ext2_last_byte(dir, n) - EXT2_DIR_REC_LEN(1);
		for (de = (struct ext2_dir_entry_2 *)(kaddr + offset); (char *)de <= limit;
		     de = ext2_next_entry(de)) {
			uint64_t next = (uint64_t)((char *)de - kaddr) + de->rec_len;
			unsigned int type = 0;

			next += (uint64_t)n << PAGE_SHIFT;
			if (types && de->file_type < EXT2_FT_MAX)
				type = ext2_filetype_table[de->file_type];
			if (de->inode &&
			    filldir(dirent, de->name, de->name_len, next, de->inode, type)) {
				put_page(page);
				return 0;
			}
			f->f_pos = next;
		}
		put_page(page);
	}
	return 0;
}

int ext2_find_entry(struct inode *dir, const char *name, size_t len, unsigned long *ino)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	unsigned long npages = dir_pages(dir), start = ei->i_dir_start_lookup, n, i;

	if (start >= npages)
		start = 0;
	for (i = 0; i < npages; i++) {
		struct ext2_dir_entry_2 *de;
		struct page *page;
		char *kaddr, *limit;
		int err;

		n = (start + i) % npages;
		err = ext2_get_page(dir, n, &page);
		if (err)
			return err;
		kaddr = page_address(page);
		limit = kaddr + ext2_last_byte(dir, n) - EXT2_DIR_REC_LEN(1);
		for (de = (struct ext2_dir_entry_2 *)kaddr; (char *)de <= limit;
		     de = ext2_next_entry(de)) {
			if (de->inode && de->name_len == len && !memcmp(de->name, name, len)) {
				*ino = de->inode;
				ei->i_dir_start_lookup = n;
				put_page(page);
				return 0;
			}
		}
		put_page(page);
	}
	return -ENOENT;
}

static long ext2_read_dir(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return -EISDIR;
}

const struct file_operations ext2_dir_operations = {
	.read = ext2_read_dir,
	.readdir = ext2_readdir,
};
