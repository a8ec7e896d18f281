/* The C memory and string functions the kernel uses (declared in kernel/lib/string.h). They must
 * exist even where no code calls them by name: gcc emits memset/memcpy calls for struct copies. */
#ifndef HOST_TEST /* host tests use the C library's versions instead */

#include "kernel/lib/string.h"

/*
 * memset and memcpy use the string instructions: since Ivy Bridge ("ERMSB") a plain
 * "rep stosb"/"rep movsb" is about as fast as hand-tuned loops and is far shorter.
 * They copy upwards only because the ABI promises the direction flag is clear on
 * every function call (interrupt entry code must keep it that way).
 * Quadwords first, then the bytes left: under -icount each rep iteration is one guest
 * instruction (docs/bench.md, "Design choices, measured").
 */
void *memset(void *s, int c, size_t n)
{
	uint64_t q = (uint8_t)c * 0x0101010101010101ULL, nq = n / 8, nb = n % 8;
	void *d = s;

	asm volatile("rep stosq\n\tmov %3, %%rcx\n\trep stosb"
		     : "+D"(d), "+c"(nq) : "a"(q), "r"(nb) : "memory");
	return s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	size_t nq = n / 8, nb = n % 8;
	void *d = dst;

	asm volatile("rep movsq\n\tmov %3, %%rcx\n\trep movsb"
		     : "+D"(d), "+S"(src), "+c"(nq) : "r"(nb) : "memory");
	return dst;
}

/* Like memcpy, but the two areas may overlap. */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/*
	 * Copying upwards is only wrong when dst starts inside src: each byte would be
	 * overwritten before it is read. Then copy from the top down instead.
	 */
	if ((uintptr_t)d <= (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n)
		return memcpy(dst, src, n);
	while (n > 0) {
		n--;
		d[n] = s[n];
	}
	return dst;
}

/* Bytes compare as unsigned char, as C requires, so 0x80 sorts after 0x7f. */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != q[i])
			return p[i] - q[i];
	}
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* The length of s, but never looks at more than max bytes (s need not be terminated). */
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;

	while (*p && *p == *q) {
		p++;
		q++;
	}
	return *p - *q;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != q[i] || p[i] == '\0')
			return p[i] - q[i];
	}
	return 0;
}

/* The terminating NUL counts as part of the string, so strchr(s, 0) finds the end. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

/* The simple quadratic search: the kernel only looks for short needles in short strings. */
char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		if (strncmp(hay, needle, n) == 0)
			return (char *)hay;
	}
	return n == 0 ? (char *)hay : NULL;
}

/*
 * Copy src into dst of the given size, always NUL-terminating when size > 0 (unlike
 * strncpy). Returns strlen(src), so "strlcpy(...) >= size" means it was truncated.
 */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	size_t n;

	if (size > 0) {
		n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

#endif /* !HOST_TEST */
