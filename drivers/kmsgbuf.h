/* /dev/kmsgbuf (drivers/kmsgbuf.c): a device-memory region for tests of VM_PFNMAP mappings;
 * the ioctl numbers ring 3 uses. */
#ifndef DRIVERS_KMSGBUF_H
#define DRIVERS_KMSGBUF_H

#define KMSGBUF_SUM 0x4b01  /* ioctl: FNV-1a hash of the buffer as the kernel reads it */
#define KMSGBUF_REFS 0x4b02 /* ioctl: the sum of its frames' _count and map counts */
#define KMSGBUF_SIZE 0x4b03 /* ioctl: its size in bytes */

#endif
