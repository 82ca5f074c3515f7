"""Command line: build, evaluate, verify and print (PDF) site workbooks. Errors are one line; exit status says
which."""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import select
import sys
from pathlib import Path
from typing import Any, NoReturn

from workbook.failures import EXIT_MODEL, EXIT_VERIFY, describe
from workbook.formula.echo import clip, printable
from workbook.site.errors import InputError
from workbook.site.spec import hidden


def default_output(site: Path) -> Path:
    return Path("outputs") / f"{site.stem}.xlsx"


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose refusal of the command line is one line (`error: python -m workbook explain: the
    following arguments are required: SITE.yaml`), exit status 2, as every other refusal; `-h` still prints the
    usage. argparse prints before main installs its escaping streams, so what it prints (an argument it refuses
    holding ESC ]0;... or a C1 control) is escaped here, the refusal clipped to MAX_LINE characters."""

    def error(self, message: str) -> NoReturn:
        line = printable(" ".join(f"error: {self.prog}: {message}".split()))
        self.exit(2, (line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + "...") + "\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        super()._print_message(printable(message) if message else message, file)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m workbook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the workbook of one or more site files")
    b.add_argument("sites", nargs="+", type=Path, metavar="SITE.yaml")
    b.add_argument("-o", "--output", type=Path, help="output .xlsx (one site only); default outputs/<site>.xlsx")
    b.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="sites built at once, one process each (default: the number of CPUs)")
    b.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr while several sites build (default: when stderr is a terminal)")
    b.add_argument("--strict", action="store_true",
                   help="exit 3 when a check fails (the workbook is still written): for CI")
    p = sub.add_parser("pdf", help="build the workbook of one or more site files and export each to PDF "
                                    "(LibreOffice), the PDF beside the workbook")
    p.add_argument("sites", nargs="+", type=Path, metavar="SITE.yaml")
    p.add_argument("-o", "--output", type=Path,
                   help="output .pdf (one site only), the workbook beside it as .xlsx; default outputs/<site>.pdf")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="sites built at once, one process each (default: the number of CPUs)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr while several sites build (default: when stderr is a terminal)")
    p.add_argument("--monthly", action="store_true",
                   help="also print the monthly detail (Cash flows, Scenarios, the upgrade's plans) to "
                        "<site>-monthly.pdf (default: the pack only; the monthly rows are in the workbook)")
    e = sub.add_parser("evaluate", help="evaluate a site in Python and print every calculated line")
    e.add_argument("site", type=Path, metavar="SITE.yaml")
    e.add_argument("--json", action="store_true", help="print JSON (the default is a table)")
    rk = sub.add_parser("risk", help="the decision under the site's risk: section: the probability that buying "
                                      "wins, the percentiles of each output, the inputs that drive the spread")
    rk.add_argument("site", type=Path, metavar="SITE.yaml")
    rk.add_argument("--samples", default=None, metavar="N", help="samples to draw (default: the risk: section's)")
    rk.add_argument("--seed", default=None, metavar="S", help="the seed (default: the risk: section's)")
    rk.add_argument("--json", action="store_true", help="print JSON (the default is a table)")
    x = sub.add_parser("explain", help="what differs between two versions of a site (OLD and NEW, or --from a git "
                                        "revision of SITE) and how much each difference moved the headline outputs")
    x.add_argument("sites", nargs="+", type=Path, metavar="SITE.yaml",
                   help="OLD.yaml NEW.yaml, or SITE.yaml with --from")
    x.add_argument("--from", dest="revision", default=None, metavar="REV",
                   help="the old version: SITE.yaml as it was at this git revision (HEAD~1, a tag, a commit)")
    x.add_argument("--group", action="append", default=[], metavar="NAME=KEY,KEY",
                   help="a step of the bridge: the inputs (or sections: tco) it holds; repeatable; the differences "
                        "in no group are a step per section")
    x.add_argument("--by-input", action="store_true", help="a step per changed input (default: per section)")
    x.add_argument("-o", "--output", type=Path, help="write the Changes workbook (.xlsx): the differences, the "
                                                     "bridge and a waterfall per output")
    x.add_argument("--json", action="store_true", help="print JSON (the default is text)")
    v = sub.add_parser("verify", help="recalculate workbooks in LibreOffice and Gnumeric and compare every formula "
                                      "cell")
    v.add_argument("workbooks", nargs="+", type=Path, metavar="OUT.xlsx")
    v.add_argument("--engine", choices=("libreoffice", "gnumeric", "all"), default=None,
                   help="the engine to recalculate in (default: all that are installed)")
    r = sub.add_parser("import-inputs", help="write the inputs a reviewer changed on a built workbook's Inputs "
                                              "sheet back into the site file it was built from")
    r.add_argument("workbook", type=Path, metavar="REVIEWED.xlsx")
    r.add_argument("--site", type=Path, required=True, metavar="SITE.yaml",
                   help="the site file the workbook was built from (edited in place)")
    q = sub.add_parser("quote", help="write the vendor's quoting copy of a site's bill of materials (quantities "
                                     "and specs; cells for unit price, lead time and comment; protected)")
    q.add_argument("site", type=Path, metavar="SITE.yaml")
    q.add_argument("--vendor", default="", metavar="NAME", help="the vendor the copy is for (on its cover)")
    q.add_argument("--groups", default="", metavar="G1,G2", help="ask only for these groups of lines (compute, "
                   "network, power, cooling, storage, spares, services); with --lines, both")
    q.add_argument("--lines", default="", metavar="KEY1,KEY2", help="ask only for these lines (their keys, as the "
                   "BOM sheet's Line column shows them)")
    q.add_argument("--date", default=None, metavar="YYYY-MM-DD", help="the copy's issue date, its one date "
                   "(default: today, UTC); the same inputs and date give the same file")
    q.add_argument("--draft", action="store_true", help="a draft for review, DRAFT on every page, which may leave "
                   "the buyer's company, contact and response deadline to be agreed (a copy is issued only with them)")
    q.add_argument("-o", "--output", type=Path, help="output .xlsx; default outputs/<site>-quote[-<vendor>].xlsx")
    iq = sub.add_parser("import-quote", help="read a vendor's returned quoting copy (untrusted) and add its prices "
                                             "and lead times to the site's quotes file, for the next build")
    iq.add_argument("returned", type=Path, metavar="RETURNED.xlsx")
    iq.add_argument("--site", type=Path, required=True, metavar="SITE.yaml",
                    help="the site file the copy was made from")
    iq.add_argument("--vendor", default=None, metavar="NAME",
                    help="the vendor, where the copy's cover names none (a name other than the cover's is refused)")
    n = sub.add_parser("init", help="write a commented site file for a catalog GPU and node: every key with its "
                                    "catalog or default value and source, the REQUIRED ones to fill in")
    n.add_argument("--gpu", required=True, metavar="ENTRY", help="the catalog GPU (e.g. H200-SXM), or none")
    n.add_argument("--node", required=True, metavar="ENTRY",
                   help="the catalog node (e.g. HGX-H200-Supermicro), or none: the site file describes its node")
    n.add_argument("--part", action="append", default=[], metavar="KIND=ENTRY",
                   help="another catalog kind's entry (switch=QM9790, cdu=rack-100kW) or KIND=none; default: the "
                        "example site's choice")
    n.add_argument("--site", default=None, metavar="NAME", help="the site's name (default: the file's name)")
    n.add_argument("-o", "--output", type=Path, required=True, metavar="SITE.yaml", help="the site file to write")
    n.add_argument("--force", action="store_true", help="replace the file if it exists")
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Printable(out, "standard output"), Printable(err, "standard error")  # nothing printed
    # can drive the terminal
    try:
        return _run(args)
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args: argparse.Namespace) -> int:
    """The command, and any failure as one line (each at most MAX_LINE characters) and its exit status."""
    global _reserve
    exhausted = False
    with contextlib.suppress(MemoryError):
        _reserve = _reserve or bytearray(RESERVE)  # freed by an earlier command of this process that ran out
    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:
        if _stdout_closed():  # `... | head`: the reader stopped; say nothing, as a Unix tool stopped by SIGPIPE
            return EXIT_PIPE
        status, line = describe(BrokenPipeError("a pipe to another process closed"))
    except MemoryError:
        exhausted = True  # said below: here the traceback still holds every frame, and what filled the memory
    except Exception as exc:
        status, line = describe(exc)
    if exhausted:
        _reserve = None  # the memory kept back, so that the line can be made and printed
        gc.collect()
        status, line = describe(MemoryError())
        line = line.replace("error: ", f"error: {_subject(args)}: ", 1)
    with contextlib.suppress(InputError):  # standard error itself cannot be written: the status says it
        print("\n".join(t if len(t) <= MAX_LINE else t[:MAX_LINE - 3] + "..." for t in line.split("\n")),
              file=sys.stderr)
    return status


MAX_LINE = 1_000  # characters of one printed failure: every echoed value is clipped far below this already
RESERVE = 16 * 1024 * 1024  # bytes kept back from the start, freed to say in one line that memory ran out
_reserve: bytearray | None = bytearray(RESERVE)


class Printable(io.TextIOBase):
    """An output stream that writes text with its unprintable characters escaped (yaml_reader.printable): a
    vendor's name, a cell, a file name or a site's text holding ESC sequences is printed as \\x1b..., never obeyed."""

    def __init__(self, stream: Any, name: str = "the output"):
        self.stream, self.name = stream, name

    def write(self, text: str) -> int:
        with self._failing():
            self.stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        with self._failing():
            self.stream.flush()

    @contextlib.contextmanager
    def _failing(self) -> Any:
        """A stream that cannot be written (a full disk: `evaluate SITE > /dev/full`) is one line, exit 2, not an
        internal error; what it still buffers goes to /dev/null, so Python's own flush at exit finds nothing to
        complain of. A reader that closed the pipe is BrokenPipeError, said apart."""
        try:
            yield
        except BrokenPipeError:
            raise
        except OSError as e:
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())
            raise InputError(f"cannot write to {self.name} ({e.strerror or e})") from None

    def fileno(self) -> int:
        return int(self.stream.fileno())

    def isatty(self) -> bool:
        return bool(self.stream.isatty())


EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader closed the pipe


def _stdout_closed() -> bool:
    """Whether standard output is the pipe that closed (its reader gone: poll says so). If so, it is pointed at
    /dev/null, so that Python's own flush at exit finds nothing to complain of."""
    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        closed = any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), or no file behind stdout
        return False
    if closed:
        os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
    return closed


