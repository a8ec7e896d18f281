/* Overcommit accounting's policy (2.6.23's __vm_enough_memory in mm/mmap.c, today's in
 * mm/util.c): whether a new promise of memory fits under vm.overcommit_memory's rule, and
 * CommitLimit. Who charges what is in mm/mman.h and docs/memory.md. */
#include "kernel/errno.h"
#include "kernel/initcall.h"
#include "kernel/process/cred.h"
#include "mm/gfp.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/swap.h"
#include "mm/vma.h"

int sysctl_overcommit_memory = OVERCOMMIT_GUESS;
int sysctl_overcommit_ratio = 50;
unsigned long sysctl_overcommit_kbytes;
unsigned long sysctl_user_reserve_kbytes = 128 * 1024; /* until user_reserve_init */
unsigned long sysctl_admin_reserve_kbytes = 8 * 1024;
long vm_committed_as;

unsigned long vm_memory_committed(void)
{
	long pages = READ_ONCE(vm_committed_as);

	return pages > 0 ? (unsigned long)pages : 0;
}

unsigned long vm_commit_limit(void)
{
	unsigned long allowed, kbytes = READ_ONCE(sysctl_overcommit_kbytes);

	if (kbytes)
		allowed = kbytes >> (PAGE_SHIFT - 10);
	else /* (Linux's arithmetic: a negative ratio is a huge unsigned one) */
		allowed = nr_managed_pages() * (unsigned long)READ_ONCE(sysctl_overcommit_ratio) /
			  100;
	return allowed + (unsigned long)READ_ONCE(total_swap_pages);
}

/* Linux's mm->total_vm: every page the VMAs span, mapped or not. */
static unsigned long mm_total_vm(struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	unsigned long pages = 0;

	for_each_vma(vma, mm) pages += vma_pages(vma);
	return pages;
}

int __vm_enough_memory(struct mm_struct *mm, long pages, int cap_sys_admin)
{
	long allowed;

	/* Counted first, as Linux does: two callers at once both see the other's pages. */
	vm_acct_memory(pages);
	switch (READ_ONCE(sysctl_overcommit_memory)) {
	case OVERCOMMIT_ALWAYS:
		return 0;
	case OVERCOMMIT_GUESS:
		/* One request larger than all of RAM and swap could never be backed. */
		if ((unsigned long)pages > nr_managed_pages() + (unsigned long)total_swap_pages)
			break;
		return 0;
	default: /* OVERCOMMIT_NEVER */
		allowed = (long)vm_commit_limit();
		if (!cap_sys_admin)
			allowed -=
				(long)(READ_ONCE(sysctl_admin_reserve_kbytes) >> (PAGE_SHIFT - 10));
		if (mm) {
			long reserve =
				(long)(READ_ONCE(sysctl_user_reserve_kbytes) >> (PAGE_SHIFT - 10));

			allowed -= MIN((long)(mm_total_vm(mm) / 32), reserve);
		}
		if ((long)vm_memory_committed() < allowed)
			return 0;
		break;
	}
	vm_unacct_memory(pages);
	return -ENOMEM;
}

int security_vm_enough_memory_mm(struct mm_struct *mm, long pages)
{
	return __vm_enough_memory(mm, pages, capable(CAP_SYS_ADMIN));
}

/* The reserves' defaults, from the memory free at boot: 1/32 of it, at most 128 MiB for a
 * process's and 8 MiB for the administrator's (Linux's init_user_reserve and
 * init_admin_reserve). */
static void overcommit_reserve_init(void)
{
	unsigned long free_kbytes = nr_free_pages() << (PAGE_SHIFT - 10);

	sysctl_user_reserve_kbytes = MIN(free_kbytes / 32, 128UL * 1024);
	sysctl_admin_reserve_kbytes = MIN(free_kbytes / 32, 8UL * 1024);
}
device_initcall(overcommit_reserve_init);
