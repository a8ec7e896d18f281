/* uffd: userfaultfd(2) as Linux answers it: the handshake, registering anonymous memory, a
 * second thread that reads the faults of the first and resolves them with UFFDIO_COPY and
 * UFFDIO_ZEROPAGE, a fault inside a system call, a signal, fork, close, mremap, the VMAs
 * registering splits, shared memory, an exit with faults asleep, and the errors of each call. */
#define _GNU_SOURCE
#define UTEST_NAME "uffd"
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "utest.h"

/* <linux/userfaultfd.h>, which musl lacks: Linux's numbers */
#define NR_userfaultfd 323
#define UFFD_USER_MODE_ONLY 1
#define UFFD_API 0xAAULL
#define UFFD_EVENT_PAGEFAULT 0x12
#define UFFD_PAGEFAULT_FLAG_WRITE 1
#define UFFD_FEATURE_MISSING_SHMEM (1ULL << 5)
#define UFFD_FEATURE_SIGBUS (1ULL << 7)
#define UFFD_FEATURE_THREAD_ID (1ULL << 8)
#define UFFD_FEATURE_EXACT_ADDRESS (1ULL << 11)
#define UFFDIO_REGISTER_MODE_MISSING 1ULL
#define UFFDIO_COPY_MODE_DONTWAKE 1ULL
#define _UFFDIO_REGISTER 0
#define _UFFDIO_UNREGISTER 1
#define _UFFDIO_WAKE 2
#define _UFFDIO_COPY 3
#define _UFFDIO_ZEROPAGE 4
#define _UFFDIO_API 0x3F

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
	int64_t copy;
};
struct uffdio_zeropage {
	struct uffdio_range range;
	uint64_t mode;
	int64_t zeropage;
};
struct uffd_msg {
	uint8_t event, reserved1;
	uint16_t reserved2;
	uint32_t reserved3;
	union {
		struct {
			uint64_t flags, address;
			uint32_t ptid;
		} pagefault;
		uint64_t reserved[3];
	} arg;
} __attribute__((packed));

#define UFFDIO_API _IOWR(0xAA, _UFFDIO_API, struct uffdio_api)
#define UFFDIO_REGISTER _IOWR(0xAA, _UFFDIO_REGISTER, struct uffdio_register)
#define UFFDIO_UNREGISTER _IOR(0xAA, _UFFDIO_UNREGISTER, struct uffdio_range)
#define UFFDIO_WAKE _IOR(0xAA, _UFFDIO_WAKE, struct uffdio_range)
#define UFFDIO_COPY _IOWR(0xAA, _UFFDIO_COPY, struct uffdio_copy)
#define UFFDIO_ZEROPAGE _IOWR(0xAA, _UFFDIO_ZEROPAGE, struct uffdio_zeropage)

#define PG 4096UL
#define NPAGES 24
#define BIT(n) (1ULL << (n))

static char *area;   /* NPAGES registered pages */
static char src[2 * PG]; /* what UFFDIO_COPY puts there */

static int new_uffd(int flags, uint64_t features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	int fd = (int)syscall(NR_userfaultfd, flags);

	if (!CHECK(fd >= 0) || !CHECK(ioctl(fd, UFFDIO_API, &api) == 0))
		exit(utest_done());
	return fd;
}

static int reg(int fd, void *start, uint64_t len)
{
	struct uffdio_register r = { { (uintptr_t)start, len }, UFFDIO_REGISTER_MODE_MISSING, 0 };

	return ioctl(fd, UFFDIO_REGISTER, &r);
}

static long copy_page_to(int fd, void *dst, uint64_t mode)
{
	struct uffdio_copy c = { (uintptr_t)dst, (uintptr_t)src, PG, mode, 0 };
	long r = ioctl(fd, UFFDIO_COPY, &c);

	return r ? -errno : c.copy;
}

/* The next fault's message, after poll says there is one. */
static struct uffd_msg next_fault(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct uffd_msg m = { 0 };

	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK_EQ(p.revents, POLLIN);
	CHECK_EQ(read(fd, &m, sizeof(m)), sizeof(m));
	CHECK_EQ(m.event, UFFD_EVENT_PAGEFAULT);
	return m;
}

