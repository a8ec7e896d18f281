/* process_vm_readv(2) and process_vm_writev(2) (Linux's mm/process_vm_access.c): bytes moved
 * between the caller's buffers and another process's memory, page by page: each remote page
 * is faulted in as that process would fault it (a write breaks copy-on-write), held by a
 * reference, and copied through the direct map. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/uio.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mmu.h"
#include "mm/slab.h"

#define CAP_SYS_PTRACE 19

/* Where the copy is in the caller's vector */
struct local_iter {
	struct iovec *iov;
	uint64_t cnt, idx, off, left; /* left: bytes still to move */
};

/* Move n bytes between kernel memory at k and the caller's next buffers (to them if
 * !vm_write). Split at the caller's page boundaries, so that a fault leaves what came before
 * it done, as Linux's copy_page_to_iter. The bytes moved. */
static uint64_t local_copy(struct local_iter *it, uint8_t *k, uint64_t n, bool vm_write)
{
	uint64_t done = 0;

	while (done < n && it->left) {
		struct iovec *v = &it->iov[it->idx];
		uint64_t u = v->iov_base + it->off;
		uint64_t m = MIN(MIN(n - done, v->iov_len - it->off), PAGE_SIZE - (u & ~PAGE_MASK));

		if (v->iov_len == it->off) {
			it->idx++;
			it->off = 0;
			continue;
		}
		if (vm_write ? copy_from_user(k + done, u, m) : copy_to_user(u, k + done, m))
			break;
		done += m;
		it->off += m;
		it->left -= m;
	}
	return done;
}

/* The page at addr of mm, faulted in (for a write if vm_write) and with a reference, NULL if
 * the VMA does not allow it (Linux's get_user_pages: none, no access, device memory), or the
 * zero page's address in *zero for an untouched anonymous page read. */
static struct page *pin_remote_page(struct mm_struct *mm, uint64_t addr, bool vm_write,
				    bool *zero)
{
	struct vm_area_struct *vma;
	struct page *page = NULL;
	pte_t *pte;

	*zero = false;
	down_read(&mm->mmap_sem);
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || (vma->vm_flags & (VM_IO | VM_PFNMAP)) ||
	    !(vma->vm_flags & (vm_write ? VM_WRITE : VM_READ)))
		goto out;
	if (handle_mm_fault(mm, vma, addr, vm_write, NULL) & VM_FAULT_ERROR)
		goto out;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, addr, false);
	if (pte && pte_present(*pte)) {
		page = vm_normal_page(*pte);
		if (page)
			get_page(page);
		else
			*zero = !vm_write; /* the shared zero page: reads as zeroes */
	}
	spin_unlock(&mm->page_table_lock);
out:
	up_read(&mm->mmap_sem);
	return page;
}

/* Linux's process_vm_rw_single_vec: the bytes at [addr, addr + len) of mm, until the caller's
 * buffers are full. 0, or -EFAULT where a remote page cannot be had or a local buffer faults
 * (it->left tells what moved). */
static long rw_single_vec(struct mm_struct *mm, uint64_t addr, uint64_t len,
			  struct local_iter *it, bool vm_write)
{
	static uint8_t zeroes[PAGE_SIZE];

	while (len && it->left) {
		uint64_t off = addr & ~PAGE_MASK, n = MIN(len, PAGE_SIZE - off), done;
		bool zero;
		struct page *page = pin_remote_page(mm, addr, vm_write, &zero);
		uint8_t *k = page ? (uint8_t *)page_address(page) + off : zeroes;

		if (!page && !zero)
			return -EFAULT;
		n = MIN(n, it->left);
		done = local_copy(it, k, n, vm_write);
		if (page)
			put_page(page);
		if (done < n)
			return -EFAULT;
		addr += n;
		len -= n;
	}
	return 0;
}

/* Linux's ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS): a thread of the caller's own
 * process, or one whose ids are all the caller's real ones and that is dumpable (its ids have
 * not changed since its last exec, or prctl said so), or CAP_SYS_PTRACE. */
static bool may_access(struct task_struct *t)
{
	const struct task_cred *c = &current->cred, *tc = &t->cred;

	if (t->mm == current->mm)
		return true;
	if (capable(CAP_SYS_PTRACE))
		return true;
	return c->uid == tc->uid && c->uid == tc->euid && c->uid == tc->suid &&
	       c->gid == tc->gid && c->gid == tc->egid && c->gid == tc->sgid &&
	       t->mm->dumpable == 1;
}

static long process_vm_rw_core(int pid, struct local_iter *it, struct iovec *rvec,
			       uint64_t riovcnt, bool vm_write)
{
	uint64_t total = it->left;
	struct task_struct *t;
	struct mm_struct *mm;
	bool any = false;
	long rc = 0;

	for (uint64_t i = 0; i < riovcnt; i++)
		any |= rvec[i].iov_len > 0;
	if (!any)
		return 0;
	t = pid > 0 ? find_task_by_pid(pid) : NULL;
	if (!t || !t->mm)
		return -ESRCH;
	if (!may_access(t))
		return -EPERM;
	mm = t->mm;
	mm->mm_users++; /* the task may exit while a fault sleeps */
	for (uint64_t i = 0; i < riovcnt && it->left && !rc; i++)
		rc = rw_single_vec(mm, rvec[i].iov_base, rvec[i].iov_len, it, vm_write);
	mmput(mm);
	total -= it->left;
	return total ? (long)total : rc; /* what moved, if anything did */
}

static long process_vm_rw(int64_t pid, uint64_t lvec, uint64_t liovcnt, uint64_t rvec,
			  uint64_t riovcnt, uint64_t flags, bool vm_write)
{
	struct iovec fast_l[UIO_FASTIOV], fast_r[UIO_FASTIOV], *iov_l, *iov_r = fast_r;
	struct local_iter it;
	long rc;

	if (flags)
		return -EINVAL;
	rc = import_iovec(lvec, liovcnt, fast_l, &iov_l);
	if (rc <= 0)
		goto out;
	it = (struct local_iter){ .iov = iov_l, .cnt = liovcnt, .left = (uint64_t)rc };
	rc = iovec_from_user(rvec, riovcnt, fast_r, &iov_r);
	if (!rc)
		rc = process_vm_rw_core((int)pid, &it, iov_r, riovcnt, vm_write);
out:
	if (iov_r != fast_r)
		kfree(iov_r);
	if (iov_l != fast_l)
		kfree(iov_l);
	return rc;
}

long sys_process_vm_readv(int64_t pid, uint64_t lvec, uint64_t liovcnt, uint64_t rvec,
			  uint64_t riovcnt, uint64_t flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, false);
}

long sys_process_vm_writev(int64_t pid, uint64_t lvec, uint64_t liovcnt, uint64_t rvec,
			   uint64_t riovcnt, uint64_t flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, true);
}
