#!/bin/sh
# Ring 3: one boot runs every test program through runlist=/etc/runlist (the Makefile writes it
# from user/expect.txt, tests/ring3-host.txt and tests/ring3-faultline.txt). Each must end as
# its expectation line says and give back every frame it took (runstats prints the free count
# around each one); kcheck must stay clean. The main boot (-cpu max: SMEP, SMAP and UMIP on)
# also checks what the programs print; the same suite then runs with 32 MiB, with 8 GiB, under
# UEFI, and on 2 and 4 CPUs (QEMU's TCG with a host thread per CPU: truly parallel). The
# programs that need swap (tests/ring3-swap.txt) run in the ring3-swap boots: 48 MiB, a swap
# disk, 1 and 2 CPUs.
# usage: tests/ring3/run.sh [ring3 ring3-32M ring3-8G ring3-uefi ring3-smp2 ring3-smp4
#        ring3-swap ring3-swap-smp2] (default all)
. "$(dirname "$0")/../lib/boot.sh"
. "$(dirname "$0")/../lib/swap.sh"
TIMEOUT=400 # the whole suite in one boot, slower still with little RAM or under UEFI
KARGS="runstats kcheck" # and each boot's runlist= (runlist below)
# runstats' line after each program, as "BEFORE AFTER"
FRAMES='s/^frames: \([0-9]*\) free or cached before, \([0-9]*\) after$/\1 \2/p'

# the expectation lines, "RESULT | /bin/PROG ARGS", comments dropped, of the lists in $LISTS,
# those tests/ring3-boots.txt lets the boot $BOOT run (every line when unset)
LISTS="user/expect.txt tests/ring3-host.txt tests/ring3-faultline.txt"
expectations() {
	# shellcheck disable=SC2086
	cat $LISTS | grep -v '^#' |
		awk -v boot="${BOOT:-}" -f tests/ring3/boots.awk tests/ring3-boots.txt -
}

# runlist BOOT: the kernel parameter that runs the boot BOOT's programs
runlist() {
	if awk -v names=1 -f tests/ring3/boots.awk tests/ring3-boots.txt /dev/null |
		grep -qx -- "$1"; then
		echo "runlist=/etc/runlist-$1"
	else
		echo "runlist=/etc/runlist"
	fi
}

# tests/ring3-boots.txt names only the boots that vary the machine, and each of its lines
# matches a program line of the lists
bad_boots=$(awk -v names=1 -f tests/ring3/boots.awk tests/ring3-boots.txt /dev/null |
	while IFS= read -r b; do
		case $b in
		ring3-32M | ring3-8G | ring3-uefi | ring3-smp4) ;;
		*) echo "no boot $b may leave programs out" ;;
		esac
		# shellcheck disable=SC2086
		cat $LISTS | grep -v '^#' |
			awk -v boot="$b" -v check=1 -f tests/ring3/boots.awk tests/ring3-boots.txt -
	done)
if [ -n "$bad_boots" ]; then
	echo "tests/ring3-boots.txt: $bad_boots" >&2
	exit 2
fi

# ring3_results NAME [STATUS]: one test per program of the runlist boot NAME (its result, its
# frames back) and one for kcheck after all of them. STATUS: QEMU's, unless given 35 when a
# program of the boot's list is meant not to exit 0 (the runner then exits with status 1), 33
# when every one is.
ring3_results() {
	name=$1 log="$LOGS/$1.log"
	tr -d '\r' <"$log" >"$log.txt"
	status=${2:-33}
	# (35 when a program of the boot's list is meant not to exit 0: segv, vm-mprotect, ...)
	BOOT=$name expectations | grep -vq '^exit 0 |' && status=${2:-35}
	expect "$name" "$status" 'run: done'
	BOOT=$name expectations | while IFS= read -r e; do
		want=$(echo "${e%%|*}" | sed 's/ *$//')
		line=$(echo "${e#*|}" | sed 's/^ *//; s/ *$//')
		got=$(grep -F "run: $line: " "$log.txt" | head -1 | sed "s|^run: $line: ||")
		frames=$(grep -F -A1 "run: $line: " "$log.txt" | sed -n "$FRAMES" | head -1)
		if [ "$got" != "$want" ]; then
			echo "not ok - $name $line: got '${got:-no result line}', expected '$want'"
		elif [ -z "$frames" ] || [ "${frames% *}" != "${frames#* }" ]; then
			echo "not ok - $name $line: $want, but frames (before after) are" \
				"'${frames:-missing}'"
		else
			echo "ok - $name $line: $want, frames back (${frames% *} free)"
		fi
	done >"$log.tap"
	relay "$log.tap" "$log.txt"
	n=$(grep -c '^kcheck: .* checked: 0 mismatches$' "$log.txt")
	m=$(BOOT=$name expectations | wc -l)
	if [ "$n" -eq "$m" ]; then
		ok "$name: kcheck after each of the $m programs: 0 mismatches"
	else
		notok "$name: kcheck clean after $n of $m programs" "$log.txt"
	fi
}