def _subject(args: argparse.Namespace) -> str:
    """The file the command was working on, for a one-line failure that names it."""
    for name in ("returned", "workbook", "site", "sites", "workbooks", "output"):  # a returned file first
        given = getattr(args, name, None)
        if given:
            return clip(", ".join(map(str, given)) if isinstance(given, list) else str(given))
    return "python -m workbook"




def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, 1 or more, got {text!r}")
    return n


def _build(args: argparse.Namespace) -> int:
    from workbook.site.output import write_all_atomically

    outs = _outputs(args.sites, args.output, ".xlsx")
    built = _render(args)
    write_all_atomically([(out, b.data) for b, out in zip(built, outs, strict=True)])
    for b, out in zip(built, outs, strict=True):
        _wrote(out, b)
    return EXIT_MODEL if args.strict and not all(b.checks_pass for b in built) else 0


def _pdf(args: argparse.Namespace) -> int:
    """`build`, then each workbook exported to PDF beside it: every workbook and PDF is written only once all
    of them exported (all or nothing, like `build`)."""
    from workbook.libreoffice.pdf import exports as pdf_exports
    from workbook.libreoffice.pdf import to_pdf
    from workbook.site.output import write_all_atomically

    if args.output and args.output.suffix.lower() != ".pdf":
        raise InputError(f"{args.output}: -o/--output names the PDF: a file name ending in .pdf (the workbook is "
                         "written beside it, as .xlsx)")
    pdfs = _outputs(args.sites, args.output, ".pdf")
    outs = [pdf.with_suffix(".xlsx") for pdf in pdfs]
    built = _render(args)  # every site validated first: a bad site is said the same with or without LibreOffice
    exports: list[tuple[Path, bytes]] = []  # (the PDF's path, the workbook bytes that print it)
    for b, pdf in zip(built, pdfs, strict=True):
        exports.extend(pdf_exports(pdf, b.data, b.appendix, monthly=args.monthly))
    names = [pdf.name for pdf, _ in exports]
    for pdf, _ in exports:
        if names.count(pdf.name) > 1:
            raise InputError(f"{pdf}: two PDFs of this command would have this name (a site's monthly appendix is "
                             "<site>-monthly.pdf); rename one site file")
    data = to_pdf([(pdf.with_suffix(".xlsx"), xlsx) for pdf, xlsx in exports])
    write_all_atomically([*((out, b.data) for b, out in zip(built, outs, strict=True)),
                          *((pdf, d) for (pdf, _), d in zip(exports, data, strict=True))])
    for b, out in zip(built, outs, strict=True):
        _wrote(out, b)
    for pdf, _ in exports:
        print(f"wrote {pdf}")
    return 0


