/* uf-pager.h: what the user-level pager's SIGSEGV handler (pager(), in user/uf-pager.c or the
 * lab's user/exercises/uf_pager.c) shares with the program that installs it. */
#ifndef UF_PAGER_H
#define UF_PAGER_H

#include <signal.h>

#define PAGE 4096UL
#define NPAGES 32

extern char *region;          /* NPAGES pages, mapped PROT_NONE: every first touch faults */
extern int backing;           /* the file whose page i fills page i of region */
extern volatile int pageins;  /* pages the handler has filled */
extern volatile int bad;      /* set by the handler for a fault it cannot serve */

/* The SIGSEGV handler (SA_SIGINFO): fill the faulting page of region from backing, leave it
 * readable, return so the access restarts. */
void pager(int sig, siginfo_t *si, void *ctx);

#endif
