/* errseq_t: one error value with a counter and a "seen" bit, so that each watcher (each open
 * file of a mapping) hears of each writeback error once (Linux's lib/errseq.c). */
#include "kernel/lib/errseq.h"

#define ERRSEQ_SHIFT 12 /* MAX_ERRNO 4095 fits below */
#define ERRSEQ_ERR ((1U << ERRSEQ_SHIFT) - 1)
#define ERRSEQ_SEEN (1U << ERRSEQ_SHIFT)
#define ERRSEQ_CTR_INC (1U << (ERRSEQ_SHIFT + 1))

void errseq_set(errseq_t *eseq, int err)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_RELAXED), new;

	if (err >= 0 || -err > (int)ERRSEQ_ERR)
		return;
	do {
		new = (old & ~(ERRSEQ_ERR | ERRSEQ_SEEN)) | (errseq_t)-err;
		/* Only an error someone saw moves the counter: otherwise those who have not
		 * looked yet would hear of two errors where one report suffices. */
		if (old & ERRSEQ_SEEN)
			new += ERRSEQ_CTR_INC;
		if (new == old)
			return;
	} while (!__atomic_compare_exchange_n(eseq, &old, new, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
}

errseq_t errseq_sample(errseq_t *eseq)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_ACQUIRE);

	return (old & ERRSEQ_SEEN) ? old : 0;
}

int errseq_check_and_advance(errseq_t *eseq, errseq_t *since)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_ACQUIRE), new;

	if (old == *since)
		return 0;
	new = old | ERRSEQ_SEEN;
	if (new != old) /* a lost race means another watcher set it: the value is the same */
		__atomic_compare_exchange_n(eseq, &old, new, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED);
	*since = new;
	return -(int)(new & ERRSEQ_ERR);
}
