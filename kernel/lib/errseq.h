/* errseq_t (Linux 4.13's lib/errseq.c): an error that each of several watchers hears of once. A
 * writeback error goes into its file's mapping; every open file description of the file keeps
 * a cursor into it, so the next fsync through each one reports it, once. */
#ifndef KERNEL_LIB_ERRSEQ_H
#define KERNEL_LIB_ERRSEQ_H

#include "kernel/compiler.h"

/* The low ERRSEQ_SHIFT bits: the last error (a positive errno); then one bit "seen"; the rest
 * a counter, moved on by an error set after the last one was seen. 0: never an error. */
typedef uint32_t errseq_t;

/* Record err (-errno; 0 does nothing). A watcher that saw the error before will see this
 * one; two errors between looks are one report (the later errno). */
void errseq_set(errseq_t *eseq, int err);
/* A new watcher's cursor: the value now if its error was seen, else 0, so that an error nobody
 * has heard of yet is reported to the newcomer too. */
errseq_t errseq_sample(errseq_t *eseq);
/* Has an error been recorded since the watcher's *since? Then -errno, marked seen, and *since
 * moved to it (the next call says 0 until another error); else 0. */
int errseq_check_and_advance(errseq_t *eseq, errseq_t *since);

#endif
