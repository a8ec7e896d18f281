/* What the boot loader told us, copied out of the Multiboot2 boot information block into one
 * plain struct (kernel/arch/multiboot2.c), so the rest of the kernel never walks loader tags. */
#ifndef KERNEL_MULTIBOOT2_H
#define KERNEL_MULTIBOOT2_H

#include "kernel/compiler.h"

#define BOOT_MAX_MMAP	 128
#define BOOT_MAX_MODULES 8

/* One range of the physical memory map. */
struct boot_mmap_entry {
	uint64_t addr, len;
	uint32_t type; /* 1 available, 2 reserved, 3 ACPI reclaimable, 4 ACPI NVS, 5 bad RAM */
};

/* A file GRUB loaded next to the kernel ("module2" in grub.cfg), e.g. an initrd. */
struct boot_module {
	uint64_t start, end; /* physical, end exclusive */
	char cmdline[128];
};

struct boot_fb {
	bool present;
	uint64_t addr; /* physical */
	uint32_t pitch, width, height;
	uint8_t bpp, type; /* type 0 indexed, 1 RGB, 2 EGA text */
	/* Type 1 only: where each colour sits in a pixel (lowest bit, width); all 0 if absent. */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/*
 * About 5 KiB: keep it in static storage, not on the small boot stack. Arrays that
 * would overflow (more than BOOT_MAX_* entries) keep the first entries and drop the rest.
 */
struct boot_info {
	uint64_t info_phys, info_size; /* where the info block itself lies (to reserve it) */
	char cmdline[512];
	char loader[64];
	uint32_t mem_lower_kb, mem_upper_kb;
	bool have_meminfo;
	struct boot_mmap_entry mmap[BOOT_MAX_MMAP];
	int nr_mmap;
	struct boot_module modules[BOOT_MAX_MODULES];
	int nr_modules;
	struct boot_fb fb;
	uint8_t rsdp[36]; /* copy of the ACPI RSDP; revision 0 => 20 bytes valid, 2 => 36 */
	int rsdp_revision;
	bool have_rsdp;
	uint64_t efi_system_table;
	bool have_efi_mmap;
	char error[96]; /* set when parsing stops early: what and at which offset */
};

/*
 * Parse the info block at `info` (its physical address is info_phys, recorded for reservation).
 * Returns 0, or -EINVAL with out->error set (bad total size, a tag running past total_size,
 * a tag smaller than 8 bytes, missing end tag). Tags parsed before an error are kept.
 * Unknown tags are skipped. Strings are truncated safely to the field size.
 * Never reads outside [info, info + total_size).
 */
int multiboot2_parse(const void *info, uint64_t info_phys, struct boot_info *out);

/* "available", "reserved", "ACPI reclaimable", "ACPI NVS", "bad RAM" or "unknown". */
const char *mmap_type_name(uint32_t type);

#endif
