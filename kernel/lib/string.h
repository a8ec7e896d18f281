/* The C string functions the kernel needs (kernel/lib/string.c). Host unit tests use libc's. */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#ifdef HOST_TEST
#include <string.h>
#if defined(__GLIBC__) && !__GLIBC_PREREQ(2, 38) /* glibc has strlcpy from 2.38 on */
static inline size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}
#endif
#else
#include "kernel/compiler.h"

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *hay, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);
#endif

#endif
