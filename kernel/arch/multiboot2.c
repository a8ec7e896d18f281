/* Multiboot2 boot information parser: walks the loader's tag list once at boot and copies what
 * we use into struct boot_info. The block is untrusted input: every read is bounds-checked. */
#include "kernel/arch/multiboot2.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/lib/string.h"

/* Tag types from the Multiboot2 specification, section 3.6. */
#define MB2_TAG_END	      0
#define MB2_TAG_CMDLINE	      1
#define MB2_TAG_LOADER_NAME   2
#define MB2_TAG_MODULE	      3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_MMAP	      6
#define MB2_TAG_FRAMEBUFFER   8
#define MB2_TAG_EFI64	      12
#define MB2_TAG_ACPI_OLD      14
#define MB2_TAG_ACPI_NEW      15
#define MB2_TAG_EFI_MMAP      17

#define MB2_HEADER_SIZE	    8  /* total_size, reserved */
#define MB2_TAG_HEADER_SIZE 8  /* type, size */
#define MB2_MMAP_ENTRY_SIZE 24 /* base_addr, length, type, reserved */
#define RSDP_V1_SIZE	    20
#define RSDP_V2_SIZE	    36

/*
 * GRUB's block is a few KiB, more with a large EFI memory map. A bigger total_size
 * means we were handed garbage; the cap also keeps every offset sum below far from
 * overflowing 32 bits.
 */
#define MB2_MAX_INFO (1u << 20)

/*
 * Read little-endian fields a byte at a time: a hostile (or buggy) block can put a tag
 * at any alignment, and this way no read is ever misaligned.
 */
static uint32_t rd32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Copy a string that may lack its NUL (src holds at most srclen bytes), truncating to fit. */
static void copy_str(char *dst, size_t dstsize, const uint8_t *src, size_t srclen)
{
	size_t n = 0;

	while (n < srclen && n + 1 < dstsize && src[n] != '\0') {
		dst[n] = (char)src[n];
		n++;
	}
	dst[n] = '\0';
}

/* Module tag: mod_start, mod_end (32-bit physical addresses), then its command line. */
static void parse_module(struct boot_info *out, const uint8_t *tag, uint32_t size)
{
	struct boot_module *m;

	if (size < 16 || out->nr_modules >= BOOT_MAX_MODULES)
		return;
	m = &out->modules[out->nr_modules++];
	m->start = rd32(tag + 8);
	m->end = rd32(tag + 12);
	copy_str(m->cmdline, sizeof(m->cmdline), tag + 16, size - 16);
}

/*
 * Memory map tag: entry_size, entry_version, then entries. Step by entry_size, not by
 * our idea of an entry, so a future loader may append fields without breaking us.
 */
static void parse_mmap(struct boot_info *out, const uint8_t *tag, uint32_t size)
{
	uint32_t entry_size, off;

	if (size < 16)
		return;
	entry_size = rd32(tag + 8);
	if (entry_size < MB2_MMAP_ENTRY_SIZE) /* also stops an endless loop on 0 */
		return;
	/* Written as a subtraction: off + entry_size could wrap for a hostile entry_size. */
	for (off = 16; entry_size <= size - off; off += entry_size) {
		struct boot_mmap_entry *e;

		if (out->nr_mmap >= BOOT_MAX_MMAP)
			return;
		e = &out->mmap[out->nr_mmap++];
		e->addr = rd64(tag + off);
		e->len = rd64(tag + off + 8);
		e->type = rd32(tag + off + 16);
	}
}

/*
 * The common part (addr, pitch, width, height, bpp, type), then for an RGB framebuffer the
 * position and size of each colour field (bytes 32..37, after a 16-bit reserved field).
 * The palette of an indexed framebuffer is skipped.
 */
static void parse_framebuffer(struct boot_info *out, const uint8_t *tag, uint32_t size)
{
	if (size < 30)
		return;
	out->fb.present = true;
	out->fb.addr = rd64(tag + 8);
	out->fb.pitch = rd32(tag + 16);
	out->fb.width = rd32(tag + 20);
	out->fb.height = rd32(tag + 24);
	out->fb.bpp = tag[28];
	out->fb.type = tag[29];
	if (out->fb.type == 1 && size >= 38) {
		out->fb.red_pos = tag[32];
		out->fb.red_size = tag[33];
		out->fb.green_pos = tag[34];
		out->fb.green_size = tag[35];
		out->fb.blue_pos = tag[36];
		out->fb.blue_size = tag[37];
	}
}

