"""Dates as a spreadsheet computes them, in numpy: EOMONTH and YEAR of LibreOffice 7.4, for the timeline's calendar.

A date is a serial number: days since 1899-12-30 (LibreOffice's null date; Excel's day 1 is 1900-01-01 after its
1900 leap-day bug, so the two agree from 1900-03-01 on). Only the dates Excel has, 1900-03-01 (61) to 9999-12-31
(2958465), are dates here: outside them Excel gives #NUM! while LibreOffice computes on, so Python gives NaN (a
line with no value fails the build) rather than a number one engine would not show.

How LibreOffice reads the arguments (measured here on 7.4.7 and read in its source):
- a date argument is floored after rounding to 15 significant digits (rtl::math::approxFloor: YEAR's GetFloor32,
  and EOMONTH's whole-number argument, which is positive here);
- EOMONTH's months are cut toward zero after that rounding (approxFloor above 0, approxCeil below: -1.5 is -1,
  0.9999999999 is 0), and must fit a 32-bit integer (#VALUE! otherwise);
- the calendar is the proleptic Gregorian one, as numpy's datetime64 counts it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.formula.spreadsheet import approx_value

FIRST_DATE, LAST_DATE = 61.0, 2958465.0  # 1900-03-01 and 9999-12-31: the dates Excel and LibreOffice share
NULL_DATE = np.datetime64("1899-12-30", "D")
INT32 = 2.0**31


def _f(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _day(date: Any) -> tuple[np.ndarray, np.ndarray]:
    """The whole day a date argument means (approxFloor), and where it is a date Excel has."""
    with np.errstate(invalid="ignore"):
        day = np.floor(approx_value(_f(date)))
        ok = np.isfinite(day) & (day >= FIRST_DATE) & (day <= LAST_DATE)
    return np.where(ok, day, FIRST_DATE), ok


def _calendar(day: np.ndarray) -> np.ndarray:
    """Whole days since the null date as numpy dates."""
    return NULL_DATE + day.astype(np.int64).astype("timedelta64[D]")


def eomonth(date: Any, months: Any) -> np.ndarray:
    """EOMONTH(date, months): the last day of the month `months` months after the date's month (AnalysisAddIn::
    getEomonth); NaN outside Excel's dates or where the months do not fit a 32-bit integer."""
    date, months = np.broadcast_arrays(_f(date), _f(months))
    day, ok = _day(date)
    with np.errstate(invalid="ignore"):
        rounded = approx_value(months)
        whole = np.where(months >= 0, np.floor(rounded), np.ceil(rounded))
        ok &= np.isfinite(whole) & (np.abs(whole) < INT32)
    shift = np.where(ok, whole, 0.0).astype(np.int64).astype("timedelta64[M]")
    first_after = _calendar(day).astype("datetime64[M]") + shift + np.timedelta64(1, "M")
    end = (first_after.astype("datetime64[D]") - np.timedelta64(1, "D") - NULL_DATE).astype(float)
    return np.where(ok & (end >= FIRST_DATE) & (end <= LAST_DATE), end, np.nan)


def year(date: Any) -> np.ndarray:
    """YEAR(date): the calendar year of the day (ScGetYear); NaN outside Excel's dates."""
    day, ok = _day(date)
    years = _calendar(day).astype("datetime64[Y]").astype(np.int64) + 1970
    return np.where(ok, years.astype(float), np.nan)
