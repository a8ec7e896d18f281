/* Host tests for kernel/arch/multiboot2.c: boot information blocks like GRUB's, and broken ones.
 * Each is parsed from a malloc'd copy of exactly total_size bytes, so ASan flags any over-read. */
#include "tests/host/check.h"
#include <stdlib.h>
#include <string.h>

/* The code under test, compiled into this program. */
#include "kernel/arch/multiboot2.c"

/* ---- building tag blobs ---- */

static uint8_t blob[16384] __aligned(8);
static uint32_t blob_len;

static void put8(uint8_t v)
{
	blob[blob_len++] = v;
}

static void put32(uint32_t v)
{
	memcpy(blob + blob_len, &v, 4);
	blob_len += 4;
}

static void put64(uint64_t v)
{
	memcpy(blob + blob_len, &v, 8);
	blob_len += 8;
}

static void put_bytes(const void *p, size_t n)
{
	memcpy(blob + blob_len, p, n);
	blob_len += n;
}

static void set32(uint32_t off, uint32_t v)
{
	memcpy(blob + off, &v, 4);
}

static void blob_begin(void)
{
	memset(blob, 0, sizeof(blob));
	blob_len = 8; /* total_size and reserved, filled in by blob_finish() */
}

/* Start a tag; returns its offset for tag_end(). */
static uint32_t tag_begin(uint32_t type)
{
	uint32_t off = blob_len;

	put32(type);
	put32(0);
	return off;
}

/* The size field excludes the padding that brings the next tag to 8-byte alignment. */
static void tag_end(uint32_t off)
{
	set32(off + 4, blob_len - off);
	blob_len = ALIGN_UP(blob_len, 8);
}

/* Write the end tag and total_size; returns total_size. */
static uint32_t blob_finish(void)
{
	tag_end(tag_begin(0));
	set32(0, blob_len);
	return blob_len;
}

/* Finish without an end tag (a broken loader, or a block overwritten by accident). */
static uint32_t blob_finish_no_end(void)
{
	set32(0, blob_len);
	return blob_len;
}

static void add_string(uint32_t type, const char *s)
{
	uint32_t t = tag_begin(type);

	put_bytes(s, strlen(s) + 1);
	tag_end(t);
}

static void add_module(uint32_t start, uint32_t end, const char *cmdline)
{
	uint32_t t = tag_begin(3);

	put32(start);
	put32(end);
	put_bytes(cmdline, strlen(cmdline) + 1);
	tag_end(t);
}

static void add_meminfo(uint32_t lower, uint32_t upper)
{
	uint32_t t = tag_begin(4);

	put32(lower);
	put32(upper);
	tag_end(t);
}

/* entry_size may exceed 24 to model a future loader appending fields to each entry. */
static void add_mmap(const struct boot_mmap_entry *e, int n, uint32_t entry_size)
{
	uint32_t t = tag_begin(6);
	int i;

	put32(entry_size);
	put32(0); /* entry_version */
	for (i = 0; i < n; i++) {
		uint32_t start = blob_len;

		put64(e[i].addr);
		put64(e[i].len);
		put32(e[i].type);
		while (blob_len < start + entry_size)
			put8(0xee); /* reserved / unknown future fields */
	}
	tag_end(t);
}

/* A 1024x768 32bpp RGB framebuffer as GRUB sets up on QEMU's standard VGA. */
static void add_fb_rgb(void)
{
	uint32_t t = tag_begin(8);

	put64(0xfd000000);
	put32(4096); /* pitch */
	put32(1024);
	put32(768);
	put8(32); /* bpp */
	put8(1);  /* type: RGB */
	put8(0);  /* reserved (u16) */
	put8(0);
	put8(16); /* red position, mask size; green; blue */
	put8(8);
	put8(8);
	put8(8);
	put8(0);
	put8(8);
	tag_end(t);
}

/* The tag is 8 bytes of header followed by the RSDP exactly as the firmware has it. */
static void add_rsdp(int v2, uint32_t rsdt, uint64_t xsdt)
{
	uint32_t t = tag_begin(v2 ? 15 : 14);

	put_bytes("RSD PTR ", 8);
	put8(0x5a); /* checksum (not checked by the parser) */
	put_bytes("BOCHS ", 6);
	put8(v2 ? 2 : 0); /* revision */
	put32(rsdt);
	if (v2) {
		put32(36); /* length */
		put64(xsdt);
		put8(0x7c); /* extended checksum */
		put8(0);
		put8(0);
		put8(0);
	}
	tag_end(t);
}

