"""LibreOffice 7.4.7's arithmetic, transcribed line by line from its C++ into scalar Python.

This is the reference the vectorised implementations in `workbook.formula.spreadsheet` are proved against
(tests/test_spreadsheet_arithmetic.py). It is written to be read beside the C++, one statement for one
statement, not to be fast. Sources (libreoffice-7.4.7 orig tarball, Debian 12):
- sal/rtl/math.cxx: rtl_math_approxEqual, isRepresentableInteger, getBitsInFracPart, rtl_math_approxValue,
  rtl_math_round; include/rtl/math.hxx: approxAdd, approxSub, approxFloor, approxCeil
- sc/inc/kahan.hxx: class KahanSum
- sc/source/core/tool/interpr6.cxx: IterateParameters(ifSUM), FuncSum, NumericCellAccumulator
- sc/source/core/tool/interpr1.cxx: IterateParametersIf(ifSUMIF)
- sc/source/core/tool/interpr2.cxx: ScNPV, ScIRR, ScGetPMT
- sc/source/core/tool/math.cxx: sc::power
- sc/source/core/tool/compare.cxx: CompareFunc
- sc/source/core/tool/interpr3.cxx: ScCritBinom (its beta density, GetBetaDistPDF with GetLogBeta and GetBeta,
  is itself a scalar line-by-line transcription: workbook.formula.spreadsheet.beta_pdf, used by both)
"""

from __future__ import annotations

import math
import struct

NAN = float("nan")


def is_representable_integer(f_abs_value: float) -> bool:
    k_max_int = (1 << 53) - 1
    if f_abs_value <= float(k_max_int):
        n_int = int(f_abs_value)  # static_cast<sal_Int64> truncates
        if n_int > k_max_int:
            return False
        f_int = float(n_int)
        return not (f_int < f_abs_value) and not (f_int > f_abs_value)
    return False


def approx_equal(a: float, b: float) -> bool:
    e48 = 2.0**-48
    e44 = 2.0**-44
    if a == b:
        return True
    if a == 0.0 or b == 0.0:
        return False
    d = abs(a - b)
    if not math.isfinite(d):
        return False
    a = abs(a)
    if d > (a * e44):
        return False
    b = abs(b)
    if d > (b * e44):
        return False
    if is_representable_integer(d) and is_representable_integer(a) and is_representable_integer(b):
        return False
    return d < a * e48 and d < b * e48


def approx_add(a: float, b: float) -> float:
    if ((a < 0.0 and b > 0.0) or (b < 0.0 and a > 0.0)) and approx_equal(a, -b):
        return 0.0
    return a + b


def approx_sub(a: float, b: float) -> float:
    if ((a < 0.0 and b < 0.0) or (a > 0.0 and b > 0.0)) and approx_equal(a, b):
        return 0.0
    return a - b


def compare_func(f_cell1: float, f_cell2: float) -> int:
    """CompareFunc(double, double): 0 when equal, -1 when less, 1 when greater."""
    f_res = 0
    if not approx_equal(f_cell1, f_cell2):
        f_res = -1 if f_cell1 - f_cell2 < 0 else 1
    return f_res


def _find_first_set_bit(n: int) -> int:
    return (n & -n).bit_length() if n else 0  # __builtin_ffs


def get_bits_in_frac_part(f_abs_value: float) -> int:
    if f_abs_value == 0.0:
        return 0
    bits = struct.unpack("<Q", struct.pack("<d", f_abs_value))[0]
    n_exponent = ((bits >> 52) & 0x7FF) - 1023
    if n_exponent >= 52:
        return 0
    fraction_lo = bits & 0xFFFFFFFF
    fraction_hi = (bits >> 32) & 0xFFFFF
    n_least_significant = _find_first_set_bit(fraction_lo)
    if n_least_significant == 0:
        n_least_significant = _find_first_set_bit(fraction_hi)
        if n_least_significant == 0:
            n_least_significant = 53
        else:
            n_least_significant += 32
    n_frac_significant = 53 - n_least_significant
    n_bits_in_frac_part = n_frac_significant - n_exponent
    return max(n_bits_in_frac_part, 0)


def get_n10_exp(n_exp: int) -> float:
    if n_exp < -323 or n_exp > 308:
        return math.inf if n_exp > 0 else 0.0
    return float(f"1e{n_exp}")


