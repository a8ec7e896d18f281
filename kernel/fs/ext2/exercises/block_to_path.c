/* Lab block_to_path (docs/exercises.md): ext2's block map with only its direct blocks. Built in
 * by `make EXERCISE=block_to_path`, it replaces the real one in kernel/fs/ext2/getblock.c. Write
 * your code here. */
#include "kernel/fs/ext2/ext2.h"

/*
 * Contract: the path through the inode's i_block to block i of its file. offsets[0] is the
 * slot in i_block; each next offset is the slot in the indirect block the previous one names
 * (an indirect block is N = blocksize / 4 block numbers of 4 bytes; the block size is
 * 1 << inode->i_sb->s_blocksize_bits). Blocks 0 to 11 are direct: depth 1, offsets[0] = i.
 * The next N blocks go through the indirect block i_block[EXT2_IND_BLOCK] (depth 2), the next
 * N^2 through the double indirect one, i_block[EXT2_DIND_BLOCK] (depth 3), the next N^3
 * through the triple indirect one, i_block[EXT2_TIND_BLOCK] (depth 4). Return the depth, the
 * number of offsets written; 0 for a block past the triple indirect range (ext2_get_block
 * then answers -EIO). As it is, only the direct blocks are found: every other block is
 * treated as past the triple indirect range, and reading it is an I/O error.
 */
int ext2_block_to_path(struct inode *inode, uint64_t i, unsigned long offsets[4])
{
	(void)inode; /* your code needs its block size */
	if (i < EXT2_NDIR_BLOCKS) {
		offsets[0] = i;
		return 1;
	}
	/* Your code: the indirect, double and triple indirect ranges. */
	return 0;
}
