/* userfaultfd: faults on registered memory handed to a thread of the program, which reads them
 * from a descriptor and answers with ioctls (Linux's <linux/userfaultfd_k.h>, and the numbers of
 * <uapi/linux/userfaultfd.h>). kernel/fs/userfaultfd.c is the descriptor and the fault's wait,
 * mm/userfaultfd.c (mm/userfaultfd.h) fills the pages in. */
#ifndef KERNEL_FS_USERFAULTFD_K_H
#define KERNEL_FS_USERFAULTFD_K_H

#include "kernel/lib/list.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/wait.h"
#include "mm/vma.h"

/* userfaultfd(2)'s flags: O_CLOEXEC and O_NONBLOCK, and faults of ring 3 only */
#define UFFD_USER_MODE_ONLY 1

#define UFFD_API 0xAAULL

/* The features UFFDIO_API can turn on: those faultline has. */
#define UFFD_FEATURE_MISSING_SHMEM (1ULL << 5)	 /* shared memory can be registered */
#define UFFD_FEATURE_SIGBUS	    (1ULL << 7)	 /* a fault is SIGBUS, nobody is asked */
#define UFFD_FEATURE_THREAD_ID	    (1ULL << 8)	 /* the message names the faulting thread */
#define UFFD_FEATURE_EXACT_ADDRESS (1ULL << 11) /* the address not rounded to its page */
#define UFFD_API_FEATURES (UFFD_FEATURE_MISSING_SHMEM | UFFD_FEATURE_SIGBUS | \
			   UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_EXACT_ADDRESS)

/* The ioctls: type 0xAA, these numbers; the bits UFFDIO_API and REGISTER answer are 1 << nr. */
#define _UFFDIO_REGISTER   0x00
#define _UFFDIO_UNREGISTER 0x01
#define _UFFDIO_WAKE	   0x02
#define _UFFDIO_COPY	   0x03
#define _UFFDIO_ZEROPAGE   0x04
#define _UFFDIO_API	   0x3F
#define UFFDIO_IOCTL(dir, nr, size) (((uint32_t)(dir) << 30) | ((uint32_t)(size) << 16) | \
				     (0xAAU << 8) | (nr))
#define UFFDIO_API	  UFFDIO_IOCTL(3, _UFFDIO_API, sizeof(struct uffdio_api))
#define UFFDIO_REGISTER	  UFFDIO_IOCTL(3, _UFFDIO_REGISTER, sizeof(struct uffdio_register))
#define UFFDIO_UNREGISTER UFFDIO_IOCTL(2, _UFFDIO_UNREGISTER, sizeof(struct uffdio_range))
#define UFFDIO_WAKE	  UFFDIO_IOCTL(2, _UFFDIO_WAKE, sizeof(struct uffdio_range))
#define UFFDIO_COPY	  UFFDIO_IOCTL(3, _UFFDIO_COPY, sizeof(struct uffdio_copy))
#define UFFDIO_ZEROPAGE	  UFFDIO_IOCTL(3, _UFFDIO_ZEROPAGE, sizeof(struct uffdio_zeropage))
#define UFFD_API_IOCTLS ((1ULL << _UFFDIO_REGISTER) | (1ULL << _UFFDIO_UNREGISTER) | \
			 (1ULL << _UFFDIO_API))
#define UFFD_API_RANGE_IOCTLS ((1ULL << _UFFDIO_WAKE) | (1ULL << _UFFDIO_COPY) | \
			       (1ULL << _UFFDIO_ZEROPAGE))

#define UFFDIO_REGISTER_MODE_MISSING 1ULL
#define UFFDIO_REGISTER_MODE_WP	     2ULL /* Linux's; not here yet: EINVAL */
#define UFFDIO_REGISTER_MODE_MINOR   4ULL /* Linux's; not here yet: EINVAL */
#define UFFDIO_COPY_MODE_DONTWAKE     1ULL
#define UFFDIO_ZEROPAGE_MODE_DONTWAKE 1ULL

#define UFFD_EVENT_PAGEFAULT 0x12
#define UFFD_PAGEFAULT_FLAG_WRITE 1

struct uffdio_api {
	uint64_t api, features, ioctls;
};

struct uffdio_range {
	uint64_t start, len;
};

struct uffdio_register {
	struct uffdio_range range;
	uint64_t mode, ioctls;
};

struct uffdio_copy {
	uint64_t dst, src, len, mode;
	int64_t copy; /* out: bytes copied, or -errno */
};

struct uffdio_zeropage {
	struct uffdio_range range;
	uint64_t mode;
	int64_t zeropage; /* out: bytes zeroed, or -errno */
};

/* What read(2) gives: one fault (32 bytes, packed as Linux's). */
struct uffd_msg {
	uint8_t event;
	uint8_t reserved1;
	uint16_t reserved2;
	uint32_t reserved3;
	union {
		struct {
			uint64_t flags;	  /* UFFD_PAGEFAULT_FLAG_* */
			uint64_t address; /* the faulting address (its page's, unless EXACT) */
			union {
				uint32_t ptid; /* with UFFD_FEATURE_THREAD_ID */
			} feat;
		} __attribute__((packed)) pagefault;
		struct {
			uint64_t reserved1, reserved2, reserved3;
		} reserved;
	} arg;
} __attribute__((packed));

/*
 * One userfaultfd. Its faults wait on two lists under lock: pending (queued, not yet read) and
 * read (handed to a reader, not yet resolved); a resolving ioctl takes those of its range off
 * either list and wakes fault_wqh, where every faulting thread sleeps. fd_wqh is where
 * readers and pollers sleep. refcount: the file's, and one per fault asleep on it.
 */
struct userfaultfd_ctx {
	spinlock_t lock;
	struct list_head fault_pending;
	struct list_head fault_read;
	struct wait_queue_head fault_wqh;
	struct wait_queue_head fd_wqh;
	int refcount;		 /* under lock */
	unsigned int flags;	 /* userfaultfd(2)'s: O_NONBLOCK, UFFD_USER_MODE_ONLY */
	uint64_t features;	 /* UFFDIO_API's */
	bool api_done;		 /* UFFDIO_API answered: the other calls may come */
	bool released;		 /* the descriptor is closed: faults go on as ordinary ones */
	struct mm_struct *mm;	 /* the address space it registers ranges of (a user of it) */
};

/* Is vma's missing page a fault its userfaultfd must hear of? */
static inline bool userfaultfd_missing(const struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_UFFD_MISSING;
}

/* A fault at address on a page vmf->vma lacks, with reason VM_UFFD_MISSING: queue it on the
 * VMA's userfaultfd, let go of mmap_sem, and sleep until an ioctl resolves it or the descriptor
 * is closed; then take mmap_sem again and answer VM_FAULT_RETRY, vmf->vma NULL (it may be gone).
 * VM_FAULT_SIGBUS where the fault may not wait (no FAULT_FLAG_ALLOW_RETRY, UFFD_FEATURE_SIGBUS,
 * a kernel fault with UFFD_USER_MODE_ONLY, or one whose task is being killed). */
int handle_userfault(struct vm_fault *vmf, uint64_t address, unsigned long reason);

/* Wake the faults of ctx in [start, start + len) (kernel/fs/userfaultfd.c). */
void userfaultfd_wake_range(struct userfaultfd_ctx *ctx, uint64_t start, uint64_t len);

/* kernel/fs/userfaultfd_ioctl.c: the descriptor's ioctls. */
long userfaultfd_ioctl(struct file *f, uint64_t cmd, uint64_t arg);

#endif
