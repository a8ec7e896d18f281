#!/usr/bin/env python3
"""The disk of the lab block_to_path (tests/exercise.sh block_to_path, docs/exercises.md) and its
verdict. sda1 and sda2 hold ext2 file systems in 1 and 4 KiB blocks, each with one sparse file,
map, whose data blocks lie on both sides of every boundary of the block map and inside each
range, each stamped with its own number; the files read and bmap beside it list the blocks the
guest reads and asks FIBMAP about. Expectations come from the stamps and debugfs, never from
faultline.
usage: ext2-map.py make WORK IMG    the images in WORK, the disk in IMG
       ext2-map.py check WORK LOG   the guest's serial log LOG held to them: "N checks" (exit
                                    0), or how many failed and the first three (exit 1)"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkparts import put_table  # noqa: E402

MIB = 2048  # sectors
SIZES = {1: 1024, 2: 4096}  # partition: block size
# Blocks with data: both sides of every boundary of 1 KiB blocks (N = 256: 12, 268, 65804) and
# of 4 KiB blocks (N = 1024: 1036, 1049612), a triple indirect path of slots 1, 1, 1 in each
# (131597, 2099213), the last block of 1 KiB blocks' triple range (16843019) and, in 4 KiB
# blocks only, one far into theirs (past the range in 1 KiB blocks, where no file reaches).
COMMON = (0, 11, 12, 267, 268, 300, 1035, 1036, 65803, 65804, 131597, 1049611, 1049612,
          2099213, 16843019)
DATA = {1: COMMON, 2: COMMON + (526386187,)}
# FIBMAP besides: holes next to the data, the last block of 4 KiB blocks' triple range, and the
# first block past it (past the range in 1 KiB blocks, those from 16843020 on)
BMAP = DATA[2] + (13, 269, 1037, 65805, 16843018, 16843020, 1074791435, 1074791436)
PAST = "is past the triple indirect block's reach"  # ext2_get_block's message for depth 0


def tool(name):
    """e2fsprogs' commands live in /sbin, often not in a user's PATH."""
    return shutil.which(name) or '/sbin/' + name


def bmaps(img):
    """debugfs's bmap of each block of BMAP: the disk block (0: a hole), None where it cannot
    map it (past what the block map reaches: its error goes to stderr, no answer to stdout)."""
    r = subprocess.run([tool('debugfs'), '-f', '-', img],
                       input=''.join('bmap /map %d\n' % b for b in BMAP),
                       capture_output=True, text=True, check=True)
    got, lines = {}, r.stdout.split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'debugfs: bmap /map (\d+)$', line)
        if m:
            ans = lines[i + 1] if i + 1 < len(lines) else ''
            got[int(m.group(1))] = int(ans) if ans.isdigit() else None
    if sorted(got) != sorted(BMAP):
        sys.exit('%s: debugfs answered bmap for %s, not %s' % (img, sorted(got), sorted(BMAP)))
    return got


def make(work, out):
    os.makedirs(work, exist_ok=True)
    disk = bytearray(MIB * 512)
    entries = []
    for p, bs in SIZES.items():
        tree, img = '%s/tree%d' % (work, p), '%s/p%d.img' % (work, p)
        os.makedirs(tree, exist_ok=True)
        blocks = DATA[p]
        with open(tree + '/map', 'wb') as f:
            for b in blocks:
                f.seek(b * bs)
                f.write(('block %d\n' % b).encode().ljust(bs, b'.'))
        with open(tree + '/read', 'w') as f:
            f.write(' '.join(str(b) for b in blocks) + '\n')
        with open(tree + '/bmap', 'w') as f:
            f.write(' '.join(str(b) for b in BMAP) + '\n')
        subprocess.run([tool('mke2fs'), '-q', '-F', '-t', 'ext2', '-b', str(bs), '-d', tree, img,
                        '4M'], check=True, stdout=subprocess.DEVNULL)
        shutil.rmtree(tree)  # its map's apparent size is terabytes: leave none of it around
        entries.append((0x83, len(disk) // 512, 4 * MIB))
        disk += open(img, 'rb').read()
    put_table(disk, 0, entries)
    with open(out, 'wb') as f:
        f.write(disk)


def level(bs, b):
    """Where block b lies in the block map, in words, for the messages."""
    n = bs // 4
    for name, size in (('direct', 12), ('indirect', n), ('double indirect', n * n),
                       ('triple indirect', n ** 3)):
        if b < size:
            return '%s the %s range' % ('first of' if b == 0 else 'last of' if b == size - 1
                                        else 'in', name)
        b -= size
    return 'past the triple indirect range'


def check(work, log):
    text = open(log, errors='replace').read().replace('\r', '')
    checks, failed = 0, []
    for p, bs in SIZES.items():
        img, what = '%s/p%d.img' % (work, p), '%d KiB blocks' % (bs // 1024)
        got = dict(re.findall(r'^ext2-map: p%d read (\d+): (.*)$' % p, text, re.M))
        for b in DATA[p]:
            checks += 1
            want = 'block %d' % b
            if got.get(str(b)) != want:
                failed.append('%s: read block %d (%s): "%s", want "%s"' % (
                    what, b, level(bs, b), got.get(str(b), '(no line)'), want))
        got = dict(re.findall(r'^ext2-map: p%d bmap (\d+): (.*)$' % p, text, re.M))
        past = set(re.findall(r'^ext2: sda%d: inode \d+: block (\d+) %s$' % (p, PAST), text,
                              re.M))
        for b, disk in bmaps(img).items():
            checks += 2
            if got.get(str(b)) != str(disk or 0):
                failed.append('%s: FIBMAP block %d (%s): %s, want %s' % (
                    what, b, level(bs, b), got.get(str(b), '(no line)'),
                    disk if disk is not None else "0 (debugfs can't map it)"))
            if (disk is None) != (str(b) in past):
                failed.append('%s: block %d (%s): the kernel %s "%s"' % (
                    what, b, level(bs, b), 'said' if str(b) in past else 'did not say',
                    PAST))
    if not failed:
        print('%d checks' % checks)
        return 0
    print('ext2-map failed %d of %d checks; the first:' % (len(failed), checks))
    for f in failed[:3]:
        print('    ' + f)
    return 1


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
