"""A site input's error: one line naming the file, the key, the value, the problem and what was expected (InputError),
every problem of one read at once (InputErrors), and the hint of the name meant (did_you_mean)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workbook.formula.echo import echo

_NO_VALUE: Any = object()  # an error about no value in particular (None is a value: YAML's null)


class InputError(ValueError):
    """Bad site input. Its message is one line, ready to print: the file, the key, the value, the problem and what
    was expected, composed from the same parts held as attributes:

    file      the file at fault (the site file; the catalog or defaults file a value came from), or None
    key       where in it: a dotted key ("power.gpu_tdp", "catalog.gpu", "site"), or None (the whole file)
    value     the offending value as the file gives it, or None (no value in particular, or YAML's null)
    expected  what was expected, in words, with the unit and an example where there is one, or None
    unit      the unit the value must be in, as a site file may write it ("W", "USD/GPU/hour"), or None
    problem   the short reason: "is not a whole number", "unknown key (did you mean power.gpu_tdp?)"
    line      the line of the file, from 1, where the file is not a site file's YAML (and column, the column), or None
    others    the other (key, value) pairs the error is about: the second key of a rule between two keys
    scenario  the scenario whose change is at fault, or None for the base case
    """

    def __init__(self, problem: str, *, file: Path | str | None = None, key: str | None = None,
                 value: Any = _NO_VALUE, expected: str | None = None, unit: str | None = None,
                 line: int | None = None, column: int | None = None, others: tuple[tuple[str, Any], ...] = (),
                 scenario: str | None = None, where: str | None = None):
        """`where`: how the message names the place, when the file alone does not (a catalog entry, a scenario)."""
        self.problem = one_line(problem)
        self.file = Path(file) if file is not None else None
        self.key, self.expected, self.unit, self.line, self.column = key, expected, unit, line, column
        self.value = None if value is _NO_VALUE else value
        self.others, self.scenario, self.where = tuple(others), scenario, where
        self._has_value = value is not _NO_VALUE
        place = where if where is not None else (str(file) if file is not None else None)
        subject = key
        if key is not None and self._has_value:
            subject = " and ".join(f"{k} = {echo(v)}" for k, v in ((key, value), *self.others))
        reason = "; ".join(t for t in (self.problem, f"expected {expected}" if expected else "") if t)
        super().__init__(one_line(": ".join(t for t in (place, subject, reason) if t)))

    def located(self, **changes: Any) -> InputError:
        """The same error with its place (file, key, where...) given or replaced."""
        fields = {k: getattr(self, k) for k in ("file", "key", "expected", "unit", "line", "column", "others",
                                                "scenario", "where")}
        if self._has_value:
            fields["value"] = self.value
        return InputError(self.problem, **{**fields, **changes})


class InputErrors(InputError):
    """Every problem found in one read of a site file, at once: `errors`, each an InputError with its attributes.
    Its message has one line per problem, in the order found (what the file gives, then what it lacks). Its own
    attributes (file, key, problem...) are the first problem's, so a caller that handles one InputError still reads
    a true one; a single problem is raised as that InputError itself."""

    def __init__(self, errors: list[InputError] | tuple[InputError, ...]):
        self.errors = tuple(errors)
        if not self.errors:
            raise ValueError("InputErrors needs at least one error")
        self.__dict__.update({k: v for k, v in self.errors[0].__dict__.items() if k != "errors"})
        ValueError.__init__(self, "\n".join(str(e) for e in self.errors))


def raise_all(problems: list[InputError]) -> None:
    """Nothing if there is no problem; the one InputError if there is one; InputErrors for several."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputErrors(problems)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


# Where a value comes from: a file (its path, as text or a Path), or (file, how messages name the place) for a part of
# a file ("catalog.yaml H100-SXM"). Text of the form "FILE: scenarios.NAME" is a scenario's change in FILE.
Where = str | Path | tuple[Path | str, str]
_SCENARIO_PLACE = re.compile(r"^(?P<file>.+): scenarios\.(?P<name>[a-z0-9_]+)$")


def place(where: Where) -> dict[str, Any]:
    """An error's file, and the scenario and the message's wording of the place where those are not the file."""
    if isinstance(where, tuple):
        return {"file": where[0], "where": where[1]}
    m = _SCENARIO_PLACE.match(str(where))
    if m:
        return {"file": m["file"], "scenario": m["name"], "where": str(where)}
    return {"file": where}


def closest(key: str, known: Iterable[str]) -> str | None:
    """The known name a typed one most likely means: the shortest that contains it (HGX-H200 -> HGX-H200-Supermicro,
    not the nearer spelling DGX-H100), for three characters or more; else the closest spelling; else None."""
    names = [str(k) for k in known]
    typed = str(key).lower()
    holding = sorted((n for n in names if len(typed) >= 3 and typed in n.lower() and n.lower() != typed), key=len)
    if holding:
        return holding[0]
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """The hint " (did you mean X?)" for the name meant (closest), or no hint."""
    meant = closest(key, known)
    return f" (did you mean {meant}?)" if meant else ""
