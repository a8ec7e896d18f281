/* The GUID Partition Table (Linux's fs/partitions/efi.c): a protective MBR, the header at
 * LBA 1 and its entry array, each under a CRC32, the backup header at the disk's last LBA
 * read when the primary is bad; entry i (from 0) is partition i + 1. */
#include "drivers/block/partitions/check.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/page.h"

#define GPT_HEADER_SIGNATURE "EFI PART"
#define GPT_PRIMARY_PARTITION_TABLE_LBA 1
#define GPT_HEADER_MIN 92 /* the fields the UEFI spec defines */
#define EFI_PMBR_OSTYPE_EFI_GPT 0xee
#define GPT_ENTRIES_ORDER 3 /* at most 32 KiB of entries: 256 of 128 bytes */

struct gpt_header {
	char signature[8];
	uint32_t revision, header_size, header_crc32, reserved1;
	uint64_t my_lba, alternate_lba, first_usable_lba, last_usable_lba;
	uint8_t disk_guid[16];
	uint64_t partition_entry_lba;
	uint32_t num_partition_entries, sizeof_partition_entry, partition_entry_array_crc32;
} __packed;

struct gpt_entry {
	uint8_t partition_type_guid[16], unique_partition_guid[16];
	uint64_t starting_lba, ending_lba, attributes;
	uint16_t partition_name[36];
} __packed;

/* The CRC32 of IEEE 802.3 (zlib's, the UEFI spec's): reflected polynomial 0xedb88320, seed
 * and result inverted. */
static uint32_t efi_crc32(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = ~0u;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* Sector 0 holds a 55 aa MBR with a partition of type 0xee: a GPT disk. */
static bool is_pmbr_valid(const uint8_t *mbr)
{
	if (mbr[510] != 0x55 || mbr[511] != 0xaa)
		return false;
	for (int i = 0; i < 4; i++)
		if (mbr[0x1be + 16 * i + 4] == EFI_PMBR_OSTYPE_EFI_GPT)
			return true;
	return false;
}

/* The header at lba and its entries (into ptes, 1 << GPT_ENTRIES_ORDER pages): NULL if both
 * are good, else what is wrong with them. hdr is a sector's buffer. */
static const char *is_gpt_valid(struct gendisk *disk, uint64_t lba, struct gpt_header *hdr,
				uint8_t *ptes)
{
	uint64_t lastlba = get_capacity(disk) - 1;
	uint64_t size;
	uint32_t crc;

	if (read_dev_sector(disk, lba, 1, hdr))
		return "unreadable";
	if (memcmp(hdr->signature, GPT_HEADER_SIGNATURE, 8))
		return "no EFI PART signature";
	if (hdr->header_size < GPT_HEADER_MIN || hdr->header_size > SECTOR_SIZE)
		return "header size out of range";
	crc = hdr->header_crc32;
	hdr->header_crc32 = 0;
	if (efi_crc32(hdr, hdr->header_size) != crc)
		return "header CRC32 is wrong";
	hdr->header_crc32 = crc;
	if (hdr->my_lba != lba)
		return "header's own LBA is not where it is";
	if (hdr->first_usable_lba > lastlba || hdr->last_usable_lba > lastlba)
		return "usable LBAs past the disk's end";
	if (hdr->sizeof_partition_entry != sizeof(struct gpt_entry))
		return "entry size is not 128";
	size = (uint64_t)hdr->num_partition_entries * sizeof(struct gpt_entry);
	if (!hdr->num_partition_entries || size > PAGE_SIZE << GPT_ENTRIES_ORDER)
		return "entry count out of range";
	if (read_dev_sector(disk, hdr->partition_entry_lba,
			    (unsigned int)((size + SECTOR_SIZE - 1) >> SECTOR_SHIFT), ptes))
		return "entries unreadable";
	if (efi_crc32(ptes, size) != hdr->partition_entry_array_crc32)
		return "entry array CRC32 is wrong";
	return NULL;
}

static bool is_guid_zero(const uint8_t *guid)
{
	for (int i = 0; i < 16; i++)
		if (guid[i])
			return false;
	return true;
}

int efi_partition(struct parsed_partitions *state)
{
	struct gendisk *disk = state->disk;
	const char *disk_name = disk->disk_name, *bad, *bad_alt;
	uint64_t lastlba = get_capacity(disk) - 1;
	struct page *page = alloc_page(GFP_KERNEL);
	struct page *entries = alloc_pages(GFP_KERNEL, GPT_ENTRIES_ORDER);
	struct gpt_header *hdr;
	uint8_t *ptes;
	int res = 0;

	if (!page || !entries || get_capacity(disk) < 3)
		goto out;
	hdr = page_address(page);
	ptes = page_address(entries);
	if (read_dev_sector(disk, 0, 1, hdr) || !is_pmbr_valid((const uint8_t *)hdr))
		goto out;
	bad = is_gpt_valid(disk, GPT_PRIMARY_PARTITION_TABLE_LBA, hdr, ptes);
	if (bad) {
		/* Linux looks at the last LBA only with its gpt parameter; the UEFI spec (and
		 * faultline) always do */
		bad_alt = is_gpt_valid(disk, lastlba, hdr, ptes);
		if (bad_alt) {
			printk(" %s: partition table refused: GPT: primary header: %s; backup "
			       "header at LBA %lu: %s\n", disk_name, bad, lastlba, bad_alt);
			res = -1;
			goto out;
		}
		printk("%s: GPT: primary header: %s: using the backup at LBA %lu\n", disk_name,
		       bad, lastlba);
	}
	for (uint32_t i = 0; i < hdr->num_partition_entries && i < state->limit - 1; i++) {
		const struct gpt_entry *e = (const void *)(ptes + i * sizeof(*e));

		/* unused, or not on the disk: left out, as Linux's is_pte_valid */
		if (is_guid_zero(e->partition_type_guid) || e->starting_lba > e->ending_lba ||
		    e->ending_lba > lastlba)
			continue;
		put_partition(state, i + 1, e->starting_lba, e->ending_lba - e->starting_lba + 1);
	}
	res = 1;
out:
	if (page)
		__free_page(page);
	if (entries)
		__free_pages(entries, GPT_ENTRIES_ORDER);
	return res;
}
