/* Host tests for kernel/lib/vsprintf.c: formats C defines are checked against the C library's
 * snprintf; the kernel's own choices (%p, "(null)", unknown %y) against literal strings. */
#include "tests/host/check.h"
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The code under test, compiled into this program. */
#include "kernel/lib/vsprintf.c" /* defines k_snprintf and k_vsnprintf */

/* Format with both implementations into 256-byte buffers; output and return value must agree. */
#define SAME(...)                                                                                  \
	do {                                                                                       \
		char _k[256], _l[256];                                                             \
		int _rk = k_snprintf(_k, sizeof(_k), __VA_ARGS__);                                 \
		int _rl = snprintf(_l, sizeof(_l), __VA_ARGS__);                                   \
		CHECK_STR(_k, _l);                                                                 \
		CHECK_EQ(_rk, _rl);                                                                \
	} while (0)

/* Format with ours only and compare to what we expect. */
#define EXPECT(want, ...)                                                                          \
	do {                                                                                       \
		char _k[256];                                                                      \
		int _rk = k_snprintf(_k, sizeof(_k), __VA_ARGS__);                                 \
		CHECK_STR(_k, want);                                                               \
		CHECK_EQ(_rk, strlen(want));                                                       \
	} while (0)

/*
 * Call through the va_list entry point without the printf attribute, so the tests of
 * deliberately bad formats ("%y") do not trip gcc's format checking.
 */
static int kfmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = k_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static void test_plain_text(void)
{
	SAME("hello, world");
	SAME("%s", "");
	SAME("100%% sure");
	SAME("%%%d%%", 5);
	SAME("tab\tnewline\n");
}

static void test_signed_decimal(void)
{
	SAME("%d", 0);
	SAME("%d", 42);
	SAME("%d", -42);
	SAME("%i", -7);
	SAME("%d", INT_MAX);
	SAME("%d", INT_MIN);
	SAME("%ld", LONG_MAX);
	SAME("%ld", LONG_MIN);
	SAME("%lld", (long long)INT64_MIN);
	SAME("%lld", (long long)INT64_MAX);
	SAME("%lli", -1LL);
	SAME("%d %d %d", 1, -2, 3);
}

static void test_unsigned_and_bases(void)
{
	SAME("%u", 0u);
	SAME("%u", UINT_MAX);
	SAME("%lu", ULONG_MAX);
	SAME("%llu", (unsigned long long)UINT64_MAX);
	SAME("%x", 0xdeadbeefu);
	SAME("%X", 0xdeadbeefu);
	SAME("%x", 0u);
	SAME("%lx", 0xffffffff80000000ul);
	SAME("%llX", 0x0123456789abcdefull);
	SAME("%o", 0u);
	SAME("%o", 8u);
	SAME("%o", 0777u);
	SAME("%llo", (unsigned long long)UINT64_MAX);
	/* -1 seen as unsigned: the full 32-bit pattern, not a 64-bit one. */
	SAME("%x", -1);
	SAME("%u", -1);
}

static void test_length_modifiers(void)
{
	SAME("%hhd", 200); /* wraps to -56 */
	SAME("%hhd", -129);
	SAME("%hhu", 300); /* 44 */
	SAME("%hhx", 0x1ff);
	SAME("%hd", 70000);
	SAME("%hd", -32768);
	SAME("%hu", 70000);
	SAME("%hx", 0x12345);
	SAME("%zu", (size_t)SIZE_MAX);
	SAME("%zx", (size_t)0x1000);
	SAME("%zd", (ssize_t)-5);
	SAME("%zd", (ssize_t)INT64_MIN);
	/* A long argument after an int one: sizes must be fetched right or this goes wrong. */
	SAME("%d %ld %d %lld %hhd %zu", 1, -2L, 3, -4LL, 5, (size_t)6);
}

static void test_flags_and_width(void)
{
	SAME("[%5d]", 42);
	SAME("[%-5d]", 42);
	SAME("[%05d]", 42);
	SAME("[%05d]", -42);
	SAME("[%+d]", 42);
	SAME("[%+d]", -42);
	SAME("[%+d]", 0);
	SAME("[% d]", 42);
	SAME("[% d]", -42);
	SAME("[% 05d]", 42);
	SAME("[%+05d]", 42);
	SAME("[%-+6d]", 42);
	SAME("[%2d]", 12345); /* width is a minimum, never truncates */
	SAME("[%08x]", 0xbeefu);
	SAME("[%-8X]", 0xbeefu);
	SAME("[%08o]", 0755u);
	SAME("[%020lld]", (long long)INT64_MIN);
	SAME("[%100d]", -1);
	SAME("[%c%c%c]", 'a', 'b', 'c');
	SAME("[%3c]", 'x');
	SAME("[%-3c]", 'x');
}

