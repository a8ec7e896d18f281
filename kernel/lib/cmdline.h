/* The kernel command line: space-separated words, each `key` or `key=value`. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "kernel/compiler.h"

void cmdline_init(const char *line);   /* copies it; later words win over earlier ones */
void cmdline_append(const char *words);
const char *cmdline_text(void);
/* The value of key (copied into buf, "" for a bare `key`); false when key is absent. */
bool cmdline_get(const char *key, char *buf, size_t size);
bool cmdline_has(const char *key);
long cmdline_get_long(const char *key, long def);
/* Print one line for each parameter the kernel does not know. */
void cmdline_check_unknown(void);

#endif