/* The thread whose accesses fault: reads page 0, writes page 1, reads page 2 inside read(2)
 * of a pipe (a fault in the kernel), then reads page 3, which the resolver leaves asleep. What
 * it sees the main thread checks after it ends (one thread counts the checks). */
static int pipefd[2];
static volatile int toucher_stage;
static char seen0, seen3;
static long got_read;

static void *toucher(void *arg)
{
	volatile char *v = area; /* each access made, in this order */

	(void)arg;
	seen0 = v[0];
	toucher_stage = 1;
	v[PG + 5] = 'w';
	toucher_stage = 2;
	got_read = read(pipefd[0], area + 2 * PG + 100, 3);
	toucher_stage = 3;
	seen3 = v[3 * PG];
	toucher_stage = 4;
	return NULL;
}

static void two_threads(int fd)
{
	struct uffdio_zeropage z = { { (uintptr_t)area + PG, PG }, 0, 0 };
	struct uffdio_range wake = { (uintptr_t)area + 3 * PG, PG };
	struct timespec ms50 = { 0, 50000000 };
	struct uffd_msg m;
	pthread_t t;

	CHECK_EQ(pipe(pipefd), 0);
	CHECK_EQ(write(pipefd[1], "xyz", 3), 3);
	CHECK_EQ(pthread_create(&t, NULL, toucher, NULL), 0);
	m = next_fault(fd); /* a read: no WRITE flag */
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area);
	CHECK_EQ(m.arg.pagefault.flags, 0);
	CHECK_EQ(copy_page_to(fd, area, 0), PG);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + PG);
	CHECK_EQ(m.arg.pagefault.flags, UFFD_PAGEFAULT_FLAG_WRITE);
	CHECK_EQ(ioctl(fd, UFFDIO_ZEROPAGE, &z), 0);
	CHECK_EQ(z.zeropage, PG);
	m = next_fault(fd); /* the kernel's copy_to_user in read(2) */
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + 2 * PG);
	CHECK_EQ(m.arg.pagefault.flags, UFFD_PAGEFAULT_FLAG_WRITE);
	CHECK_EQ(copy_page_to(fd, area + 2 * PG, 0), PG);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + 3 * PG);
	CHECK_EQ(copy_page_to(fd, area + 3 * PG, UFFDIO_COPY_MODE_DONTWAKE), PG);
	nanosleep(&ms50, NULL);
	CHECK_EQ(toucher_stage, 3); /* DONTWAKE: the page is there, its faulter still asleep */
	CHECK_EQ(ioctl(fd, UFFDIO_WAKE, &wake), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(toucher_stage, 4);
	CHECK_EQ(seen0, 'a');
	CHECK_EQ(got_read, 3);
	CHECK_EQ(seen3, 'a');
	CHECK_EQ(area[PG + 5], 'w');
	CHECK_EQ(area[PG], 0);
	CHECK(memcmp(area + 2 * PG + 100, "xyz", 3) == 0);
	CHECK_EQ(area[2 * PG], 'a');
	close(pipefd[0]);
	close(pipefd[1]);
}

