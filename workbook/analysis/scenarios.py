"""Named scenarios: each a full live calculation beside the base case.

A scenario changes some inputs. Its own input cells sit on the Inputs sheet; every line that depends on a
changed input, directly or through other lines, is cloned with its formula re-pointed at the scenario's lines
(on the Scenarios sheet); lines that do not depend on the changes are shared with the base case. So each
scenario recalculates live in the workbook, from one definition of every formula.
"""

from __future__ import annotations

from workbook.book.book import Book
from workbook.book.sheets import INPUTS
from workbook.book.sheets import SCENARIOS as SHEET
from workbook.book.sheets import SCENARIOS_YEARLY as YEARLY_SHEET
from workbook.formula.echo import clip
from workbook.formula.expr import YEARS
from workbook.formula.line import Line
from workbook.site.errors import InputError, did_you_mean
from workbook.site.rules import check_rules
from workbook.site.spec import Rule, Site, Spec


def add_scenarios(book: Book, site: Site, specs: list[Spec], rules: list[Rule],
                  sheets_of: dict[str, tuple[str, str]] | None = None) -> dict[str, dict[str, Line]]:
    """Clone, for each scenario of the site (its changes read and checked as values when the site was loaded), the
    lines its changes reach. Returns name -> {id: line}.

    A change must be a live input of this book (not a key of the timeline's calendar), and the scenario's values
    must keep every rule between keys (with the base values of the keys it does not change): a site file's
    scenarios were held to both when read, a scenario added in the build (the month of delay) is held here. Its
    cloned checks reach the master check. `sheets_of` puts a scenario's clones on sheets of its own (monthly and
    single values, yearly)."""
    by_key = {s.key: s for s in specs}
    base = [line for line in book.lines.values()]
    out: dict[str, dict[str, Line]] = {}
    for name, changes in site.scenarios.items():
        where = f"{site.path}: scenarios.{clip(name)}"
        mapping: dict[str, Line] = {}
        values = dict(site.values)
        builder = book.sheet(INPUTS, f"scenario.{name}", group=f"Scenario: {name}")
        for key, change in changes.items():
            line = book.lines.get(key)
            if line is None or line.kind != "input" or key not in by_key:
                known = [k for k, v in book.lines.items() if v.kind == "input" and k in by_key]
                hint = did_you_mean(str(key), known)
                raise InputError(f"not a live input of this site{hint}", file=site.path, where=where, key=clip(key),
                                 scenario=name)
            if book.calendar is not None and key in book.calendar.inputs:
                raise InputError("dates the workbook's one timeline (its column headers and fiscal years), so a "
                                 "scenario cannot change it; change it for the site", file=site.path, where=where,
                                 key=clip(key), scenario=name)
            values[key] = change
            mapping[key] = builder.input(
                key, f"{line.label} [{name}]", line.unit_text, float(change.magnitude),  # type: ignore[arg-type]
                f"scenario {name}: {change.given} (base: {line.value.reshape(-1)[0]:g}) {change.source}".strip(),
                fmt=line.fmt, bounds=line.bounds, integer=line.integer)
        check_rules(where, values, rules)
        title = f"Scenario: {name} ({', '.join(f'{k} = {values[k].given}' for k in changes)})"
        sheet, yearly = (sheets_of or {}).get(name, (SHEET, YEARLY_SHEET))
        book.sheet(sheet, f"scenario.{name}").section(title)
        book.sheet(yearly, f"scenario.{name}").section(title)
        for line in base:
            if line.kind == "input" or line.formula is None:
                continue
            if line.id not in mapping and mapping.keys().isdisjoint(line.reads):  # reads no line the changes reach
                continue
            clone = line.cloned(
                f"scenario.{name}.{line.id}", f"{line.label} [{name}]",
                (yearly if line.axis == YEARS else sheet) if line.kind == "calc" else line.sheet,
                f"Scenario: {name}")
            mapping[line.id] = clone  # before remapping: a line may read its own previous period
            clone.formula = line.formula.rebuilt(mapping)
            if line.opening is not None:
                clone.opening = line.opening.rebuilt(mapping)
            book.add(clone)
        out[name] = mapping
    return out
