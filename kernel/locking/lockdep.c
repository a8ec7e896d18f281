/* The LOCKDEBUG=1 lock validator (kernel/locking/lockdep.h): classes, each task's held-lock stack,
 * the "held before" graph between classes, and the misuse report. Empty in the normal build. */
#include "kernel/locking/lockdep.h"

#ifdef CONFIG_LOCKDEBUG
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/x86.h"

#define MAX_LOCK_CLASSES 64

struct lock_class {
	const void *key;
	const char *name;
};

static struct lock_class classes[MAX_LOCK_CLASSES];
static int nr_classes;
/* Guards the class table and the graph below (Linux's lockdep graph_lock): with interrupts
 * off alone, two CPUs registering at once would both take slot nr_classes, and two unrelated
 * locks would share one class. A bare ticket lock, which the checker does not watch. */
static arch_spinlock_t graph_lock;
/* after[a][b]: class b was taken while a was held. reported[a][b]: said once already. */
static bool after[MAX_LOCK_CLASSES][MAX_LOCK_CLASSES];
static bool reported[MAX_LOCK_CLASSES][MAX_LOCK_CLASSES];
int lockdep_expect;
int lockdep_reports;
static bool lockdep_off; /* the class table filled up: stop validating, say so once */

void lock_debug_report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (lockdep_expect > 0) {
		lockdep_reports++;
		printk("lockdep: caught (expected): ");
		vprintk(fmt, ap);
		printk("\n");
		va_end(ap);
		return;
	}
	printk("lockdep: BUG: ");
	vprintk(fmt, ap);
	printk("\n");
	va_end(ap);
	panic("lock misuse (LOCKDEBUG build)");
}

/* Say in the boot log that this kernel checks its locks (tests grep for it). */
static void lockdep_announce(void)
{
	printk("lockdep: lock checker on (LOCKDEBUG build): order, recursion, unlocks, "
	       "sleeping with a spinlock, locks held into user mode\n");
}
device_initcall(lockdep_announce);

void lockdep_init_map(struct lockdep_map *map, const char *name, const void *key)
{
	map->name = name;
	map->key = key;
	map->class_idx = 0;
	map->self = map;
}

/* The class of map, registered on first use; -1 once the table is full. */
static int class_of(struct lockdep_map *map)
{
	uint64_t flags;
	int i;

	if (map->class_idx) {
		if (classes[map->class_idx - 1].key != map->key)
			lock_debug_report("lock %s's class %d belongs to another key: the class "
					  "table is corrupt", map->name, map->class_idx - 1);
		return map->class_idx - 1;
	}
	flags = local_irq_save();
	arch_spin_lock(&graph_lock);
	if (map->class_idx) { /* (another CPU registered it meanwhile) */
		arch_spin_unlock(&graph_lock);
		local_irq_restore(flags);
		return map->class_idx - 1;
	}
	for (i = 0; i < nr_classes; i++)
		if (classes[i].key == map->key)
			break;
	if (i == nr_classes) {
		if (nr_classes == MAX_LOCK_CLASSES) {
			if (!lockdep_off)
				printk("lockdep: more than %d lock classes: validation off\n",
				       MAX_LOCK_CLASSES);
			lockdep_off = true;
			arch_spin_unlock(&graph_lock);
			local_irq_restore(flags);
			return -1;
		}
		classes[nr_classes].key = map->key;
		classes[nr_classes].name = map->name;
		nr_classes++;
	}
	map->class_idx = i + 1;
	arch_spin_unlock(&graph_lock);
	local_irq_restore(flags);
	return i;
}

/* Is there a chain of "taken while holding" edges from class a to class b? */
static bool reaches(int a, int b, unsigned long *seen)
{
	if (a == b)
		return true;
	seen[a / 64] |= 1UL << (a % 64);
	for (int c = 0; c < nr_classes; c++)
		if (after[a][c] && !(seen[c / 64] & (1UL << (c % 64))) && reaches(c, b, seen))
			return true;
	return false;
}

static void print_held(struct task_lockdep *ld)
{
	printk("lockdep: pid %d (%s) holds:", current->pid, current->comm);
	for (int i = 0; i < ld->depth; i++)
		printk(" %s%s", ld->held[i].map->name,
		       ld->held[i].kind == LOCK_READ ? "(read)" :
		       ld->held[i].kind == LOCK_WRITE ? "(write)" : "");
	printk("\n");
}

