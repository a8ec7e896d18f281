# Busybox sh and its common applets, non-interactively: tests/boot/shell.sh boots
# init=/bin/sh,/usr/share/tests/shell.sh and compares the "sh:" lines with
# tests/boot/shell.expected.
# Output that varies (times, pids, sizes) is reduced to what does not.
export PATH=/usr/bin:/bin:/sbin
t() { echo "sh: $*"; }
t pipe $(echo a | cat)
t pipe3 $(printf 'b\na\nc\n' | sort | head -n 2 | tr '\n' ' ')
echo hello > /tmp/f; echo again >> /tmp/f
t redirect $(cat /tmp/f | wc -l) $(cat < /tmp/f | head -n 1)
t cd $(cd /proc && pwd)
for i in 1 2 3; do printf '%s' "$i"; done > /tmp/loop; t for $(cat /tmp/loop)
t ls-l $(ls -l /etc/hostname | cut -c1-10) $(ls -l /usr/bin/sleep | sed 's/.* -> //')
t id-groups $(id -G)
t ps $(ps | awk -v p=$$ '$1 == p { print $3, $4 }')
t free $(free | head -n 1 | tr -s ' ')
t meminfo $(grep -c '^MemTotal:' /proc/meminfo)
t sleep $(sleep 1 && echo slept)
test -d /proc && test ! -e /nonexistent && t test ok
t wc $(printf 'one two\nthree\n' | wc -l -w)
t grep $(printf 'x\nfoo\nbar\n' | grep -n foo)
t sed $(echo hello world | sed 's/world/faultline/')
t sort $(printf '3\n10\n2\n' | sort -n | tr '\n' ' ')
t head $(seq 1 10 | head -n 3 | tr '\n' ' ')
t env $(env | grep -c '^PATH=/usr/bin')
t id $(id -u) $(id -un) $(id -g)
t uname $(uname -s -m)
t date $(date +%Y | grep -c '^20[0-9][0-9]$')
mkdir -p /tmp/a/b/c && t mkdir $(ls -d /tmp/a/b/c)
rm -r /tmp/a && t rm $(test -e /tmp/a || echo gone)
cp /etc/hostname /tmp/h && t cp $(cat /tmp/h)
mv /tmp/h /tmp/h2 && t mv $(cat /tmp/h2) $(test -e /tmp/h || echo moved)
ln -s /tmp/h2 /tmp/l && t ln $(readlink /tmp/l) $(cat /tmp/l)
chmod 600 /tmp/h2 && t chmod $(stat -c %a /tmp/h2)
mkdir -p /tmp/d/e && touch /tmp/d/x /tmp/d/e/y
t find $(find /tmp/d -type f | sort | tr '\n' ' ')
t xargs $(find /tmp/d -type f | sort | xargs -n 1 basename | tr '\n' ' ')
t exit-status $(false; echo $?) $(sh -c 'exit 7'; echo $?)
t subshell $( (cd /; pwd) ) $(pwd)
t stop-cont $(sleep 1 & p=$!; kill -STOP $p; kill -CONT $p; wait $p; echo $?)
t stop-cont-asleep $(sleep 2 & p=$!; sleep 1; kill -STOP $p; kill -CONT $p; wait $p; echo $?)
# a group: kill(-pgrp), as the shell's fg does
t stop-cont-group $(setsid sleep 2 & p=$!; sleep 1; kill -STOP -$p; kill -CONT -$p; wait $p
	echo $?)
t done