def approx_value(f_value: float) -> float:
    f_big_int = 2.0**41
    if f_value == 0.0 or f_value == math.inf or not math.isfinite(f_value) or f_value > f_big_int:
        return f_value
    f_orig_value = f_value
    b_sign = math.copysign(1.0, f_value) < 0
    if b_sign:
        f_value = -f_value
    if is_representable_integer(f_value) or get_bits_in_frac_part(f_value) <= 11:
        return f_orig_value
    n_exp = math.floor(math.log10(f_value))
    n_exp = 14 - n_exp
    f_exp_value = get_n10_exp(abs(n_exp))
    if n_exp < 0:
        f_value /= f_exp_value
    else:
        f_value *= f_exp_value
    if not math.isfinite(f_value):
        return f_orig_value
    f_value = c_round(f_value)
    if n_exp < 0:
        f_value *= f_exp_value
    else:
        f_value /= f_exp_value
    if not math.isfinite(f_value):
        return f_orig_value
    return -f_value if b_sign else f_value


def approx_ceil(a: float) -> float:
    return math.ceil(approx_value(a))


def approx_floor(a: float) -> float:
    return math.floor(approx_value(a))


def rtl_round_0(f_value: float, up: bool) -> float:
    """rtl_math_round(fValue, 0, Up or Down)."""
    if not math.isfinite(f_value):
        return f_value
    if f_value == 0.0:
        return f_value
    f_orig_value = f_value
    b_sign = math.copysign(1.0, f_value) < 0
    if b_sign:
        f_value = -f_value
    if f_value >= 2.0**52 or is_representable_integer(f_value):
        return f_orig_value
    if f_value < 2.0**52:
        f_value = float(approx_ceil(f_value) if up else approx_floor(f_value))
    if not math.isfinite(f_value):
        return f_orig_value
    return -f_value if b_sign else f_value


def round_significant(f_x: float, f_digits: float) -> float:
    """ScInterpreter::RoundSignificant; rtl::math::round(x) with its defaults is std::round."""
    f_temp = approx_floor(math.log10(abs(f_x))) + 1.0 - f_digits
    return c_round(c_pow(10.0, -f_temp) * f_x) * c_pow(10.0, f_temp)


def c_round(v: float) -> float:
    """std::round: halves away from zero; infinities and NaN unchanged."""
    if not math.isfinite(v):
        return v
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def round_number(f_x: float, n_dec: int, up: bool) -> float:
    """ScInterpreter::RoundNumber with two parameters, for ROUNDUP(x, nDec) / ROUNDDOWN(x, nDec) with nDec 0:
    tdf#124286 rounds a non-whole x to 12 significant digits before rounding up or down."""
    assert n_dec == 0
    if n_dec < 12 and math.fmod(f_x, 1.0) != 0.0:
        f_res = round_significant(f_x, 12)
        return rtl_round_0(f_res, up)
    return rtl_round_0(f_x, up)


def sc_power(f_val1: float, f_val2: float) -> float:
    """sc::power; an error result is NaN here."""
    if f_val1 < 0 and f_val2 != 0.0:
        f = 1.0 / f_val2 + (-0.5 if f_val2 < 0.0 else 0.5)
        if not (-(2.0**63) <= f <= 2.0**63 - 1):
            f_pow = _err_pow(f_val1, f_val2)
        else:
            i = int(f)
            if i % 2 != 0 and approx_equal(1 / float(i), f_val2):
                f_pow = -_err_pow(-f_val1, f_val2)
            else:
                f_pow = _err_pow(f_val1, f_val2)
    else:
        f_pow = _err_pow(f_val1, f_val2)
    return f_pow


def _err_pow(a: float, b: float) -> float:
    """pow() with its domain, pole, range and underflow errors reported (as NaN)."""
    try:
        r = math.pow(a, b)
    except (ValueError, OverflowError, ZeroDivisionError):
        return NAN
    if not math.isfinite(r) or (r == 0.0 and a != 0.0) or (r != 0.0 and abs(r) < 2.2250738585072014e-308):
        return NAN
    return r


def c_pow(a: float, b: float) -> float:
    """C's pow(): inf on overflow, NaN on a domain error (Python's math.pow raises instead)."""
    try:
        return math.pow(a, b)
    except OverflowError:
        return math.copysign(math.inf, a) if a < 0 and b % 2 == 1 else math.inf
    except ValueError:
        return NAN


