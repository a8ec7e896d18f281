#!/usr/bin/env python3
"""The disk of tests/boot/ext2-alloc.sh and what the host expects of it. make: sda1 (1 KiB
blocks) and sda2 (4 KiB) hold seed files by mke2fs -d (sda1's xa with a block of extended
attributes); sda3 a group 0 whose block bitmap marks an inode table block free; sda4
(revision 0, no large_file) a file one of whose blocks is marked free. part: one partition as a
file. want: the bytes, sizes and st_blocks each file must have after the guest's
/etc/ext2-alloc.sh, computed here from the writes alone. fact: a number the test needs (the
corrupt block, the cleared one).
usage: ext2-alloc.py make IMG
       ext2-alloc.py part IMG N OUT
       ext2-alloc.py want BLOCKSIZE MOTD
       ext2-alloc.py fact IMG NAME"""
import hashlib
import os
import random
import struct
import subprocess
import tempfile
from sys import argv

# partition: block size, MiB, mke2fs's extra arguments; each starts where the one before ends,
# the first at 1 MiB
PARTS = {1: (1024, 24, []), 2: (4096, 24, []), 3: (1024, 4, []),
         4: (1024, 4, ['-r', '0'])}
SHRINK = 300000  # the seed file cut to 100000 bytes


def seed_bytes():
    return random.Random(34).randbytes(SHRINK)


def debugfs(img, cmd, write=False):
    args = ['debugfs'] + (['-w'] if write else []) + ['-R', cmd, img]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def seed(tmp):
    src = os.path.join(tmp, 'src')
    os.mkdir(src)
    files = {'f': b'original\n', 'big': b'', 'sparse': b'', 'app': b'',
             't': b'tail-me-please-0123456789\n', 'shrink': seed_bytes(),
             'victim': bytes(range(256)) * 20, 'empty': b'', 'xa': b'attributed\n'}
    for name, data in files.items():
        with open(os.path.join(src, name), 'wb') as f:
            f.write(data)
    return src


def itable_last(img):
    """the last block of group 0's inode table"""
    for line in subprocess.run(['dumpe2fs', img], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        if 'Inode table at' in line:
            return int(line.split('at ')[1].split('-')[1].split()[0])
    raise SystemExit('no inode table in dumpe2fs')


def victim_block(img):
    """the second data block of /victim"""
    return int(debugfs(img, 'bmap /victim 1').split()[-1])


def make(out):
    table, at = [], 1 << 20
    for p in sorted(PARTS):
        table.append((0x83, at // 512, PARTS[p][1] << 11))
        at += PARTS[p][1] << 20
    disk = bytearray(at)
    for n, (kind, sector, count) in enumerate(table):  # MBR entries, CHS left 0
        disk[446 + 16 * n:462 + 16 * n] = struct.pack('<4xB3xII', kind, sector, count)
    disk[510:512] = b'\x55\xaa'
    with tempfile.TemporaryDirectory() as tmp:
        src = seed(tmp)
        for (_, sector, _), (p, (bs, mib, extra)) in zip(table, sorted(PARTS.items())):
            img = os.path.join(tmp, 'p%d' % p)
            subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext2', '-b', str(bs)] + extra +
                           ['-E', 'root_owner=0:0', '-d', src, img, '%dM' % mib],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if p == 1:  # an extended attribute too big for the inode: a block of them
                with open(os.path.join(tmp, 'value'), 'wb') as f:
                    f.write(b'x' * 600)
                debugfs(img, 'ea_set -f %s/value /xa user.note' % tmp, write=True)
                if 'File ACL: 0' in debugfs(img, 'stat /xa'):
                    raise SystemExit('debugfs put the attribute in the inode')
            if p == 3:
                debugfs(img, 'freeb %d' % itable_last(img), write=True)
            if p == 4:  # the counts say it is free too: only the bitmap is wrong
                free = int(debugfs(img, 'stats').split('Free blocks:')[1].split()[0])
                group = debugfs(img, 'stats').split('Group  0:')[1]
                gfree = int(group.split('free blocks')[0].split()[-1])
                debugfs(img, 'freeb %d' % victim_block(img), write=True)
                debugfs(img, 'ssv free_blocks_count %d' % (free + 1), write=True)
                debugfs(img, 'set_bg 0 free_blocks_count %d' % (gfree + 1), write=True)
            with open(img, 'rb') as f:
                disk[sector * 512:(sector + (mib << 11)) * 512] = f.read()
    with open(out, 'wb') as f:
        f.write(disk)


def part(img, p, out):
    """partition p as its MBR entry places it"""
    with open(img, 'rb') as f:
        f.seek(446 + 16 * (p - 1) + 8)
        sector, count = struct.unpack('<II', f.read(8))
        f.seek(sector * 512)
        data = f.read(count * 512)
    with open(out, 'wb') as o:
        o.write(data)


def map_blocks(data_blocks, bs):
    """the blocks a file of these data blocks holds, indirect ones included"""
    per = bs // 4
    ind = set()
    for b in data_blocks:
        if b < 12:
            continue
        b -= 12
        if b < per:
            ind.add(('i',))
            continue
        b -= per
        if b < per * per:
            ind.update({('d',), ('d', b // per)})
            continue
        b -= per * per
        ind.update({('t',), ('t', b // (per * per)), ('t', b // (per * per), b // per % per)})
    return len(data_blocks) + len(ind)


def want(bs, motd_path):
    with open(motd_path, 'rb') as f:
        motd = f.read()
    pattern = b''.join(b'%08d' % i for i in range(1280))
    files = {
        'f': b'hello\nmore\n',
        'big': bytes(5 << 20) + pattern,
        'sparse': bytes(70000 * 1024) + motd,
        't': b'tail-me-please-0123456789\n'[:11],
        'shrink': seed_bytes()[:100000],
        'app': bytes(5000000) + b'end\n',
    }
    for name in sorted(files):
        data = files[name]
        nonzero = {i // bs for i in range(0, len(data), 512) if any(data[i:i + 512])}
        if name in ('f', 't', 'shrink', 'big'):  # written (or kept) whole: no holes
            nonzero = set(range((len(data) + bs - 1) // bs))
        blocks = map_blocks(sorted(nonzero), bs) * (bs // 512)
        print('%s %d %d %s' % (name, len(data), blocks, hashlib.md5(data).hexdigest()))


def main():
    cmd = argv[1]
    if cmd == 'make':
        make(argv[2])
    elif cmd == 'part':
        part(argv[2], int(argv[3]), argv[4])
    elif cmd == 'want':
        want(int(argv[2]), argv[3])
    elif cmd == 'fact':
        img, name = argv[2], argv[3]
        print(itable_last(img) if name == 'itable-last' else victim_block(img))
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
