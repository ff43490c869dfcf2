#!/usr/bin/env bash
# Takes the README's screenshots from the real app under Xvfb: the bundled
# sample book and chat, in English and Portuguese, light and dark. The theme
# and language are set the way a user's choice is kept (prefs.json in a
# fresh data folder), so nothing in the app is special-cased for this.
# Needs Xvfb and ImageMagick's `import` (scripts/setup.sh --e2e installs
# Xvfb; `apt-get install imagemagick` for `import`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
(cd ui && npm run build --silent)
cargo build --bin lorebook-studio
out="$root/docs/screenshots"
mkdir -p "$out"
display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1400x900x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
for locale in en pt-BR; do
  for theme in light dark; do
    data="$(mktemp -d)"
    printf '{"theme":"%s","locale":"%s","panes":[],"welcomed":true}' "$theme" "$locale" >"$data/prefs.json"
    DISPLAY="$display" GDK_BACKEND=x11 LOREBOOK_DATA_DIR="$data" \
      XDG_CONFIG_HOME="$data/xdg" XDG_DATA_HOME="$data/xdg" XDG_CACHE_HOME="$data/xdg" \
      "$root/target/debug/lorebook-studio" >/dev/null 2>&1 &
    app=$!
    sleep 8
    DISPLAY="$display" import -window root -crop 1280x800+0+0 +repage "$out/$locale-$theme.png"
    kill "$app" 2>/dev/null || true
    wait "$app" 2>/dev/null || true
    rm -rf "$data"
    echo "wrote docs/screenshots/$locale-$theme.png"
  done
done