def c_div(a: float, b: float) -> float:
    """C's a / b for doubles: +-inf or NaN at b == 0 (Python raises ZeroDivisionError)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return NAN
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


class KahanSum:
    def __init__(self, x_0: float = 0.0):
        self.m_fSum = x_0
        self.m_fError = 0.0
        self.m_fMem = 0.0

    def add(self, x_i: float) -> None:
        if x_i == 0.0:
            return
        if not self.m_fMem:
            self.m_fMem = x_i
            return
        t = self.m_fSum + self.m_fMem
        if abs(self.m_fSum) >= abs(self.m_fMem):
            self.m_fError += (self.m_fSum - t) + self.m_fMem
        else:
            self.m_fError += (self.m_fMem - t) + self.m_fSum
        self.m_fSum = t
        self.m_fMem = x_i

    def add_sum(self, f_sum: KahanSum) -> None:
        self.add(f_sum.m_fSum)
        self.add(f_sum.m_fError)
        self.add(f_sum.m_fMem)

    def get(self) -> float:
        f_total = self.m_fSum + self.m_fError
        if not self.m_fMem:
            return f_total
        if ((self.m_fMem < 0.0 and f_total > 0.0) or (f_total < 0.0 and self.m_fMem > 0.0)) \
                and approx_equal(self.m_fMem, -f_total):
            return 0.0
        self.add(self.m_fMem)
        self.m_fMem = 0.0
        return self.m_fSum + self.m_fError


def sum_row(values: list[float]) -> float:
    """SUM over a row of formula cells: one NumericCellAccumulator per column, added into FuncSum's mfSum,
    which IterateParameters adds into fRes."""
    mf_sum = KahanSum(0.0)
    for f_val in values:
        acc = KahanSum(0.0)
        acc.add(f_val)  # maSum += fVal
        mf_sum.add_sum(acc)  # mfSum += aFunc.getResult()
    f_res = KahanSum(0.0)
    f_res.add_sum(mf_sum)  # fRes += aAction.getSum()
    return f_res.get()


def sumif_row(keys: list[float], key: float, values: list[float]) -> float:
    f_sum = KahanSum(0.0)
    for k, f_val in zip(keys, values, strict=True):
        if compare_func(k, key) == 0:  # the query entry matches
            f_sum.add(f_val)
    return f_sum.get()


def npv(f_rate: float, values: list[float]) -> float:
    f_val = KahanSum(0.0)
    f_count = 1.0
    for f_cell_val in values:
        f_val.add(c_div(f_cell_val, c_pow(1.0 + f_rate, f_count)))
        f_count += 1
    return f_val.get()


def irr(values: list[float], f_estimated: float = 0.1) -> float:
    sc_d_epsilon = 1.0e-7
    f_eps = 1.0
    x = 0.1 if f_estimated == -1.0 else f_estimated
    n_iterations_max = 20
    n_it_count = 0
    while f_eps > sc_d_epsilon and n_it_count < n_iterations_max:
        f_nom = KahanSum(0.0)
        f_denom = KahanSum(0.0)
        f_count = 0.0
        for f_value in values:
            f_nom.add(c_div(f_value, c_pow(1.0 + x, f_count)))
            f_denom.add(c_div(-f_count * f_value, c_pow(1.0 + x, f_count + 1.0)))
            f_count += 1
        x_new = x - c_div(f_nom.get(), f_denom.get())
        n_it_count += 1
        f_eps = abs(x_new - x)
        x = x_new
    if f_estimated == 0.0 and abs(x) < sc_d_epsilon:
        x = 0.0
    return x if f_eps < sc_d_epsilon else NAN


def pmt(f_rate: float, f_nper: float, f_pv: float, f_fv: float = 0.0) -> float:
    if f_rate == 0.0:
        f_payment = (f_pv + f_fv) / f_nper
    else:
        f_payment = (f_fv + f_pv * math.exp(f_nper * math.log1p(f_rate))) * f_rate / \
            math.expm1(f_nper * math.log1p(f_rate))
    return -f_payment


def crit_binom(n: float, p: float, alpha: float) -> float:
    """ScCritBinom; NaN where it pushes an error."""
    from workbook.formula.spreadsheet import beta_pdf

    n = float(approx_floor(n))
    if n < 0.0 or alpha < 0.0 or alpha > 1.0 or p < 0.0 or p > 1.0:
        return NAN
    if alpha == 0.0:
        return 0.0
    if alpha == 1.0:
        return 0.0 if p == 0 else n
    dbl_min = 2.2250738585072014e-308
    q = (0.5 - p) + 0.5
    max_ = int(n)  # static_cast<sal_uInt32>
    if q > p:
        f_factor = math.pow(q, n)
        if f_factor > dbl_min:
            f_sum = f_factor
            i = 0
            while i < max_ and f_sum < alpha:
                f_factor *= (n - i) / (i + 1) * p / q
                f_sum += f_factor
                i += 1
            return float(i)
        f_sum = 0.0
        i = 0
        while i < max_ and f_sum < alpha:
            x = beta_pdf(p, (i + 1), (n - i + 1)) / (n + 1)
            f_sum += x
            i += 1
        return float(i - 1)
    f_factor = math.pow(p, n)
    if f_factor > dbl_min:
        f_sum = 1.0 - f_factor
        i = 0
        while i < max_ and f_sum >= alpha:
            f_factor *= (n - i) / (i + 1) * q / p
            f_sum -= f_factor
            i += 1
        return float(n - i)
    f_sum = 0.0
    i = 0
    alpha = 1 - alpha
    while i < max_ and f_sum < alpha:
        x = beta_pdf(q, (i + 1), (n - i + 1)) / (n + 1)
        f_sum += x
        i += 1
    return float(n - i + 1)