/* A tag of a type the parser does not know, with an odd size so padding matters. */
static void add_opaque(uint32_t type, uint32_t payload)
{
	uint32_t t = tag_begin(type);
	uint32_t i;

	for (i = 0; i < payload; i++)
		put8(0xa5);
	tag_end(t);
}

/* The memory map SeaBIOS reports for `qemu-system-x86_64 -m 128`. */
/* clang-format off */
static const struct boot_mmap_entry qemu_128m[] = {
	{ 0x0,        0x9fc00,   1 },
	{ 0x9fc00,    0x400,     2 },
	{ 0xf0000,    0x10000,   2 },
	{ 0x100000,   0x7ee0000, 1 },
	{ 0x7fe0000,  0x20000,   2 },
	{ 0xfffc0000, 0x40000,   2 },
};
/* clang-format on */

/* Offsets of interesting tags in the GRUB blob, for the corruption tests. */
static uint32_t off_meminfo, off_mmap;

/* cmdline, loader name, a module, meminfo, memory map, framebuffer, RSDP v0, end (and some
 * tags we do not parse in between). */
static uint32_t build_grub_qemu(void)
{
	blob_begin();
	add_string(1, "console=ttyS0 loglevel=7");
	add_string(2, "GRUB 2.06");
	add_module(0x10b000, 0x12f400, "initrd");
	off_meminfo = blob_len;
	add_meminfo(639, 130944);
	add_opaque(5, 12); /* BIOS boot device: not parsed */
	off_mmap = blob_len;
	add_mmap(qemu_128m, ARRAY_SIZE(qemu_128m), 24);
	add_fb_rgb();
	add_rsdp(0, 0x7fe14d2, 0);
	add_opaque(9, 13); /* ELF sections: skipped, and size 21 needs padding */
	return blob_finish();
}

/* Parse from a heap copy of exactly `size` bytes: one byte further and ASan stops the test. */
static int parse_exact(uint32_t size, struct boot_info *bi)
{
	uint8_t *copy = malloc(size);
	int ret;

	memcpy(copy, blob, size);
	ret = multiboot2_parse(copy, 0x10000, bi);
	free(copy);
	return ret;
}

static struct boot_info bi; /* ~5 KiB, as in the kernel: not on the stack */

static bool mmap_equal(const struct boot_mmap_entry *got, const struct boot_mmap_entry *want, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (got[i].addr != want[i].addr || got[i].len != want[i].len ||
		    got[i].type != want[i].type) {
			printf("#   mmap[%d] = %#llx+%#llx type %u\n", i,
			       (unsigned long long)got[i].addr, (unsigned long long)got[i].len,
			       got[i].type);
			return false;
		}
	}
	return true;
}

/* Everything parsed before the memory map tag in the GRUB blob. */
static void check_grub_prefix(void)
{
	CHECK_STR(bi.cmdline, "console=ttyS0 loglevel=7");
	CHECK_STR(bi.loader, "GRUB 2.06");
	CHECK_EQ(bi.nr_modules, 1);
	CHECK_EQ(bi.modules[0].start, 0x10b000);
	CHECK_EQ(bi.modules[0].end, 0x12f400);
	CHECK_STR(bi.modules[0].cmdline, "initrd");
	CHECK(bi.have_meminfo);
	CHECK_EQ(bi.mem_lower_kb, 639);
	CHECK_EQ(bi.mem_upper_kb, 130944);
}

/* ---- well-formed blocks ---- */

