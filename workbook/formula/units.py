"""The one pint registry of the project.

Every unit the models use is defined here once, so a unit string means the same thing in the catalog,
the site files, the models and the tests.
"""

from __future__ import annotations

import functools
import math
import re

import pint


def _registry() -> pint.UnitRegistry:
    """pint's registry, with its parsed definitions cached in the user's cache folder (~/.cache/pint: 16 ms a
    start instead of 160 ms). A cache folder that cannot be written, or a damaged cache, is no error: the
    definitions are then parsed again, with no cache (pint opens it at import, before any command can say why)."""
    try:
        return pint.UnitRegistry(cache_folder=":auto:")
    except Exception:  # OSError for the folder; ValueError, EOFError and others for a damaged file
        return pint.UnitRegistry(cache_folder=None)


ureg = _registry()
# Money is its own dimension: adding USD to kWh must fail the build, not the audit.
ureg.define("USD = [currency]")
ureg.define("kUSD = 1000 USD")
ureg.define("MUSD = 1000000 USD")
# Counted things are dimensionless, but named so that rows read "USD/GPU/h".
ureg.define("GPU = []")
# Model parameters, counted in billions on the Inputs sheet ("B params" is Gparam: 70 = a 70B model).
ureg.define("param = []")
# Tokens of text, counted (a training run's 15.6T; a context of 8,192).
ureg.define("token = []")
# Floating-point operations, a dimension of their own so that FLOPs are never added to bytes or tokens
# ("TFLOP/s" is a GPU's peak; 6 FLOP per parameter per token trains a dense transformer).
ureg.define("FLOP = [compute]")
# pint reads "cfm" as centi-fermi; the HVAC unit is cubic feet per minute.
ureg.define("CFM = foot ** 3 / minute")
# US gallons per minute, the HVAC flow unit (pint's gallon is the US liquid gallon, 3.785 L).
ureg.define("gpm = gallon / minute")
# Rack units (EIA-310: 1.75 in), so "42 U" / "8 U" is a count of node slots.
ureg.define("rack_unit = 44.45 mm = U")
# Finance means a 365-day year; pint's "year" is 365.25 days.
ureg.define("fyear = 8760 hour")
ureg.define("fmonth = fyear / 12")

Q_ = ureg.Quantity
Unit = ureg.Unit


@functools.lru_cache(maxsize=4096)
def unit(text: str) -> pint.Unit:
    """Parse a unit string; the empty string is dimensionless. Parsed once per string (a book names a few hundred
    units over thousands of lines; pint's parse is most of a line's definition): a Unit is immutable."""
    return ureg.Unit(text or "dimensionless")


def factor(src: pint.Unit, dst: pint.Unit) -> float:
    """The multiplier that turns a magnitude in `src` into one in `dst` (raises on a dimension mismatch).

    Unit definitions are exact decimals, but pint's float arithmetic can leave 59999.99999999999 for 60000
    (L/min per kW) or 3.785411783999999 for 3.785411784 (gallon to L); 15 significant digits, as a spreadsheet
    shows them, give the defined value back, so formulas read `*60000`.
    """
    return float(f"{ureg.Quantity(1.0, src).to(dst).magnitude:.15g}")


@functools.lru_cache(maxsize=1024)
def is_information(u: pint.Unit) -> bool:
    """bytes, TB, Gb/s: pint counts information as a pure number (its bit is 1, a byte 8), so a bare 16 given for
    a size in bytes would be read as 16 bits, 2 bytes. A quantity of information always needs its unit."""
    names = re.findall(r"[A-Za-z_]+", str(u))
    return any(base in ("bit", "byte") for name in names for _, base, _ in ureg.parse_unit_name(name))


def information_differs(src: pint.Unit, dst: pint.Unit) -> bool:
    """Whether one of two units measures information and the other does not: pint converts between them all the
    same (16 dimensionless is 16 bits, 2 bytes; 128 bytes are 1,024 GPUs), so every conversion of a value given
    from outside asks this first, as the dimension."""
    return is_information(src) != is_information(dst)


def described(u: pint.Unit) -> str:
    """A unit as a message names it: "kW", "B", or "a pure number" (a count, a share)."""
    return f"{u:~P}" if ureg.Quantity(1.0, u).dimensionality or is_information(u) else "a pure number"


def power_of_ten(f: float) -> bool:
    """1000, 1e6, 0.001: a factor a formula may show as it is, since it reads plainly."""
    return f > 0 and f == float(f"1e{round(math.log10(f))}")


@functools.lru_cache(maxsize=1024)
def is_offset(u: pint.Unit) -> bool:
    """Absolute temperatures (degC, degF) cannot be scaled, only compared or subtracted."""
    return not ureg.Quantity(1.0, u)._is_multiplicative
