/* Atomic integers and compare-and-exchange (Linux's <asm/atomic.h>, <asm/system.h> names):
 * the lock prefix makes each read-modify-write one indivisible step across CPUs. */
#ifndef KERNEL_ATOMIC_H
#define KERNEL_ATOMIC_H

#include "kernel/compiler.h"

typedef struct {
	volatile int counter;
} atomic_t;

typedef struct {
	volatile long counter;
} atomic_long_t;

#define ATOMIC_INIT(i) { (i) }

#define barrier() asm volatile("" ::: "memory")
/* x86 keeps stores in order and loads in order; only a store followed by a load of another
 * location can pass: smp_mb orders that too (a locked no-op add, cheaper than mfence). */
#define smp_mb() asm volatile("lock; addl $0,0(%%rsp)" ::: "memory", "cc")
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#define cpu_relax() asm volatile("pause" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

static inline int atomic_read(const atomic_t *v)
{
	return v->counter;
}

static inline void atomic_set(atomic_t *v, int i)
{
	v->counter = i;
}

static inline void atomic_add(int i, atomic_t *v)
{
	asm volatile("lock; addl %1,%0" : "+m"(v->counter) : "ir"(i) : "memory");
}

static inline void atomic_sub(int i, atomic_t *v)
{
	asm volatile("lock; subl %1,%0" : "+m"(v->counter) : "ir"(i) : "memory");
}

static inline void atomic_inc(atomic_t *v)
{
	asm volatile("lock; incl %0" : "+m"(v->counter) : : "memory");
}

static inline void atomic_dec(atomic_t *v)
{
	asm volatile("lock; decl %0" : "+m"(v->counter) : : "memory");
}

/* True when the decrement left zero (the last reference went). */
static inline bool atomic_dec_and_test(atomic_t *v)
{
	bool zero;

	asm volatile("lock; decl %0; sete %1" : "+m"(v->counter), "=qm"(zero) : : "memory");
	return zero;
}

static inline bool atomic_inc_and_test(atomic_t *v)
{
	bool zero;

	asm volatile("lock; incl %0; sete %1" : "+m"(v->counter), "=qm"(zero) : : "memory");
	return zero;
}

/* Add i and return the new value. */
static inline int atomic_add_return(int i, atomic_t *v)
{
	int old = i;

	asm volatile("lock; xaddl %0,%1" : "+r"(old), "+m"(v->counter) : : "memory");
	return old + i;
}

#define atomic_sub_return(i, v) atomic_add_return(-(i), v)
#define atomic_inc_return(v) atomic_add_return(1, v)
#define atomic_dec_return(v) atomic_add_return(-1, v)

/* If *ptr equals old, store new; either way return what *ptr held (4 or 8 bytes). The "+ 0"
 * drops a volatile qualifier, which made gcc keep the temporaries in memory. */
#define cmpxchg(ptr, old, new)                                                              \
	({                                                                                  \
		__typeof__(*(ptr) + 0) __ret, __old = (old), __new = (new);                 \
		asm volatile("lock; cmpxchg %2,%1"                                          \
			     : "=a"(__ret), "+m"(*(ptr))                                    \
			     : "r"(__new), "0"(__old)                                       \
			     : "memory");                                                   \
		__ret;                                                                      \
	})

/* Store new in *ptr and return the old value (xchg is always locked). */
#define xchg(ptr, new)                                                                      \
	({                                                                                  \
		__typeof__(*(ptr)) __v = (new);                                             \
		asm volatile("xchg %0,%1" : "+r"(__v), "+m"(*(ptr)) : : "memory");          \
		__v;                                                                        \
	})

static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	return cmpxchg(&v->counter, old, new);
}

static inline long atomic_long_read(const atomic_long_t *v)
{
	return v->counter;
}

static inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	long old = i;

	asm volatile("lock; xaddq %0,%1" : "+r"(old), "+m"(v->counter) : : "memory");
	return old + i;
}

/* Add i and return the value before the add. */
static inline long atomic_long_fetch_add(long i, atomic_long_t *v)
{
	asm volatile("lock; xaddq %0,%1" : "+r"(i), "+m"(v->counter) : : "memory");
	return i;
}

static inline long atomic_long_cmpxchg(atomic_long_t *v, long old, long new)
{
	return cmpxchg(&v->counter, old, new);
}

/* Bit operations on a word in memory; test_and_set_bit returns the bit's old value. */
static inline void set_bit(int nr, volatile unsigned long *addr)
{
	asm volatile("lock; btsq %1,%0" : "+m"(*addr) : "Ir"((long)nr) : "memory");
}

static inline void clear_bit(int nr, volatile unsigned long *addr)
{
	asm volatile("lock; btrq %1,%0" : "+m"(*addr) : "Ir"((long)nr) : "memory");
}

static inline bool test_and_set_bit(int nr, volatile unsigned long *addr)
{
	bool old;

	asm volatile("lock; btsq %2,%0; setc %1" : "+m"(*addr), "=qm"(old) : "Ir"((long)nr)
		     : "memory");
	return old;
}

#endif