static void test_grub_qemu_128m(void)
{
	uint32_t total = build_grub_qemu();
	int i;

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_STR(bi.error, "");
	CHECK_EQ(bi.info_phys, 0x10000);
	CHECK_EQ(bi.info_size, total);
	check_grub_prefix();

	CHECK_EQ(bi.nr_mmap, 6);
	CHECK(mmap_equal(bi.mmap, qemu_128m, 6));

	CHECK(bi.fb.present);
	CHECK_EQ(bi.fb.addr, 0xfd000000);
	CHECK_EQ(bi.fb.pitch, 4096);
	CHECK_EQ(bi.fb.width, 1024);
	CHECK_EQ(bi.fb.height, 768);
	CHECK_EQ(bi.fb.bpp, 32);
	CHECK_EQ(bi.fb.type, 1);
	CHECK_EQ(bi.fb.red_pos, 16);
	CHECK_EQ(bi.fb.red_size, 8);
	CHECK_EQ(bi.fb.green_pos, 8);
	CHECK_EQ(bi.fb.blue_pos, 0);
	CHECK_EQ(bi.fb.blue_size, 8);

	CHECK(bi.have_rsdp);
	CHECK_EQ(bi.rsdp_revision, 0);
	CHECK(memcmp(bi.rsdp, "RSD PTR ", 8) == 0);
	CHECK(memcmp(bi.rsdp + 9, "BOCHS ", 6) == 0);
	CHECK_EQ(bi.rsdp[16] | bi.rsdp[17] << 8 | bi.rsdp[18] << 16 | bi.rsdp[19] << 24, 0x7fe14d2);
	/* Beyond a v0 RSDP the copy stays zero: nothing is taken from the following tag. */
	for (i = RSDP_V1_SIZE; i < (int)sizeof(bi.rsdp); i++)
		CHECK_EQ(bi.rsdp[i], 0);

	CHECK_EQ(bi.efi_system_table, 0);
	CHECK(!bi.have_efi_mmap);
}

/* An 8 GiB machine: RAM above 4 GiB, addresses and lengths that need all 64 bits. */
static void test_ram_above_4g(void)
{
	/* clang-format off */
	static const struct boot_mmap_entry big[] = {
		{ 0x0,          0x9fc00,     1 },
		{ 0x9fc00,      0x400,       2 },
		{ 0xf0000,      0x10000,     2 },
		{ 0x100000,     0xbfee0000,  1 },
		{ 0xbffe0000,   0x20000,     2 },
		{ 0xfeffc000,   0x4000,      2 },
		{ 0xfffc0000,   0x40000,     2 },
		{ 0x100000000,  0x140000000, 1 }, /* 5 GiB of RAM above 4 GiB */
		{ 0xfd00000000, 0x300000000, 2 }, /* a high PCI window */
	};
	/* clang-format on */
	uint32_t total, t;

	blob_begin();
	add_string(2, "GRUB 2.06");
	/* Entries of 32 bytes: the parser must step by entry_size, not by 24. */
	add_mmap(big, ARRAY_SIZE(big), 32);
	/* EGA text mode, as GRUB leaves it with gfxpayload=text. */
	t = tag_begin(8);
	put64(0xb8000);
	put32(160);
	put32(80);
	put32(25);
	put8(16);
	put8(2);
	put8(0);
	put8(0);
	tag_end(t);
	total = blob_finish();

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_EQ(bi.nr_mmap, (int)ARRAY_SIZE(big));
	CHECK(mmap_equal(bi.mmap, big, ARRAY_SIZE(big)));
	CHECK_EQ(bi.mmap[7].addr + bi.mmap[7].len, 0x240000000);
	CHECK(!bi.have_meminfo);
	CHECK(!bi.have_rsdp);
	CHECK_STR(bi.cmdline, "");
	CHECK(bi.fb.present);
	CHECK_EQ(bi.fb.type, 2);
	CHECK_EQ(bi.fb.red_size, 0); /* colour fields only for RGB */
	CHECK_EQ(bi.fb.addr, 0xb8000);
	CHECK_EQ(bi.fb.width, 80);
	CHECK_EQ(bi.fb.height, 25);
}

