/* ext2's directories (Linux 2.6.23's fs/ext2/dir.c): a directory is a file whose blocks are
 * cut into entries (inode, rec_len, name_len, file_type, name), read and written through its
 * page cache. Each page is checked before use: an entry whose rec_len is wrong is -EIO
 * with a line naming the directory, never a walk past the block or a loop on rec_len 0. */
#include "kernel/errno.h"
#include "kernel/fs/ext2/ext2.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/mmu.h"
#include "mm/page.h"

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

/* ext2_get_page, and the last byte of the page at which an entry of the directory may start:
 * its entries are those from the page's start up to it. */
static int ext2_get_page_limit(struct inode *dir, unsigned long n, struct page **pagep,
			       char **limit)
{
	int err = ext2_get_page(dir, n, pagep);

	if (!err)
		*limit = (char *)page_address(*pagep) + ext2_last_byte(dir, n) -
			 EXT2_DIR_REC_LEN(1);
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

/* Does de hold name (len bytes)? An unused entry holds none. */
static bool ext2_match(size_t len, const char *name, const struct ext2_dir_entry_2 *de)
{
	return de->inode && de->name_len == len && !memcmp(de->name, name, len);
}

int ext2_find_entry(struct inode *dir, const char *name, size_t len,
		    struct ext2_dir_entry_2 **res_dir, struct page **res_page)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	unsigned long npages = dir_pages(dir), start = ei->i_dir_start_lookup, n, i;

	if (start >= npages)
		start = 0;
	for (i = 0; i < npages; i++) {
		struct ext2_dir_entry_2 *de;
		struct page *page;
		char *limit;
		int err;

		n = (start + i) % npages;
		err = ext2_get_page_limit(dir, n, &page, &limit);
		if (err)
			return err;
		for (de = page_address(page); (char *)de <= limit; de = ext2_next_entry(de)) {
			if (ext2_match(len, name, de)) {
				ei->i_dir_start_lookup = n;
				*res_dir = de;
				*res_page = page;
				return 0;
			}
		}
		put_page(page);
	}
	return -ENOENT;
}

int ext2_inode_by_name(struct inode *dir, const char *name, size_t len, unsigned long *ino)
{
	struct ext2_dir_entry_2 *de;
	struct page *page;
	int err = ext2_find_entry(dir, name, len, &de, &page);

	if (!err) {
		*ino = de->inode;
		put_page(page);
	}
	return err;
}

/* The writing half: an entry is changed inside its page under the page lock, between the
 * directory's a_ops->prepare_write (which maps, or allocates, the block under it) and
 * commit_write (the block dirty, i_size grown past a new block), as 2.6.23's. The lock is
 * taken before a page is searched for room or an entry is changed: the big kernel lock is let
 * go while a task sleeps, and another may have changed the page meanwhile. */

/* getdents' file type byte (EXT2_FT_*) of each S_IF* type, by (mode & S_IFMT) >> 12 */
static const unsigned char ext2_type_by_mode[S_IFMT >> 12] = {
	[S_IFREG >> 12] = EXT2_FT_REG_FILE, [S_IFDIR >> 12] = EXT2_FT_DIR,
	[S_IFCHR >> 12] = EXT2_FT_CHRDEV,   [S_IFBLK >> 12] = EXT2_FT_BLKDEV,
	[S_IFIFO >> 12] = EXT2_FT_FIFO,     [S_IFSOCK >> 12] = EXT2_FT_SOCK,
	[S_IFLNK >> 12] = EXT2_FT_SYMLINK,
};

/* The type byte is only kept when the file system has the filetype feature: without it,
 * that byte is the high half of a 16-bit name_len. */
static void ext2_set_de_type(struct ext2_dir_entry_2 *de, struct inode *inode)
{
	de->file_type = 0;
	if (EXT2_HAS_INCOMPAT_FEATURE(inode->i_sb, EXT2_FEATURE_INCOMPAT_FILETYPE))
		de->file_type = ext2_type_by_mode[(inode->i_mode & S_IFMT) >> 12];
}

static int ext2_prepare_chunk(struct page *page, unsigned int from, unsigned int to)
{
	return page->mapping->a_ops->prepare_write(NULL, page, from, to);
}

/* Bytes [from, to) of the locked page were changed: into the page cache's dirty state, and on
 * the disk now for a mount with dirsync or sync; unlocks the page. */
