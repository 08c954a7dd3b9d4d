#!/usr/bin/env bash
# Installs the pinned real clients (package.json beside this file) into <workspace>/target/clients,
# once; later runs reuse them. Prints one `<client>=<abs path>` line per client: claude, codex,
# gemini, qwen, copilot, droid, opencode (and opencode_sdk), kilo.
# Exit 3 with a message on stderr when node/npm are missing or the install fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/../.." && pwd)
dest=${HANDOVER_CLIENTS_DIR:-$ws/target/clients}
claude=$dest/node_modules/@anthropic-ai/claude-code-linux-x64/claude
codex=$dest/node_modules/.bin/codex
gemini=$dest/node_modules/.bin/gemini
qwen=$dest/node_modules/.bin/qwen
copilot=$dest/node_modules/.bin/copilot
# Factory's wrapper package pins a platform package version the registry lacks, so the platform
# package itself is pinned and its binary run directly.
droid=$dest/node_modules/@factory/cli-linux-x64/bin/droid
# OpenCode's platform binary, run directly (its wrapper is a node script that finds it).
opencode=$dest/node_modules/opencode-linux-x64/bin/opencode
# The plugin SDK OpenCode installs into each of its config folders once a plugin is there,
# with no timeout offline: installed here once, copied into a test's folders beforehand.
opencode_sdk=$dest/opencode-sdk
# Kilo Code's platform binary, run directly: its wrapper `@kilocode/cli` pins platform packages
# the registry lacks.
kilo=$dest/node_modules/@kilocode/cli-linux-x64/bin/kilo
stamp=$dest/.installed-$(sha256sum "$here/package.json" | cut -c1-16)
installed() { [ -f "$stamp" ] && [ -x "$claude" ] && [ -x "$codex" ] && [ -x "$gemini" ] \
  && [ -x "$qwen" ] && [ -x "$copilot" ] && [ -x "$droid" ] \
  && [ -x "$opencode" ] && [ -f "$opencode_sdk/package-lock.json" ] && [ -x "$kilo" ]; }
if ! installed; then
  mkdir -p "$dest"
  # One installer at a time (two test runs at once must not interleave two npm installs).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$dest/.install.lock"
    flock -w 600 9 || { echo "ensure.sh: timed out waiting for another install of the clients ($dest/.install.lock)" >&2; exit 3; }
  fi
fi
if ! installed; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure.sh: npm not found. Install Node.js and npm (Debian: apt-get install -y nodejs npm), or set HANDOVER_SKIP_E2E=1 to skip the real-client tests." >&2
    exit 3
  fi
  mkdir -p "$dest"
  cp "$here/package.json" "$dest/package.json"
  [ -f "$here/package-lock.json" ] && cp "$here/package-lock.json" "$dest/package-lock.json"
  # npm's download cache beside the clients, not in the user's ~/.npm: the suite writes
  # nothing into the real HOME.
  if ! (cd "$dest" && npm install --cache "$dest/.npm-cache" --no-audit --no-fund --loglevel=error >&2); then
    echo "ensure.sh: npm install of the pinned clients failed (see above)." >&2
    exit 3
  fi
  # Its own package.json, or npm installs into the clients' folder above it.
  if ! (mkdir -p "$opencode_sdk" && cd "$opencode_sdk" \
    && { [ -f package.json ] || echo '{"private": true}' > package.json; } \
    && npm install --cache "$dest/.npm-cache" --no-audit --no-fund --loglevel=error @opencode-ai/plugin@1.18.33 >&2); then
    echo "ensure.sh: npm install of OpenCode's plugin SDK failed (see above)." >&2
    exit 3
  fi
  if [ ! -x "$claude" ]; then
    # npm may skip Claude Code's postinstall; the platform package carries the binary.
    found=$(find "$dest/node_modules/@anthropic-ai" -maxdepth 3 -type f -name claude -perm -u+x 2>/dev/null | head -n 1)
    [ -n "$found" ] && claude=$found
  fi
  touch "$stamp"
fi
echo "claude=$claude"
echo "codex=$codex"
echo "gemini=$gemini"
echo "qwen=$qwen"
echo "copilot=$copilot"
echo "droid=$droid"
echo "opencode=$opencode"
echo "opencode_sdk=$opencode_sdk"
echo "kilo=$kilo"
