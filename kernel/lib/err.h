/* An error number in a pointer (Linux's include/linux/err.h): a function that returns an object
 * can say why it has none. The last page of the address space is never an object's address, so
 * -4095..-1 as a pointer is an error. */
#ifndef KERNEL_LIB_ERR_H
#define KERNEL_LIB_ERR_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_ERRNO 4095

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (uintptr_t)ptr >= (uintptr_t)-MAX_ERRNO;
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#endif
