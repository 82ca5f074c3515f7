"""The rules between two keys (`power.node_max_input >= power.node_typical_input`), and which keys only a
liquid-cooled part needs."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from workbook.site.errors import InputError, Where, place, raise_all
from workbook.site.spec import Rule, Value

# the node's parts whose heat cold plates may take: a site whose shares are all 0 has no coolant loop
LIQUID_SHARES = ("cooling.gpu_liquid_share", "cooling.cpu_liquid_share", "cooling.baseboard_liquid_share",
                 "cooling.nic_liquid_share")
AIR_COOLED = ("not used: no part is liquid-cooled (" + ", ".join(k.split(".")[1] for k in LIQUID_SHARES)
              + " all 0), so no coolant loop; the example's value stands in for the rows that do not apply")


def air_cooled(raw: Callable[[str], Any]) -> bool:
    """Whether every part's liquid share is 0, from each share's raw value as written (`raw(key)`, None where it is
    not known): a key only a liquid-cooled part needs (Spec.liquid) is then neither REQUIRED nor missing."""
    for key in LIQUID_SHARES:
        value = raw(key)
        value = value.get("value") if isinstance(value, dict) else value
        if isinstance(value, str):
            value = value.strip().rstrip("%").strip()
        try:
            if isinstance(value, bool) or value is None or float(value) != 0:
                return False
        except (TypeError, ValueError):
            return False
    return True
_RULE_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
             "divides": lambda a, b: b % a == 0}


def rule_holds(op: str, a: float, b: float) -> bool:
    return bool(_RULE_OPS[op](a, b))


def rule_holds_each(op: str, a: Any, b: Any) -> Any:
    """rule_holds for arrays of cases: a boolean array, one per case."""
    import numpy as np

    return np.asarray(_RULE_OPS[op](a, b), dtype=bool)


def check_rules(where: Where, values: dict[str, Value], rules: list[Rule] | tuple[Rule, ...]) -> None:
    """Refuse values that break a rule, naming both keys and values; rules on absent keys do not apply."""
    raise_all(broken_rules(where, values, rules))


def broken_rules(where: Where, values: dict[str, Value], rules: list[Rule] | tuple[Rule, ...]) -> list[InputError]:
    """One error per rule the values break (rules on absent keys do not apply)."""
    out = []
    for key, op, other, why in rules:
        a, b = values.get(key), values.get(other)
        if a is not None and b is not None and not _RULE_OPS[op](a.magnitude, b.magnitude):
            out.append(InputError(why, key=key, value=a.given, others=((other, b.given),),
                                  expected=f"{key} {op} {other}", **place(where)))
    return out
