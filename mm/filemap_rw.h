/* read() and write() of files with a page cache (mm/filemap_rw.c): the file_operations a
 * file system such as ramfs plugs in for its regular files. */
#ifndef MM_FILEMAP_RW_H
#define MM_FILEMAP_RW_H

#include "kernel/fs/fs.h"

long generic_file_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
/* Writes at *pos, or at the end of the file with O_APPEND; extends the file. */
long generic_file_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
long generic_file_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos);
/* read() (write false) or write() of n bytes at pos between ubuf and mapping's pages, which
 * need not be f's inode's (a block device's bd_inode): the bytes done or -errno; pos, the
 * size and the times are the caller's. */
long do_generic_mapping_rw(struct file *f, struct address_space *mapping, uint64_t ubuf,
			   uint64_t n, uint64_t pos, bool write);
/* Write n bytes of kernel memory at pos of the file (a symbolic link's target): bytes or
 * -errno. */
long kernel_write(struct inode *ino, uint64_t pos, const void *buf, uint64_t n);
/* Read n bytes at pos of the file into kernel memory: bytes or -errno. */
long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n);
/* Set up a mapping of a file with a page cache: the page-cache vm_ops (mm/filemap.c). */
int generic_file_mmap(struct file *f, struct vm_area_struct *vma);

#endif