/*
 * The ACPI tags carry a copy of the RSDP. GRUB may pass both the old (ACPI 1.0) and the
 * new (ACPI 2.0+) one; the new one is a superset, so it wins in whichever order they come.
 */
static void parse_rsdp(struct boot_info *out, uint32_t type, const uint8_t *tag, uint32_t size)
{
	uint32_t len = type == MB2_TAG_ACPI_NEW ? RSDP_V2_SIZE : RSDP_V1_SIZE;

	if (size - MB2_TAG_HEADER_SIZE < len)
		return;
	if (type == MB2_TAG_ACPI_OLD && out->have_rsdp)
		return;
	memset(out->rsdp, 0, sizeof(out->rsdp));
	memcpy(out->rsdp, tag + MB2_TAG_HEADER_SIZE, len);
	/* Byte 15 of an RSDP is its revision; an old-style copy only has 20 valid bytes. */
	out->rsdp_revision = type == MB2_TAG_ACPI_NEW ? out->rsdp[15] : 0;
	out->have_rsdp = true;
}

/* Handle one tag; size is at least 8 and the whole tag lies inside the block. */
static void parse_tag(struct boot_info *out, uint32_t type, const uint8_t *tag, uint32_t size)
{
	switch (type) {
	case MB2_TAG_CMDLINE:
		copy_str(out->cmdline, sizeof(out->cmdline), tag + 8, size - 8);
		break;
	case MB2_TAG_LOADER_NAME:
		copy_str(out->loader, sizeof(out->loader), tag + 8, size - 8);
		break;
	case MB2_TAG_MODULE:
		parse_module(out, tag, size);
		break;
	case MB2_TAG_BASIC_MEMINFO:
		if (size >= 16) {
			out->mem_lower_kb = rd32(tag + 8);
			out->mem_upper_kb = rd32(tag + 12);
			out->have_meminfo = true;
		}
		break;
	case MB2_TAG_MMAP:
		parse_mmap(out, tag, size);
		break;
	case MB2_TAG_FRAMEBUFFER:
		parse_framebuffer(out, tag, size);
		break;
	case MB2_TAG_EFI64:
		if (size >= 16)
			out->efi_system_table = rd64(tag + 8);
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		parse_rsdp(out, type, tag, size);
		break;
	case MB2_TAG_EFI_MMAP:
		/* Its presence tells us we booted via EFI; the MMAP tag has the same ranges. */
		out->have_efi_mmap = true;
		break;
	default:
		/* ELF sections, APM, VBE, SMBIOS, network, ...: nothing we use yet. */
		break;
	}
}

int multiboot2_parse(const void *info, uint64_t info_phys, struct boot_info *out)
{
	const uint8_t *base = info;
	uint32_t total, off, type, size;

	memset(out, 0, sizeof(*out));
	out->info_phys = info_phys;

	total = rd32(base);
	if (total < MB2_HEADER_SIZE + MB2_TAG_HEADER_SIZE || total > MB2_MAX_INFO) {
		snprintf(out->error, sizeof(out->error), "bad total size %u at offset 0", total);
		return -EINVAL;
	}
	out->info_size = total;

	/* Each tag starts 8-byte aligned; the end tag (type 0, size 8) closes the list. */
	for (off = MB2_HEADER_SIZE; off + MB2_TAG_HEADER_SIZE <= total; off += ALIGN_UP(size, 8)) {
		type = rd32(base + off);
		size = rd32(base + off + 4);
		if (size < MB2_TAG_HEADER_SIZE) {
			snprintf(out->error, sizeof(out->error),
				 "tag type %u at offset %u: size %u is under 8", type, off, size);
			return -EINVAL;
		}
		if (size > total - off) {
			snprintf(out->error, sizeof(out->error),
				 "tag type %u at offset %u: size %u runs past total size %u", type,
				 off, size, total);
			return -EINVAL;
		}
		if (type == MB2_TAG_END)
			return 0;
		parse_tag(out, type, base + off, size);
	}
	snprintf(out->error, sizeof(out->error), "missing end tag (no room for a tag at offset %u)",
		 off);
	return -EINVAL;
}

const char *mmap_type_name(uint32_t type)
{
	switch (type) {
	case 1:
		return "available";
	case 2:
		return "reserved";
	case 3:
		return "ACPI reclaimable";
	case 4:
		return "ACPI NVS";
	case 5:
		return "bad RAM";
	default:
		return "unknown";
	}
}
