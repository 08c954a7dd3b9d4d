#!/bin/sh
# Runs one of handover's hook executables for the Claude Code / Codex plugin:
#   sh "<plugin root>/run-hook.sh" <executable> [arguments...]
# The executables are installed by `cargo install` (on PATH, or in ~/.cargo/bin, which a
# client started from a desktop launcher may not have on PATH). When they are missing the
# plugin fails open: exit 0, nothing on stdout, except once (at a session start) a message to
# the user saying how to install them. A hook must never block or break the agent's session.

exe=$1
case $exe in
  handover-session-start | handover-pre-compact | handover-context-watch) shift ;;
  *) exit 0 ;;
esac

cargo_bin=${CARGO_HOME:-${HOME:-/nonexistent}/.cargo}/bin
if found=$(command -v "$exe" 2>/dev/null) && [ -x "$found" ]; then
  exec "$found" "$@"
elif [ -x "$cargo_bin/$exe" ]; then
  exec "$cargo_bin/$exe" "$@"
fi

# Not installed. The hint goes out once per user (a marker file), and only from the
# session-start hook, whose `systemMessage` both clients show to the user.
[ "$exe" = handover-session-start ] || exit 0
# Only under an existing absolute state or home directory: with HOME unset (or pointing
# nowhere) nothing is created, least of all from the file system root down; no hint then.
case ${XDG_STATE_HOME:-} in
  /*) [ -d "$XDG_STATE_HOME" ] || exit 0; state_home=$XDG_STATE_HOME ;;
  *)
    case ${HOME:-} in
      /?*) [ -d "$HOME" ] || exit 0; state_home=$HOME/.local/state ;;
      *) exit 0 ;;
    esac ;;
esac
state=$state_home/handover
marker=$state/plugin-install-hint-shown
[ -e "$marker" ] && exit 0
mkdir -p "$state" 2>/dev/null && : >"$marker" 2>/dev/null || exit 0
printf '%s\n' '{"systemMessage": "handover plugin: the hook executables are not installed, so the plugin does nothing yet. Install them from the checkout of handover this plugin came from: `cargo install --locked --path <checkout>` (its docs/install.md says more), then start a new session. This hint is shown once."}'
exit 0