# printed WHAT PATTERN: what the programs print, checked against what they must print
printed() {
	if grep -Eq -- "$2" "$LOGS/ring3.log.txt"; then
		ok "ring3: $1"
	else
		notok "ring3: $1 (no line matching '$2')" "$LOGS/ring3.log.txt"
	fi
}

# narrated BOOT PROG STEP FRAMES PATTERN...: what PROG -v told in the boot BOOT of its step titled
# STEP (the lines up to its next step) has a line matching each grep -E PATTERN, and its frame
# line says FRAMES: "moved" (one frame before, another after: a copy), "new" (none before, one
# after), "swapped" (a swap entry before, a frame after), "same" (one frame before and after)
# or "none" (no frame before or after)
narrated() {
	boot=$1 prog=$2 step=$3 frames=$4 told="$LOGS/$1.$2.step"
	shift 4
	awk -v head="$prog -v: step " -v title="$step (" '
		index($0, head) == 1 { on = index($0, ": " title) > 0; if (on) found = 1 }
		on { print } found && !on { exit }' "$LOGS/$boot.log.txt" >"$told"
	why=""
	[ -s "$told" ] || why="no step '$step' in $prog -v's output"
	for p in "$@"; do
		[ -z "$why" ] && ! grep -Eq -- "$p" "$told" && why="no line matching '$p'"
	done
	f=$(sed -n "s/^$prog -v:   frame \(.*\) -> \(.*\)$/\1|\2/p" "$told")
	old=$(echo "${f%%|*}" | grep -o '0x[0-9a-f]*' | head -n 1)
	new=$(echo "${f#*|}" | grep -o '0x[0-9a-f]*' | head -n 1)
	case $frames in
	moved) [ -n "$old" ] && [ -n "$new" ] && [ "$old" != "$new" ] ;;
	new) [ "${f%%|*}" = none ] && [ -n "$new" ] ;;
	swapped) [ "${f%%|*}" = "none (in swap)" ] && [ -n "$new" ] ;;
	same) [ -n "$old" ] && [ "$old" = "$new" ] ;;
	none) [ "$f" = "none|none" ] ;;
	*) false ;;
	esac || why="${why:-its frame line is '${f:-missing}', not $frames}"
	if [ -z "$why" ]; then
		ok "$boot: $prog -v tells '$step': ${f%%|*} -> ${f#*|}"
	else
		notok "$boot: $prog -v: $why" "$told"
	fi
}

