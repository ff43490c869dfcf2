#!/usr/bin/env bash
# Installs a built .deb system-wide, checks what a user gets, removes it and
# checks that nothing is left behind. CI runs it after the tests
# (.ci/run: scripts/package.sh --ci deb, then this); it needs root or sudo.
# Usage: scripts/check-package.sh [DEB]   (default: the one in target/debug/bundle/deb/)
#   - `lorebook --version` is the workspace's version; `lorebook preview`
#     runs on the installed sample; `lorebook models` finds every family's
#     file in the package's folder;
#   - the desktop entry and the AppStream metainfo validate;
#   - the installed app starts under Xvfb on the sample, and its About names
#     the version and the package's tokenizer folder (a tauri-driver test,
#     tests/e2e/package.rs, against /usr/bin/lorebook-studio);
#   - the package's .rpm twin, when built, lists the same files.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
deb="${1:-$(ls -t target/debug/bundle/deb/*.deb 2>/dev/null | head -1)}"
[[ -f "$deb" ]] || { echo "check-package: no .deb (run scripts/package.sh --ci deb first)" >&2; exit 2; }
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export PATH="$HOME/.cargo/bin:$PATH"

tools=(desktop-file-utils appstream rpm)
missing=()
for p in "${tools[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "check-package: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

fail() { echo "check-package: FAILED: $*" >&2; exit 1; }
pkg=lorebook-studio
if dpkg -s "$pkg" >/dev/null 2>&1; then
  fail "$pkg is already installed here; remove it first (apt-get remove $pkg)"
fi
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
share=/usr/share/lorebook-studio
tokenizers="/usr/lib/Lorebook Studio/resources/tokenizers"

echo "== install $(basename "$deb")"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$deb" >/dev/null
installed_files="$(dpkg -L "$pkg")"
cleanup() {
  if dpkg -s "$pkg" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq "$pkg" >/dev/null || true
  fi
}
trap cleanup EXIT

echo "== the CLI"
sys_path=/usr/local/bin:/usr/bin:/bin
[[ "$(PATH=$sys_path command -v lorebook)" == /usr/bin/lorebook ]] || fail "lorebook is not /usr/bin/lorebook on the system PATH"
lorebook=/usr/bin/lorebook
[[ "$($lorebook --version)" == "lorebook $version" ]] || fail "lorebook --version: $($lorebook --version), expected $version"
out="$(cd / && $lorebook preview "$share/samples/saltmere.json" --chat "$share/samples/saltmere-chat.txt")"
grep -q "^Injected (" <<<"$out" || fail "lorebook preview on the installed sample: $out"
models="$(cd / && $lorebook models)"
for file in resources/tokenizers/*.gz; do
  [[ -e "$file" ]] || continue
  [[ -f "$tokenizers/$(basename "$file")" ]] || fail "$(basename "$file") is not in $tokenizers"
done
while IFS= read -r line; do
  [[ "$line" == *"installed in $tokenizers" ]] || fail "lorebook models: $line (expected: installed in $tokenizers)"
done < <(grep -E "installed" <<<"$models" | grep -v "built in")
echo "   lorebook $version; preview ok; $(grep -c "installed in $tokenizers" <<<"$models") families from the package"

echo "== desktop entry and metainfo"
desktop="/usr/share/applications/Lorebook Studio.desktop"
[[ -f "$desktop" ]] || fail "no $desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate"
grep -q "^Exec=lorebook-studio %F$" "$desktop" || fail "the desktop entry's Exec"
appstreamcli validate --no-net /usr/share/metainfo/studio.lorebook.app.metainfo.xml || fail "appstreamcli validate"
for size in 16 24 32 48 64 128 256 512; do
  [[ -f "/usr/share/icons/hicolor/${size}x${size}/apps/lorebook-studio.png" ]] || fail "no ${size}px icon"
done

echo "== the installed app under Xvfb (tauri-driver)"
LOREBOOK_E2E_APP=/usr/bin/lorebook-studio LOREBOOK_E2E_TOKENIZERS="$tokenizers" \
  cargo test --quiet -p lorebook-studio --test e2e -- package:: a_non_openai_model_recounts_everything_and_is_kept_for_the_next_run \
  || fail "the installed app's end-to-end checks"

rpm_file="$(ls -t "$(dirname "$deb")"/../rpm/*.rpm 2>/dev/null | head -1 || true)"
if [[ -n "$rpm_file" ]]; then
  echo "== the .rpm lists the same files"
  diff <(grep -v '/$' <<<"$installed_files" | while IFS= read -r f; do [[ -d "$f" ]] || echo "$f"; done | sort) \
       <(rpm -qlp "$rpm_file" 2>/dev/null | while IFS= read -r f; do [[ -d "$f" ]] || echo "$f"; done | sort) \
    || fail "the .rpm and the .deb install different files"
fi

echo "== remove"
DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq "$pkg" >/dev/null
left=()
while IFS= read -r f; do
  [[ -z "$f" || "$f" == "/." ]] && continue
  if [[ -e "$f" && ! -d "$f" ]]; then left+=("$f"); fi
done <<<"$installed_files"
for d in "/usr/lib/Lorebook Studio" "$share" /usr/share/doc/lorebook-studio; do
  [[ -e "$d" ]] && left+=("$d")
done
((${#left[@]} == 0)) || fail "left behind after removal: ${left[*]}"
PATH=$sys_path command -v lorebook >/dev/null && fail "lorebook is still on the PATH"
trap - EXIT
echo "check-package: ok ($(basename "$deb"))"