/* A UEFI boot: EFI system table, EFI memory map, and both RSDP tags in either order. */
static void test_efi_and_rsdp_v2(void)
{
	uint32_t total, t;
	int order;

	for (order = 0; order < 2; order++) {
		blob_begin();
		t = tag_begin(12);
		put64(0x7f9e8018);
		tag_end(t);
		t = tag_begin(17);
		put32(48); /* descriptor size */
		put32(1);  /* descriptor version */
		put_bytes("descriptors would be here......", 32);
		tag_end(t);
		add_rsdp(order == 0 ? 0 : 1, 0x7fb7e014, 0x7fb7e0e8);
		add_rsdp(order == 0 ? 1 : 0, 0x7fb7e014, 0x7fb7e0e8);
		total = blob_finish();

		CHECK_EQ(parse_exact(total, &bi), 0);
		CHECK_EQ(bi.efi_system_table, 0x7f9e8018);
		CHECK(bi.have_efi_mmap);
		CHECK(bi.have_rsdp);
		/* The ACPI 2.0 copy wins whichever comes first. */
		CHECK_EQ(bi.rsdp_revision, 2);
		CHECK_EQ(bi.rsdp[20], 36);
		CHECK_EQ(bi.rsdp[24], 0xe8);
		CHECK_EQ(bi.rsdp[32], 0x7c);
	}
}

static void test_unknown_tags_skipped(void)
{
	uint32_t total;

	blob_begin();
	add_opaque(21, 4);	   /* load base address */
	add_opaque(0x1234, 1);	   /* made up; size 9 */
	add_opaque(0xffffffff, 0); /* made up; header only */
	add_string(1, "after");
	add_opaque(10, 19); /* APM */
	add_meminfo(1, 2);
	total = blob_finish();

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_STR(bi.cmdline, "after");
	CHECK(bi.have_meminfo);
	CHECK_EQ(bi.mem_upper_kb, 2);
}

