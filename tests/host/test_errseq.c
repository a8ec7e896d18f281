/* Host unit test of errseq_t (kernel/lib/errseq.c): each watcher hears of an error once, a
 * watcher sampled after a seen error does not, one sampled before anyone saw it does. */

#include "tests/host/check.h"
#include "kernel/errno.h"
#include "kernel/lib/errseq.c"

/* Two open files of one mapping: each reports the error once, then 0. */
static void test_each_watcher_once(void)
{
	errseq_t wb = 0, a = errseq_sample(&wb), b = errseq_sample(&wb);

	CHECK_EQ(errseq_check_and_advance(&wb, &a), 0);
	errseq_set(&wb, -EIO);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), -EIO);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), 0);
	CHECK_EQ(errseq_check_and_advance(&wb, &b), -EIO);
	CHECK_EQ(errseq_check_and_advance(&wb, &b), 0);
}

/* Sampled after the error was seen: not its to hear of; a new error after: it is. */
static void test_sample_after_seen(void)
{
	errseq_t wb = 0, a = errseq_sample(&wb), c;

	errseq_set(&wb, -EIO);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), -EIO);
	c = errseq_sample(&wb);
	CHECK_EQ(errseq_check_and_advance(&wb, &c), 0);
	errseq_set(&wb, -ENOSPC);
	CHECK_EQ(errseq_check_and_advance(&wb, &c), -ENOSPC);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), -ENOSPC);
}

/* An error nobody has heard of: a watcher sampled now hears of it; two errors between looks
 * are one report, the later errno. */
static void test_unseen(void)
{
	errseq_t wb = 0, a = errseq_sample(&wb), c;

	errseq_set(&wb, -EIO);
	c = errseq_sample(&wb);
	CHECK_EQ(c, 0);
	errseq_set(&wb, -ENOSPC);
	CHECK_EQ(errseq_check_and_advance(&wb, &c), -ENOSPC);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), -ENOSPC);
	CHECK_EQ(errseq_check_and_advance(&wb, &a), 0);
	errseq_set(&wb, 0); /* nothing */
	CHECK_EQ(errseq_check_and_advance(&wb, &a), 0);
}

int main(void)
{
	RUN_TEST(test_each_watcher_once);
	RUN_TEST(test_sample_after_seen);
	RUN_TEST(test_unseen);
	return check_total_failed != 0;
}
