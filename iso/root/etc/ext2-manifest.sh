# tests/boot/ext2.sh: every path under $1, sorted: "stat PATH MODE(hex) UID GID SIZE NLINK",
# then "md5 PATH SUM" of each file and "link PATH TARGET" of each symbolic link, as
# tests/boot/ext2-image.py writes them (names hold no blanks). busybox here and on the host.
cd "$1" || exit 1
find . -exec stat -c 'stat %n %f %u %g %s %h' {} + | LC_ALL=C sort
find . -type f -exec md5sum {} + | sed 's/^\([0-9a-f]*\)  \(.*\)$/md5 \2 \1/' | LC_ALL=C sort
find . -type l | LC_ALL=C sort | while read -r l; do echo "link $l $(readlink "$l")"; done
