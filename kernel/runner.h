/* The kernel's pid 1 (kernel/runner.c). */
#ifndef KERNEL_RUNNER_H
#define KERNEL_RUNNER_H

int kernel_init(void *unused);  /* the body of pid 1 */
int run_line(const char *line); /* run "PROGRAM ARG..." as a child; its wait status */

#endif