static void test_star_width_and_precision(void)
{
	SAME("[%*d]", 6, 42);
	SAME("[%*d]", -6, 42); /* negative width: left-justify */
	SAME("[%-*d]", 6, 42);
	SAME("[%.*d]", 4, 7);
	SAME("[%.*d]", -1, 7); /* negative precision: as if none */
	SAME("[%*.*d]", 8, 3, -5);
	SAME("[%*s]", 5, "ab");
	SAME("[%-*.*s]", 6, 2, "abcdef");
	SAME("[%.*s]", 3, "abcdef");
	SAME("[%0*d]", 5, -3);
}

static void test_integer_precision(void)
{
	SAME("[%.3d]", 7);
	SAME("[%.3d]", -7);
	SAME("[%8.3d]", 7);
	SAME("[%-8.3d]", -7);
	SAME("[%.0d]", 0); /* empty: zero with precision 0 has no digits */
	SAME("[%5.0d]", 0);
	SAME("[%.0x]", 0u);
	SAME("[%.0u]", 1u);
	SAME("[%+.0d]", 0);
	SAME("[%.d]", 0); /* "." alone means precision 0 */
	SAME("[%.10x]", 0xabcu);
	SAME("[%.20lld]", (long long)INT64_MIN);
	SAME("[%+.5d]", 12);
	SAME("[%.5o]", 8u);
	SAME("[%12.5X]", 0xabcu);
}

static void test_strings(void)
{
	SAME("[%s]", "kernel");
	SAME("[%10s]", "kernel");
	SAME("[%-10s]", "kernel");
	SAME("[%.3s]", "kernel");
	SAME("[%10.3s]", "kernel");
	SAME("[%-10.3s]", "kernel");
	SAME("[%.0s]", "kernel");
	SAME("[%.10s]", "short");
	SAME("[%s|%s]", "a", "");
}

static void test_precision_string_not_terminated(void)
{
	/* With a precision, %s must stop there: this array has no NUL (ASan catches over-reads). */
	char raw[4] = {'a', 'b', 'c', 'd'};

	EXPECT("[abcd]", "[%.4s]", raw);
	EXPECT("[ab]", "[%.*s]", 2, raw);
}

/* Through kfmt: gcc rightly warns about these at compile time, but the kernel must cope. */
static void test_null_string_and_odd_flags(void)
{
	char buf[64];

	CHECK_EQ(kfmt(buf, sizeof(buf), "%s", (char *)NULL), 6);
	CHECK_STR(buf, "(null)");
	kfmt(buf, sizeof(buf), "[%8s]", (char *)NULL);
	CHECK_STR(buf, "[  (null)]");
	kfmt(buf, sizeof(buf), "[%-8s]", (char *)NULL);
	CHECK_STR(buf, "[(null)  ]");
	kfmt(buf, sizeof(buf), "[%.3s]", (char *)NULL);
	CHECK_STR(buf, "[(nu]");
	/* '+' wins over ' ' in either order; '-' wins over '0'. */
	kfmt(buf, sizeof(buf), "[%+ d|% +d]", 4, 4);
	CHECK_STR(buf, "[+4|+4]");
	kfmt(buf, sizeof(buf), "[%-05d|%0-5d]", 4, 4);
	CHECK_STR(buf, "[4    |4    ]");
	/* '+' and ' ' mean nothing for unsigned conversions. */
	kfmt(buf, sizeof(buf), "[%+u|% x]", 4u, 10u);
	CHECK_STR(buf, "[4|a]");
}

static void test_pointer(void)
{
	EXPECT("0x0000000000001234", "%p", (void *)0x1234);
	EXPECT("0x0000000000000000", "%p", NULL);
	EXPECT("0xffffffff80000000", "%p", (void *)0xffffffff80000000ul);
	EXPECT("0xfedcba9876543210", "%p", (void *)0xfedcba9876543210ul);
	EXPECT("[  0x00000000000000ff]", "[%20p]", (void *)0xff);
	EXPECT("[0x00000000000000ff  ]", "[%-20p]", (void *)0xff);
	EXPECT("[0x00000000000000ff]", "[%5p]", (void *)0xff);
	/* The pointer must consume exactly one 64-bit argument. */
	EXPECT("0x0000000000000001 2", "%p %d", (void *)1, 2);
}

