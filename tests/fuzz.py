"""A seeded mutator of site files, and a runner that puts each mutant through the real CLI in a bounded child.

Run by hand for a big hunt (the numbers in the README and the issue notes come from this):
    python -m tests.fuzz --cases 10000 --seed 1 --out outputs/fuzz
Every case is reproducible from (seed, index): `python -m tests.fuzz --seed S --only I` rewrites case I.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BASES = [ROOT / "inputs" / "example.yaml", ROOT / "inputs" / "b200-liquid-build.yaml"]
SECONDS = 30  # per case: the slowest valid build is about 3 s here
MAX_MESSAGE = 600  # characters of a one-line error: the file, the key, the value (clipped) and what is expected
MEMORY = 3 << 30  # bytes of address space for the child that runs the cases

HOSTILE_VALUES: list[Any] = [
    0, -1, 1e-300, 1e300, 10**40, float("nan"), float("inf"), True, None, [], {}, [1, 2], {"value": None},
    {"value": 1, "sorce": "x"}, "", " ", "abc", "1 e 3 kW", "700 m", "700 W W", "-5 kW", "1e15 W", "1e-12 W",
    "NaN kW", "inf USD", "100 %", "150%", "N+-1", "3N+99", "0N", "😀", "\u202e700 W", "=1+1", "@SUM(A1)",
    "x" * 5000, "17:04", "0x400", "010", "1_000", "20 years", "0.5 / year", "2.5 MW", "-40 degC", "500 degC",
]
HOSTILE_TEXT = [
    "a: &a [1]\nb: *a\n", "? [a]\n: 1\n", "\t", "\x00", "\x07", "\ufeff", "- list\n", "{", "]", "'", '"\\ud800"',
    "!!python/object:os.system ['x']\n", "!!binary aGVsbG8=\n", "%YAML 1.1\n---\n", "...\n", "---\n---\n",
]


def mutate(rng: random.Random, base: dict[str, Any], text: str) -> bytes:
    """One mutant: 1 to 3 changes to the data, or a change to the raw text."""
    data = yaml.safe_load(yaml.safe_dump(base))  # a deep copy
    for _ in range(rng.randint(1, 3)):
        rng.choice(DATA_MUTATIONS)(rng, data)
    out = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if rng.random() < 0.3:
        out = rng.choice(TEXT_MUTATIONS)(rng, out)
    return out.encode("utf-8", "surrogatepass") if isinstance(out, str) else out


def _section(rng: random.Random, data: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    sections = [k for k, v in data.items() if isinstance(v, dict) and v]
    if not sections:
        return None
    body = data[rng.choice(sections)]
    return body, rng.choice(list(body))


def _set_value(rng: random.Random, data: dict[str, Any]) -> None:
    picked = _section(rng, data)
    if picked:
        body, key = picked
        body[key] = rng.choice(HOSTILE_VALUES)


def _scale_value(rng: random.Random, data: dict[str, Any]) -> None:
    picked = _section(rng, data)
    if picked:
        body, key = picked
        v = body[key]
        factor = rng.choice([0, -1, 1e-6, 1e-3, 0.5, 2, 1e3, 1e6, 1e12])
        if isinstance(v, int | float) and not isinstance(v, bool):
            body[key] = v * factor
        elif isinstance(v, str) and v.split() and v.split()[0].replace(".", "", 1).isdigit():
            number, *unit = v.split(maxsplit=1)
            body[key] = f"{float(number) * factor!r} {unit[0] if unit else ''}".strip()


def _drop_key(rng: random.Random, data: dict[str, Any]) -> None:
    picked = _section(rng, data)
    if picked:
        del picked[0][picked[1]]


def _unknown_key(rng: random.Random, data: dict[str, Any]) -> None:
    picked = _section(rng, data)
    if picked:
        picked[0][picked[1] + rng.choice(["_x", "s", ""]) + "z"] = 1


def _top_level(rng: random.Random, data: dict[str, Any]) -> None:
    key = rng.choice(["site", "description", "catalog", "scenarios", "power", "tco", "nonsense", 7])
    data[key] = rng.choice([*HOSTILE_VALUES, {"gpu": ["B200"]}, {"gpu": "Nope"}, {"x": {"power.gpus": 1}}])


def _scenario(rng: random.Random, data: dict[str, Any]) -> None:
    key = rng.choice(["tco.utilisation", "cooling.air_supply_temperature", "power.gpus", "power.pue", "nope"])
    values = [*HOSTILE_VALUES, "50 degC", 0.4]
    data["scenarios"] = {f"s{i}": {key: rng.choice(values)} for i in range(rng.choice([1, 2, 25]))}


DATA_MUTATIONS: list[Callable[[random.Random, dict[str, Any]], None]] = [
    _set_value, _set_value, _scale_value, _scale_value, _drop_key, _unknown_key, _top_level, _scenario]


def _truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text))]


def _insert(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text))
    return text[:at] + rng.choice(HOSTILE_TEXT) + text[at:]


def _bytes(rng: random.Random, text: str) -> bytes:
    raw = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 5)):
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    return bytes(raw)


def _nest(rng: random.Random, text: str) -> str:
    depth = rng.choice([30, 500, 5000])
    return text + "deep: " + "[" * depth + "]" * depth + "\n"


def _alias_bomb(rng: random.Random, text: str) -> str:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, rng.choice([3, 9])):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    return text + "\n".join(lines) + "\n"


def _utf16(rng: random.Random, text: str) -> bytes:
    return text.encode(rng.choice(["utf-16-le", "utf-16", "utf-32"]))


TEXT_MUTATIONS: list[Callable[[random.Random, str], str | bytes]] = [
    _truncate, _insert, _insert, _bytes, _nest, _alias_bomb, _utf16]


def case(seed: int, index: int) -> bytes:
    """Case `index` of run `seed`, the same bytes on every machine."""
    rng = random.Random(seed * 1_000_003 + index)
    path = BASES[index % len(BASES)]
    text = path.read_text()
    return mutate(rng, yaml.safe_load(text), text)


def run_one(site: Path, out: Path) -> dict[str, Any]:
    """The CLI's build on one file, in this process, with a time bound: exit status, stderr, seconds."""
    from workbook import cli

    err = io.StringIO()

    def too_slow(*_: Any) -> None:
        raise TimeoutError(f"over {SECONDS} s")

    signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(SECONDS)
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = cli.main(["build", str(site), "-o", str(out)])
    except TimeoutError as e:
        status, err = -1, io.StringIO(str(e))
    finally:
        signal.alarm(0)
    return {"status": status, "stderr": err.getvalue(), "seconds": time.perf_counter() - t0}