static void test_string_truncation(void)
{
	char longline[700], name[200];
	uint32_t total, t;

	memset(longline, 'c', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memset(name, 'm', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';

	blob_begin();
	add_string(1, longline);
	add_module(0x200000, 0x201000, name);
	/* A loader name with no NUL at all: must stop at the tag's end, not run into the next. */
	t = tag_begin(2);
	put_bytes("GRUBGRUB", 8);
	tag_end(t);
	add_opaque(0x41414141, 8);
	total = blob_finish();

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_EQ(strlen(bi.cmdline), sizeof(bi.cmdline) - 1);
	CHECK_EQ(bi.cmdline[0], 'c');
	CHECK_EQ(strlen(bi.modules[0].cmdline), sizeof(bi.modules[0].cmdline) - 1);
	CHECK_STR(bi.loader, "GRUBGRUB");
}

static void test_array_limits(void)
{
	static struct boot_mmap_entry many[200];
	uint32_t total;
	int i;

	for (i = 0; i < 200; i++) {
		many[i].addr = (uint64_t)i << 20;
		many[i].len = 1 << 20;
		many[i].type = 1 + i % 5;
	}
	blob_begin();
	add_mmap(many, 200, 24);
	for (i = 0; i < 10; i++)
		add_module(0x1000000 + i * 0x1000, 0x1000800 + i * 0x1000, i == 7 ? "eighth" : "m");
	add_string(1, "still parsed");
	total = blob_finish();

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_EQ(bi.nr_mmap, BOOT_MAX_MMAP);
	CHECK(mmap_equal(bi.mmap, many, BOOT_MAX_MMAP));
	CHECK_EQ(bi.nr_modules, BOOT_MAX_MODULES);
	CHECK_STR(bi.modules[7].cmdline, "eighth");
	CHECK_STR(bi.cmdline, "still parsed");
}

/* Known tags too short for their fields, or a memory map with impossible entry sizes. */
static void test_short_known_tags_ignored(void)
{
	uint32_t total, t;

	blob_begin();
	t = tag_begin(4); /* meminfo with only mem_lower */
	put32(639);
	tag_end(t);
	t = tag_begin(6); /* entry_size 0 would loop forever if trusted */
	put32(0);
	put32(0);
	put64(0);
	put64(0x1000);
	tag_end(t);
	t = tag_begin(6); /* entry_size 8 is too small to hold an entry */
	put32(8);
	put32(0);
	put64(0x1000);
	tag_end(t);
	t = tag_begin(6); /* huge entry_size: off + entry_size would wrap 32 bits */
	put32(0xfffffff8);
	put32(0);
	put64(0x1000);
	put64(0x1000);
	put64(1);
	tag_end(t);
	t = tag_begin(8); /* framebuffer cut after the address */
	put64(0xfd000000);
	tag_end(t);
	t = tag_begin(15); /* "ACPI 2.0" tag with only a 20-byte RSDP */
	put_bytes("RSD PTR ", 8);
	put_bytes("123456789012", 12);
	tag_end(t);
	add_opaque(3, 4); /* module with only mod_start */
	total = blob_finish();

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK(!bi.have_meminfo);
	CHECK_EQ(bi.nr_mmap, 0);
	CHECK(!bi.fb.present);
	CHECK(!bi.have_rsdp);
	CHECK_EQ(bi.nr_modules, 0);
}

/* ---- broken blocks ---- */

static void test_bad_total_size(void)
{
	static const uint32_t bad[] = {0, 8, 15, 0xffffffff, (1u << 20) + 8};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		blob_begin();
		blob_finish();
		set32(0, bad[i]);
		/* Only 16 bytes are really there: the size must be rejected before use. */
		CHECK_EQ(parse_exact(16, &bi), -EINVAL);
		CHECK(strstr(bi.error, "total size") != NULL);
		CHECK_EQ(bi.info_size, 0);
		CHECK_EQ(bi.info_phys, 0x10000);
	}
	/* The smallest valid block: header and end tag. */
	blob_begin();
	CHECK_EQ(parse_exact(blob_finish(), &bi), 0);
	CHECK_EQ(bi.info_size, 16);
}

/* total_size cut in the middle of the memory map: the tags before it survive. */
static void test_truncated_total_size(void)
{
	uint32_t cut;
	char want[64];

	build_grub_qemu();
	cut = off_mmap + 40;
	set32(0, cut);
	CHECK_EQ(parse_exact(cut, &bi), -EINVAL);
	snprintf(want, sizeof(want), "tag type 6 at offset %u", off_mmap);
	CHECK(strstr(bi.error, want) != NULL);
	CHECK(strstr(bi.error, "runs past") != NULL);
	check_grub_prefix();
	CHECK_EQ(bi.nr_mmap, 0);
	CHECK(!bi.fb.present);
	CHECK_EQ(bi.info_size, cut);

	/* Cut exactly at a tag boundary: no room for the end tag. */
	set32(0, off_mmap);
	CHECK_EQ(parse_exact(off_mmap, &bi), -EINVAL);
	CHECK(strstr(bi.error, "end tag") != NULL);
	check_grub_prefix();

	/* Cut 4 bytes into a tag header: the size field itself is out of bounds. */
	set32(0, off_mmap + 4);
	CHECK_EQ(parse_exact(off_mmap + 4, &bi), -EINVAL);
	CHECK(strstr(bi.error, "end tag") != NULL);
}

static void test_tag_past_end(void)
{
	uint32_t total = build_grub_qemu();

	/* The memory map claims to be far longer than the whole block. */
	set32(off_mmap + 4, total);
	CHECK_EQ(parse_exact(total, &bi), -EINVAL);
	CHECK(strstr(bi.error, "runs past") != NULL);
	check_grub_prefix();
	CHECK_EQ(bi.nr_mmap, 0);

	/* A size near 4 GiB must not wrap around into something that looks in bounds. */
	set32(off_mmap + 4, 0xfffffff9);
	CHECK_EQ(parse_exact(total, &bi), -EINVAL);
	CHECK(strstr(bi.error, "runs past") != NULL);
}

static void test_zero_size_tag(void)
{
	uint32_t total = build_grub_qemu();
	char want[64];

	/* Size 0 would make the walk stand still forever; 7 is still under a header. */
	set32(off_mmap + 4, 0);
	CHECK_EQ(parse_exact(total, &bi), -EINVAL);
	snprintf(want, sizeof(want), "tag type 6 at offset %u: size 0", off_mmap);
	CHECK(strstr(bi.error, want) != NULL);
	check_grub_prefix();
	CHECK_EQ(bi.nr_mmap, 0);

	set32(off_meminfo + 4, 7);
	CHECK_EQ(parse_exact(total, &bi), -EINVAL);
	CHECK(strstr(bi.error, "size 7") != NULL);
	CHECK(!bi.have_meminfo);
	CHECK_EQ(bi.nr_modules, 1);
}

static void test_no_end_tag(void)
{
	uint32_t total;

	blob_begin();
	add_string(1, "root=/dev/sda");
	add_mmap(qemu_128m, ARRAY_SIZE(qemu_128m), 24);
	total = blob_finish_no_end();

	CHECK_EQ(parse_exact(total, &bi), -EINVAL);
	CHECK(strstr(bi.error, "end tag") != NULL);
	CHECK_STR(bi.cmdline, "root=/dev/sda");
	CHECK_EQ(bi.nr_mmap, 6);
}

/* The parser must not be confused by what follows the end tag. */
static void test_stops_at_end_tag(void)
{
	uint32_t total;

	blob_begin();
	add_string(1, "first");
	blob_finish();
	add_string(1, "second"); /* after the end tag, but inside total_size */
	total = blob_len;
	set32(0, total);

	CHECK_EQ(parse_exact(total, &bi), 0);
	CHECK_STR(bi.cmdline, "first");
}

/* Random damage to a good block: never crash or over-read, always leave sane results. */
static void test_random_corruption(void)
{
	uint32_t total = build_grub_qemu();
	uint8_t good[sizeof(blob)];
	uint32_t seed = 12345;
	int iter, k, errors = 0;

	memcpy(good, blob, total);
	for (iter = 0; iter < 5000; iter++) {
		uint32_t size = total;
		int ret;

		memcpy(blob, good, total);
		for (k = 0; k < 1 + iter % 4; k++) {
			seed = seed * 1103515245 + 12345;
			blob[4 + (seed >> 8) % (total - 4)] = seed >> 24;
		}
		if (iter % 3 == 0) { /* also shrink the block */
			seed = seed * 1103515245 + 12345;
			size = 16 + (seed >> 8) % (total - 16);
		}
		set32(0, size);

		ret = parse_exact(size, &bi);
		CHECK(ret == 0 || ret == -EINVAL);
		CHECK((ret != 0) == (bi.error[0] != '\0'));
		CHECK(strnlen(bi.error, sizeof(bi.error)) < sizeof(bi.error));
		CHECK(strnlen(bi.cmdline, sizeof(bi.cmdline)) < sizeof(bi.cmdline));
		CHECK(strnlen(bi.loader, sizeof(bi.loader)) < sizeof(bi.loader));
		CHECK(bi.nr_mmap >= 0 && bi.nr_mmap <= BOOT_MAX_MMAP);
		CHECK(bi.nr_modules >= 0 && bi.nr_modules <= BOOT_MAX_MODULES);
		errors += ret != 0;
		if (check_failed_in_test)
			break;
	}
	/* Sanity: the damage really exercised the error paths. */
	CHECK(errors > 1000);
}

static void test_mmap_type_name(void)
{
	CHECK_STR(mmap_type_name(1), "available");
	CHECK_STR(mmap_type_name(2), "reserved");
	CHECK_STR(mmap_type_name(3), "ACPI reclaimable");
	CHECK_STR(mmap_type_name(4), "ACPI NVS");
	CHECK_STR(mmap_type_name(5), "bad RAM");
	CHECK_STR(mmap_type_name(0), "unknown");
	CHECK_STR(mmap_type_name(6), "unknown");
	CHECK_STR(mmap_type_name(0xffffffff), "unknown");
}

int main(void)
{
	RUN_TEST(test_grub_qemu_128m);
	RUN_TEST(test_ram_above_4g);
	RUN_TEST(test_efi_and_rsdp_v2);
	RUN_TEST(test_unknown_tags_skipped);
	RUN_TEST(test_string_truncation);
	RUN_TEST(test_array_limits);
	RUN_TEST(test_short_known_tags_ignored);
	RUN_TEST(test_bad_total_size);
	RUN_TEST(test_truncated_total_size);
	RUN_TEST(test_tag_past_end);
	RUN_TEST(test_zero_size_tag);
	RUN_TEST(test_no_end_tag);
	RUN_TEST(test_stops_at_end_tag);
	RUN_TEST(test_random_corruption);
	RUN_TEST(test_mmap_type_name);
	return check_total_failed != 0;
}
