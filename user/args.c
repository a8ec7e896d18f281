/* args: the process state execve builds, run as "/bin/args one two three": argc/argv/envp, the
 * auxiliary vector, and the initial stack (argc, argv..., NULL, envp..., NULL, auxv, AT_NULL). */
#define UTEST_NAME "args"
#include "utest.h"
#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

extern char _start[];
extern char **environ;

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The 16 AT_RANDOM bytes of a fresh exec of this program ("args --random" writes them to fd 1):
 * each exec must get new ones, or every process shares one stack-canary seed. */
static int random_of_child(const char *self, unsigned char out[16])
{
	int p[2], st, n = 0;
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		dup2(p[1], 1);
		execl(self, self, "--random", (char *)0);
		_exit(127);
	}
	close(p[1]);
	while (n < 16) {
		int r = (int)read(p[0], out + n, 16 - n);

		if (r <= 0)
			break;
		n += r;
	}
	close(p[0]);
	waitpid(c, &st, 0);
	return n;
}

int main(int argc, char **argv, char **envp)
{
	static const char *const want[] = {"one", "two", "three"};
	long *sp = (long *)argv - 1;
	Elf64_auxv_t *av;
	char **e;
	int i, n;

	if (argc == 2 && strcmp(argv[1], "--random") == 0)
		return write(1, (void *)getauxval(AT_RANDOM), 16) == 16 ? 0 : 1;

	/* argv */
	CHECK_EQ(argc, 4);
	for (i = 1; i < 4 && i < argc; i++)
		CHECK(strcmp(argv[i], want[i - 1]) == 0);
	CHECK(argv[argc] == NULL);
	CHECK(argv[0] && ends_with(argv[0], "args"));

	/* envp */
	CHECK(envp[0] != NULL);
	for (n = 0, e = envp; *e; e++)
		n += strchr(*e, '=') == NULL;
	CHECK_EQ(n, 0);
	CHECK(environ == envp);

	/* the initial stack: %rsp at _start is 16-byte aligned and holds argc, then the vectors */
	CHECK_EQ((uintptr_t)sp % 16, 0);
	CHECK_EQ(sp[0], argc);
	CHECK(envp == argv + argc + 1);
	for (e = envp; *e; e++)
		;
	av = (Elf64_auxv_t *)(e + 1);
	for (i = 0, n = 0; av[i].a_type != AT_NULL; i++)
		n += getauxval(av[i].a_type) != av[i].a_un.a_val;
	CHECK(i > 0);
	CHECK_EQ(n, 0); /* every entry on the stack is what getauxval() reports */
	for (i = 0; av[i].a_type != AT_PAGESZ && av[i].a_type != AT_NULL; i++)
		;
	CHECK_EQ(av[i].a_type, AT_PAGESZ);
	CHECK_EQ(av[i].a_un.a_val, getauxval(AT_PAGESZ));
	/* the strings live above the vectors, in the information block at the top of the stack */
	for (; av->a_type != AT_NULL; av++)
		;
	CHECK((uintptr_t)argv[0] > (uintptr_t)(av + 1));
	CHECK((uintptr_t)envp[0] > (uintptr_t)(av + 1));

	/* auxv entries */
	CHECK_EQ(getauxval(AT_PAGESZ), 4096);
	CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start);
	CHECK_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr));
	CHECK(getauxval(AT_PHNUM) > 0);
	CHECK(getauxval(AT_PHDR) != 0);
	if (getauxval(AT_PHDR) && getauxval(AT_PHENT) == sizeof(Elf64_Phdr)) {
		Elf64_Phdr *ph = (Elf64_Phdr *)getauxval(AT_PHDR);
		int loads = 0, text = 0;

		for (i = 0; i < (int)getauxval(AT_PHNUM); i++) {
			if (ph[i].p_type != PT_LOAD)
				continue;
			loads++;
			/* a static non-PIE program: the executable segment holds _start */
			text += (ph[i].p_flags & PF_X) && ph[i].p_vaddr <= (uintptr_t)_start &&
				(uintptr_t)_start < ph[i].p_vaddr + ph[i].p_memsz;
		}
		CHECK(loads > 0);
		CHECK_EQ(text, 1);
	}
	CHECK(getauxval(AT_RANDOM) != 0);
	if (getauxval(AT_RANDOM)) {
		const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);

		for (i = 0, n = 0; i < 16; i++)
			n |= r[i];
		CHECK(n != 0);
	}
	{
		unsigned char a[16], b[16];

		CHECK_EQ(random_of_child(argv[0], a), 16);
		CHECK_EQ(random_of_child(argv[0], b), 16);
		CHECK(memcmp(a, b, 16) != 0);
		CHECK(memcmp(a, (void *)getauxval(AT_RANDOM), 16) != 0);
	}
	CHECK_EQ(getauxval(AT_UID), getuid());
	CHECK_EQ(getauxval(AT_EUID), geteuid());
	CHECK_EQ(getauxval(AT_GID), getgid());
	CHECK_EQ(getauxval(AT_EGID), getegid());
	CHECK(getauxval(AT_EXECFN) != 0);
	if (getauxval(AT_EXECFN)) {
		const char *fn = (const char *)getauxval(AT_EXECFN);

		CHECK(ends_with(fn, "/args") || strcmp(fn, argv[0]) == 0);
	}
	return utest_done();
}