static int ext2_commit_chunk(struct page *page, unsigned int from, unsigned int to)
{
	struct inode *dir = page->mapping->host;

	page->mapping->a_ops->commit_write(NULL, page, from, to);
	if (dir->i_sb->s_flags & (MS_SYNCHRONOUS | MS_DIRSYNC))
		return write_one_page(page, 1);
	unlock_page(page);
	return 0;
}

/* A name was added or removed: the directory changed, and an htree index (which ext2 does not
 * keep up) no longer describes it. */
static void ext2_dir_changed(struct inode *dir)
{
	EXT2_I(dir)->i_flags &= ~EXT2_INDEX_FL;
	inode_touch_mtime(dir); /* dirty: write_inode will put it on the disk */
}

/* Room for a record of reclen bytes in the locked page n of dir: the record to use (*at_end
 * when it is a new block past i_size), NULL if the page has none; -EEXIST if the page holds
 * name already, -EIO on a record of length 0. */
static struct ext2_dir_entry_2 *ext2_find_room(struct inode *dir, unsigned long n, char *kaddr,
					       const char *name, size_t len, bool *at_end,
					       int *err)
{
	unsigned int reclen = EXT2_DIR_REC_LEN(len);
	char *dir_end = kaddr + ext2_last_byte(dir, n), *limit = kaddr + PAGE_SIZE - reclen;
	struct ext2_dir_entry_2 *de = (struct ext2_dir_entry_2 *)kaddr;

	for (; (char *)de <= limit; de = ext2_next_entry(de)) {
		if ((char *)de == dir_end) { /* the directory's end: a new block */
			*at_end = true;
			return de;
		}
		if (!de->rec_len) {
			ext2_msg(dir->i_sb, "zero-length entry in directory #%lu", dir->i_ino);
			*err = -EIO;
			return NULL;
		}
		if (ext2_match(len, name, de)) {
			*err = -EEXIST;
			return NULL;
		}
		if (!de->inode && de->rec_len >= reclen)
			return de; /* an unused record */
		if (de->rec_len >= EXT2_DIR_REC_LEN(de->name_len) + reclen)
			return de; /* the slack after a name */
	}
	return NULL;
}