void lock_acquire(struct lockdep_map *map, enum lock_kind kind, bool trylock)
{
	struct task_lockdep *ld = &current->lockdep;
	uint64_t flags;
	int b;

	/* A lock that no init call named where it lives (zeroed, copied, or in reused memory)
	 * would share a class with unrelated locks, whose orders would then read as
	 * inversions (Linux: "trying to register non-static key"). */
	if (map->self != map) {
		lock_debug_report("a lock at %p (class %s) taken, not initialised there "
				  "by spin_lock_init or init_rwsem", map, map->key ? map->name : "none");
		return; /* (a self-test expected it: the lock goes untracked) */
	}
	flags = local_irq_save();
	b = class_of(map);

	for (int i = 0; b >= 0 && i < ld->depth; i++) {
		int a = class_of(ld->held[i].map);
		unsigned long seen[MAX_LOCK_CLASSES / 64] = { 0 };
		bool inverted;

		if (a < 0)
			continue;
		if (a == b && ld->held[i].map == map && !trylock) {
			/* A sleeping lock taken again by its holder: a write either way never
			 * returns; read after read waits behind any writer queued between. */
			print_held(ld);
			lock_debug_report("%s taken again (%s) by pid %d, which holds it (%s)",
					  map->name, kind == LOCK_READ ? "read" : "write",
					  current->pid,
					  ld->held[i].kind == LOCK_READ ? "read" : "write");
			continue;
		}
		if (a == b || after[a][b])
			continue;
		arch_spin_lock(&graph_lock); /* (one CPU's A -> B and another's B -> A meet here) */
		inverted = !trylock && reaches(b, a, seen) && !reported[a][b];
		if (inverted)
			reported[a][b] = reported[b][a] = true;
		else
			after[a][b] = true;
		arch_spin_unlock(&graph_lock);
		if (inverted) {
			printk("lockdep: possible deadlock: %s taken while holding %s; earlier, "
			       "%s was held when %s (or a lock after it) was taken\n", map->name,
			       ld->held[i].map->name, map->name, ld->held[i].map->name);
			print_held(ld);
			printk("lockdep: the earlier order: %s -> ... -> %s\n", map->name,
			       ld->held[i].map->name);
			lock_debug_report("lock order inversion: %s -> %s against %s -> %s",
					  ld->held[i].map->name, map->name, map->name,
					  ld->held[i].map->name);
		}
	}
	if (ld->depth < MAX_HELD_LOCKS) {
		ld->held[ld->depth].map = map;
		ld->held[ld->depth].kind = kind;
		ld->depth++;
		if (kind == LOCK_SPIN)
			ld->spin_depth++;
	} else {
		lock_debug_report("pid %d holds more than %d locks", current->pid,
				  MAX_HELD_LOCKS);
	}
	local_irq_restore(flags);
}

void lock_release(struct lockdep_map *map)
{
	struct task_lockdep *ld = &current->lockdep;
	uint64_t flags;

	if (map->self != map)
		return; /* untracked: its acquire was reported */
	flags = local_irq_save();

	for (int i = ld->depth - 1; i >= 0; i--) {
		if (ld->held[i].map != map)
			continue;
		if (ld->held[i].kind == LOCK_SPIN)
			ld->spin_depth--;
		for (int j = i; j + 1 < ld->depth; j++)
			ld->held[j] = ld->held[j + 1];
		ld->depth--;
		local_irq_restore(flags);
		return;
	}
	local_irq_restore(flags);
	lock_debug_report("pid %d releases %s, which it does not hold", current->pid, map->name);
}

void lockdep_check_sleep(void)
{
	struct task_lockdep *ld = &current->lockdep;

	if (ld->spin_depth) {
		print_held(ld);
		lock_debug_report("schedule() called by pid %d (%s) holding a spinlock "
				  "(a sleep with a spinlock held)", current->pid, current->comm);
	}
}

void lockdep_check_user_return(void)
{
	struct task_lockdep *ld = &current->lockdep;

	if (ld->depth) {
		print_held(ld);
		lock_debug_report("pid %d (%s) returns to user mode holding %s", current->pid,
				  current->comm, ld->held[ld->depth - 1].map->name);
	}
	if (current->lock_depth >= 0)
		lock_debug_report("pid %d (%s) returns to user mode holding the big kernel lock",
				  current->pid, current->comm);
}

void lockdep_switch_handover(struct lockdep_map *map, struct task_lockdep *prev,
			     struct task_lockdep *next)
{
	for (int i = prev->depth - 1; i >= 0; i--) {
		if (prev->held[i].map != map)
			continue;
		if (next->depth < MAX_HELD_LOCKS) {
			next->held[next->depth++] = prev->held[i];
			next->spin_depth++;
		}
		for (int j = i; j + 1 < prev->depth; j++)
			prev->held[j] = prev->held[j + 1];
		prev->depth--;
		prev->spin_depth--;
		return;
	}
}

void lockdep_reset_classes(struct lockdep_map *a, struct lockdep_map *b)
{
	int ca = class_of(a), cb = class_of(b);

	if (ca < 0 || cb < 0)
		return;
	after[ca][cb] = after[cb][ca] = false;
	reported[ca][cb] = reported[cb][ca] = false;
}

#endif
