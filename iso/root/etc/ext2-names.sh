# tests/boot/ext2-names.sh: on the host-made ext2 on /dev/sda, mounted read-write on /mnt,
# names are made, moved and removed; each result is checked here ("names: FAIL WHAT" and exit
# 1 at the first wrong one), the tree is listed ("tree: " lines) after a remount, and the host
# checks the image (e2fsck, debugfs) after the boot
fail() {
	echo "names: FAIL $*"
	exit 1
}
# links PATH N: stat's link count of PATH must be N
links() {
	[ "$(stat -c %h "$1")" = "$2" ] || fail "$1 has $(stat -c %h "$1") links, not $2"
}
long=0123456789abcdefghijklmnopqrstuvwxyz/0123456789abcdefghijklmnopqrstuvwxyz
long=$long/$long/$long # 227 bytes: a slow symlink, its target in a block

mkdir -p /mnt
mount -t ext2 /dev/sda /mnt || exit 1
echo "ext2: mounted read-write"
cd /mnt || exit 1
mkdir d/sub e || fail "mkdir d/sub e"
links d 3
links d/sub 2
touch d/new || fail "create d/new"
mknod d/fifo p && mknod d/null c 1 3 && mknod d/sda1 b 8 1 && mknod d/big c 300 70000 ||
	fail mknod
[ "$(stat -c '%t:%T' d/big)" = "12c:11170" ] || fail "d/big is $(stat -c '%t:%T' d/big)"
ln -s short/target d/fast && ln -s "$long" d/slow || fail "ln -s"
[ "$(readlink d/slow)" = "$long" ] || fail "d/slow reads $(readlink d/slow)"
[ "$(readlink d/fast)" = short/target ] || fail "d/fast reads $(readlink d/fast)"
# 59 bytes and the NUL fill i_block (fast), 60 do not (slow): e2fsck checks which on the host
for n in 59 60; do
	x=$(head -c $n /dev/zero | tr '\0' x)
	ln -s "$x" d/link$n && [ "$(readlink d/link$n)" = "$x" ] || fail "a symlink of $n bytes"
done
# a target of a block with its NUL is the longest (ENAMETOOLONG past it); a name of 255 bytes
bs=$(stat -f -c %S /mnt)
edge=$(head -c $((bs - 1)) /dev/zero | tr '\0' e)
ln -s "$edge" d/edge || fail "a symlink of $((bs - 1)) bytes"
[ "$(readlink d/edge)" = "$edge" ] || fail "d/edge does not read back"
out=$(ln -s "${edge}e" d/over 2>&1) && fail "a symlink of $bs bytes"
case $out in *"too long"*) ;; *) fail "ln -s of $bs bytes: $out" ;; esac
touch "d/$(head -c 255 /dev/zero | tr '\0' n)" || fail "a name of 255 bytes"
out=$(touch "d/$(head -c 256 /dev/zero | tr '\0' n)" 2>&1) && fail "a name of 256 bytes"
case $out in *"too long"*) ;; *) fail "touch of a name of 256 bytes: $out" ;; esac
# names enough to need a second block of d, then every other one removed: records merged
i=0
while [ $i -lt 120 ]; do
	touch "d/a-name-long-enough-to-fill-blocks-$i" || fail "create name $i"
	i=$((i + 1))
done
i=0
while [ $i -lt 120 ]; do
	rm "d/a-name-long-enough-to-fill-blocks-$i" || fail "unlink name $i"
	i=$((i + 2))
done
[ "$(ls d | grep -c '^a-name')" = 60 ] || fail "$(ls d | grep -c '^a-name') names, not 60"
mv d/new d/renamed || fail "rename in one directory"
touch d/x d/y && mv d/x d/y || fail "rename over a file"
[ ! -e d/x ] && [ -e d/y ] || fail "d/x still there or d/y gone"
# renameat2's flags: NOREPLACE (the VFS's EEXIST; a free name moves), EXCHANGE (ext2's EINVAL)
[ "$(fsread rename2 d/y d/b noreplace)" = "d/y d/b: File exists" ] || fail "noreplace over d/b"
[ "$(fsread rename2 d/y d/z noreplace)" = "d/y d/z: ok" ] && mv d/z d/y ||
	fail "noreplace to d/z"
[ "$(fsread rename2 d/y d/b exchange)" = "d/y d/b: Invalid argument" ] || fail "exchange"
mv d/sub e/moved || fail "rename of a directory to another parent"
links d 2
links e 3
[ "$(cd e/moved/.. && pwd)" = /mnt/e ] || fail "e/moved/.. is not /mnt/e"
mkdir e/moved/in && mv e/moved/in e/moved/over && mkdir e/empty &&
	mv -T e/empty e/moved/over || fail "rename of a directory over an empty one"
