/* A tiny TAP-style check library for host unit tests: each CHECK prints nothing when it
 * holds; each test() prints "ok - name" or "not ok - name"; main returns failures. */
#ifndef TESTS_HOST_CHECK_H
#define TESTS_HOST_CHECK_H

#include <stdio.h>

static int check_failed_in_test;
static int check_total_failed;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);   \
			check_failed_in_test++;                                            \
		}                                                                          \
	} while (0)

#define CHECK_EQ(a, b)                                                                     \
	do {                                                                               \
		long long _a = (long long)(a), _b = (long long)(b);                        \
		if (_a != _b) {                                                            \
			printf("#   %s:%d: %s == %lld, expected %s == %lld\n", __FILE__,       \
			       __LINE__, #a, _a, #b, _b);                                  \
			check_failed_in_test++;                                            \
		}                                                                          \
	} while (0)

#define CHECK_STR(got, want)                                                               \
	do {                                                                               \
		const char *_g = (got), *_w = (want);                                      \
		if (strcmp(_g, _w) != 0) {                                                 \
			printf("#   %s:%d: got \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
			       _g, _w);                                                    \
			check_failed_in_test++;                                            \
		}                                                                          \
	} while (0)

/* Run one test function and report it as one TAP line. */
#define RUN_TEST(fn)                                                                       \
	do {                                                                               \
		check_failed_in_test = 0;                                                  \
		fn();                                                                      \
		printf("%sok - %s\n", check_failed_in_test ? "not " : "", #fn);            \
		check_total_failed += check_failed_in_test != 0;                           \
	} while (0)

#endif