int ext2_add_link(struct inode *dir, const char *name, size_t len, struct inode *inode)
{
	unsigned int chunk = (unsigned int)dir->i_sb->s_blocksize, from, to, used;
	unsigned long npages = dir_pages(dir), n;
	struct ext2_dir_entry_2 *de = NULL;
	struct page *page;
	bool at_end = false;
	char *kaddr;
	int err = 0;

	if (len > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	/* The page past the last is a new block, when i_size ends on a page boundary. */
	for (n = 0; n <= npages; n++) {
		err = ext2_get_page(dir, n, &page);
		if (err)
			return err;
		lock_page(page);
		kaddr = page_address(page);
		de = ext2_find_room(dir, n, kaddr, name, len, &at_end, &err);
		if (de)
			break;
		unlock_page(page);
		put_page(page);
		if (err)
			return err;
	}
	if (!de) {
		ext2_msg(dir->i_sb, "directory #%lu: no room found past its end", dir->i_ino);
		return -EIO;
	}
	from = (unsigned int)((char *)de - kaddr);
	to = from + (at_end ? chunk : de->rec_len);
	err = ext2_prepare_chunk(page, from, to);
	if (err) {
		unlock_page(page);
		put_page(page);
		return err;
	}
	if (at_end) { /* a new block: one unused entry over all of it */
		memset(de, 0, chunk);
		de->rec_len = (uint16_t)chunk;
	}
	if (de->inode) { /* split: the name keeps its bytes, the new entry takes the slack */
		struct ext2_dir_entry_2 *de1;

		used = EXT2_DIR_REC_LEN(de->name_len);
		de1 = (struct ext2_dir_entry_2 *)((char *)de + used);
		de1->rec_len = (uint16_t)(de->rec_len - used);
		de->rec_len = (uint16_t)used;
		de = de1;
	}
	de->name_len = (uint8_t)len;
	memcpy(de->name, name, len);
	de->inode = (uint32_t)inode->i_ino;
	ext2_set_de_type(de, inode);
	err = ext2_commit_chunk(page, from, to);
	ext2_dir_changed(dir);
	put_page(page);
	return err;
}

int ext2_delete_entry(struct ext2_dir_entry_2 *dir_de, struct page *page)
{
	struct inode *dir = page->mapping->host;
	unsigned int chunk = (unsigned int)dir->i_sb->s_blocksize, from, to;
	char *kaddr = page_address(page);
	struct ext2_dir_entry_2 *de, *pde = NULL;
	uint32_t ino = dir_de->inode;
	int err;

	lock_page(page);
	from = (unsigned int)((char *)dir_de - kaddr) & ~(chunk - 1);
	de = (struct ext2_dir_entry_2 *)(kaddr + from);
	while (de < dir_de && de->rec_len) {
		pde = de;
		de = ext2_next_entry(de);
	}
	/* Removed meanwhile (merged into the record before it, or its inode gone): a second
	 * unlink of one name that slept in lock_page while the first ran. */
	if (de != dir_de || !dir_de->inode || dir_de->inode != ino) {
		unlock_page(page);
		put_page(page);
		return -ENOENT;
	}
	to = (unsigned int)((char *)dir_de - kaddr) + dir_de->rec_len;
	if (pde)
		from = (unsigned int)((char *)pde - kaddr);
	err = ext2_prepare_chunk(page, from, to);
	if (!err) {
		if (pde) /* the previous record takes its bytes */
			pde->rec_len = (uint16_t)(to - from);
		dir_de->inode = 0; /* the first of its block: unused */
		err = ext2_commit_chunk(page, from, to);
		ext2_dir_changed(dir);
	} else {
		unlock_page(page);
	}
	put_page(page);
	return err;
}

int ext2_make_empty(struct inode *inode, struct inode *parent)
{
	unsigned int chunk = (unsigned int)inode->i_sb->s_blocksize;
	struct page *page = grab_cache_page(inode->i_mapping, 0);
	struct ext2_dir_entry_2 *de;
	char *kaddr;
	int err;

	if (!page)
		return -ENOMEM;
	/* A new directory has no blocks: the page is all zeroes until written. */
	kaddr = page_address(page);
	memset(kaddr, 0, PAGE_SIZE);
	SetPageFlag(page, PG_uptodate);
	err = ext2_prepare_chunk(page, 0, chunk);
	if (err) {
		unlock_page(page);
		put_page(page);
		return err;
	}
	de = (struct ext2_dir_entry_2 *)kaddr;
	de->name_len = 1;
	de->rec_len = (uint16_t)EXT2_DIR_REC_LEN(1);
	memcpy(de->name, ".", 1);
	de->inode = (uint32_t)inode->i_ino;
	ext2_set_de_type(de, inode);
	de = ext2_next_entry(de);
	de->name_len = 2;
	de->rec_len = (uint16_t)(chunk - EXT2_DIR_REC_LEN(1));
	memcpy(de->name, "..", 2);
	de->inode = (uint32_t)parent->i_ino;
	ext2_set_de_type(de, parent);
	err = ext2_commit_chunk(page, 0, chunk);
	put_page(page);
	return err;
}

int ext2_empty_dir(struct inode *inode)
{
	unsigned long npages = dir_pages(inode), n;

	for (n = 0; n < npages; n++) {
		struct ext2_dir_entry_2 *de;
		struct page *page;
		char *limit;
		int err = ext2_get_page_limit(inode, n, &page, &limit);

		if (err)
			return err;
		for (de = page_address(page); (char *)de <= limit; de = ext2_next_entry(de)) {
			bool dot = de->name_len == 1 && de->name[0] == '.' &&
				   de->inode == inode->i_ino;
			bool dotdot = de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.';

			if (de->inode && !dot && !dotdot) {
				put_page(page);
				return 0;
			}
		}
		put_page(page);
	}
	return 1;
}

int ext2_dotdot(struct inode *dir, struct ext2_dir_entry_2 **res_dir, struct page **res_page)
{
	int err = ext2_get_page(dir, 0, res_page);

	if (!err)
		*res_dir = ext2_next_entry(page_address(*res_page));
	return err;
}

void ext2_set_link(struct inode *dir, struct ext2_dir_entry_2 *de, struct page *page,
		   struct inode *inode)
{
	unsigned int from, to;

	lock_page(page);
	from = (unsigned int)((char *)de - (char *)page_address(page));
	to = from + de->rec_len;
	if (!ext2_prepare_chunk(page, from, to)) {
		de->inode = (uint32_t)inode->i_ino;
		ext2_set_de_type(de, inode);
		ext2_commit_chunk(page, from, to);
	} else {
		unlock_page(page);
	}
	put_page(page);
	inode_touch_mtime(dir);
}

static long ext2_read_dir(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return -EISDIR;
}

const struct file_operations ext2_dir_operations = {
	.read = ext2_read_dir,
	.readdir = ext2_readdir,
	.fsync = ext2_fsync,
};
