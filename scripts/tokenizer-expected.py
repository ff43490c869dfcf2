#!/usr/bin/env python3
"""Writes the reference token counts of the tokenizer fixture.

Reads crates/engine/tests/tokenizer/texts.json and writes, next to it:

* expected-openai.json: for every OpenAI encoding, the count OpenAI's own
  `tiktoken` gives each text with `encode_ordinary`;
* expected-families.json: for every family read from an installed file
  (scripts/fetch-tokenizers.sh), the count its reference library gives:
  Hugging Face `tokenizers` for tokenizer.json files
  (`encode_special_tokens = True`, `add_special_tokens=False`), Google's
  `sentencepiece` for .model files (plain `encode`) and `mistral-common`'s
  Tekkenizer for the Tekken file (`bos=False, eos=False`).

All counts are of plain text: no BOS/EOS or template tokens, and
special-token text counted as ordinary text. The engine's test
`tokenizer_fixture` asserts the same counts, so the Rust tests never need
Python.

The script installs its dependencies itself: run it with any Python 3.9+ and
it creates a virtual environment (default target/tokenizer-venv, or
$LOREBOOK_TOKENIZER_VENV), installs the pinned reference libraries there
from PyPI with pip and runs itself again inside it.

`tiktoken` downloads each encoding's rank file from OpenAI on first use and
checks it against a sha256 pinned in its source. Where that host cannot be
reached, the script seeds tiktoken's cache with the rank files the Rust
crate `tiktoken-rs` carries (from the local cargo registry); tiktoken still
checks them against its pinned hashes, so the reference stays OpenAI's.
"""

import glob
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile

PINS = [
    "tiktoken==0.14.0",
    "tokenizers==0.23.3",
    "sentencepiece==0.2.3",
    "mistral-common==1.13.1",
]
ENCODINGS = ["o200k_base", "cl100k_base", "p50k_base", "r50k_base"]
# family id -> (installed file, reference library)
FAMILIES = {
    "llama-3": ("llama-3.json.gz", "tokenizers"),
    "qwen": ("qwen.json.gz", "tokenizers"),
    "deepseek-v3": ("deepseek-v3.json.gz", "tokenizers"),
    "gemma-2": ("gemma-2.json.gz", "tokenizers"),
    "gemma-3": ("gemma-3.json.gz", "tokenizers"),
    "claude": ("claude.json.gz", "tokenizers"),
    "mistral-v1": ("mistral-v1.model.gz", "sentencepiece"),
    "mistral-v3": ("mistral-v3.model.gz", "sentencepiece"),
    "mistral-v7": ("mistral-v7.model.gz", "sentencepiece"),
    "nerdstash-v1": ("nerdstash-v1.model.gz", "sentencepiece"),
    "nerdstash-v2": ("nerdstash-v2.model.gz", "sentencepiece"),
    "mistral-tekken": ("mistral-tekken.json.gz", "mistral-common"),
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "crates", "engine", "tests", "tokenizer")
RESOURCES = os.path.join(ROOT, "resources", "tokenizers")
URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


def ensure_venv():
    """Re-runs this script inside a venv that has the reference libraries."""
    venv = os.environ.get(
        "LOREBOOK_TOKENIZER_VENV", os.path.join(ROOT, "target", "tokenizer-venv")
    )
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", *PINS], check=True)
    os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


def seed_cache_from_cargo():
    """Puts tiktoken-rs's copies of the rank files where tiktoken looks first."""
    cache = os.environ.setdefault(
        "TIKTOKEN_CACHE_DIR", os.path.join(tempfile.gettempdir(), "data-gym-cache")
    )
    os.makedirs(cache, exist_ok=True)
    cargo_home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    crates = sorted(
        glob.glob(os.path.join(cargo_home, "registry", "src", "*", "tiktoken-rs-*"))
    )
    for name in ENCODINGS:
        target = os.path.join(cache, hashlib.sha1(URL.format(name).encode()).hexdigest())
        if os.path.exists(target):
            continue
        for crate in reversed(crates):
            source = os.path.join(crate, "assets", f"{name}.tiktoken")
            if os.path.exists(source):
                with open(source, "rb") as src, open(target, "wb") as dst:
                    dst.write(src.read())
                break


def write(name, data):
    out = os.path.join(FIXTURE, name)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {out}")


def openai(texts):
    import tiktoken

    expected = {"reference": "tiktoken 0.14.0, encode_ordinary"}
    for name in ENCODINGS:
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 -- any download failure: use the local copies.
            seed_cache_from_cargo()
            encoding = tiktoken.get_encoding(name)
        expected[name] = {t["name"]: len(encoding.encode_ordinary(t["text"])) for t in texts}
    write("expected-openai.json", expected)


def counter(library, path):
    """A function counting plain-text tokens with the reference library."""
    if library == "tokenizers":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(path)
        tok.no_truncation()
        tok.no_padding()
        tok.encode_special_tokens = True
        return lambda s: len(tok.encode(s, add_special_tokens=False).ids)
    if library == "sentencepiece":
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=path)
        return lambda s: len(sp.encode(s))
    if library == "mistral-common":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tekken = Tekkenizer.from_file(path)
        return lambda s: len(tekken.encode(s, bos=False, eos=False))
    raise ValueError(library)


def families(texts):
    if not os.path.isdir(RESOURCES) or not os.listdir(RESOURCES):
        subprocess.run([os.path.join(ROOT, "scripts", "fetch-tokenizers.sh")], check=True)
    expected = {
        "reference": "tokenizers 0.23.3 (encode_special_tokens, no special tokens added); "
        "sentencepiece 0.2.3 (encode); mistral-common 1.13.1 Tekkenizer (no bos/eos)"
    }
    with tempfile.TemporaryDirectory() as tmp:
        for family, (file, library) in FAMILIES.items():
            path = os.path.join(tmp, file[: -len(".gz")])
            with gzip.open(os.path.join(RESOURCES, file), "rb") as src, open(path, "wb") as dst:
                dst.write(src.read())
            count = counter(library, path)
            expected[family] = {t["name"]: count(t["text"]) for t in texts}
    write("expected-families.json", expected)


def main():
    ensure_venv()
    with open(os.path.join(FIXTURE, "texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    openai(texts)
    families(texts)


if __name__ == "__main__":
    main()
