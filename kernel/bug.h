/* BUG_ON() for a broken invariant: the kernel stops with a report (registers) and a backtrace.
 * WARN_ON() for what can go on: a report with a backtrace, then the code carries on. */
#ifndef KERNEL_BUG_H
#define KERNEL_BUG_H

#include "kernel/compiler.h"

/*
 * BUG(): an ud2 instruction, followed in the text by the line (16 bits) and the file's name (a
 * pointer), which nothing executes. The #UD trap reaches die() (kernel/panic.c), which finds
 * them there and prints "kernel BUG at file:line!" before the registers and the backtrace, so
 * the report shows the registers as they were at the BUG itself.
 */
#define BUG()                                                                                      \
	do {                                                                                       \
		asm volatile("ud2\n\t.word %c0\n\t.quad %c1" ::"i"(__LINE__), "i"(__FILE__));      \
		__builtin_unreachable();                                                           \
	} while (0)

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (unlikely(cond))                                                                \
			BUG();                                                                     \
	} while (0)

/* Prints "WARNING: at file:line func()" and the caller's backtrace (kernel/panic.c). */
void warn_slowpath(const char *file, int line, const char *func);

/* WARN_ON(cond): the value of cond, with a warning when it holds. */
#define WARN_ON(cond)                                                                              \
	({                                                                                         \
		bool __warn_c = !!(cond);                                                          \
		if (unlikely(__warn_c))                                                            \
			warn_slowpath(__FILE__, __LINE__, __func__);                               \
		__warn_c;                                                                          \
	})

/* The same, warning only the first time this line sees cond hold. */
#define WARN_ON_ONCE(cond)                                                                         \
	({                                                                                         \
		static bool __warned;                                                              \
		bool __warn_c = !!(cond);                                                          \
		if (unlikely(__warn_c) && !__warned) {                                             \
			__warned = true;                                                           \
			warn_slowpath(__FILE__, __LINE__, __func__);                               \
		}                                                                                  \
		__warn_c;                                                                          \
	})

/* The file and line a BUG() at rip left after its ud2, if rip is one: for die(). */
bool find_bug(uint64_t rip, const char **file, unsigned int *line);

#endif
