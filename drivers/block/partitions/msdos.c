/* The MBR (DOS) partition table (Linux's fs/partitions/msdos.c): four primary entries in
 * sector 0 numbered 1-4, and an extended partition's chain of logical ones numbered from 5. */
#include "drivers/block/partitions/check.h"
#include "kernel/lib/string.h"
#include "mm/gfp.h"
#include "mm/page.h"

#define MSDOS_LABEL_MAGIC 0xaa55 /* bytes 0x55 0xaa at offset 510 */
#define PART_TABLE_OFFSET 0x1be
#define DOS_EXTENDED_PARTITION 0x05
#define WIN98_EXTENDED_PARTITION 0x0f
#define LINUX_EXTENDED_PARTITION 0x85
#define EFI_PMBR_OSTYPE_EFI_GPT 0xee
#define LOGICAL_CHAIN_MAX 100 /* EBRs in a row without a logical partition: a loop */

struct partition {
	uint8_t boot_ind; /* 0x80: active */
	uint8_t head, sector, cyl;
	uint8_t sys_ind; /* what kind of partition */
	uint8_t end_head, end_sector, end_cyl;
	uint32_t start_sect; /* little-endian, as x86 reads it */
	uint32_t nr_sects;
} __packed;

static bool msdos_magic_present(const uint8_t *sect)
{
	return (sect[510] | sect[511] << 8) == MSDOS_LABEL_MAGIC;
}

static bool is_extended_partition(const struct partition *p)
{
	return p->sys_ind == DOS_EXTENDED_PARTITION || p->sys_ind == WIN98_EXTENDED_PARTITION ||
	       p->sys_ind == LINUX_EXTENDED_PARTITION;
}

/* The chain of extended boot records from first_sector: each holds one logical partition
 * (relative to its own EBR) and the link to the next EBR (relative to the extended one). */
static void parse_extended(struct parsed_partitions *state, uint8_t *buf, uint64_t first_sector,
			   uint64_t first_size)
{
	uint64_t this_sector = first_sector, this_size = first_size;
	unsigned int next = 5, loopct = 0;

	for (;;) {
		const struct partition *p = (const void *)(buf + PART_TABLE_OFFSET);
		int i;

		if (++loopct > LOGICAL_CHAIN_MAX || next >= state->limit)
			return;
		if (read_dev_sector(state->disk, this_sector, 1, buf) || !msdos_magic_present(buf))
			return;
		for (i = 0; i < 4; i++) {
			uint64_t offs = p[i].start_sect, size = p[i].nr_sects;

			if (!size || is_extended_partition(&p[i]))
				continue;
			/* the 3rd and 4th entries of an EBR sometimes hold garbage */
			if (i >= 2 && (offs > this_size || size > this_size - offs))
				continue;
			put_partition(state, next++, this_sector + offs, size);
			loopct = 0;
			if (next >= state->limit)
				return;
		}
		for (i = 0; i < 4; i++)
			if (p[i].nr_sects && is_extended_partition(&p[i]))
				break;
		if (i == 4)
			return;
		this_sector = first_sector + p[i].start_sect;
		this_size = p[i].nr_sects;
	}
}

int msdos_partition(struct parsed_partitions *state)
{
	struct page *page = alloc_page(GFP_KERNEL);
	uint8_t *buf;
	struct partition pt[4];
	int res = 0;

	if (!page)
		return 0;
	buf = page_address(page);
	if (read_dev_sector(state->disk, 0, 1, buf) || !msdos_magic_present(buf))
		goto out;
	memcpy(pt, buf + PART_TABLE_OFFSET, sizeof(pt)); /* buf is reused for the EBRs */
	for (int i = 0; i < 4; i++) {
		/* a boot sector with 55 aa (a FAT file system's) is not a partition table */
		if (pt[i].boot_ind != 0 && pt[i].boot_ind != 0x80)
			goto out;
		/* GPT's protective MBR: efi.c's, which found it bad or absent */
		if (pt[i].sys_ind == EFI_PMBR_OSTYPE_EFI_GPT)
			goto out;
	}
	for (unsigned int slot = 1; slot <= 4; slot++) {
		const struct partition *p = &pt[slot - 1];

		if (!p->nr_sects)
			continue;
		if (is_extended_partition(p)) {
			/* the extended partition itself: 2 sectors (1 KiB), where LILO may sit */
			put_partition(state, slot, p->start_sect, MIN(p->nr_sects, 2u));
			pp_append(state, " <");
			parse_extended(state, buf, p->start_sect, p->nr_sects);
			pp_append(state, " >");
			continue;
		}
		put_partition(state, slot, p->start_sect, p->nr_sects);
	}
	res = 1;
out:
	__free_page(page);
	return res;
}
