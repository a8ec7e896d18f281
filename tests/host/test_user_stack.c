/* Host unit test of the initial user stack (kernel/process/user_stack.c): the stack is built into a
 * buffer, then read back the way musl's __libc_start_main walks it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "kernel/process/user_stack.c"

#define TOP 0x00007ffffffff000UL
#define SIZE 8192UL

static uint8_t stack[SIZE];
static Elf64_Ehdr eh = { .e_phnum = 5 };
static struct elf_image img = { .ehdr = &eh, .entry = 0x401000, .phdr_addr = 0x400040 };

/* The user address ua, seen in the buffer. */
static void *at(uint64_t ua)
{
	return stack + (ua - (TOP - SIZE));
}

static uint64_t auxval(uint64_t *auxv, uint64_t type)
{
	for (; auxv[0] != AT_NULL; auxv += 2)
		if (auxv[0] == type)
			return auxv[1];
	return (uint64_t)-1;
}

static void test_layout(void)
{
	const char *argv[] = { "/bin/args", "one", "two", "three", NULL };
	const char *envp[] = { "HOME=/", "PATH=/bin", NULL };
	uint64_t saved[44];
	struct user_stack_args a = { argv, envp, "/bin/args", &img, { 1, 2, 3 },
				     0, 0, 0, 0, false, saved, 44 };
	uint64_t sp = build_user_stack(stack, SIZE, TOP, &a), *w;
	int n = 0;

	CHECK(sp != 0);
	CHECK_EQ(sp % 16, 0);
	CHECK(sp >= TOP - SIZE && sp < TOP);
	w = at(sp);
	CHECK_EQ(w[0], 4);
	for (int i = 0; i < 4; i++)
		CHECK_STR((char *)at(w[1 + i]), argv[i]);
	CHECK_EQ(w[5], 0);
	CHECK_STR((char *)at(w[6]), "HOME=/");
	CHECK_STR((char *)at(w[7]), "PATH=/bin");
	CHECK_EQ(w[8], 0);
	CHECK_EQ(auxval(w + 9, AT_PAGESZ), 4096);
	CHECK_EQ(auxval(w + 9, AT_PHDR), 0x400040);
	CHECK_EQ(auxval(w + 9, AT_PHENT), sizeof(Elf64_Phdr));
	CHECK_EQ(auxval(w + 9, AT_PHNUM), 5);
	CHECK_EQ(auxval(w + 9, AT_ENTRY), 0x401000);
	CHECK_STR((char *)at(auxval(w + 9, AT_EXECFN)), "/bin/args");
	CHECK_EQ(((uint8_t *)at(auxval(w + 9, AT_RANDOM)))[2], 3);
	CHECK_EQ(auxval(w + 9, AT_UID), 0);
	/* every pointer lands inside the stack, above sp */
	CHECK(w[1] > sp && w[6] > sp && auxval(w + 9, AT_EXECFN) < TOP);
	/* the copy kept for a core dump is the vector on the stack, AT_NULL included */
	while (w[9 + n] != AT_NULL)
		n += 2;
	CHECK(memcmp(saved, w + 9, (size_t)(n + 2) * 8) == 0);
}

/* Both parities of the word count still give a 16-byte aligned sp. */
static void test_alignment(void)
{
	const char *argv2[] = { "a", "b", NULL }, *argv3[] = { "a", "b", "c", NULL };
	const char *envp[] = { NULL };
	uint64_t saved[44];
	struct user_stack_args a = { argv2, envp, "a", &img, { 0 }, 0, 0, 0, 0, false, saved, 44 };

	CHECK_EQ(build_user_stack(stack, SIZE, TOP, &a) % 16, 0);
	a.argv = argv3;
	CHECK_EQ(build_user_stack(stack, SIZE, TOP, &a) % 16, 0);
	a.argv = envp; /* argc 0 */
	CHECK_EQ(*(uint64_t *)at(build_user_stack(stack, SIZE, TOP, &a)), 0);
}

static void test_too_big(void)
{
	static char big[SIZE];
	const char *argv[] = { big, NULL }, *envp[] = { NULL };
	uint64_t saved[44];
	struct user_stack_args a = { argv, envp, "x", &img, { 0 }, 0, 0, 0, 0, false, saved, 44 };

	memset(big, 'x', sizeof(big) - 1);
	CHECK_EQ(build_user_stack(stack, SIZE, TOP, &a), 0);
	big[SIZE - 200] = '\0'; /* fits the strings, not the pointer arrays */
	CHECK_EQ(build_user_stack(stack, SIZE, TOP, &a), 0);
	big[100] = '\0';
	CHECK(build_user_stack(stack, SIZE, TOP, &a) != 0);
}

int main(void)
{
	RUN_TEST(test_layout);
	RUN_TEST(test_alignment);
	RUN_TEST(test_too_big);
	return check_total_failed != 0;
}
