/* Randomness: getrandom(2), /dev/urandom (char 1, 9) and /dev/random (char 1, 8), all from one
 * generator, as Linux's drivers/char/random.c serves all three. Neither device ever blocks. */
#include "drivers/major.h"
#include "drivers/random.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "kernel/syscalls.h"

#define RANDOM_MINOR 8
#define URANDOM_MINOR 9
#define GRND_NONBLOCK 0x1
#define GRND_RANDOM 0x2
#define GRND_INSECURE 0x4

void get_random_bytes(void *buf, size_t n)
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++) {
		state ^= rdtsc();
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		p[i] = (uint8_t)state;
	}
}

/* Copy n random bytes to user memory, a chunk at a time: the bytes copied, or -EFAULT if none
 * were (a fault part-way gives what came before it, as Linux). */
static long random_to_user(uint64_t ubuf, uint64_t n)
{
	uint8_t chunk[256];
	uint64_t done = 0;

	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		get_random_bytes(chunk, c);
		if (copy_to_user(ubuf + done, chunk, c))
			return done ? (long)done : -EFAULT;
		done += c;
	}
	return (long)done;
}

long sys_getrandom(uint64_t ubuf, uint64_t n, uint64_t flags)
{
	if (flags & ~(uint64_t)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
		return -EINVAL; /* Linux: the two ask for opposite things */
	return random_to_user(ubuf, MIN(n, 0x7fffffffULL)); /* Linux caps a call at INT_MAX */
}

static long random_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)pos;
	return random_to_user(ubuf, n);
}

/* Writes are taken (Linux mixes them into its pool; this generator has none to feed). */
static long random_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)pos;
	return (long)n;
}

static const struct file_operations random_fops = {
	.read = random_read,
	.write = random_write,
};

static void random_init(void)
{
	if (register_chrdev_region(MEM_MAJOR, RANDOM_MINOR, 2, "random", &random_fops) ||
	    vfs_mknod("/dev/random", S_IFCHR | 0666, MKDEV(MEM_MAJOR, RANDOM_MINOR)) ||
	    vfs_mknod("/dev/urandom", S_IFCHR | 0666, MKDEV(MEM_MAJOR, URANDOM_MINOR)))
		printk("random: cannot create /dev/random and /dev/urandom\n");
}
device_initcall(random_init);
