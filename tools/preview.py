"""Render every page of workbook PDFs to PNG images, to look at them (a script, not a test).

    python tools/preview.py [outputs/x.pdf ...]      # default: every outputs/*.pdf

Each PDF's pages go to preview/<site>/ beside it (outputs/preview/example/), one image a page named
<NN>-<sheet>.png (the sheet from the page's header), replacing the images of an earlier run; then a table of
pages per sheet is printed. Make the PDFs with `python -m workbook pdf SITE.yaml` (or `make pdf`). Needs
pdftoppm (poppler-utils) and pypdf (the test extra).
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbook.libreoffice.pdf import UNASSIGNED, page_sheets  # noqa: E402


class Refused(Exception):
    """Said in one line, exit 2."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/preview.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pdfs", nargs="*", type=Path, metavar="PDF", help="default: every outputs/*.pdf")
    parser.add_argument("--dpi", type=int, default=100, help="image resolution (default 100: A4 is 1169 x 827)")
    args = parser.parse_args(argv)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # a damaged PDF is said in one line, not in warnings
    try:
        pdftoppm = shutil.which("pdftoppm")
        if pdftoppm is None:
            raise Refused("pdftoppm is not installed: apt-get install -y poppler-utils")
        pdfs = args.pdfs or sorted((ROOT / "outputs").glob("*.pdf"))
        if not pdfs:
            raise Refused(f"no PDF in {ROOT / 'outputs'}: make one with `python -m workbook pdf SITE.yaml`")
        for pdf in pdfs:
            if not pdf.is_file():
                raise Refused(f"{pdf}: no such PDF")
        for pdf in pdfs:
            folder, sheets = render(pdf, pdftoppm, args.dpi)
            print_table(pdf, folder, sheets)
    except Refused as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def render(pdf: Path, pdftoppm: str, dpi: int) -> tuple[Path, list[str | None]]:
    """Every page of `pdf` as <NN>-<sheet>.png in preview/<site>/ beside it; returns the folder and each page's
    sheet."""
    try:
        sheets = page_sheets(pdf)
    except Exception as e:  # not a PDF, a damaged one, or pypdf missing: one line
        raise Refused(f"{pdf}: cannot read its pages ({type(e).__name__}: {' '.join(str(e).split())[:200]})") from None
    folder = pdf.parent / "preview" / pdf.stem
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".render-", dir=folder) as tmp:
        proc = subprocess.run([pdftoppm, "-png", "-r", str(dpi), str(pdf), str(Path(tmp) / "page")],
                              capture_output=True, text=True, timeout=1800)
        images = sorted(Path(tmp).glob("page-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
        if proc.returncode != 0 or len(images) != len(sheets):
            message = " ".join(proc.stderr.split())[:200] or f"{len(images)} images for {len(sheets)} pages"
            raise Refused(f"{pdf}: pdftoppm failed ({message})")
        for old in folder.glob("*.png"):
            old.unlink()
        width = max(2, len(str(len(sheets))))
        for n, (image, sheet) in enumerate(zip(images, sheets, strict=True), start=1):
            image.rename(folder / f"{n:0{width}d}-{file_part(sheet or UNASSIGNED)}.png")
    return folder, sheets


def file_part(sheet: str) -> str:
    """A sheet name as part of a file name: "Power chain" -> "Power_chain", "P&L" stays."""
    return re.sub(r"[^\w&().-]+", "_", sheet).strip("_") or "sheet"


def print_table(pdf: Path, folder: Path, sheets: list[str | None]) -> None:
    runs: dict[str, list[int]] = {}
    for n, sheet in enumerate(sheets, start=1):
        runs.setdefault(sheet or UNASSIGNED, []).append(n)
    print(f"{pdf}: {len(sheets)} pages -> {folder}/")
    print(f"  {'sheet':<28} {'pages':>5}  printed pages")
    for sheet, pages in runs.items():
        where = f"{pages[0]}" if len(pages) == 1 else f"{pages[0]}-{pages[-1]}"
        if len(pages) != pages[-1] - pages[0] + 1:
            where += " (not contiguous)"
        print(f"  {sheet:<28} {len(pages):>5}  {where}")


if __name__ == "__main__":
    sys.exit(main())