static void test_unknown_conversion(void)
{
	char buf[64];

	CHECK_EQ(kfmt(buf, sizeof(buf), "a%yb", 0), 4);
	CHECK_STR(buf, "a%yb");
	/* The whole directive is echoed, flags and width included. */
	kfmt(buf, sizeof(buf), "[%-5y]", 0);
	CHECK_STR(buf, "[%-5y]");
	kfmt(buf, sizeof(buf), "[%lq]", 0);
	CHECK_STR(buf, "[%lq]");
	/* %n is never supported: it would let a format write to memory. */
	kfmt(buf, sizeof(buf), "[%n]", 0);
	CHECK_STR(buf, "[%n]");
	/* A '%' at the very end is printed, and nothing after the format is read. */
	CHECK_EQ(kfmt(buf, sizeof(buf), "50%", 0), 3);
	CHECK_STR(buf, "50%");
	kfmt(buf, sizeof(buf), "x%-0", 0);
	CHECK_STR(buf, "x%-0");
	/* Formatting continues correctly after an unknown directive. */
	kfmt(buf, sizeof(buf), "%y %d", 7);
	CHECK_STR(buf, "%y 7");
}

static void test_truncation(void)
{
	const char *fmt = "%s=%d [%08x] %-6s|%lld";
	char full[128];
	int want =
	    snprintf(full, sizeof(full), fmt, "pid", -1234, 0xbeefu, "ok", (long long)INT64_MIN);
	size_t n;

	/* Every buffer size from 0 to past the end: same prefix, same return, no overrun. */
	for (n = 0; n <= (size_t)want + 2; n++) {
		char k[128], l[128];
		int rk, rl;

		memset(k, 'X', sizeof(k));
		memset(l, 'X', sizeof(l));
		rk = k_snprintf(k, n, fmt, "pid", -1234, 0xbeefu, "ok", (long long)INT64_MIN);
		rl = snprintf(l, n, fmt, "pid", -1234, 0xbeefu, "ok", (long long)INT64_MIN);
		CHECK_EQ(rk, want);
		CHECK_EQ(rl, want);
		CHECK(memcmp(k, l, sizeof(k)) == 0);
		if (n > 0)
			CHECK_EQ(strlen(k), MIN(n - 1, (size_t)want));
		CHECK(k[n] == 'X' || n > (size_t)want);
	}
}

static void test_return_value_and_size_zero(void)
{
	char buf[4] = "abc";

	/* size 0: nothing is written, not even the NUL, and buf may be NULL. */
	CHECK_EQ(k_snprintf(NULL, 0, "%d", 123456), 6);
	CHECK_EQ(k_snprintf(buf, 0, "%s", "zzzz"), 4);
	CHECK_STR(buf, "abc");
	/* size 1: only the NUL fits. */
	CHECK_EQ(k_snprintf(buf, 1, "%s", "zzzz"), 4);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'b');
	CHECK_EQ(k_snprintf(buf, sizeof(buf), "%5d", 1), 5);
	CHECK_STR(buf, "   ");
	CHECK_EQ(k_snprintf(buf, sizeof(buf), "%s", ""), 0);
	CHECK_STR(buf, "");
}

/* vsnprintf must leave the caller's va_list usable for its own va_end (it works on a copy). */
static int twice(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = k_vsnprintf(buf, size, fmt, ap);
	n += k_vsnprintf(buf + n, size - n, fmt, ap2);
	va_end(ap2);
	va_end(ap);
	return n;
}

static void test_vsnprintf_va_list(void)
{
	char buf[64];

	CHECK_EQ(twice(buf, sizeof(buf), "<%d,%s>", 9, "x"), 10);
	CHECK_STR(buf, "<9,x><9,x>");
}

int main(void)
{
	RUN_TEST(test_plain_text);
	RUN_TEST(test_signed_decimal);
	RUN_TEST(test_unsigned_and_bases);
	RUN_TEST(test_length_modifiers);
	RUN_TEST(test_flags_and_width);
	RUN_TEST(test_star_width_and_precision);
	RUN_TEST(test_integer_precision);
	RUN_TEST(test_strings);
	RUN_TEST(test_precision_string_not_terminated);
	RUN_TEST(test_null_string_and_odd_flags);
	RUN_TEST(test_pointer);
	RUN_TEST(test_unknown_conversion);
	RUN_TEST(test_truncation);
	RUN_TEST(test_return_value_and_size_zero);
	RUN_TEST(test_vsnprintf_va_list);
	return check_total_failed != 0;
}
