"""Command line: build, evaluate and verify site workbooks. Errors are one line; exit status says which."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbook.formula.expr import FormulaError
from workbook.inputs import InputError

EXIT_INPUT, EXIT_MODEL, EXIT_VERIFY = 2, 3, 4


def default_output(site: Path) -> Path:
    return Path("outputs") / f"{site.stem}.xlsx"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the workbook of one or more site files")
    b.add_argument("sites", nargs="+", type=Path, metavar="SITE.yaml")
    b.add_argument("-o", "--output", type=Path, help="output .xlsx (one site only); default outputs/<site>.xlsx")
    e = sub.add_parser("evaluate", help="evaluate a site in Python and print every calculated line")
    e.add_argument("site", type=Path, metavar="SITE.yaml")
    e.add_argument("--json", action="store_true", help="print JSON (the default is a table)")
    v = sub.add_parser("verify", help="recalculate workbooks in LibreOffice and compare every formula cell")
    v.add_argument("workbooks", nargs="+", type=Path, metavar="OUT.xlsx")
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except FormulaError as exc:  # UnitError is a FormulaError too
        print(f"model error: {exc}", file=sys.stderr)
        return EXIT_MODEL
    except Exception as exc:  # a tool bug still gets one line, never a half-written file
        print(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1


def _build(args: argparse.Namespace) -> int:
    from workbook.api import load, save

    if args.output and len(args.sites) > 1:
        raise InputError("-o/--output names one file; give one site, or none to write outputs/<site>.xlsx")
    outs = [args.output or default_output(site) for site in args.sites]
    seen: dict[Path, Path] = {}
    for site, out in zip(args.sites, outs, strict=True):
        other = seen.setdefault(out.resolve(), site)
        if other != site:
            raise InputError(f"{site}: would overwrite {out}, the workbook of {other} (same file name); rename one")
    models = [load(site) for site in args.sites]  # validate every site before writing any
    for model, out in zip(models, outs, strict=True):
        save(model, out)
        checks = model.values["checks.all_pass"].reshape(-1)[0]
        print(f"wrote {out} ({len(model.book.lines)} lines; checks {'pass' if checks else 'FAIL'})")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from workbook.api import evaluation, load

    result = evaluation(load(args.site))
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for line_id, line in result["lines"].items():
        value = line["value"]
        if isinstance(value, list):  # a row of periods: its first and last, and how many
            shown = f"{_short(value[0])} .. {_short(value[-1])} ({len(value)} periods)"
        else:
            shown = _short(value)
        print(f"{line_id:40} {shown:>16} {line['unit']:12} {line['label']}")
    return 0


def _short(value: object) -> str:
    return f"{value:,.6g}" if isinstance(value, float) else str(value)


def _verify(args: argparse.Namespace) -> int:
    from workbook.verify import verify_files

    reports = verify_files(args.workbooks)
    failed = False
    for report in reports:
        print(report.summary())
        for problem in report.problems[:50]:
            print(f"  {problem}")
        failed |= bool(report.problems)
    return EXIT_VERIFY if failed else 0


COMMANDS = {"build": _build, "evaluate": _evaluate, "verify": _verify}