/* Errors of UFFDIO_COPY and UFFDIO_ZEROPAGE, on pages 4 onward (page 0 is present). */
static void copy_errors(int fd)
{
	struct uffdio_zeropage z = { { (uintptr_t)area, PG }, 0, 0 };
	struct uffdio_copy c = { (uintptr_t)area + 4 * PG, 8, PG, 0, 0 };
	char *outside = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK_EQ(copy_page_to(fd, area, 0), -EEXIST);
	CHECK_ERR(ioctl(fd, UFFDIO_ZEROPAGE, &z), EEXIST);
	CHECK_EQ(z.zeropage, -EEXIST);
	CHECK_EQ(copy_page_to(fd, area + 4 * PG + 1, 0), -EINVAL);
	CHECK_EQ(copy_page_to(fd, area + 4 * PG, 4), -EINVAL); /* an unknown mode bit */
	CHECK_EQ(copy_page_to(fd, outside, 0), -ENOENT);      /* not registered */
	CHECK_ERR(ioctl(fd, UFFDIO_COPY, &c), EFAULT);        /* the source is not mapped */
	CHECK_ERR(ioctl(fd, UFFDIO_COPY, (void *)8), EFAULT);
	c.len = 0;
	CHECK_ERR(ioctl(fd, UFFDIO_COPY, &c), EINVAL);
	z.range.start = (uintptr_t)area + 4 * PG + 1;
	CHECK_ERR(ioctl(fd, UFFDIO_ZEROPAGE, &z), EINVAL);
	/* Two pages, the second there already: the first is filled, the call says EAGAIN (go on
	 * from there) and how much it did. */
	CHECK_EQ(copy_page_to(fd, area + 17 * PG, 0), PG);
	c = (struct uffdio_copy){ (uintptr_t)area + 16 * PG, (uintptr_t)src, 2 * PG, 0, 0 };
	CHECK_ERR(ioctl(fd, UFFDIO_COPY, &c), EAGAIN);
	CHECK_EQ(c.copy, PG);
	CHECK_EQ(area[16 * PG], 'a');
	z.range = (struct uffdio_range){ (uintptr_t)area + 18 * PG, PG };
	CHECK_EQ(ioctl(fd, UFFDIO_WAKE, &z.range), 0); /* nobody to wake */
	munmap(outside, PG);
}

/* The handshake and the descriptor's own errors. */
static void api_and_errors(void)
{
	struct uffdio_api api = { .api = UFFD_API + 1 };
	struct uffd_msg m;
	int fd = (int)syscall(NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	const uint64_t ours = UFFD_FEATURE_MISSING_SHMEM | UFFD_FEATURE_SIGBUS |
			      UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_EXACT_ADDRESS;

	CHECK_ERR(syscall(NR_userfaultfd, O_APPEND), EINVAL);
	if (!CHECK(fd >= 0))
		return;
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDONLY | O_NONBLOCK);
	CHECK_ERR(read(fd, &m, sizeof(m)), EINVAL); /* no handshake yet */
	CHECK_ERR(reg(fd, area, PG), EINVAL);
	CHECK_ERR(ioctl(fd, UFFDIO_API, &api), EINVAL); /* an unknown API */
	CHECK_EQ(api.api, 0);
	api = (struct uffdio_api){ .api = UFFD_API, .features = BIT(62) };
	CHECK_ERR(ioctl(fd, UFFDIO_API, &api), EINVAL); /* an unknown feature */
	CHECK_ERR(ioctl(fd, UFFDIO_API, (void *)8), EFAULT);
	api = (struct uffdio_api){ .api = UFFD_API };
	CHECK_EQ(ioctl(fd, UFFDIO_API, &api), 0);
	CHECK_EQ(api.api, UFFD_API);
	CHECK_EQ(api.features & ours, ours);
	CHECK_EQ(api.ioctls, BIT(_UFFDIO_REGISTER) | BIT(_UFFDIO_UNREGISTER) | BIT(_UFFDIO_API));
	CHECK_ERR(ioctl(fd, UFFDIO_API, &api), EINVAL); /* a second handshake */
	CHECK_ERR(ioctl(fd, _IO(0xAA, 0x30)), EINVAL);
	CHECK_ERR(ioctl(fd, FIONREAD), EINVAL);
	CHECK_ERR(read(fd, &m, sizeof(m)), EAGAIN);
	CHECK_ERR(read(fd, &m, sizeof(m) - 1), EINVAL);
	CHECK_ERR(syscall(SYS_read, fd, 8, sizeof(m)), EAGAIN);
	CHECK_ERR(write(fd, &m, sizeof(m)), EBADF); /* open for reading only */
	CHECK_ERR(reg(fd, area + 1, PG), EINVAL);
	CHECK_ERR(reg(fd, area, PG - 1), EINVAL);
	CHECK_ERR(reg(fd, area, 0), EINVAL);
	CHECK_ERR(reg(fd, (void *)0x1000, PG), EINVAL); /* nothing mapped there */
	CHECK_ERR(reg(fd, (void *)(0x800000000000ULL - PG), 2 * PG), EINVAL);
	CHECK_ERR(ioctl(fd, UFFDIO_REGISTER, (void *)8), EFAULT);
	struct uffdio_register r = { { (uintptr_t)area, PG }, 0, 0 };
	CHECK_ERR(ioctl(fd, UFFDIO_REGISTER, &r), EINVAL); /* no mode */
	r.mode = 8;
	CHECK_ERR(ioctl(fd, UFFDIO_REGISTER, &r), EINVAL); /* an unknown mode */
	close(fd);
}