def run(seed: int, indices: range | list[int], folder: Path) -> list[dict[str, Any]]:
    """Write and build every case; each result says what a user would see and what was left on disk."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    folder.mkdir(parents=True, exist_ok=True)
    results = []
    for i in indices:
        site = folder / f"case-{seed}-{i}.yaml"
        site.write_bytes(case(seed, i))
        out = folder / f"case-{seed}-{i}.xlsx"
        r = run_one(site, out)
        left = sorted(p.name for p in folder.iterdir() if p.name.startswith((f"case-{seed}-{i}.", f".case-{seed}-{i}-"))
                      and p != site)
        r.update(index=i, seed=seed, left=left)
        ok = r["status"] == 0 and left == [out.name]
        err = r["stderr"].strip()
        refused = r["status"] == 2 and not left and refused_in_lines(err, site)
        r["outcome"] = "built" if ok else "refused" if refused else "PROBLEM"
        if r["outcome"] != "PROBLEM":
            site.unlink()
        out.unlink(missing_ok=True)
        results.append(r)
        with open(folder / f"progress-{seed}.jsonl", "a") as log:  # a long hunt can be read while it runs
            log.write(json.dumps({k: r[k] for k in ("index", "outcome", "status", "seconds")}) + "\n")
    return results


def refused_in_lines(err: str, site: Path) -> bool:
    """A refusal as the CLI prints it: one line per problem, each naming the file and at most MAX_MESSAGE long,
    and after several problems a last line that counts them."""
    lines = err.splitlines()
    if len(lines) > 1:
        count = f"error: {len(lines) - 1} problems in {site}, each on a line above"
        if lines[-1] != count:
            return False
        lines = lines[:-1]
    return bool(lines) and all(x.startswith(f"error: {site}: ") and len(x) <= MAX_MESSAGE for x in lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--only", type=int, help="write case ONLY of the seed to --out and stop")
    p.add_argument("--out", type=Path, default=ROOT / "outputs" / "fuzz")
    args = p.parse_args(argv)
    if args.only is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"case-{args.seed}-{args.only}.yaml"
        path.write_bytes(case(args.seed, args.only))
        print(path)
        return 0
    results = run(args.seed, range(args.start, args.start + args.cases), args.out)
    counts = Counter(r["outcome"] for r in results)
    slowest = max(results, key=lambda r: r["seconds"])
    summary = {"seed": args.seed, "cases": len(results), "outcomes": dict(counts),
               "max_seconds": round(slowest["seconds"], 2),
               "slowest_case": slowest["index"],
               "longest_message": max((len(r["stderr"].strip()) for r in results), default=0),
               "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
               "problems": [r for r in results if r["outcome"] == "PROBLEM"][:50]}
    print(json.dumps(summary))
    return 0 if not summary["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