ring3_main() {
	boot ring3 256M "$(runlist ring3) $KARGS" --cpu max
	ring3_results ring3
	log="$LOGS/ring3.log.txt"
	if grep -q '^cpu: SMEP on, SMAP on, UMIP on' "$log"; then
		ok "ring3: the suite ran with SMEP, SMAP and UMIP on"
	else
		notok "ring3: SMEP/SMAP/UMIP not all on under -cpu max" "$log"
	fi
	printed "musl printf reaches the console" '^hello, world$'
	printed "an unknown system call is reported with pid, program and number" \
		'^syscall: pid [0-9]+ \(sysinfo\) called unknown system call 1000: -ENOSYS$'
	segv='^segfault: pid [0-9]+ \(segv\): SIGSEGV \(kernel address\) at ffffffff80100000,'
	segv=$segv' rip [0-9a-f]+, error 0x7 \(protection write user\)$'
	printed "the SIGSEGV report names pid, program, address, rip and error bits" "$segv"
	printed "a static glibc binary prints with printf" '^hello from glibc$'
	printed "busybox echo" '^hello from busybox$'
	printed "busybox cat /etc/motd" \
		'^Welcome to faultline: a teaching kernel about page faults\.$'
	# -1: stdout is the console, a terminal, where ls would print columns
	printed "busybox ls -1 / lists the ramdisk root" '^bin$'
	printed "lsbin lists /bin" '^lsbin: /bin has: .*busybox.* hello .*waitstat'
	printed "fpu: both concurrent children kept their registers" '^fpu: ok'
	# busybox's readers of /proc: ps (stat, cmdline), free, uptime, top (stat, meminfo)
	printed "busybox ps lists itself with its arguments from /proc/PID" \
		'^ +[0-9]+ +1 +[0-9]+ R +[0-9]+ +[0-9]+ busybox +/bin/busybox ps -o '
	printed "busybox ps lists pid 1, a kernel thread" '^ +1 +0 +0 S'
	printed "busybox free shows the memory" '^Mem: +[0-9]+ +[0-9]+ +[0-9]+'
	printed "busybox uptime shows the load" ' up .* load average: [0-9]+\.[0-9]+'
	printed "busybox top shows the CPU line from /proc/stat" '^CPU: +[0-9]+% usr'
	top='^ +[0-9]+ +1 +(0|root) +R +[0-9]+ .*/bin/busybox top -n 1 -b$' # root: /etc/passwd
	printed "busybox top lists itself" "$top"
	printed "memview shows a present anonymous page with its frame and map count" \
		'^  [0-9a-f]+ present pfn 0x[0-9a-f]+ anon exclusive mapcount 1 flags MMAP,ANON$'
	# this boot has no faulttrace parameter: proc-pagemap turns the trace on and off again
	printed "/proc/sys/vm/faulttrace switches the fault trace on at run time" \
		'^faulttrace: pid [0-9]+ \(proc-pagemap\) addr '
	# -v: a demo tells each step with its faults from the kernel's own records and counters
	cow='^vm-cow -v:   fault at 0x[0-9a-f]+: protection write user, vma anon -> '
	narrated ring3 vm-cow "generation 1 writes page 0" moved \
		"$cow"'VM_FAULT_MINOR\|VM_FAULT_WRITE$' \
		'^vm-cow -v:   kinds \(/proc/vmstat\): 1 COW; getrusage counts 1 minor, 0 major$'
	zero='^vm-zero -v:   fault at 0x[0-9a-f]+: not-present read user, vma anon -> '
	kinds='^vm-zero -v:   kinds \(/proc/vmstat\): 6 zero page; getrusage counts 6 minor, '
	narrated ring3 vm-zero "reads pages 0 to 5 of fresh anonymous memory" new \
		"$zero"'VM_FAULT_MINOR$' "$kinds"'0 major$' \
		'^vm-zero -v:   frame none -> the zero page 0x[0-9a-f]+, read-only'
	# shared anonymous memory: the frame the child wrote is the one the parent then maps
	shm='^shm-anon -v:   fault at 0x[0-9a-f]+: not-present read user, vma shmem pgoff 1 -> '
	narrated ring3 shm-anon "the parent reads page 1, which the child wrote" new \
		"$shm"'VM_FAULT_MINOR$' '^shm-anon -v:   kinds \(/proc/vmstat\): 1 file; ' \
		'^shm-anon -v:   frame none -> .*; the frame step 3 \(pid [0-9]+\) ended with$'
	# the faults that become signals: no VMA (SEGV_MAPERR), a read-only VMA (SEGV_ACCERR), no
	# page in the file (VM_FAULT_SIGBUS), each told with what the handler was told
	sig='^sig-fault -v:   fault at 0x[0-9a-f]+: not-present write user, vma none -> '
	narrated ring3 sig-fault "writes to a page just unmapped" none "$sig"'a bad access' \
		'^sig-fault -v:   signal SIGSEGV, si_code 1 SEGV_MAPERR .* #PF error 0x6 '
	mpr='^vm-mprotect -v:   fault at 0x[0-9a-f]+: protection write user, vma anon -> '
	narrated ring3 vm-mprotect "writes page 0, read-only now" same "$mpr"'a bad access' \
		'^vm-mprotect -v:   signal SIGSEGV, si_code 2 SEGV_ACCERR .* #PF error 0x7 '
	bus='^file-sigbus -v:   fault at 0x[0-9a-f]+: not-present read user, vma file pgoff 2 -> '
	narrated ring3 file-sigbus "a child reads page 2, wholly past EOF" none \
		"$bus"'VM_FAULT_MINOR\|VM_FAULT_SIGBUS$' \
		'^file-sigbus -v:   signal SIGBUS, si_code 2 BUS_ADRERR '
	# stack growth: a frame just below the [stack] VMA faults and the VMA grows down a page
	stk='^vm-stack -v:   fault at 0x[0-9a-f]+: not-present write user, vma anon -> '
	grown='0x[0-9a-f]+-(0x[0-9a-f]+) -> 0x[0-9a-f]+-\1: grown by 1 page$'
	narrated ring3 vm-stack "a frame just below the [stack] VMA" new \
		"$stk"'VM_FAULT_MINOR$' '^vm-stack -v:   \[stack\] '"$grown"
	printed "the time limit killed the orphan left asleep" \
		'^run: timeout=1 /bin/timeout-orphan: timed out after 1 s$'
	# sysinfo calls number 1000 on purpose; any other unknown call is a gap in the kernel
	# (so are the fuzzer's random numbers: lines before its "run: /bin/fuzz" result, after the
	# previous program's, are not counted; its children rename themselves with prctl)
	n=$(awk '/^syscall: .*unknown system call/ &&
			!/\(sysinfo\) called unknown system call 1000:/ { k++ }
		/^run: \/bin\// { if ($2 !~ /^\/bin\/fuzz/) n += k; k = 0 }
		END { print n + k }' "$log")
	if [ "$n" -eq 0 ] && grep -q '(sysinfo) called unknown system call 1000:' "$log"; then
		ok "ring3: no program called an unknown system call (sysinfo's 1000 was reported)"
	elif [ "$n" -eq 0 ]; then
		notok "ring3: sysinfo's unknown system call 1000 was not reported" "$log"
	else
		notok "ring3: $n calls of unknown system calls" "$log"
	fi
}

# ring3_swap NAME SMP: the programs of tests/ring3-swap.txt at 48 MiB (about 33 MiB for a
# process) with a swap disk of their own (boots may run side by side), swapped on at boot.
# Beyond their results: swap-in's page read back from the disk shows in /proc/vmstat's pswpin,
# as swap-in -v tells it (a swap fault, major in the child, minor in the parent), file-major
# -v tells its first touch as a major fault, and vmstat-faults's counters matched with its
# major faults in the window.
ring3_swap() {
	img="$LOGS/$1.img"
	if ! swap_mkimg "$img" 64; then
		notok "$1: mkswap of a 64 MiB image failed"
		return
	fi
	boot "$1" 48M "runlist=/etc/ring3-swap.list runstats kcheck" --smp "$2" --disk "$img"
	LISTS=tests/ring3-swap.txt ring3_results "$1" 33
	rm -f "$img"
	log="$LOGS/$1.log.txt"
	in=$(sed -n 's/^swap-in: pswpin +\([0-9]*\)$/\1/p' "$log")
	if grep -q '^swap-in: page 0 at 0x20000000 is in swap after ' "$log" &&
		[ "${in:-0}" -gt 0 ]; then
		ok "$1: swap-in's page 0 went out and came back from the disk (pswpin +$in)"
	else
		notok "$1: swap-in: no page read back from swap (pswpin +${in:-?})" "$log"
	fi
	# swap-in -v: the child's read of page 0 is a swap fault from the disk, the parent's one
	# from the swap cache
	sw='^swap-in -v:   fault at 0x20000000: not-present read user, vma anon -> '
	narrated "$1" swap-in "the child reads page 0, its PTE a swap entry" swapped \
		"$sw"'VM_FAULT_MAJOR$' '^swap-in -v:   kinds \(/proc/vmstat\): 1 swap; '
	narrated "$1" swap-in "the parent reads page 0, its PTE the same swap entry" swapped \
		"$sw"'VM_FAULT_MINOR$' '^swap-in -v:   kinds \(/proc/vmstat\): 1 swap; .* 0 major$'
	# file-major -v: the first touch of /etc/motd reads the page in (a major fault)
	maj='^file-major -v:   fault at 0x[0-9a-f]+: not-present read user, vma file pgoff 0 -> '
	narrated "$1" file-major "reads page 0 of /etc/motd: the first touch" new \
		"$maj"'VM_FAULT_MAJOR$' \
		'^file-major -v:   kinds \(/proc/vmstat\): 1 file; .* 1 major$'
	try=$(grep -m1 '^vmstat-faults: try 1: own ' "$log")
	maj=$(echo "$try" | sed -n 's/.* minor \([0-9]*\) major;.*/\1/p')
	if [ "${maj:-0}" -gt 0 ] &&
		grep -q "^vmstat-faults: vmstat's pgfault and pgmajfault matched this" "$log"; then
		ok "$1: vmstat's pgfault and pgmajfault grew as vmstat-faults's own (${try#*: })"
	else
		notok "$1: vmstat-faults: '${try:-no try line}'" "$log"
	fi
}

# ring3_plan BOOT...: the checks those boots report: the boot's status, one per program and
# kcheck's; the main boot's own (SMEP/SMAP/UMIP, each printed and narrated line, unknown system
# calls) more; a swap boot's programs are those of tests/ring3-swap.txt, and its checks above
ring3_plan() {
	n=0 ms=$(LISTS=tests/ring3-swap.txt expectations | wc -l)
	for b in "$@"; do
		case $b in
		ring3-swap*) n=$((n + ms + 4 + $(grep -c '^	narrated "\$1" ' "$0"))) ;;
		*) n=$((n + $(BOOT=$b expectations | wc -l) + 2)) ;;
		esac
		[ "$b" = ring3 ] && n=$((n + 2 + $(grep -Ec '^	(printed|narrated ring3) ' "$0")))
	done
	echo "1..$n"
}

