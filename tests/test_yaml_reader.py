"""The site file's YAML reader: libyaml's parser (C) under the Python composer and refusals gives the same data as
the reader in Python, or the same refusal, on mangled site files (the reference is parse_yaml(fast=False))."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.fuzz import TEXT_MUTATIONS
from tests.helpers import fixed_seed
from workbook.site.yaml_reader import YamlError, parse_yaml

SEED = fixed_seed("YAML_SEED", 20261207)
CASES = 2000
SITES = sorted((ROOT / "inputs").glob("*.yaml"))
# characters that mean something to YAML, and some that a reader must refuse or take as text
SIGNIFICANT = [":", ": ", "-", "- ", "[", "]", "{", "}", "#", " #", "'", '"', "\t", " ", "  ", "\n", "\n  ", "&a ",
               "*a", "!", "!!str ", "!!int ", "|", ">", "%", "@", "`", "?", ",", "\\", "\x85", "\u2028", "\ufeff",
               "\x07", "\r", "\r\n", "---\n", "...\n", "~", "null", ".nan", ".inf", "0x1", "1_0", "1:2", "é", "😀"]


def mangled(rng: random.Random) -> bytes:
    """A window of 3 to 40 lines of a site file of inputs/ with 1 to 4 changes: a mutation of the fuzzer's, or a
    significant character put in."""
    lines = rng.choice(SITES).read_text(encoding="utf-8").splitlines(keepends=True)
    start = rng.randrange(len(lines))
    text = "".join(lines[start:start + rng.randint(3, 40)]) or "a: 1\n"
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.3:
            out = rng.choice(TEXT_MUTATIONS)(rng, text)
            if isinstance(out, bytes):
                return out
            text = out
        else:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(SIGNIFICANT) + text[at:]
    return text.encode("utf-8", "surrogatepass")


def outcome(data: bytes, fast: bool) -> tuple[str, Any]:
    try:
        return "read", repr(parse_yaml(data, Path("site.yaml"), fast=fast))  # repr: NaN equals itself
    except YamlError as e:
        return "refused", (e.problem, e.line, e.column, e.key)


@pytest.mark.fuzz
def test_the_fast_reader_reads_what_the_python_reader_reads_and_refuses_what_it_refuses(tmp_path: Path) -> None:
    counts = {"read": 0, "refused": 0}
    for case in range(CASES):
        data = mangled(random.Random(SEED * 100_003 + case))
        got, want = outcome(data, fast=True), outcome(data, fast=False)
        if got != want:
            kept = tmp_path / f"case-{case}.yaml"
            kept.write_bytes(data)
            pytest.fail(f"YAML_SEED={SEED} case {case} ({kept}): fast {got!r} != python {want!r}")
        counts[got[0]] += 1
    assert counts["read"] > CASES // 10 and counts["refused"] > CASES // 10, counts  # both outcomes exercised


def test_without_libyaml_every_file_is_read_in_python() -> None:
    """A PyYAML built without libyaml (no yaml._yaml) still reads a site file and refuses a bad one the same way."""
    code = ("import sys; sys.modules['yaml._yaml'] = None\n"
            "from pathlib import Path\n"
            "from workbook.site.yaml_reader import YamlError, parse_yaml\n"
            "print(parse_yaml(Path('inputs/example.yaml').read_bytes(), Path('s.yaml'))['site'])\n"
            "try:\n    parse_yaml(b'a: &x 1\\nb: *x\\n', Path('s.yaml'))\n"
            "except YamlError as e:\n    print(e.problem)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    site, refusal = proc.stdout.splitlines()
    assert site == parse_yaml((ROOT / "inputs" / "example.yaml").read_bytes(), Path("s.yaml"))["site"]
    with pytest.raises(YamlError) as e:
        parse_yaml(b"a: &x 1\nb: *x\n", Path("s.yaml"))
    assert refusal == e.value.problem and "anchors and aliases" in refusal
