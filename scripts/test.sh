#!/usr/bin/env bash
# Sets up what is missing and runs every test: formatting, lints, UI type
# checks and unit tests, Rust tests (engine, CLI, app commands) and the
# end-to-end tests that drive the real app under Xvfb, then a short run of
# every fuzz target.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" --e2e --fuzz
export PATH="$HOME/.cargo/bin:$PATH"
cd "$root"

echo "== rustfmt"
cargo fmt --all -- --check
echo "== UI: type check, unit tests, build"
(cd ui && npm run --silent check && npm run --silent test && npm run --silent build)
echo "== clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test"
cargo test --workspace
echo "== fuzz (short run of every target)"
"$root/scripts/fuzz.sh" --short