/* Text of this program is a private file mapping: not anonymous memory. Another descriptor's
 * registration makes a range busy. */
static void register_checks(int fd)
{
	struct uffdio_register r = { { (uintptr_t)area, NPAGES * PG }, 1, 0 };
	uint64_t want = BIT(_UFFDIO_WAKE) | BIT(_UFFDIO_COPY) | BIT(_UFFDIO_ZEROPAGE);
	int other = new_uffd(0, 0);

	CHECK_EQ(ioctl(fd, UFFDIO_REGISTER, &r), 0);
	CHECK_EQ(r.ioctls & want, want);
	CHECK_EQ(reg(fd, area, NPAGES * PG), 0); /* again, by the same descriptor */
	CHECK_ERR(reg(other, area + PG, PG), EBUSY);
	CHECK_ERR(reg(other, (void *)((uintptr_t)&register_checks & ~(PG - 1)), PG), EINVAL);
	close(other);
}

/* A fork's child keeps the pages but not the registration (no UFFD_FEATURE_EVENT_FORK): its
 * fault on a missing page is an ordinary one, and the parent hears of none. */
static void fork_child(int fd)
{
	struct uffd_msg m;
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(area[5 * PG] == 0 && area[0] == 'a' ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_ERR(read(fd, &m, sizeof(m)), EAGAIN);
}

/* UFFDIO_UNREGISTER: the range faults as ordinary memory again. */
static void unregister(int fd)
{
	struct uffdio_range r = { (uintptr_t)area + 6 * PG, PG };

	CHECK_ERR(ioctl(fd, UFFDIO_UNREGISTER, (void *)8), EFAULT);
	r.len = 1;
	CHECK_ERR(ioctl(fd, UFFDIO_UNREGISTER, &r), EINVAL);
	r.len = PG;
	CHECK_EQ(ioctl(fd, UFFDIO_UNREGISTER, &r), 0);
	CHECK_EQ(area[6 * PG], 0);
	area[6 * PG] = 1;
	CHECK_EQ(copy_page_to(fd, area + 6 * PG + PG, 0), PG); /* its neighbour still is */
}

/* A thread asleep in a fault when the descriptor is closed: it wakes, and the fault is then an
 * ordinary one (the registration went with the descriptor). */
static void *close_toucher(void *arg)
{
	return (void *)(long)((char *)arg)[0];
}

static void close_wakes(int fd)
{
	struct uffd_msg m;
	pthread_t t;
	void *ret = (void *)1;

	CHECK_EQ(pthread_create(&t, NULL, close_toucher, area + 8 * PG), 0);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + 8 * PG);
	close(fd);
	CHECK_EQ(pthread_join(t, &ret), 0);
	CHECK(ret == NULL);
	CHECK_EQ(area[9 * PG], 0); /* not registered any more */
}

/* UFFD_USER_MODE_ONLY: a fault in the kernel is not handed over, it fails (EFAULT); and with
 * UFFD_FEATURE_SIGBUS a fault is SIGBUS at once. Pages 10 and 11. */
static sigjmp_buf jb;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGBUS && si->si_addr == area + 11 * PG)
		siglongjmp(jb, 1);
}

static void user_only_and_sigbus(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	int fd = new_uffd(UFFD_USER_MODE_ONLY, 0), p[2];
	volatile int caught = 0;

	CHECK_EQ(reg(fd, area + 10 * PG, PG), 0);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_ERR(read(p[0], area + 10 * PG, 1), EFAULT);
	close(p[0]);
	close(p[1]);
	close(fd);
	fd = new_uffd(0, UFFD_FEATURE_SIGBUS);
	CHECK_EQ(reg(fd, area + 11 * PG, PG), 0);
	sigaction(SIGBUS, &sa, NULL);
	if (!sigsetjmp(jb, 1))
		((volatile char *)area)[11 * PG] = 1;
	else
		caught = 1;
	CHECK_EQ(caught, 1);
	close(fd);
	CHECK_EQ(area[11 * PG], 0);
}

