#!/bin/sh
# Type a line on the PS/2 keyboard of the QEMU of tests/boot/shell.sh (its monitor socket is
# $SHELL_MONITOR), then Enter. Letters, digits, space, '/', '.', '>' only.
# usage: tests/boot/shell-keys.sh "LINE"
line=$1
i=0
while [ $i -lt ${#line} ]; do
	c=$(printf '%s' "$line" | cut -c$((i + 1)))
	case $c in
	' ') k=spc ;;
	/) k=slash ;;
	.) k=dot ;;
	'>') k=shift-dot ;;
	[a-z0-9]) k=$c ;;
	*) echo "shell-keys.sh: no key for '$c'" >&2; exit 1 ;;
	esac
	printf 'sendkey %s\n' "$k" | socat - UNIX-CONNECT:"$SHELL_MONITOR" >/dev/null 2>&1 ||
		exit 1
	i=$((i + 1))
done
printf 'sendkey ret\n' | socat - UNIX-CONNECT:"$SHELL_MONITOR" >/dev/null 2>&1
