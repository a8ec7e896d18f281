/* The kernel's pid 1 (kernel/runner.c). */
#ifndef KERNEL_RUNNER_H
#define KERNEL_RUNNER_H

int kernel_init(void *unused);  /* the body of pid 1 */
/* Run "[timeout=SECONDS ]PROGRAM ARG..." as a child, within the line's time limit or
 * default_secs (0: none); its wait status. */
int run_line(const char *line, unsigned long default_secs);

#endif
