#!/usr/bin/env python3
"""Writes the reference token counts of the tokenizer fixture.

Reads crates/engine/tests/tokenizer/texts.json and writes
crates/engine/tests/tokenizer/expected-openai.json: for every OpenAI
encoding, the number of tokens OpenAI's own `tiktoken` library gives each
text with `encode_ordinary` (plain text: no special tokens recognised, no
BOS/EOS). The engine's test `tokenizer_fixture` asserts the same counts, so
the Rust tests never need Python.

The script installs its dependency itself: run it with any Python 3.9+ and
it creates a virtual environment (default target/tokenizer-venv, or
$LOREBOOK_TOKENIZER_VENV), installs the pinned `tiktoken` there with pip and
runs itself again inside it.

`tiktoken` downloads each encoding's rank file from OpenAI on first use and
checks it against a sha256 pinned in its source. Where that host cannot be
reached, the script seeds tiktoken's cache with the rank files the Rust
crate `tiktoken-rs` carries (from the local cargo registry); tiktoken still
checks them against its pinned hashes, so the reference stays OpenAI's.
"""

import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

TIKTOKEN_VERSION = "0.14.0"
ENCODINGS = ["o200k_base", "cl100k_base", "p50k_base", "r50k_base"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "crates", "engine", "tests", "tokenizer")
URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


def ensure_venv():
    """Re-runs this script inside a venv that has tiktoken installed."""
    venv = os.environ.get(
        "LOREBOOK_TOKENIZER_VENV", os.path.join(ROOT, "target", "tokenizer-venv")
    )
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", f"tiktoken=={TIKTOKEN_VERSION}"],
        check=True,
    )
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


def main():
    ensure_venv()
    import tiktoken

    with open(os.path.join(FIXTURE, "texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    expected = {"reference": f"tiktoken {TIKTOKEN_VERSION}, encode_ordinary"}
    for name in ENCODINGS:
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 -- any download failure: use the local copies.
            seed_cache_from_cargo()
            encoding = tiktoken.get_encoding(name)
        expected[name] = {t["name"]: len(encoding.encode_ordinary(t["text"])) for t in texts}
    out = os.path.join(FIXTURE, "expected-openai.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
