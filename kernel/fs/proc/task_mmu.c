/* /proc/self/maps: the caller's VMAs as text, in Linux's format, one line each: the range,
 * the permissions, the file offset, the device and inode, and the file's path or a label. */
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

#define MAPS_LINE 160

static size_t show_map(const struct mm_struct *mm, const struct vm_area_struct *vma, char *buf,
		       size_t cap)
{
	const struct inode *fi = vma->vm_file ? vma->vm_file->f_inode : NULL;
	unsigned long flags = vma->vm_flags;
	char name[128] = "";

	if (fi) {
		d_path(fi, name, sizeof(name));
		if (!fi->i_nlink && S_ISREG(fi->i_mode)) /* Linux's d_path marks it so */
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " (deleted)");
	}
	else if (vma->vm_start <= mm->start_brk && vma->vm_end >= mm->brk &&
		 mm->brk > mm->start_brk)
		strlcpy(name, "[heap]", sizeof(name));
	else if (flags & VM_GROWSDOWN)
		strlcpy(name, "[stack]", sizeof(name));
	return (size_t)snprintf(buf, cap, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %-10lu %s\n",
				vma->vm_start, vma->vm_end, (flags & VM_READ) ? 'r' : '-',
				(flags & VM_WRITE) ? 'w' : '-', (flags & VM_EXEC) ? 'x' : '-',
				(flags & VM_MAYSHARE) ? 's' : 'p',
				fi ? vma->vm_pgoff << PAGE_SHIFT : 0,
				fi ? MAJOR(fi->i_sb->s_dev) : 0, fi ? MINOR(fi->i_sb->s_dev) : 0,
				fi ? fi->i_ino : 0, name);
}

/* The text is made once, at open: reads see the map as it was then. */
static int maps_open(struct inode *ino, struct file *f)
{
	struct mm_struct *mm = current->mm;
	size_t cap = (mm ? (size_t)mm->map_count : 0) * MAPS_LINE + 1;
	struct proc_text *t = proc_text_alloc(cap);

	(void)ino;
	if (!t)
		return -ENOMEM;
	for (struct vm_area_struct *vma = mm ? vma_first(mm) : NULL; vma; vma = vma_next(mm, vma))
		t->len += MIN(show_map(mm, vma, t->buf + t->len, cap - t->len), cap - 1 - t->len);
	f->private_data = t;
	return 0;
}

const struct file_operations proc_maps_operations = {
	.open = maps_open,
	.read = proc_text_read,
	.write = proc_write_eio,
	.release = proc_text_release,
};
