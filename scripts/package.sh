#!/usr/bin/env bash
# Builds Lorebook Studio's Linux packages with Tauri's bundler: the app, its
# desktop entry, icons, AppStream metainfo and media types, the `lorebook`
# CLI, the tokenizer files and the sample book and chat.
# Usage: scripts/package.sh [--ci] [deb] [rpm] [appimage]
#   (no kind)  deb and rpm
#   --ci       package the debug build the tests already made (target/debug)
#              instead of building a release: what .ci/run installs and checks
#              (scripts/check-package.sh), so CI compiles nothing twice.
# The packages land in target/<release|debug>/bundle/<kind>/.
# AppImage: Tauri's bundler downloads linuxdeploy and its plugins while it
# builds one, which this environment cannot do; the configuration is ready
# for a machine that can (see README, "Install").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ci=false
kinds=()
for arg in "$@"; do
  case "$arg" in
    --ci) ci=true ;;
    deb|rpm|appimage) kinds+=("$arg") ;;
    *) echo "package: unknown argument $arg (expected --ci, deb, rpm, appimage)" >&2; exit 2 ;;
  esac
done
((${#kinds[@]})) || kinds=(deb rpm)
bundles="$(IFS=,; echo "${kinds[*]}")"
"$root/scripts/setup.sh"
cd "$root"
tauri=ui/node_modules/.bin/tauri
# Every icon size the bundler and the freedesktop icon theme want, from the
# one source image (the bundler lists icons/*.png from tauri.conf.json; the
# output is byte-identical for an unchanged source).
"$tauri" icon icons/source.png --png 16,24,32,48,64,128,256,512 -o icons >/dev/null

if $ci; then
  profile=debug
  (cd ui && npm run --silent build)
  cargo build --bin lorebook-studio --bin lorebook
  # The release configuration names target/release/lorebook; point every
  # package at the debug one instead.
  cli='{"/usr/bin/lorebook":"target/debug/lorebook"}'
  overlay="{\"bundle\":{\"linux\":{\"deb\":{\"files\":$cli},\"rpm\":{\"files\":$cli},\"appimage\":{\"files\":$cli}}}}"
  "$tauri" bundle --debug --bundles "$bundles" --config "$overlay"
else
  profile=release
  cargo build --release --bin lorebook
  "$tauri" build --bundles "$bundles"
fi
echo "package: built in target/$profile/bundle/:"
for kind in "${kinds[@]}"; do
  ls -1 "target/$profile/bundle/$kind/"*."${kind/appimage/AppImage}" 2>/dev/null | sed 's/^/  /'
done