links e 3
links e/moved 3
# full's entries were never looked up: only ext2 knows that it is not empty
mkdir e/t && out=$(mv -T e/t full 2>&1) && fail "rename over a full directory"
case $out in *"not empty"*) ;; *) fail "mv -T e/t full: $out" ;; esac
rmdir e/t || fail "rmdir e/t"
out=$(rmdir full 2>&1) && fail "rmdir of a full directory"
case $out in *"not empty"*) ;; *) fail "rmdir full: $out" ;; esac
mkdir gone && rmdir gone || fail "rmdir"
[ ! -e gone ] || fail "gone is still there"
# hard links made here: a second name of d/a; not of a directory, nor across file systems
ln d/a d/hard || fail "link d/a d/hard"
links d/a 2
[ "$(stat -c %i d/a)" = "$(stat -c %i d/hard)" ] || fail "d/a and d/hard are not one inode"
out=$(ln e e2 2>&1) && fail "a link to a directory"
case $out in *"not permitted"*) ;; *) fail "ln e e2: $out" ;; esac
out=$(ln d/a /tmp/a 2>&1) && fail "a link to another file system"
case $out in *"cross-device"*) ;; *) fail "ln d/a /tmp/a: $out" ;; esac
# hard links the host made: the inode is named by the first name looked up
stat h1 >/dev/null && rm h2 || fail "unlink h2, a second name of h1's inode"
[ ! -e h2 ] || fail "h2 is still there"
links h1 1
[ "$(cat h1)" = "hard link" ] || fail "h1 reads $(cat h1)"
stat k1 >/dev/null && mv k2 d/k3 || fail "rename of k2, a second name of k1's inode"
[ ! -e k2 ] || fail "k2 is still there"
links k1 2
[ "$(stat -c %i k1)" = "$(stat -c %i d/k3)" ] || fail "k1 and d/k3 are not one inode"
rm k1 && links d/k3 1 || fail "unlink k1"
# two writers at once in one directory (the big kernel lock is let go at every sleep): each
# creates, renames and removes every other one of its names
mkdir c || fail "mkdir c"
for w in 1 2; do
	(
		i=0
		while [ $i -lt 40 ]; do
			touch c/w$w-$i && mv c/w$w-$i c/m$w-$i || exit 1
			if [ $((i % 2)) = 0 ]; then rm c/m$w-$i || exit 1; fi
			i=$((i + 1))
		done
	) &
	eval "pid$w=\$!"
done
wait "$pid1" && wait "$pid2" || fail "a writer in c failed"
[ "$(ls c | grep -c '^m[12]-[0-9]*[13579]$')" = 40 ] && [ "$(ls c | wc -l)" = 40 ] ||
	fail "c holds $(ls c | tr '\n' ' ')"
# a name made or removed stamps its directory's mtime and ctime (seconds on the disk)
t=$(stat -c %Y:%Z e)
sleep 1
touch e/tm || fail "touch e/tm"
[ "$(stat -c %Y e)" -gt "${t%:*}" ] && [ "$(stat -c %Z e)" -gt "${t#*:}" ] ||
	fail "e's times $(stat -c %Y:%Z e) after a create, $t before"
t=$(stat -c %Y:%Z e)
sleep 1
rm e/tm || fail "rm e/tm"
[ "$(stat -c %Y e)" -gt "${t%:*}" ] && [ "$(stat -c %Z e)" -gt "${t#*:}" ] ||
	fail "e's times $(stat -c %Y:%Z e) after an unlink, $t before"
# a full disk: a name that needs a new block of its directory is ENOSPC, and the inode made
# for it goes again: the free counts as before once the file filling it goes
free=$(stat -f -c '%f blocks, %d inodes' /mnt)
dd if=/dev/zero of=fill bs=1024 2>/dev/null
out=$(mkdir nospace 2>&1) && fail "mkdir on a full disk"
case $out in *"No space"*) ;; *) fail "mkdir nospace: $out" ;; esac
i=0
while out=$(touch "full/a-name-long-enough-to-fill-the-block-$i" 2>&1); do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "200 names in full's one block"
done
case $out in *"No space"*) ;; *) fail "touch of name $i in full: $out" ;; esac
rm fill full/a-name-long-enough-* || fail "rm fill"
[ "$(stat -f -c '%f blocks, %d inodes' /mnt)" = "$free" ] ||
	fail "$(stat -f -c '%f blocks, %d inodes' /mnt) free, $free before"
cd / && umount /mnt || fail "umount"
mount -t ext2 -o ro /dev/sda /mnt || fail "mount again"
(cd /mnt && find . | sort | while read -r p; do
	echo "tree: $(stat -c '%A %h' "$p") $p"
done)
umount /mnt || fail "umount again"
echo "names: done"
