#!/usr/bin/env bash
# Coverage-guided fuzzing of the engine with cargo-fuzz (libFuzzer) on the
# stable toolchain: no sanitizer (`-s none`), which is what needs nightly.
# See docs/fuzzing.md.
#
#   scripts/fuzz.sh --short            every target for 8 s from fresh seeds
#                                      (scripts/test.sh runs this)
#   scripts/fuzz.sh [--seconds N] [target...]
#                                      N seconds per target (default 300),
#                                      growing the corpus in fuzz/corpus/
#   scripts/fuzz.sh --list             the target names
#
# One libFuzzer process at a time (one core), at the lowest priority. A
# crash, a timeout (30 s on one input) or running out of memory (2 GB)
# stops the run with the input saved in fuzz/artifacts/<target>/; copy it
# to fuzz/regressions/<target>/ once fixed, so `cargo test` replays it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
cd "$root"

seconds=300
short=false
targets=()
while (($#)); do
  case "$1" in
    --short) short=true; seconds=8 ;;
    --seconds) seconds="$2"; shift ;;
    --list) sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^lorebook-fuzz$'; exit 0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
all=false
((${#targets[@]})) || { all=true; mapfile -t targets < <("$0" --list); }

command -v cargo-fuzz >/dev/null || { echo "fuzz.sh: cargo-fuzz is missing; run scripts/setup.sh" >&2; exit 1; }

# Seeds: the fixtures, fuzz/seeds, fuzz/regressions and the shared corpus
# when present, written by the same code the replay test reads them with.
if $short; then
  corpus="$(mktemp -d)"
  trap 'rm -rf "$corpus"' EXIT
else
  corpus="$root/fuzz/corpus"
fi
cargo run --quiet -p lorebook-fuzz-targets --bin fuzz-seeds -- "$corpus"

# One build of the targets asked for (all of them: one cargo call), then
# each binary run directly.
if $all; then
  (cd fuzz && nice -n 19 cargo fuzz build -s none --release)
else
  for t in "${targets[@]}"; do (cd fuzz && nice -n 19 cargo fuzz build -s none --release "$t"); done
fi
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"

mkdir -p fuzz/logs
for t in "${targets[@]}"; do
  # Importers read whole files; the other targets get short texts.
  case "$t" in import_*|round_trip) max_len=131072 ;; *) max_len=16384 ;; esac
  mkdir -p "$corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/logs/$t.log"
  echo "== fuzz $t (${seconds}s, log in $log)"
  if ! nice -n 19 "$bin/$t" "$corpus/$t" -artifact_prefix="fuzz/artifacts/$t/" \
      -max_total_time="$seconds" -max_len="$max_len" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz.sh: $t failed; the input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  grep -E '^#[0-9]+\s+(INITED|DONE)|^stat::number_of_executed_units|^stat::peak_rss_mb' "$log"
done
