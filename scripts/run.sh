#!/usr/bin/env bash
# Sets up what is missing, builds the UI and the app, and starts Lorebook
# Studio. With no arguments it opens the bundled sample book and chat; any
# arguments are book files to open.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
(cd "$root/ui" && npm run build --silent)
cd "$root"
cargo build --bin lorebook-studio
exec "$root/target/debug/lorebook-studio" "$@"
