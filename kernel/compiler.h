/* Small helpers every file uses: sizes, alignment, container_of, branch hints.
 * Kept tiny so a student can read all of it before reading anything else. */
#ifndef KERNEL_COMPILER_H
#define KERNEL_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((typeof(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((typeof(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __unused __attribute__((unused))
#define __weak __attribute__((weak)) /* another file's definition, if linked, wins */
#define __printf(a, b) __attribute__((format(printf, a, b)))

#endif
