#!/bin/sh
# The linker of this checkout for x86_64 Linux with glibc (.cargo/config.toml): it links the
# three hook executables as static PIEs and hands every other link to `cc` unchanged.
#
# Why: a hook starts on every event of every session, and with glibc's dynamic loader about a
# third of its start was loading and relocating libc (docs/benchmarks.md, "Static linking and
# the hooks' own start").
# rustc links a static PIE itself with `-C target-feature=+crt-static`, but Cargo can only give
# that flag to every crate, and it breaks the proc-macro crates. So this makes the three
# changes to the hooks' link command that the flag makes: `-static-pie` for `-pie` (address
# randomisation kept), glibc's static libraries for the shared ones (`-Wl,-Bstatic` for
# `-Wl,-Bdynamic`), and libgcc's static unwinder (`-lgcc_eh -lgcc`) for `libgcc_s`.
#
# Never a failed build: a command that is not the expected shape, or a static link that fails
# (no libc.a: Debian's libc6-dev and Fedora's glibc-static have it), links as before.
output=
previous=
for arg in "$@"; do
	if [ "$previous" = -o ]; then output=$arg; fi
	previous=$arg
done
case "${output##*/}" in
handover_session_start-* | handover_pre_compact-* | handover_context_watch-*) ;;
*) exec cc "$@" ;;
esac
case " $* " in
*" @"*) exec cc "$@" ;; # a response file: not rewritten
*" -pie "*" -lgcc_s "* | *" -lgcc_s "*" -pie "*) ;;
*) exec cc "$@" ;;
esac
# The hook's link command with the three changes; its own copy of the arguments, so that the
# original command is still there for a failed attempt.
static_link() {
	for arg do
		shift
		case $arg in
		-pie) set -- "$@" -static-pie ;;
		-Wl,-Bdynamic) set -- "$@" -Wl,-Bstatic ;;
		-lgcc_s) ;;
		-lc) set -- "$@" -lc -lgcc_eh -lgcc -lc ;;
		*) set -- "$@" "$arg" ;;
		esac
	done
	cc "$@" 2>/dev/null
}
static_link "$@" && exit 0
exec cc "$@"
