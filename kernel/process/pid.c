/* Process ids (Linux's kernel/pid.c): a bitmap of the ids in use, one page per 32768 ids made
 * when first needed, handed out in rising order up to pid_max, then from RESERVED_PIDS again,
 * skipping the ids in use, as Linux reuses them after the wrap; and the hash that finds a task
 * by its pid. */
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/process/pid.h"
#include "kernel/sched/sched.h"
#include "mm/mmu.h"
#include "mm/slab.h"

#define BITS_PER_PAGE (PAGE_SIZE * 8)
#define PIDMAP_ENTRIES ((PID_MAX_LIMIT + BITS_PER_PAGE - 1) / BITS_PER_PAGE)

/* One page of the bitmap: NULL until an id in its range is first given. */
struct pidmap {
	unsigned int nr_free;
	uint64_t *page;
};

static struct pidmap pidmap_array[PIDMAP_ENTRIES];
int pid_max = PID_MAX_DEFAULT;
static int last_pid_nr;
/* Some id was given below the newest one: from now on an id may have been a process group's
 * or a session's, which keeps it from being reused while its group lives (as Linux's struct
 * pid does). Before the first wrap every new id is above all of them. */
static bool pids_wrapped;

int last_pid(void)
{
	return last_pid_nr;
}

/* Take nr if it is free: 1 taken, 0 in use, -ENOMEM without a page for its part of the map. */
static int take_pid(int nr)
{
	struct pidmap *map = &pidmap_array[nr / BITS_PER_PAGE];
	unsigned int bit = (unsigned int)nr % BITS_PER_PAGE;

	if (!map->page) {
		map->page = kzalloc(PAGE_SIZE);
		if (!map->page)
			return -ENOMEM;
		map->nr_free = BITS_PER_PAGE;
	}
	if (map->page[bit / 64] >> (bit % 64) & 1)
		return 0;
	map->page[bit / 64] |= 1UL << (bit % 64);
	map->nr_free--;
	return 1;
}

void free_pidmap(int nr)
{
	struct pidmap *map = &pidmap_array[nr / BITS_PER_PAGE];
	unsigned int bit = (unsigned int)nr % BITS_PER_PAGE;

	map->page[bit / 64] &= ~(1UL << (bit % 64));
	map->nr_free++;
}

/* The next id at or above nr (below end) whose bit is clear, or end. */
static int next_free(int nr, int end)
{
	while (nr < end) {
		struct pidmap *map = &pidmap_array[nr / BITS_PER_PAGE];
		unsigned int bit = (unsigned int)nr % BITS_PER_PAGE;
		uint64_t word;

		if (!map->page)
			return nr;
		if (!map->nr_free) { /* a full page: on to the next one */
			nr += (int)(BITS_PER_PAGE - bit);
			continue;
		}
		word = ~map->page[bit / 64] >> (bit % 64);
		if (word)
			return MIN(nr + __builtin_ctzl(word), end);
		nr += 64 - (int)(bit % 64);
	}
	return end;
}

/* A process group or a session still goes by nr. */
static bool pid_names_group(int nr)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks)
		if (t->pgrp == nr || t->session == nr)
			return true;
	return false;
}

/* The lowest free id in [from, end), taken; 0 if there is none, -ENOMEM. */
static int alloc_in(int from, int end)
{
	for (int nr = next_free(from, end); nr < end; nr = next_free(nr + 1, end)) {
		int r;

		if (pids_wrapped && pid_names_group(nr))
			continue;
		r = take_pid(nr);
		if (r < 0)
			return r;
		if (r)
			return nr;
	}
	return 0;
}

int alloc_pidmap(void)
{
	int max = READ_ONCE(pid_max), start = last_pid_nr + 1, nr;

	if (start >= max) {
		start = RESERVED_PIDS;
		pids_wrapped = true;
	}
	nr = alloc_in(start, max);
	if (!nr && start > RESERVED_PIDS) {
		pids_wrapped = true;
		nr = alloc_in(RESERVED_PIDS, start);
	}
	if (nr > 0)
		last_pid_nr = nr;
	return nr > 0 ? nr : -EAGAIN;
}

/* Linux sizes it from memory (up to 4096 chains); a few hundred tasks at most share a chain
 * of a handful here. */
#define PIDHASH_SZ 256
static struct list_head pid_hash[PIDHASH_SZ];

void attach_pid(struct task_struct *t)
{
	list_add(&t->pid_chain, &pid_hash[(unsigned int)t->pid % PIDHASH_SZ]);
}

void detach_pid(struct task_struct *t)
{
	list_del(&t->pid_chain); /* (leaves it linked to itself: a second detach does nothing) */
}

struct task_struct *find_task_by_pid(int pid)
{
	struct task_struct *t;

	list_for_each_entry(t, &pid_hash[(unsigned int)pid % PIDHASH_SZ], pid_chain)
		if (t->pid == pid)
			return t;
	return NULL;
}

void pidmap_init(void)
{
	if (take_pid(0) != 1) /* the boot CPU's idle task */
		panic("pidmap_init: no memory for the pid map");
	for (int i = 0; i < PIDHASH_SZ; i++)
		INIT_LIST_HEAD(&pid_hash[i]);
	attach_pid(&init_task); /* (on all_tasks since sched_init) */
}