def _outputs(sites: list[Path], output: Path | None, suffix: str) -> list[Path]:
    """The file each site writes (-o for one site, else outputs/<site><suffix>); two sites writing the same
    file are refused."""
    if output and len(sites) > 1:
        raise InputError(f"-o/--output names one file; give one site, or none to write outputs/<site>{suffix}")
    outs = [output or default_output(site).with_suffix(suffix) for site in sites]
    seen: dict[Path, Path] = {}
    for site, out in zip(sites, outs, strict=True):
        other = seen.setdefault(out.resolve(), site)
        if other != site:
            raise InputError(f"{site}: would overwrite {out}, the workbook of {other} (same file name); rename one")
    return outs


def _render(args: argparse.Namespace) -> list[Any]:
    """Every site loaded (validated, evaluated) and rendered in memory, all before any file is written; in
    worker processes with -j (default: one per CPU) and a progress bar with --progress."""
    from workbook import batch
    from workbook.api import load

    jobs = min(args.jobs or batch.default_jobs(), len(args.sites))
    show = len(args.sites) > 1 and (args.progress if args.progress is not None else sys.stderr.isatty())
    # the bar is our own text, redrawn with a carriage return: written past the escaping of Printable
    progress = batch.Progress(len(args.sites), getattr(sys.stderr, "stream", sys.stderr)) if show else None
    try:  # every site is loaded once, and all of them before any is rendered
        if jobs > 1:  # in worker processes, which render the workbooks too
            return batch.render_all(args.sites, jobs, progress)
        models = []
        for site in args.sites:
            models.append(load(site))
            if progress is not None:
                progress.advance()
    finally:
        if progress is not None:
            progress.close()
    return [batch.Built(batch.render(m), *batch.summary(m)) for m in models]


