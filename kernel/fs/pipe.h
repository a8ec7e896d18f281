/* Pipes (kernel/fs/pipe.c): PIPE_BUF and the pipe's capacity, as Linux's. */
#ifndef KERNEL_FS_PIPE_H
#define KERNEL_FS_PIPE_H

#define PIPE_BUF 4096    /* writes of at most this many bytes are atomic */
#define PIPE_SIZE 65536  /* what a pipe holds (Linux's default: 16 pages) */

/* Mount pipefs, where every pipe's inode lives, once at boot (its memory is then taken before
 * any process runs, not by the first one that makes a pipe). */
void pipefs_init(void);

#endif
