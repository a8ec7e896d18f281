/* vsnprintf and snprintf: the one formatting engine behind printk, panic and every message.
 * It is pure (no I/O, no allocation, no libc) so host tests can compare it with the C library. */
#ifdef HOST_TEST
/* The host test links this next to libc's printf family; rename ours so both can coexist. */
#define vsnprintf k_vsnprintf
#define snprintf  k_snprintf
#endif

#include "kernel/printk/printk.h"
#include <limits.h>

/* Where the output goes. Characters past the end are counted but dropped, as C99 asks. */
struct fmt_out {
	char *buf;
	size_t size;
	size_t len; /* characters produced so far, stored or not */
};

/* One conversion's flags, width and precision, e.g. "%-08.3lx". */
struct fmt_spec {
	bool left; /* '-': pad on the right instead of the left */
	bool zero; /* '0': pad numbers with zeros instead of spaces */
	char plus; /* '+' or ' ': shown before non-negative signed numbers; 0 for none */
	int width; /* minimum field width, 0 for none */
	int prec;  /* precision, -1 for none */
};

enum fmt_length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

static void fmt_putc(struct fmt_out *o, char c)
{
	/* The last byte of the buffer is kept for the terminating NUL. */
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void fmt_pad(struct fmt_out *o, char c, int n)
{
	while (n-- > 0)
		fmt_putc(o, c);
}

static void fmt_string(struct fmt_out *o, const struct fmt_spec *sp, const char *s)
{
	int n = 0, i;

	if (!s)
		s = "(null)";
	/* With a precision, s need not be NUL-terminated: never look past prec bytes. */
	while ((sp->prec < 0 || n < sp->prec) && s[n])
		n++;
	if (!sp->left)
		fmt_pad(o, ' ', sp->width - n);
	for (i = 0; i < n; i++)
		fmt_putc(o, s[i]);
	if (sp->left)
		fmt_pad(o, ' ', sp->width - n);
}

/*
 * Print a number given as its magnitude and sign. The field is laid out as
 *   [spaces] [sign] [zeros] digits [spaces]
 * where the zeros come from the precision (minimum number of digits) or, for '0'
 * with no precision, from the width.
 */
static void fmt_number(struct fmt_out *o, const struct fmt_spec *sp, unsigned long long mag,
		       bool negative, unsigned int base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24]; /* 22 octal digits hold any 64-bit value */
	char sign = negative ? '-' : sp->plus;
	int n = 0, zeros, total;

	/* C's rule: zero printed with an explicit precision of 0 has no digits at all. */
	if (mag != 0 || sp->prec != 0) {
		do {
			tmp[n++] = digits[mag % base];
			mag /= base;
		} while (mag);
	}

	zeros = sp->prec > n ? sp->prec - n : 0;
	total = (sign ? 1 : 0) + zeros + n;
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}

	if (!sp->left)
		fmt_pad(o, ' ', sp->width - total);
	if (sign)
		fmt_putc(o, sign);
	fmt_pad(o, '0', zeros);
	while (n > 0)
		fmt_putc(o, tmp[--n]);
	if (sp->left)
		fmt_pad(o, ' ', sp->width - total);
}

/* Always all 16 digits, so addresses line up in columns and are never mistaken for decimals. */
static void fmt_pointer(struct fmt_out *o, const struct fmt_spec *sp, uintptr_t v)
{
	char tmp[19];
	struct fmt_spec s = {.left = sp->left, .width = sp->width, .prec = -1};
	int i;

	tmp[0] = '0';
	tmp[1] = 'x';
	for (i = 17; i >= 2; i--) {
		tmp[i] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	}
	tmp[18] = '\0';
	fmt_string(o, &s, tmp);
}

/*
 * Fetch the next argument with the type the length modifier names. Types narrower than
 * int were promoted to int by the caller, so they are fetched as int and cut back down.
 */
