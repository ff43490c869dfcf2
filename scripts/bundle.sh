#!/usr/bin/env bash
# Builds an installable package with the Tauri CLI (from ui/node_modules),
# the tokenizer files of every family inside it. Usage:
#   scripts/bundle.sh [deb|appimage|rpm] [--debug]
# The package lands in target/<profile>/bundle/<kind>/. See
# docs/tokenizers.md ("Packaging") for how a .deb was checked end to end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
kind="${1:-deb}"
shift || true
cd "$root"
exec ui/node_modules/.bin/tauri build --bundles "$kind" "$@"
