"""The one pint registry of the project.

Every unit the models use is defined here once, so a unit string means the same thing in the catalog,
the site files, the models and the tests.
"""

from __future__ import annotations

import math

import pint

ureg = pint.UnitRegistry(cache_folder=":auto:")
# Money is its own dimension: adding USD to kWh must fail the build, not the audit.
ureg.define("USD = [currency]")
ureg.define("kUSD = 1000 USD")
ureg.define("MUSD = 1000000 USD")
# Counted things are dimensionless, but named so that rows read "USD/GPU/h".
ureg.define("GPU = []")
# Model parameters, counted in billions on the Inputs sheet ("B params" is Gparam: 70 = a 70B model).
ureg.define("param = []")
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


def unit(text: str) -> pint.Unit:
    """Parse a unit string; the empty string is dimensionless."""
    return ureg.Unit(text or "dimensionless")


def factor(src: pint.Unit, dst: pint.Unit) -> float:
    """The multiplier that turns a magnitude in `src` into one in `dst` (raises on a dimension mismatch).

    Unit definitions are exact decimals, but pint's float arithmetic can leave 59999.99999999999 for 60000
    (L/min per kW) or 3.785411783999999 for 3.785411784 (gallon to L); 15 significant digits, as a spreadsheet
    shows them, give the defined value back, so formulas read `*60000`.
    """
    return float(f"{ureg.Quantity(1.0, src).to(dst).magnitude:.15g}")


def power_of_ten(f: float) -> bool:
    """1000, 1e6, 0.001: a factor a formula may show as it is, since it reads plainly."""
    return f > 0 and f == float(f"1e{round(math.log10(f))}")


def is_offset(u: pint.Unit) -> bool:
    """Absolute temperatures (degC, degF) cannot be scaled, only compared or subtracted."""
    return not ureg.Quantity(1.0, u)._is_multiplicative
