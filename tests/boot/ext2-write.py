#!/usr/bin/env python3
"""The disk of tests/boot/ext2-write.sh and what the host reads back from it. make: a disk whose
sda1 (1 KiB blocks), sda2 (4 KiB blocks) and sda3 (a small one, 1 KiB blocks) hold empty ext2
file systems by mke2fs. part: one partition's bytes as a file, for e2fsck and debugfs.
manifest: user/fs-tree's manifest of a directory, computed from the image by debugfs alone (no
mount, no root): ls -p, stat and dump. crc: a file's size and CRC-32, as user/fsx prints them.
usage: ext2-write.py make IMG
       ext2-write.py part IMG N OUT
       ext2-write.py manifest PART DIR
       ext2-write.py crc PART PATH"""
import os
import re
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkparts import put_table  # noqa: E402

MIB = 1 << 20
# partition: block size, MiB
PARTS = {1: (1024, 40), 2: (4096, 16), 3: (1024, 4)}


def starts():
    """partition: its first byte; the first one at 1 MiB, each right after the one before"""
    at, out = MIB, {}
    for p in sorted(PARTS):
        out[p] = at
        at += PARTS[p][1] * MIB
    return out, at


def make(out):
    first, size = starts()
    disk = bytearray(size)
    put_table(disk, 0, [(0x83, first[p] // 512, PARTS[p][1] * MIB // 512) for p in PARTS])
    with tempfile.TemporaryDirectory() as tmp:
        for p, (bs, mib) in PARTS.items():
            img = os.path.join(tmp, 'p%d' % p)
            subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext2', '-b', str(bs),
                            '-E', 'root_owner=0:0', '-L', 'write-p%d' % p, img, '%dM' % mib],
                           check=True, stdout=subprocess.DEVNULL)
            with open(img, 'rb') as f:
                disk[first[p]:first[p] + mib * MIB] = f.read()
    with open(out, 'wb') as f:
        f.write(disk)


def part(img, p, out):
    first = starts()[0][p]
    with open(img, 'rb') as f, open(out, 'wb') as o:
        f.seek(first)
        o.write(f.read(PARTS[p][1] * MIB))


def debugfs(image, commands):
    """debugfs's output of the commands, split per command: [(command, lines)]"""
    with tempfile.NamedTemporaryFile('w', suffix='.cmds') as f:
        f.write(''.join(c + '\n' for c in commands))
        f.flush()
        out = subprocess.run(['debugfs', '-f', f.name, image], check=True, text=True,
                             capture_output=True, errors='replace').stdout
    parts = []
    for line in out.splitlines():
        if line.startswith('debugfs: '):
            parts.append((line[len('debugfs: '):], []))
        elif parts:
            parts[-1][1].append(line)
    return parts


def listing(image, top):
    """every name under top: {relative path: (mode, uid, gid, size)}, top itself as '.'"""
    names, todo = {}, ['.']
    while todo:
        dirs, todo = todo, []
        for cmd, lines in debugfs(image, ['ls -p "%s/%s"' % (top, d) for d in dirs]):
            d = cmd[len('ls -p "') + len(top) + 1:-1]
            for line in lines:
                m = re.match(r'^/(\d+)/(\d+)/(\d+)/(\d+)/(.*)/(\d*)/$', line)
                if not m or m.group(1) == '0' or m.group(5) in ('.', '..'):
                    continue
                rel = m.group(5) if d == '.' else d + '/' + m.group(5)
                mode = int(m.group(2), 8)
                names[rel] = (mode, int(m.group(3)), int(m.group(4)), m.group(6))
                if mode >> 12 == 0o04:
                    todo.append(rel)
    return names


def manifest(image, top):
    names = listing(image, top)
    paths = ['.'] + sorted(names)
    path = {p: top if p == '.' else top + '/' + p for p in paths}
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        cmds = []
        for i, p in enumerate(paths):
            cmds.append('stat "%s"' % path[p])
            cmds.append('dump "%s" "%s/%d"' % (path[p], tmp, i))
        out = debugfs(image, cmds)
        for i, p in enumerate(paths):
            st = '\n'.join(out[2 * i][1])
            mode = int(re.search(r'Mode: +0?([0-7]+)', st).group(1), 8)
            uid = re.search(r'User: +(\d+)', st).group(1)
            gid = re.search(r'Group: +(\d+)', st).group(1)
            size = re.search(r'Size: (\d+)\n', st).group(1)
            links = re.search(r'Links: (\d+)', st).group(1)
            mtime = int(re.search(r'mtime: 0x([0-9a-f]+)', st).group(1), 16)
            kind = {'regular': 'f', 'directory': 'd', 'symlink': 'l', 'FIFO': 'p'}.get(
                re.search(r'Type: (\S+)', st).group(1), '?')
            crc = target = '-'
            dumped = os.path.join(tmp, str(i))
            if kind == 'f':
                with open(dumped, 'rb') as f:
                    crc = '%08x' % zlib.crc32(f.read())
            elif kind == 'l':
                fast = re.search(r'Fast link dest: "(.*)"', st)
                if fast:
                    target = fast.group(1)
                else:
                    with open(dumped, 'rb') as f:
                        target = f.read().decode()
            elif kind == 'd':
                size = '-'
            lines.append('%s %s %04o %s %s %s %s %d %s %s' % (
                p, kind, mode, uid, gid, links, size, mtime, crc, target))
    print('\n'.join(sorted(lines)))


def crc(image, name):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(['debugfs', '-R', 'dump "%s" "%s/f"' % (name, tmp), image], check=True,
                       capture_output=True)
        with open(tmp + '/f', 'rb') as f:
            data = f.read()
    print('size %d, crc32 %08x' % (len(data), zlib.crc32(data)))


if __name__ == '__main__':
    a = sys.argv[1:]
    if a[:1] == ['make'] and len(a) == 2:
        make(a[1])
    elif a[:1] == ['part'] and len(a) == 4:
        part(a[1], int(a[2]), a[3])
    elif a[:1] == ['manifest'] and len(a) == 3:
        manifest(a[1], a[2])
    elif a[:1] == ['crc'] and len(a) == 3:
        crc(a[1], a[2])
    else:
        sys.exit(__doc__)