static long long fmt_arg_signed(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_CHAR:
		return (signed char)va_arg(*ap, int);
	case LEN_SHORT:
		return (short)va_arg(*ap, int);
	case LEN_LONG:
		return va_arg(*ap, long);
	case LEN_LLONG:
		return va_arg(*ap, long long);
	case LEN_SIZE:
		/* %zd takes the signed type as wide as size_t; on x86-64 that is ptrdiff_t. */
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

static unsigned long long fmt_arg_unsigned(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_CHAR:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:
		return va_arg(*ap, unsigned long);
	case LEN_LLONG:
		return va_arg(*ap, unsigned long long);
	case LEN_SIZE:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* Read a decimal number from the format, stopping (not wrapping) at INT_MAX. */
static int fmt_atoi(const char **fmt)
{
	int n = 0;

	while (**fmt >= '0' && **fmt <= '9') {
		int d = **fmt - '0';

		n = n > (INT_MAX - d) / 10 ? INT_MAX : n * 10 + d;
		(*fmt)++;
	}
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct fmt_out o = {.buf = buf, .size = size, .len = 0};
	va_list args;

	/*
	 * The helpers take a pointer to the va_list so each va_arg moves us along. That
	 * needs a local copy: on x86-64 a va_list parameter is really a pointer, and
	 * &ap would have the wrong type.
	 */
	va_copy(args, ap);

	while (*fmt) {
		struct fmt_spec sp = {.prec = -1};
		enum fmt_length len = LEN_INT;
		const char *start = fmt;
		unsigned int base;
		long long sv;
		char conv;

		if (*fmt != '%') {
			fmt_putc(&o, *fmt++);
			continue;
		}
		fmt++;

		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = true;
			else if (*fmt == '0')
				sp.zero = true;
			else if (*fmt == '+')
				sp.plus = '+';
			else if (*fmt == ' ' && sp.plus != '+') /* '+' wins over ' ' */
				sp.plus = ' ';
			else if (*fmt != ' ')
				break;
		}

		if (*fmt == '*') {
			/* A negative width from '*' means '-' and that width. */
			sp.width = va_arg(args, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = sp.width == INT_MIN ? INT_MAX : -sp.width;
			}
			fmt++;
		} else {
			sp.width = fmt_atoi(&fmt);
		}

		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				/* A negative precision from '*' means no precision. */
				sp.prec = va_arg(args, int);
				if (sp.prec < 0)
					sp.prec = -1;
				fmt++;
			} else {
				sp.prec = fmt_atoi(&fmt); /* "%.d" means precision 0 */
			}
		}

		if (*fmt == 'h') {
			fmt++;
			len = LEN_SHORT;
			if (*fmt == 'h') {
				fmt++;
				len = LEN_CHAR;
			}
		} else if (*fmt == 'l') {
			fmt++;
			len = LEN_LONG;
			if (*fmt == 'l') {
				fmt++;
				len = LEN_LLONG;
			}
		} else if (*fmt == 'z') {
			fmt++;
			len = LEN_SIZE;
		}

		conv = *fmt;
		if (conv != '\0')
			fmt++;

		switch (conv) {
		case 'd':
		case 'i':
			sv = fmt_arg_signed(&args, len);
			/* 0 - (unsigned)sv is exact even for LLONG_MIN; -sv would overflow. */
			if (sv < 0)
				fmt_number(&o, &sp, 0ULL - (unsigned long long)sv, true, 10, false);
			else
				fmt_number(&o, &sp, sv, false, 10, false);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			base = conv == 'u' ? 10 : 16;
			if (conv == 'o')
				base = 8;
			sp.plus = 0; /* signs are for signed conversions only */
			fmt_number(&o, &sp, fmt_arg_unsigned(&args, len), false, base, conv == 'X');
			break;
		case 'c':
			if (!sp.left)
				fmt_pad(&o, ' ', sp.width - 1);
			fmt_putc(&o, (char)va_arg(args, int));
			if (sp.left)
				fmt_pad(&o, ' ', sp.width - 1);
			break;
		case 's':
			fmt_string(&o, &sp, va_arg(args, const char *));
			break;
		case 'p':
			fmt_pointer(&o, &sp, (uintptr_t)va_arg(args, void *));
			break;
		case '%':
			fmt_putc(&o, '%');
			break;
		default:
			/*
			 * Unknown (or missing, at the end of the format): print the whole
			 * directive as written, so the mistake shows up in the output.
			 */
			while (start < fmt)
				fmt_putc(&o, *start++);
			break;
		}
	}
	va_end(args);

	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len > INT_MAX ? INT_MAX : (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#ifdef HOST_TEST
#undef vsnprintf
#undef snprintf
#endif