def _wrote(out: Path, built: Any) -> None:
    """`wrote OUT (N lines; checks pass)`, then each failing check's label and rule (stdout), and the warnings
    (stderr)."""
    from workbook.findings import failing_lines

    for line in built.warnings:
        print(line, file=sys.stderr)
    print(f"wrote {out} ({built.lines} lines; checks {'pass' if built.checks_pass else 'FAIL'})")
    for line in failing_lines(list(built.failing)):
        print(line)


def _evaluate(args: argparse.Namespace) -> int:
    from workbook.api import evaluation, load
    from workbook.excel.figure_text import figure
    from workbook.findings import warnings
    from workbook.formula.line import message_at

    model = load(args.site, risk=False)  # no risk figure is printed: the risk: section is not sampled
    for line in warnings(model):
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(evaluation(model), indent=1, allow_nan=False))
        return 0
    for line in model.book.lines.values():
        if line.kind == "input":
            continue
        value = model.values[line.id]
        shown = figure(line, value, message_at(line, model.values))
        print(f"{line.id:40} {shown:>22}  {line.label}")
    return 0


def _risk(args: argparse.Namespace) -> int:
    from workbook.analysis.risk.analysis import PERCENTILES
    from workbook.api import risk, risk_json

    result = risk(args.site, args.samples, args.seed)
    if args.json:
        print(json.dumps(risk_json(result), indent=1, allow_nan=False))
        return 0
    d = result.decision
    print(f"{result.samples:,} samples (seed {result.seed}), {result.kept:,} kept")
    print(f"probability that buying wins: {result.probability_buy_wins:.1%}")
    print(f"expected shortfall of buying (mean NPV advantage in the worst 10%): {_money(result.expected_shortfall)}")
    print(f"base case NPV advantage {_money(d.base)}, at percentile {d.base_percentile:.1%}")
    print(f"{'output':32} {'unit':10} {'base':>11} {'mean':>11} " + " ".join(f"{f'P{p}':>11}" for p in PERCENTILES))
    for stat in result.statistics:
        figures = " ".join(f"{_statistic(stat, v):>11}" for v in (stat.base, stat.mean, *stat.percentiles))
        unit = "MUSD" if stat.unit == "USD" else stat.unit
        print(f"{stat.line_id:32} {unit:10} {figures}")
    for stat in result.statistics:
        for why, count in stat.left_out:
            print(f"{stat.line_id}: {count:,} of the {result.kept:,} samples kept have {why} (not in its percentiles)")
    print(f"inputs by their share of the NPV advantage's variance (Shapley effects; {result.explained:.1%} explained), "
          "with their rank and partial rank correlations:")
    for c in result.contributions:
        print(f"  {c.key:32} {c.share:6.1%} (rank {c.rank:+.2f}; partial {c.partial:+.2f})  {c.label}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    """The differences and the bridge as text (or JSON); with -o, the Changes workbook too, all or nothing."""
    from workbook.api import explain
    from workbook.explain.changes_book import changes_workbook
    from workbook.explain.report import as_json, lines
    from workbook.site.output import write_atomically

    sites, revision = args.sites, args.revision
    wanted = 1 if revision is not None else 2
    if len(sites) != wanted:
        raise InputError(f"names {len(sites)} site file(s)", file=sites[-1], key="explain",
                         expected="one site file with --from REV" if revision is not None
                         else "two site files, OLD.yaml NEW.yaml (or one with --from REV)")
    if args.output is not None and args.output.suffix.lower() != ".xlsx":
        raise InputError("is not an .xlsx file name", file=args.output, key="-o", expected="OUT.xlsx")
    bridge = explain(sites[0] if wanted == 2 else None, sites[-1], revision=revision,
                     groups=_groups(args.group, sites[-1]), by_input=args.by_input)
    if args.output is not None:
        write_atomically(args.output, changes_workbook(bridge))
    if args.json:
        print(json.dumps(as_json(bridge), indent=1))
    else:
        print("\n".join(lines(bridge)))
        if args.output is not None:
            print(f"wrote {args.output}")
    return 0


GROUP_NAME = 60  # characters of a step's name: a row of the bridge and a bar of each waterfall


def _groups(given: list[str], site: Path) -> dict[str, list[str]]:
    """--group NAME=KEY,KEY options: each a step's name and the input keys or sections it holds."""
    out: dict[str, list[str]] = {}
    for text in given:
        name, _, keys = text.partition("=")
        listed = [k.strip() for k in keys.split(",") if k.strip()]
        if not name.strip() or len(name.strip()) > GROUP_NAME or not listed or hidden(text) or name.strip() in out:
            raise InputError(f"is not a step's name (up to {GROUP_NAME} characters, each once) and its keys",
                             file=site, key="--group", value=clip(text),
                             expected="NAME=KEY,KEY (power=power.gpus,power.gpu_tdp)")
        out[name.strip()] = listed
    return out


def _short(value: object) -> str:
    return f"{value:,.6g}" if isinstance(value, float) else str(value)


def _money(usd: float) -> str:
    """Money as the sheets show a single figure: MUSD from 1 million (two decimals here), kUSD from 10,000."""
    from workbook.book.formats import money, money_scale, scaled_unit
    from workbook.excel.figure_text import number

    scale = money_scale(abs(usd), series=False)
    return f"{number(money(scale), usd, money=True)} {scaled_unit('USD', scale)}"


def _statistic(stat: Any, value: float) -> str:
    """A risk statistic as its row shows it, its unit in a column of its own: money in MUSD (two decimals), a
    share as a percentage ("never" above 100% for a break-even), else by its format."""
    from workbook.excel.figure_text import number

    if value != value:
        return "n/a"
    if stat.unit == "USD":
        return f"{value / 1e6:,.2f}"
    return number(stat.fmt.replace("never (over 100%)", "never"), value)


def _verify(args: argparse.Namespace) -> int:
    from workbook.libreoffice.verify import ENGINES, installed_engines, verify_files

    engines = installed_engines() if args.engine in (None, "all") else [args.engine]
    if args.engine == "all":
        engines = list(ENGINES)  # each, or the one line that says how to install the one missing
    elif not engines:
        engines = ["libreoffice"]  # none installed: the line that says how to install LibreOffice
    reports = verify_files(args.workbooks, engines)
    failed = False
    for report in reports:
        print(report.summary())
        for problem in report.problems[:50]:
            print(f"  {problem}")
        failed |= bool(report.problems)
    return EXIT_VERIFY if failed else 0


def _import_inputs(args: argparse.Namespace) -> int:
    """First the bridge of the reviewer's edits (what they move, by how much), then one line per site-file key
    changed (`power.pue: 1.4 -> 1.45`), or `no changes`."""
    from workbook.explain.report import bridge_lines
    from workbook.returned.review import import_inputs

    changes = import_inputs(args.workbook, args.site, show=lambda bridge: print("\n".join(bridge_lines(bridge))))
    for change in changes:
        print(change)
    if not changes:
        print("no changes")
    return 0


def _quote(args: argparse.Namespace) -> int:
    """The vendor's copy (all its lines, or the groups and lines asked for), written all or nothing."""
    import re

    from workbook.api import load
    from workbook.returned import vendor_copy
    from workbook.site.output import write_atomically

    vendor = " ".join(args.vendor.split())
    if len(vendor) > 100:
        raise InputError("is longer than 100 characters", key="--vendor", value=vendor[:40] + "...",
                         expected="a vendor's name of at most 100 characters")
    problem = hidden(vendor)
    if problem is not None:  # as import-quote holds the vendor's name on the returned copy
        raise InputError(problem, key="--vendor", value=vendor, expected="a vendor's name in plain text")
    issued = _issue_date(args.date)
    slug = re.sub(r"[^a-z0-9]+", "-", vendor.lower()).strip("-")
    out = args.output or Path("outputs") / f"{args.site.stem}-quote{'-' + slug if slug else ''}.xlsx"
    if out.suffix.lower() != ".xlsx":
        raise InputError(f"{out}: -o/--output names the vendor's copy: a file name ending in .xlsx")
    model = load(args.site, risk=False)  # the copy holds no risk figure
    lacking = vendor_copy.unissued(model)
    if lacking and not args.draft:
        raise InputError(f"{'is' if len(lacking) == 1 else 'are'} to be agreed: a request for quotation is issued "
                         "only with the buyer's company, contact and response deadline; give them under bom:, or "
                         "write a draft with --draft", file=args.site, key=", ".join(lacking),
                         expected="each under bom:, e.g. " + ", ".join(f"{k.split('.')[1]}: {s.example}"
                                                                for k, s in vendor_copy.term_specs(lacking)))
    rows = vendor_copy.quote_rows(model.book, model.values)
    asked = vendor_copy.chosen(rows, _names(args.groups, "--groups", vendor_copy.GROUPS, "a group"),
                               _names(args.lines, "--lines", [r.key for r in rows], "a line to quote on this site"))
    if not asked:
        raise InputError(f"--groups {args.groups}: no line of this site to quote in these groups",
                         expected=f"one of {', '.join(sorted({r.group for r in rows}))}")
    write_atomically(out, vendor_copy.render(model, vendor or "(vendor)", issued, asked, args.draft))
    print(f"wrote {out} ({len(asked)} lines to quote{'; DRAFT, not for return' if args.draft else ''})")
    return 0


def _issue_date(text: str | None) -> Any:
    import datetime

    if text is None:
        return datetime.datetime.now(datetime.UTC).date()
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise InputError("is not a date written YYYY-MM-DD", key="--date", value=text) from None


def _names(text: str, option: str, known: Any, what: str) -> list[str]:
    """A comma-separated list of names, each one of `known` (one-line refusal naming the option and the name)."""
    from workbook.site.errors import did_you_mean

    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in known:
            hint = did_you_mean(name, list(known))
            raise InputError(f"{option}: {name!r} is not {what}{hint}", expected=f"one of {', '.join(known)}"
                             if len(known) <= 10 else "a key of the BOM sheet's Line column with a quantity")
    return names


def _import_quote(args: argparse.Namespace) -> int:
    """The quote's lines, and where they were written."""
    from workbook.returned.quote_import import import_quote

    path, entry = import_quote(args.returned, args.site, args.vendor)
    for key, line in entry["lines"].items():
        print(f"{key}: {line['unit_price']:,.2f} USD, {line['lead_time_weeks']:g} weeks")
    print(f"wrote {path} ({len(entry['lines'])} lines quoted by {entry['vendor']}, dated {entry['date']}: "
          f"{entry['dated']}; the next build uses them)")
    return 0


def _init(args: argparse.Namespace) -> int:
    """The skeleton site file, and what to do next."""
    from workbook.models import PRESENTATION, workload
    from workbook.site import skeleton
    from workbook.site.templates import load_catalog

    parts = {}
    for text in args.part:
        kind, sep, entry = text.partition("=")
        if not sep or not kind.strip() or not entry.strip():
            raise InputError("is not KIND=ENTRY", key="--part", value=text, expected="e.g. --part cdu=rack-100kW")
        parts[kind.strip()] = entry.strip()
    choice = skeleton.choose(load_catalog(), args.gpu, args.node, parts)
    name = " ".join((args.site or args.output.stem).split())
    command = " ".join(["python -m workbook init", f"--gpu {args.gpu}", f"--node {args.node}",
                        *(f"--part {p}" for p in args.part), f"-o {args.output}"])
    text, required = skeleton.skeleton(name, choice, PRESENTATION, command, optional=workload)
    skeleton.write_new(args.output, text, args.force)
    print(f"wrote {args.output} ({len(required)} keys REQUIRED: {', '.join(required)})")
    print(f"fill them in, then: python -m workbook build {args.output}")
    return 0


COMMANDS = {"init": _init, "build": _build, "pdf": _pdf, "evaluate": _evaluate, "risk": _risk, "verify": _verify,
            "import-inputs": _import_inputs, "quote": _quote, "import-quote": _import_quote, "explain": _explain}
