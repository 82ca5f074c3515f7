"""What a build says beside `wrote ...`: the checks that fail (label and rule in words) and the warnings (a value
the design silently overrides). Read from an evaluated model, so the CLI, the worker processes of a parallel
build and the Python API say the same."""

from __future__ import annotations

from typing import Any

from workbook.formula.evaluation import reads
from workbook.model import Model

MASTER = "checks.all_pass"  # the master check: the checks it ANDs are the ones a build reports
MOST_SHOWN = 10  # failing checks printed by a build; the rest are counted ("and 3 more")
NODE_WARNING = "power.node_max_below_components"  # a line of each power chain (site, next fleet, scenarios)


def _first(value: Any) -> Any:
    return value.reshape(-1)[0]


MOST_FIGURES = 4  # the figures a failing check's line gives: the lines its rule compares


def failing_checks(model: Model) -> list[tuple[str, str]]:
    """(label, rule in words) of each check the master check reads that is FALSE, in the Checks sheet's order.
    The rule is the check's note: the model's words, else the condition with each line's label
    (workbook.book.book.in_words); then the figures it compares, as the sheet shows them (4.02 MW against 4 MW)."""
    book, values = model.book, model.values
    master = book.lines.get(MASTER)
    if master is None:
        return []
    return [(book.lines[i].label, _with_figures(book.lines[i].note, _figures(model, i))) for i in reads(master)
            if book.lines[i].kind == "check" and not bool(_first(values[i]))]


def _figures(model: Model, check_id: str) -> str:
    return check_figures(model.book, model.values, check_id)


def check_figures(book: Any, values: dict[str, Any], check_id: str) -> str:
    """The values of the lines a check compares (those its rule reads directly, but the method's constants), as the
    sheet shows them: `Contracted utility feed 4.02 MW; Utility power available at the site 4 MW`. `values` holds
    those lines (an evaluation of the check with its dependencies, or every line's)."""
    from workbook.book.constants import is_constant
    from workbook.excel.figure_text import figure
    from workbook.formula.line import message_at

    read = [book.lines[k] for k in reads(book.lines[check_id]) if not is_constant(book.lines[k]) and k in values]
    return "; ".join(f"{line.label} {figure(line, values[line.id], message_at(line, values))}"
                     for line in read[:MOST_FIGURES])


def _with_figures(rule: str, figures: str) -> str:
    return f"{rule} ({figures})" if rule and figures else rule or figures


def failing_lines(failing: list[tuple[str, str]], most: int = MOST_SHOWN) -> list[str]:
    """The lines a build prints for its failing checks: one each, up to `most`, then how many more."""
    out = [f"  check FAILS: {label}: {rule}" if rule else f"  check FAILS: {label}" for label, rule in failing[:most]]
    if len(failing) > most:
        out.append(f"  ... and {len(failing) - most} more failing checks (the Checks sheet lists every check)")
    return out


def warnings(model: Model) -> list[str]:
    """One line per warning: a node whose given maximum input is below its component sum (the design then uses
    the sum), for the site's fleet, an upgrade's next fleet and each scenario."""
    out = []
    for line_id, line in model.book.lines.items():
        if not line_id.endswith(NODE_WARNING) or not bool(_first(model.values[line_id])):
            continue
        base = line_id[: -len(NODE_WARNING)]
        given = _first(model.values[_own(model, base, "power.node_max_input")])
        component = _first(model.values[_own(model, base, "power.node_component_power")])
        where = f" ({base.rstrip('.')})" if base else ""
        out.append(f"warning: {model.site.path}: power.node_max_input{where} = {given:g} kW is below the node's "
                   f"component sum, {component:.2f} kW; the design uses the sum. Check the node's values "
                   f"(cpu_tdp, fan_power, baseboard_power...) or its maximum ({line.sheet}: {line.label})")
    return out


def _own(model: Model, base: str, key: str) -> str:
    """The id of a line of a model instance (`next.`) or scenario (`scenario.x.`): a scenario clones only the lines
    its changes reach, and shares the others with the case it changes."""
    line_id = f"{base}{key}"
    if line_id in model.values or not base.startswith("scenario."):
        return line_id
    return f"{base.split('.', 2)[2]}{key}"
