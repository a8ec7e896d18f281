/* The clock policy's hand (mm/reclaim_clock.c), shared with the lab that writes its sweep
 * (mm/exercises/clock.c, docs/reclaim-lab.md). */
#ifndef MM_RECLAIM_CLOCK_H
#define MM_RECLAIM_CLOCK_H

#include "mm/page.h"

/* The page under the hand, taken off the ring isolated (PG_lru clear, a reference held), the
 * hand moved on to the next; NULL when the ring is empty. Takes lru_lock itself. */
struct page *clock_take(void);
/* Give a page clock_take took its second chance: back on the ring just behind the hand, the
 * last place the hand reaches again, and the reference dropped. Takes lru_lock itself. */
void clock_keep(struct page *page);
/* The hand's sweep for one victim (the lab clock): see its contract in mm/reclaim_clock.c. */
struct page *clock_advance_hand(unsigned long max, unsigned long *scanned);

#endif
