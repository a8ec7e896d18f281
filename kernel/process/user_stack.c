/* Building a new program's initial stack. Strings go at the very top, then the pointer
 * arrays below them; everything is written through buf but addressed as the user sees it. */
#include "kernel/bug.h"
#include "kernel/lib/string.h"
#include "kernel/process/user_stack.h"

/* A downward bump allocator over [top - size, top), in user addresses. */
struct stack_builder {
	uint8_t *buf;
	uint64_t base, sp; /* user addresses: base = top - size */
	bool overflow;
};

static uint64_t push_bytes(struct stack_builder *b, const void *data, uint64_t n)
{
	if (b->overflow || b->sp - b->base < n) {
		b->overflow = true;
		return 0;
	}
	b->sp -= n;
	memcpy(b->buf + (b->sp - b->base), data, n);
	return b->sp;
}

static uint64_t push_string(struct stack_builder *b, const char *s)
{
	return push_bytes(b, s, strlen(s) + 1);
}

static int count(const char *const *v)
{
	int n = 0;

	while (v && v[n])
		n++;
	return n;
}

uint64_t build_user_stack(uint8_t *buf, uint64_t size, uint64_t top,
			  const struct user_stack_args *a)
{
	struct stack_builder b = { buf, top - size, top, false };
	int argc = count(a->argv), envc = count(a->envp), nwords, w = 0;
	uint64_t execfn, random, words[2 * 20];
	uint64_t *vec;

	/* Strings first, at the top: their addresses go into the arrays below. */
	execfn = push_string(&b, a->execfn);
	random = push_bytes(&b, a->random, sizeof(a->random));
	/* execve bounds argc and envc (ARG_MAX) before calling, so these arrays stay small. */
	uint64_t argp[argc ? argc : 1], envpp[envc ? envc : 1];

	for (int i = envc - 1; i >= 0; i--)
		envpp[i] = push_string(&b, a->envp[i]);
	for (int i = argc - 1; i >= 0; i--)
		argp[i] = push_string(&b, a->argv[i]);

	/* The auxiliary vector: (type, value) pairs. */
#define AUX(t, v) (words[w++] = (t), words[w++] = (v))
	AUX(AT_PHDR, a->img->phdr_addr);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, a->img->ehdr->e_phnum);
	AUX(AT_PAGESZ, 4096);
	AUX(AT_BASE, 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, a->img->entry);
	AUX(AT_UID, a->uid);
	AUX(AT_EUID, a->euid);
	AUX(AT_GID, a->gid);
	AUX(AT_EGID, a->egid);
	AUX(AT_HWCAP, 0);
	AUX(AT_CLKTCK, 100);
	AUX(AT_SECURE, a->secure);
	AUX(AT_RANDOM, random);
	AUX(AT_EXECFN, execfn);
	AUX(AT_NULL, 0);
#undef AUX

	/* argc + argv + NULL + envp + NULL + auxv; rsp must end 16-byte aligned. */
	nwords = 1 + argc + 1 + envc + 1 + w;
	b.sp = ALIGN_DOWN(b.sp, 16);
	if ((nwords & 1) && !b.overflow)
		b.sp -= 8; /* padding, so that the word at the final sp is 16-aligned */
	if (b.overflow || b.sp - b.base < (uint64_t)nwords * 8)
		return 0;
	b.sp -= (uint64_t)nwords * 8;
	vec = (uint64_t *)(b.buf + (b.sp - b.base));
	*vec++ = (uint64_t)argc;
	for (int i = 0; i < argc; i++)
		*vec++ = argp[i];
	*vec++ = 0;
	for (int i = 0; i < envc; i++)
		*vec++ = envpp[i];
	*vec++ = 0;
	memcpy(vec, words, (size_t)w * 8);
	BUG_ON((size_t)w > a->auxv_max);
	memcpy(a->auxv_copy, words, (size_t)w * 8);
	return b.sp;
}
