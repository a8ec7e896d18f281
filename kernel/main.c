/* kmain: the first C code. Brings up the console, traps, memory and the timer in the order
 * each depends on the last, prints the banner, then runs self-tests or idles. */
#include "drivers/acpi.h"
#include "drivers/acpi_madt.h"
#include "drivers/apic/apic.h"
#include "drivers/console.h"
#include "drivers/fb.h"
#include "drivers/fw_cfg.h"
#include "drivers/pic.h"
#include "drivers/pit.h"
#include "kernel/lib/cmdline.h"
#include "kernel/arch/cpu.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/initramfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/pipe.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/fs/ramfs.h"
#include "kernel/initcall.h"
#include "kernel/ipc/mqueue.h"
#include "kernel/test/ktest.h"
#include "kernel/arch/multiboot2.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/process/cred.h"
#include "kernel/arch/segment.h"
#include "kernel/time/time.h"
#include "kernel/arch/trap.h"
#include "kernel/runner.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/smp.h"
#include "kernel/syscall.h"
#include "kernel/workqueue.h"
#include "kernel/arch/x86.h"
#include "mm/reclaim.h"
#include "mm/anon.h"
#include "mm/bootmem.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"
#include "mm/shmem.h"

#define FAULTLINE_VERSION "0.1"

struct boot_info boot_info;

static void print_memory_map(const struct boot_info *bi)
{
	uint64_t usable = 0;

	printk("memory map (%d entries):\n", bi->nr_mmap);
	for (int i = 0; i < bi->nr_mmap; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];

		printk("  %016lx-%016lx %10lu KiB  %s\n", e->addr, e->addr + e->len, e->len >> 10,
		       mmap_type_name(e->type));
		if (e->type == 1)
			usable += e->len;
	}
	printk("  usable RAM: %lu MiB\n", usable >> 20);
}

static void print_boot_info(const struct boot_info *bi)
{
	printk("loader: %s\n", bi->loader[0] ? bi->loader : "(unnamed)");
	printk("command line: %s\n", cmdline_text());
	for (int i = 0; i < bi->nr_modules; i++)
		printk("module %d: %016lx-%016lx (%lu KiB) '%s'\n", i, bi->modules[i].start,
		       bi->modules[i].end, (bi->modules[i].end - bi->modules[i].start) >> 10,
		       bi->modules[i].cmdline);
	if (bi->fb.present)
		printk("framebuffer: %ux%u, %u bpp, type %u at %lx, pitch %u\n", bi->fb.width,
		       bi->fb.height, bi->fb.bpp, bi->fb.type, bi->fb.addr, bi->fb.pitch);
	if (bi->have_rsdp)
		printk("ACPI: RSDP revision %d\n", bi->rsdp_revision);
	if (bi->efi_system_table)
		printk("EFI: system table at %lx\n", bi->efi_system_table);
}

/* The first module is the ramdisk; its files stay where GRUB put them (reserved frames). */
static void unpack_ramdisk(const struct boot_info *bi)
{
	struct initramfs_stats st;

	if (bi->nr_modules == 0) {
		printk("initramfs: no ramdisk module (grub.cfg has no module2 line?)\n");
		return;
	}
	initramfs_unpack(__va(bi->modules[0].start), bi->modules[0].end - bi->modules[0].start,
			 &st);
	printk("initramfs: %lu files (%lu KiB), %lu directories, %lu symbolic links, "
	       "%lu other entries skipped\n", st.files, st.bytes >> 10, st.dirs, st.links,
	       st.skipped);
}

/* The root is a ramfs holding the ramdisk's files; /dev (a ramfs of its own, for the device
 * files drivers make), tmpfs on /dev/shm, the message queues on /dev/mqueue and /proc are
 * mounted on it, their directories made if the ramdisk has none. A file system that cannot be
 * mounted is said and left out. */
static void mount_filesystems(const struct boot_info *bi)
{
	static const struct {
		const char *type, *path;
	} mounts[] = { { "ramfs", "/dev" },
		       { "tmpfs", "/dev/shm" },
		       { "mqueue", "/dev/mqueue" },
		       { "proc", "/proc" } };
	int err;

	ramfs_init();
	proc_root_init();
	pipefs_init();
	anon_inode_init();
	shmem_init();
	mqueue_init();
	if (do_mount("rootfs", "/", "ramfs", 0, NULL))
		panic("vfs: cannot mount the root file system");
	unpack_ramdisk(bi);
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		err = ramfs_create_kernel(mounts[i].path, S_IFDIR | 0755, NULL, 0, -1);
		if (!err)
			err = do_mount(mounts[i].type, mounts[i].path, mounts[i].type, 0, NULL);
		if (err)
			printk("vfs: cannot mount %s on %s (error %d)\n", mounts[i].type,
			       mounts[i].path, err);
	}
}

void kmain(uint32_t magic, uint64_t info_phys)
{
	static char extra[512];
	(void)magic; /* boot.S checked it */

	percpu_init_cpu(0, &init_task); /* GS: `current` is read through it from here on */
	cred_init_root(&init_task.cred); /* root: the initcalls make device files (CAP_MKNOD) */
	serial_init();
	gdt_init();
	trap_init();

	if (multiboot2_parse(__va(info_phys), info_phys, &boot_info))
		printk("multiboot2: %s (continuing with what was read)\n", boot_info.error);
	cmdline_init(boot_info.cmdline);
	if (fw_cfg_read_file("opt/faultline/cmdline", extra, sizeof(extra)))
		cmdline_append(extra);
	if (cmdline_has("qemu_exit") || cmdline_has("ktest"))
		qemu_exit_enabled = true;
	if (boot_info.fb.present && boot_info.fb.type == 2) /* EGA text mode */
		vga_init(boot_info.fb.addr, boot_info.fb.width, boot_info.fb.height);
	else if (fb_init(&boot_info.fb)) /* a linear framebuffer: keep text until it is mapped */
		fbcon_init();
	printk("\nfaultline " FAULTLINE_VERSION ": a teaching kernel about page faults\n");

	print_boot_info(&boot_info);
	cmdline_check_unknown();
	print_memory_map(&boot_info);
	mm_init(&boot_info);
	fb_map(); /* before any address space copies the kernel half of the page tables */
	acpi_init(&boot_info);
	anon_init();
	filemap_init();
	buffer_init();
	lru_init();
	if (cmdline_has("bootmem"))
		bootmem_print();
	time_init(); /* before the first file gets a time stamp */
	mount_filesystems(&boot_info);
	do_initcalls(); /* the drivers: each makes its device files in /dev */

	pic_init();
	madt_init();
	if (!apic_init()) /* the local APIC timer is the tick, else the PIT */
		pit_init(HZ);
	local_irq_enable();
	printk("frames: %lu total, %lu free\n", nr_managed_pages(), nr_free_pages());

	syscall_init();
	cpu_protection_init();
	sched_init();
	smp_boot_cpus();
	fork_init();
	/* pid 1 runs the self-tests and the programs; this boot thread becomes the idle task. */
	if (!kernel_thread(kernel_init, NULL, "runner"))
		panic("kmain: cannot create pid 1");
	workqueue_init();
	kswapd_init();
	cpu_idle();
}
