/* Reading a disk's partition table at its registration (Linux's fs/partitions/check.c): each
 * reader in turn (GPT first: its protective MBR would read as one MBR partition), every
 * partition held to the disk's size, then added and named on one boot line. */
#include "drivers/block/partitions/check.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"

static int (*const check_part[])(struct parsed_partitions *) = {
	efi_partition,
	msdos_partition,
	NULL,
};

void pp_append(struct parsed_partitions *state, const char *s)
{
	size_t n = strlen(s);

	if (state->len + n < sizeof(state->line)) {
		memcpy(state->line + state->len, s, n + 1);
		state->len += n;
	}
}

void put_partition(struct parsed_partitions *state, unsigned int n, uint64_t from,
		   uint64_t size)
{
	char name[40];

	if (n >= state->limit)
		return;
	state->parts[n].from = from;
	state->parts[n].size = size;
	snprintf(name, sizeof(name), " %s%u", state->disk->disk_name, n);
	pp_append(state, name);
}

int read_dev_sector(struct gendisk *disk, uint64_t sector, unsigned int count, void *buf)
{
	return blk_rw(disk, READ, sector, count, buf);
}

/* A partition that does not fit the disk makes the whole table suspect: refused, by name. */
static bool partitions_fit(const struct parsed_partitions *state)
{
	const struct gendisk *disk = state->disk;
	uint64_t cap = get_capacity(disk);

	for (unsigned int n = 1; n < state->limit; n++) {
		uint64_t from = state->parts[n].from, size = state->parts[n].size;

		if (size && (from >= cap || size > cap - from)) {
			printk(" %s: partition table refused: %s%u (sectors %lu-%lu) ends past "
			       "the disk's last sector %lu\n", disk->disk_name, disk->disk_name, n,
			       from, from + size - 1, cap - 1);
			return false;
		}
	}
	return true;
}

void rescan_partitions(struct gendisk *disk)
{
	struct parsed_partitions *state = kzalloc(sizeof(*state));
	int res = 0;

	if (!state) {
		printk(" %s: no memory to read the partition table\n", disk->disk_name);
		return;
	}
	state->disk = disk;
	state->limit = DISK_MINORS;
	pp_append(state, " ");
	pp_append(state, disk->disk_name);
	pp_append(state, ":");
	for (unsigned int i = 0; check_part[i] && !res; i++)
		res = check_part[i](state);
	if (res > 0 && partitions_fit(state)) {
		printk("%s\n", state->line);
		for (unsigned int n = 1; n < state->limit; n++)
			if (state->parts[n].size)
				add_partition(disk, n, state->parts[n].from, state->parts[n].size);
	} else if (!res) {
		printk("%s unknown partition table\n", state->line);
	}
	kfree(state);
}
