/* Lab clock (docs/reclaim-lab.md): the clock hand's sweep without the second chance. Built in by
 * `make EXERCISE=clock`, it replaces the real one in mm/reclaim_clock.c. Write your code here. */
#include "mm/reclaim_clock.h"
#include "mm/rmap.h"

/*
 * Contract (mm/reclaim_clock.c has it in full): look at up to max pages from the hand on, each
 * taken with clock_take() (isolated, a reference held; NULL: the ring is empty) and counted in
 * *scanned; page_referenced(page, 0) tests and clears its referenced bits; a page whose bits
 * were set gets its second chance, clock_keep(page); the first page whose bits were clear is
 * the victim. NULL if none was found. As it is, the page under the hand is always the victim:
 * the hand never looks at the bits, and clock is FIFO.
 */
struct page *clock_advance_hand(unsigned long max, unsigned long *scanned)
{
	struct page *page;

	if (!max || !(page = clock_take()))
		return NULL;
	(*scanned)++;
	return page;
}