/* UFFD_FEATURE_THREAD_ID and EXACT_ADDRESS: the message names the thread and the byte. A
 * signal ends the faulting thread's wait: its handler runs, the access is made again, and a
 * second message comes. Page 12. */
static volatile int got_usr1;
static volatile pid_t toucher_tid;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void *tid_toucher(void *arg)
{
	toucher_tid = (pid_t)syscall(SYS_gettid);
	return (void *)(long)((char *)arg)[123];
}

static void features_and_signal(void)
{
	int fd = new_uffd(O_NONBLOCK, UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_EXACT_ADDRESS);
	struct uffdio_zeropage z = { { (uintptr_t)area + 12 * PG, PG }, 0, 0 };
	struct pollfd p = { .fd = (int)syscall(NR_userfaultfd, 0), .events = POLLIN };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffd_msg m;
	void *ret = (void *)1;
	pthread_t t;

	signal(SIGUSR1, on_usr1);
	CHECK_EQ(poll(&p, 1, 0), 1); /* no handshake yet */
	CHECK_EQ(p.revents, POLLERR);
	CHECK_EQ(ioctl(p.fd, UFFDIO_API, &api), 0);
	CHECK_EQ(poll(&p, 1, 0), 1); /* blocking: POLLERR always, as Linux */
	CHECK_EQ(p.revents, POLLERR);
	close(p.fd);
	CHECK_EQ(reg(fd, area + 12 * PG, PG), 0);
	CHECK_EQ(pthread_create(&t, NULL, tid_toucher, area + 12 * PG), 0);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + 12 * PG + 123);
	CHECK_EQ(m.arg.pagefault.ptid, toucher_tid);
	CHECK_EQ(pthread_kill(t, SIGUSR1), 0);
	m = next_fault(fd); /* the access made again after the handler */
	CHECK_EQ(got_usr1, 1);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)area + 12 * PG + 123);
	CHECK_EQ(ioctl(fd, UFFDIO_ZEROPAGE, &z), 0);
	CHECK_EQ(pthread_join(t, &ret), 0);
	CHECK(ret == NULL);
	close(fd);
}

/* The VMAs of /proc/self/maps that overlap [a, a + len). */
static int vmas_in(const char *a, size_t len)
{
	static char maps[65536];
	int n = 0;

	if (!CHECK(utest_slurp("/proc/self/maps", maps, sizeof(maps)) > 0))
		return -1;
	for (char *l = maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long s = strtoul(l, &l, 16), e = strtoul(l + 1, NULL, 16);

		n += s < (uintptr_t)a + len && e > (uintptr_t)a;
	}
	return n;
}

/* Registering splits a VMA at the range's ends; two descriptors' neighbouring ranges stay two
 * VMAs; unregistering merges them back. A range may have holes, but not be one. mremap moves a
 * registered page out of its descriptor's reach (no UFFD_FEATURE_EVENT_REMAP): its missing
 * page is then an ordinary one. */