# With no arguments: every boot, the one-CPU ones two at a time (each QEMU takes one host
# core; CI has two), their output kept apart and printed in order.
if [ -n "${RING3_NOPLAN:-}" ]; then
	: # one boot of the pairs below: the plan is the caller's
elif [ $# -eq 0 ]; then
	ring3_plan ring3 ring3-32M ring3-8G ring3-uefi ring3-smp2 ring3-smp4 ring3-swap \
		ring3-swap-smp2
else
	ring3_plan "$@"
fi
if [ $# -eq 0 ]; then
	for pair in "ring3 ring3-32M" "ring3-8G ring3-uefi"; do
		for b in $pair; do
			RING3_NOPLAN=1 sh "$0" "$b" >"$LOGS/$b.out" 2>&1 &
		done
		wait
		for b in $pair; do
			cat "$LOGS/$b.out"
		done
	done
	set -- ring3-smp2 ring3-smp4 ring3-swap ring3-swap-smp2
fi
for b in "$@"; do
	case $b in
	ring3) ring3_main ;;
	ring3-32M) boot ring3-32M 32M "$(runlist ring3-32M) $KARGS"; ring3_results ring3-32M ;;
	ring3-8G) boot ring3-8G 8G "$(runlist ring3-8G) $KARGS"; ring3_results ring3-8G ;;
	ring3-uefi) if have_ovmf; then
			boot ring3-uefi 256M "$(runlist ring3-uefi) $KARGS" --firmware ovmf
			ring3_results ring3-uefi
		else
			notok "boot ring3-uefi: no OVMF firmware (install ovmf)"
		fi ;;
	ring3-smp2) boot ring3-smp2 256M "$(runlist ring3-smp2) $KARGS" --smp 2
		ring3_results ring3-smp2 ;;
	# (4 virtual CPUs on CI's 2 cores: a program takes several times as long as on one)
	ring3-smp4) TIMEOUT=900 boot ring3-smp4 256M "$(runlist ring3-smp4) $KARGS runtimeout=400" \
			--smp 4
		ring3_results ring3-smp4 ;;
	ring3-swap) ring3_swap ring3-swap 1 ;;
	ring3-swap-smp2) ring3_swap ring3-swap-smp2 2 ;;
	*) echo "usage: $0 [ring3 ring3-32M ring3-8G ring3-uefi ring3-smp2 ring3-smp4" \
			"ring3-swap ring3-swap-smp2]" >&2
		exit 2 ;;
	esac
done
