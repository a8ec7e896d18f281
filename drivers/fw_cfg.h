/* QEMU fw_cfg: read a named file the emulator was started with (-fw_cfg name=...). */
#ifndef DRIVERS_FW_CFG_H
#define DRIVERS_FW_CFG_H

#include "kernel/compiler.h"

/* Copy the file into buf (NUL-terminated, truncated to size-1); false if absent or not QEMU. */
bool fw_cfg_read_file(const char *name, char *buf, size_t size);

#endif