static void vmas_and_mremap(void)
{
	char *a = mmap(NULL, 6 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *to = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int f1 = new_uffd(O_NONBLOCK, 0), f2 = new_uffd(O_NONBLOCK, 0);
	struct uffdio_range r = { (uintptr_t)a + PG, 3 * PG };
	struct uffd_msg m;

	CHECK_EQ(vmas_in(a, 6 * PG), 1);
	CHECK_EQ(reg(f1, a + PG, PG), 0);
	CHECK_EQ(vmas_in(a, 6 * PG), 3);
	CHECK_EQ(reg(f2, a + 2 * PG, PG), 0);
	CHECK_EQ(vmas_in(a, 6 * PG), 4);
	CHECK_EQ(reg(f1, a + 3 * PG, PG), 0);
	CHECK_EQ(vmas_in(a, 6 * PG), 5);
	close(f2);
	CHECK_EQ(vmas_in(a, 6 * PG), 5); /* page 2 sits between two of f1's */
	CHECK_EQ(ioctl(f1, UFFDIO_UNREGISTER, &r), 0);
	CHECK_EQ(vmas_in(a, 6 * PG), 1);
	munmap(a + 4 * PG, PG);
	CHECK_EQ(reg(f1, a + 3 * PG, 3 * PG), 0); /* over a hole */
	r = (struct uffdio_range){ (uintptr_t)a + 4 * PG, PG };
	CHECK_ERR(ioctl(f1, UFFDIO_UNREGISTER, &r), EINVAL); /* nothing but the hole */
	CHECK(mremap(a + 3 * PG, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, to) == to);
	CHECK_EQ(to[0], 0);
	CHECK_ERR(read(f1, &m, sizeof(m)), EAGAIN);
	close(f1);
	munmap(a, 6 * PG);
	munmap(to, PG);
}

/* Shared memory (UFFD_FEATURE_MISSING_SHMEM): a page is missing when the file behind the
 * mapping lacks it. A fork's child (unregistered) makes pages 2 and 3: the parent's accesses
 * to them are then no faults of its descriptor, and UFFDIO_COPY over page 3 is EEXIST. */
static void *shared_toucher(void *arg)
{
	volatile char *s = arg; /* the store first, then the load */

	s[PG + 5] = 'w';
	return (void *)(long)s[0];
}

static void shared_memory(void)
{
	char *s = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uffdio_zeropage z = { { (uintptr_t)s + PG, PG }, 0, 0 };
	int fd = new_uffd(O_NONBLOCK, 0), st;
	void *ret = NULL;
	struct uffd_msg m;
	pthread_t t;
	pid_t pid;

	CHECK_EQ(reg(fd, s, 4 * PG), 0);
	pid = fork();
	if (pid == 0) {
		s[2 * PG] = 2;
		s[3 * PG] = 3;
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(s[2 * PG], 2);
	CHECK_EQ(copy_page_to(fd, s + 3 * PG, 0), -EEXIST);
	CHECK_EQ(s[3 * PG], 3);
	CHECK_ERR(read(fd, &m, sizeof(m)), EAGAIN);
	CHECK_EQ(pthread_create(&t, NULL, shared_toucher, s), 0);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)s + PG);
	CHECK_EQ(m.arg.pagefault.flags, UFFD_PAGEFAULT_FLAG_WRITE);
	CHECK_EQ(ioctl(fd, UFFDIO_ZEROPAGE, &z), 0);
	m = next_fault(fd);
	CHECK_EQ(m.arg.pagefault.address, (uintptr_t)s);
	CHECK_EQ(copy_page_to(fd, s, 0), PG);
	CHECK_EQ(pthread_join(t, &ret), 0);
	CHECK(ret == (void *)'a');
	CHECK_EQ(s[PG + 5], 'w');
	close(fd);
	munmap(s, 4 * PG);
}

/* A process whose threads sleep in faults, one in ring 3 and one inside read(2), ends all
 * the same when another of its threads exits: the exit's SIGKILL ends both waits. */
static int exit_pipe[2];

static void *reader(void *arg)
{
	return (void *)read(exit_pipe[0], arg, 1);
}

static void exit_while_asleep(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = new_uffd(O_NONBLOCK, 0);
		pthread_t t1, t2;

		if (reg(fd, area + 14 * PG, 2 * PG) || pipe(exit_pipe) ||
		    write(exit_pipe[1], "x", 1) != 1)
			_exit(2);
		pthread_create(&t1, NULL, close_toucher, area + 14 * PG);
		pthread_create(&t2, NULL, reader, area + 15 * PG);
		next_fault(fd);
		next_fault(fd);
		_exit(utest_fails ? 1 : 0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

int main(void)
{
	int fd;

	memset(src, 'a', sizeof(src));
	area = mmap(NULL, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (!CHECK(area != MAP_FAILED))
		return utest_done();
	api_and_errors();
	fd = new_uffd(O_CLOEXEC | O_NONBLOCK, 0);
	register_checks(fd);
	two_threads(fd);
	copy_errors(fd);
	fork_child(fd);
	unregister(fd);
	close_wakes(fd);
	user_only_and_sigbus();
	features_and_signal();
	vmas_and_mremap();
	shared_memory();
	exit_while_asleep();
	return utest_done();
}
