/* Host unit test of the ELF checks (kernel/process/elf.c): a minimal static executable built here,
 * then broken one field at a time; each break must be refused with its own reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "kernel/process/elf.c"

struct tiny {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	uint8_t code[64];
};

static struct tiny t;
static struct elf_image img;
static const char *why;

/* ET_EXEC at 0x400000: one RX segment holding the headers and the code. */
static void build(void)
{
	memset(&t, 0, sizeof(t));
	memcpy(t.eh.e_ident, "\177ELF\2\1\1", 7);
	t.eh.e_type = ET_EXEC;
	t.eh.e_machine = EM_X86_64;
	t.eh.e_version = 1;
	t.eh.e_entry = 0x400000 + offsetof(struct tiny, code);
	t.eh.e_phoff = offsetof(struct tiny, ph);
	t.eh.e_ehsize = sizeof(Elf64_Ehdr);
	t.eh.e_phentsize = sizeof(Elf64_Phdr);
	t.eh.e_phnum = 1;
	t.ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
				.p_vaddr = 0x400000, .p_filesz = sizeof(t),
				.p_memsz = sizeof(t) + 8192, .p_align = 4096 };
}

static int check(void)
{
	why = "";
	return elf_check((const uint8_t *)&t, sizeof(t), sizeof(t), &img, &why);
}

#define REFUSED(mutation, reason)                                                  \
	do {                                                                       \
		build();                                                           \
		mutation;                                                          \
		CHECK_EQ(check(), -ENOEXEC);                                       \
		if (!strstr(why, reason)) {                                        \
			printf("#   %s: reason \"%s\" lacks \"%s\"\n", #mutation, why, \
			       reason);                                            \
			check_failed_in_test++;                                    \
		}                                                                  \
	} while (0)

static void test_valid_exec(void)
{
	build();
	CHECK_EQ(check(), 0);
	CHECK_EQ(img.load_bias, 0);
	CHECK_EQ(img.entry, 0x400000 + offsetof(struct tiny, code));
	CHECK_EQ(img.lo, 0x400000);
	CHECK_EQ(img.hi, 0x400000 + 3 * 4096);
	CHECK_EQ(img.phdr_addr, 0x400000 + offsetof(struct tiny, ph));
}

static void test_valid_static_pie(void)
{
	build();
	t.eh.e_type = ET_DYN;
	t.ph[0].p_vaddr = 0;
	t.eh.e_entry = offsetof(struct tiny, code);
	CHECK_EQ(check(), 0);
	CHECK_EQ(img.load_bias, ELF_ET_DYN_BASE);
	CHECK_EQ(img.entry, ELF_ET_DYN_BASE + offsetof(struct tiny, code));
}

static void test_refusals(void)
{
	REFUSED(t.eh.e_ident[1] = 'X', "bad magic");
	REFUSED(t.eh.e_ident[4] = 1, "64-bit");
	REFUSED(t.eh.e_ident[5] = 2, "little-endian");
	REFUSED(t.eh.e_machine = 3, "x86-64");
	REFUSED(t.eh.e_type = 1, "not an executable");
	REFUSED(t.eh.e_phentsize = 40, "program header table");
	REFUSED(t.eh.e_phnum = 0, "program header table");
	REFUSED(t.eh.e_phoff = sizeof(t) - 8, "past the end");
	REFUSED(t.ph[0].p_filesz = sizeof(t) + 1, "past the end of the file");
	REFUSED(t.ph[0].p_memsz = 8, "file size exceeds");
	REFUSED(t.ph[0].p_vaddr = 0xffffffff80000000UL, "outside user space");
	REFUSED(t.ph[0].p_vaddr = 0x7ffffffff000UL, "outside user space");
	REFUSED(t.ph[0].p_vaddr = 0x400010, "disagree");
	REFUSED(t.eh.e_entry = 0x10000000, "entry point");
	REFUSED(t.ph[0].p_type = 6, "no loadable segment");
	REFUSED((t.eh.e_phnum = 2, t.ph[1].p_type = PT_INTERP), "dynamically linked");
}

/* A truncated copy of the valid file is refused at every length. */
static void test_truncated(void)
{
	int bad = 0;

	build();
	for (size_t n = 0; n < sizeof(t); n++) {
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, &t, n);
		if (elf_check(copy, n, n, &img, &why) != -ENOEXEC)
			bad++;
		free(copy);
	}
	CHECK_EQ(bad, 0);
}

/* The host's own (dynamically linked) test binary is a real ELF that must be refused for
 * its PT_INTERP, after passing every other header check. */
static void test_real_dynamic_binary(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	static uint8_t buf[1 << 22];
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK_EQ(elf_check(buf, n, n, &img, &why), -ENOEXEC);
	CHECK(strstr(why, "dynamically linked") != NULL);
}

int main(void)
{
	RUN_TEST(test_valid_exec);
	RUN_TEST(test_valid_static_pie);
	RUN_TEST(test_refusals);
	RUN_TEST(test_truncated);
	RUN_TEST(test_real_dynamic_binary);
	return check_total_failed != 0;
}
