/* A small lock validator for the LOCKDEBUG=1 build (Linux's lockdep, cut down): every lock
 * belongs to a class, each task keeps the stack of locks it holds, and taking class B while
 * holding A records "A before B"; taking them the other way round later is reported. Without
 * CONFIG_LOCKDEBUG every hook is an empty inline function and the maps take no space. */
#ifndef KERNEL_LOCKDEP_H
#define KERNEL_LOCKDEP_H

#include "kernel/compiler.h"

enum lock_kind { LOCK_SPIN, LOCK_READ, LOCK_WRITE };

#ifdef CONFIG_LOCKDEBUG

/* One per lock object: its name and its class key (a static lock is its own class; locks
 * initialised at one spin_lock_init/init_rwsem call site share that site's class). */
struct lockdep_map {
	const char *name;
	const void *key;
	int class_idx; /* class number + 1, 0 until the first acquire */
	/* The map's own address, set where it was initialised: a lock copied with its
	 * structure, or one in reused memory that no init call named, carries another
	 * lock's class, and acquiring it is reported. */
	const struct lockdep_map *self;
};

/* n: its name; k: its class key; m: the map itself */
#define LOCKDEP_MAP_INIT(n, k, m) { .name = (n), .key = (k), .self = (m) }

#define MAX_HELD_LOCKS 16
struct held_lock {
	struct lockdep_map *map;
	enum lock_kind kind;
};

/* In each task_struct: what it holds now, innermost last. */
struct task_lockdep {
	struct held_lock held[MAX_HELD_LOCKS];
	int depth;
	int spin_depth; /* of those, spinlocks: none may be held into schedule() */
};

void lockdep_init_map(struct lockdep_map *map, const char *name, const void *key);
/* Check the order against every held lock and push it. A recursive acquire (the same class
 * already held and not a reader after a reader that is a trylock) is reported here. */
void lock_acquire(struct lockdep_map *map, enum lock_kind kind, bool trylock);
/* Pop it (from wherever it is in the stack: locks need not be released in order). */
void lock_release(struct lockdep_map *map);
/* schedule() calls this first: sleeping with a spinlock held is a bug. */
void lockdep_check_sleep(void);
/* The return to ring 3: no lock (mmap_sem above all) may be held there. */
void lockdep_check_user_return(void);
/* Hand a lock held across the context switch (the run queue's) from prev to the next task. */
void lockdep_switch_handover(struct lockdep_map *map, struct task_lockdep *prev,
			     struct task_lockdep *next);

/* The report of a misuse: panics, unless a self-test has said it expects one (then it is
 * counted in lockdep_reports and the caller backs out of the bad operation). */
void lock_debug_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int lockdep_expect;   /* ktest: > 0 while a misuse is provoked on purpose */
extern int lockdep_reports;  /* ktest: misuses caught while lockdep_expect was set */
/* Forget the order recorded between the classes of these maps (ktest inversion tests). */
void lockdep_reset_classes(struct lockdep_map *a, struct lockdep_map *b);

#else

struct lockdep_map {
};
struct task_lockdep {
};
#define LOCKDEP_MAP_INIT(n, k, m) {}

static inline void lockdep_init_map(struct lockdep_map *map, const char *name, const void *key)
{
	(void)map, (void)name, (void)key;
}
static inline void lock_acquire(struct lockdep_map *map, enum lock_kind kind, bool trylock)
{
	(void)map, (void)kind, (void)trylock;
}
static inline void lock_release(struct lockdep_map *map)
{
	(void)map;
}
static inline void lockdep_check_sleep(void)
{
}
static inline void lockdep_check_user_return(void)
{
}

#endif

#endif
