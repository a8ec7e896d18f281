/* QEMU's fw_cfg device: the test harness passes extra kernel parameters as the fw_cfg file
 * "opt/faultline/cmdline", so one ISO serves every test boot without rebuilding grub.cfg.
 * On real hardware the signature check fails and nothing happens. */
#include "drivers/fw_cfg.h"
#include "kernel/arch/x86.h"
#include "kernel/lib/string.h"

#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019

static void fw_cfg_read(void *buf, size_t n)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = inb(FW_CFG_DATA);
}

static uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

bool fw_cfg_read_file(const char *name, char *buf, size_t size)
{
	char sig[4];
	uint32_t count;

	outw(FW_CFG_SELECTOR, FW_CFG_SIGNATURE);
	fw_cfg_read(sig, 4);
	if (memcmp(sig, "QEMU", 4) != 0)
		return false;
	outw(FW_CFG_SELECTOR, FW_CFG_FILE_DIR);
	fw_cfg_read(&count, 4);
	count = be32(count);
	for (uint32_t i = 0; i < count; i++) {
		struct {
			uint32_t size;
			uint16_t select;
			uint16_t reserved;
			char name[56];
		} f;

		fw_cfg_read(&f, sizeof(f));
		if (strncmp(f.name, name, sizeof(f.name)) == 0) {
			uint32_t len = be32(f.size);

			if (!size)
				return false;
			len = MIN(len, (uint32_t)size - 1);
			outw(FW_CFG_SELECTOR, __builtin_bswap16(f.select));
			fw_cfg_read(buf, len);
			buf[len] = '\0';
			return true;
		}
	}
	return false;
}
