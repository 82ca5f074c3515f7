"""The build of one site's book, as a table of contents: load (read and validate the site file and everything its
book is defined from), define (each model's lines, then the scenarios' copies), analyse (the tornado's and the
risk's evaluations), results (the lines that show them: the checks, the Summary, each model's summary rows),
present (what the models show beside their lines), freeze (nothing in the book changes after).

    build_book(load_all(path)) -> Book

No model reads a file, and nothing is evaluated while lines are defined: the analyses run between the two
definition steps and add no line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbook.analysis import scenarios, sensitivity, summary
from workbook.analysis.risk import analysis as risk_analysis
from workbook.analysis.risk import section as risk_section
from workbook.book import sheets
from workbook.book.book import Book
from workbook.book.presentation import Presented, Table
from workbook.models import ENGINEERING, PRESENTATION, all_rules, all_specs, cooling, reliability, tco, workload
from workbook.models.base import AllInputs, Inputs, Scope
from workbook.models.bom import bom
from workbook.models.bom.quotes import quote_inputs
from workbook.models.fleet import NEXT, Fleet, define_fleet, define_site_fleet, model_inputs
from workbook.models.generation import generation
from workbook.models.generation.inputs import Upgrade, load_upgrade
from workbook.models.network import fabric
from workbook.models.power import envelope
from workbook.site.errors import InputError, InputErrors, raise_all
from workbook.site.load import read_site
from workbook.site.quotes import Quote, chosen_quotes, quotes_path
from workbook.site.spec import Site


def build_book(loaded: Loaded, *, risk: bool = True) -> Book:
    """Every line of the site's workbook, defined once; evaluation and rendering both read this. `risk` False: the
    `risk:` section is not sampled (a command that shows no risk figure: evaluate, quote, the imports); the book is
    laid out as the build's, but no document showing the Summary or the Risk sheet can be written."""
    book, models = define_models(loaded)  # define
    tornado = decision_tornado(book, models.inputs, models.money)  # analyse: one batch of overlays
    work = workload_tornado(book, models.inputs, models.work) if models.work is not None else None  # and another
    odds = None
    if loaded.risk is not None:  # analyse: one batch of samples
        odds = (decision_risk(book, loaded.risk, models.money, work=models.work) if risk
                else risk_analysis.unsampled(book, loaded.risk, risk_outputs(models.money, models.work)))
    define_results(book, loaded.site, models, tornado, odds, work)  # results, then present
    return book.freeze()


# ---------------------------------------------------------------- load


@dataclass(frozen=True)
class Loaded:
    """A site and everything its book is defined from, read and validated before any model runs: the site file
    (with its upgrade's inputs among its values), the upgrade and its next fleet's file, the vendor quotes imported
    for it, its scenarios' changes and its risk: section, each read as values, and the templates (catalog, defaults,
    limits; the unit conversion constants are the method's, read when the program loads: book.constants). No model
    reads a file or parses a value."""

    site: Site
    upgrade: Upgrade | None
    quotes: dict[str, Quote]
    risk: risk_section.RiskPlan | None = None  # the `risk:` section's input distributions, where it has one


def complete(site: Site, risk: risk_section.RiskPlan | None = None) -> Loaded:
    """What a validated site's book needs besides the site file, read now: its upgrade's next fleet, its quotes (and
    its risk plan, where the caller has not read it with the site)."""
    engineering = [spec for m in ENGINEERING for spec in m.INPUTS]
    upgrade = load_upgrade(site, engineering, [r for m in ENGINEERING for r in getattr(m, "RULES", [])])
    if upgrade is not None:
        site = dataclasses.replace(site, values={**site.values, **upgrade.values})
    plan = risk if risk is not None else risk_section.read(site, all_specs())
    return Loaded(site, upgrade, chosen_quotes(site), plan)


def load_all(site_path: Path | str) -> Loaded:
    """Read and validate a site file and everything its book is defined from. The site file's problems, its
    scenarios' and its risk: section's are found in one pass and reported together."""
    site, problems = read_site(site_path, all_specs(), rules=all_rules())
    plan = None
    if site is not None:
        problems += workload.refusals(site)
        try:
            plan = risk_section.read(site, all_specs())
        except InputErrors as e:
            problems += list(e.errors)
        except InputError as e:
            problems.append(e)
    raise_all(problems)
    assert site is not None
    return complete(site, plan)


# ---------------------------------------------------------------- define


@dataclass(frozen=True)
class Models:
    """What define_models defined, for the steps after it: the inputs and each model's outputs."""

    inputs: AllInputs
    rel: reliability.ReliabilityOut
    fleet: Fleet
    spares: tuple[reliability.Spare, ...]
    spares_shown: Presented
    bill: bom.BomOut
    money: tco.TcoOut
    upgrade: tuple[generation.GenerationOut, Fleet] | None
    room: envelope.EnvelopeOut
    work: workload.WorkloadOut | None = None  # where the site has a workload: section


def define_models(loaded: Loaded) -> tuple[Book, Models]:
    """Every model's lines from the loaded inputs (no file read, no evaluation), then the scenarios' copies."""
    site = loaded.site
    book = Book(site.name)
    for title in sheets.ORDER:
        book.sheets.setdefault(title, [])
    inputs = model_inputs(book, site, PRESENTATION)
    rel, fleet = define_site_fleet(book, inputs)
    spares, spares_shown = reliability.define_spares(Scope(book, reliability.PREFIX), inputs, rel, fleet.power,
                                                     fleet.fabric, fleet.cooling, named_parts(site), site.models)
    bill = define_bom(book, site, inputs, fleet, loaded.quotes, rel, spares)
    money = tco.define(Scope(book, tco.PREFIX), inputs.tco, inputs.power, fleet.power, bill, rel.goodput)
    upgrade = define_upgrade(book, loaded, inputs, fleet)
    fleets = [("Current fleet" if upgrade else "This site's fleet", fleet, inputs.power.gpu_throughput)]
    if upgrade is not None:
        fleets.append(("Next fleet", upgrade[1], upgrade[1].inputs.power.gpu_throughput))
    room = envelope.define(Scope(book, envelope.PREFIX), inputs.envelope, fleets)
    work = define_workload(book, site, inputs, rel, money, room)
    if tco.DELAY_SCENARIO in site.scenarios:
        raise InputError("is the name of the built-in scenario that prices a month of delay", file=site.path,
                         key=f"scenarios.{tco.DELAY_SCENARIO}", expected="another name")
    late = {tco.DELAY_SCENARIO: tco.delay_changes(inputs.tco)}  # the built-in scenario: a month of delay
    with_delay = dataclasses.replace(site, scenarios={**site.scenarios, **late})
    book.scenarios = scenarios.add_scenarios(book, with_delay, all_specs(), all_rules(),
                                             {tco.DELAY_SCENARIO: (sheets.DELAY, sheets.DELAY_YEARLY)})
    return book, Models(inputs, rel, fleet, spares, spares_shown, bill, money, upgrade, room, work)


def define_workload(book: Book, site: Site, inputs: AllInputs, rel: reliability.ReliabilityOut,
                    money: tco.TcoOut, room: envelope.EnvelopeOut) -> workload.WorkloadOut | None:
    """The workload's training run and inference, where the site file has a workload: section: its inputs after
    every other model's on the Inputs sheet, its GPU-hours priced at the TCO's costs per GPU-hour used, its run
    also placed on the GPUs the power envelope holds."""
    if not workload.present(site.values):
        return None
    w = model_inputs(book, site, [workload]).workload
    prices = (money.owned_cost_per_gpu_hour, money.rented_cost_per_gpu_hour_on_demand,
              money.rented_cost_per_gpu_hour_committed)
    assert money.break_even_numerator is not None and money.break_even_slope is not None
    p = inputs.power
    cluster = workload.Cluster(p.gpus, p.gpus_per_node, room.fleets[0].gpus, rel.goodput, prices,
                               rel.write_overhead)
    market = workload.Market(p.gpus, inputs.tco.utilisation, prices,
                             (money.break_even_numerator, money.break_even_slope))
    return workload.define(Scope(book, workload.PREFIX), w, cluster, market)


def define_upgrade(book: Book, loaded: Loaded, inputs: AllInputs,
                   fleet: Fleet) -> tuple[generation.GenerationOut, Fleet] | None:
    """A generation upgrade, when the site file has one: the next fleet as a second instance of the engineering
    models (namespace `next`), and the plans that move the hall from one fleet to the other."""
    site, upgrade = loaded.site, loaded.upgrade
    if upgrade is None:
        return None
    nxt = define_fleet(book, model_inputs(book, upgrade.next_site, ENGINEERING, NEXT), NEXT)
    plan_inputs = Inputs(book, site, generation.INPUTS_TITLE, generation.PREFIX, upgrade.specs)
    t = inputs.tco
    method = t.choice("facility_residual") if t.choice("facility_model") == "build" else "book"
    hall = {"price": t.electricity_price, "pue": fleet.power.pue_energy, "method": method, "wacc": t.cost_of_capital,
            "exit": t.facility_exit_value if method == "stated" else None}
    return generation.define(Scope(book, generation.PREFIX), plan_inputs, upgrade, fleet, nxt, hall), nxt


def define_bom(book: Book, site: Site, inputs: AllInputs, fleet: Fleet, quotes: dict[str, Quote],
               storage: reliability.ReliabilityOut | None = None,
               spares: tuple[reliability.Spare, ...] = ()) -> bom.BomOut:
    """The bill of materials of the site's fleet, priced by the vendors' quotes where a quote was imported."""
    b = inputs.bom
    q = quote_inputs(book, site, quotes, b.price_date if b.has("price_date") else None)
    out = bom.define(Scope(book, bom.PREFIX), inputs, fleet.power, fleet.fabric, fleet.cooling, fleet.oob,
                     named_parts(site), quotes, q, storage, spares)
    priced = sorted(item.key for item, _, _ in out.rows if item.price is not None)
    for key in quotes:
        if key not in priced:
            raise InputError("is not a priced line of this site's bill of materials", file=quotes_path(site.path),
                             key=key, expected=f"one of {', '.join(priced)}")
    book.bom = out
    return out


SITE_NODE = "GPU node (site-described)"  # the name of a node the site file describes itself, without power.node_name


def named_parts(site: Site) -> dict[str, str]:
    """The parts the bill of materials, the spares and the quote name: the catalog entries the site chose, with the
    node named by the site's power.node_name where it gives one, else by its catalog entry, else SITE_NODE."""
    parts = dict(site.parts)
    name = site.get("power.node_name")
    if name is not None:
        parts["node"] = str(name.magnitude)
    parts.setdefault("node", SITE_NODE)
    return parts


# ---------------------------------------------------------------- analyse


def whole_month_steps(t: Inputs) -> dict[str, float]:
    """The inputs a tornado moves by a whole-month step either way, not a share: the useful life and the lead
    time, each by its step (the TCO's inputs)."""
    return {t.useful_life.id: float(t.choice("life_swing")), t.lead_time.id: float(t.choice("lead_time_swing"))}


def decision_tornado(book: Book, inputs: AllInputs, money: tco.TcoOut) -> Table:
    """The tornado on the decision: what moves the NPV advantage of buying (by more than 1% of the NPV of owning),
    with the break-even utilisation beside it; and above it, the break-even utilisation and rent change."""
    specs = all_specs()
    t = inputs.tco
    steps = whole_month_steps(t)
    table = sensitivity.tornado(book, specs, all_rules(), [money.npv_advantage.id, money.break_even_utilisation.id],
                                float(t.choice("sensitivity_swing")), scale=money.npv_own.id, steps=steps)
    rent = next(spec for spec in specs if spec.key == inputs.tco.rent_price_change.id)
    table.facts = sensitivity.break_even_facts(book, rent, money.npv_advantage, money.break_even_utilisation,
                                               "rent price change per year")
    return table


def workload_tornado(book: Book, inputs: AllInputs, work: workload.WorkloadOut) -> Table:
    """The tornado on the workload: what moves the owned cost of the training run or of a million FP8 tokens (by
    more than 1% of either), the widest share first; the same swings and steps as the decision's, the model's size
    swung whole (its active parameters in proportion: a dense model's are all of them)."""
    t = inputs.tco
    steps = whole_month_steps(t)
    fp8 = next(serving for serving in work.serving if serving.precision == "fp8")
    return sensitivity.tornado(book, all_specs(), all_rules(), [work.run_cost_owned.id, fp8.cost_owned.id],
                               float(t.choice("sensitivity_swing")), steps=steps, sheet=sheets.WORKLOAD_SENSITIVITY,
                               each=True, together={"workload.parameters": ("workload.active_parameters",)})


def risk_outputs(money: tco.TcoOut, work: workload.WorkloadOut | None = None) -> list[str]:
    """What the risk reports, the decision first: the NPV advantage of buying, the owned and rented cost per GPU-hour
    used, the break-even utilisation and the IRR of buying; with a workload, the training run's days and owned
    cost and the owned cost of a million tokens in each precision (so that an MFU, a model's size or a decode
    efficiency given a distribution shows its spread)."""
    lines = [money.npv_advantage, money.owned_cost_per_gpu_hour, money.rented_cost_per_gpu_hour,
             money.break_even_utilisation, money.irr_buy]
    if work is not None:
        lines += [work.run_days, work.run_cost_owned, *(serving.cost_owned for serving in work.serving)]
    return [line.id for line in lines]


def decision_risk(book: Book, plan: risk_section.RiskPlan, money: tco.TcoOut, samples: int | None = None,
                  seed: int | None = None, work: workload.WorkloadOut | None = None) -> risk_analysis.RiskResult:
    """The decision under the `risk:` section's distributions: the build's second evaluation (one batch of every
    sample), after the tornado's and before any result line is defined. No mean of the IRR (IRRs do not average)
    nor of the break-even utilisation (above 100% it is never reached: a mean of never is no figure)."""
    return risk_analysis.run(book, plan, risk_outputs(money, work), all_rules(), samples, seed,
                             no_mean=(money.irr_buy.id, money.break_even_utilisation.id),
                             roots={money.irr_buy.id: money.irr_buy_roots.id})


# ---------------------------------------------------------------- results and present


def define_results(book: Book, site: Site, m: Models, tornado: Table,
                   risk: risk_analysis.RiskResult | None = None, work: Table | None = None) -> None:
    """The lines that show results, defined after the tornados' and the risk's evaluations: the record that their
    values are still current, the checks, the Summary (with the estimates it ranks first, and the risk's odds) and
    each model's summary rows; then what every model shows is placed (present)."""
    also = (*(risk.read if risk is not None else ()), *(work.read if work is not None else ()))
    tornado, current = sensitivity.record(book, tornado, also)
    if risk is not None:
        risk = dataclasses.replace(risk, current=sensitivity.current_sentence("the Risk sheet's values", current))
    if work is not None:
        work = dataclasses.replace(work, current=sensitivity.current_sentence("these values", current))
    all_pass = summary.define_checks(book, aside=(tco.DELAY_SCENARIO,))
    confirm = summary.to_confirm(site, tornado, m.inputs.tco.lead_time, m.inputs.tco.tax_rate)
    s, summary_shown = summary.define(Scope(book, summary.PREFIX), all_pass, m.fleet.power, m.fleet.ups, m.money,
                                      m.inputs.tco, confirm, risk, standby=m.fleet.generators)
    fabric.summarise(s, m.fleet.fabric, m.fleet.oob.oob_switches)
    cooling.summarise(s, m.fleet.cooling, cooling.air_cooled(m.inputs.cooling))
    comparison = tco.summarise(Scope(book, tco.PREFIX), s, m.money, book.scenarios)
    if m.work is not None:
        workload.summarise(s, m.work)
    reliability.summarise(s, m.rel, m.spares)
    delivered = generation.summarise(s, m.upgrade[0]) if m.upgrade is not None else Presented()
    present(book, [m.rel.presented, m.spares_shown, m.bill.presented,
                   *([m.upgrade[0].presented] if m.upgrade else []), m.room.presented, summary_shown, comparison,
                   delivered], (tornado, *([work] if work is not None else []), *([risk] if risk is not None else [])))


def present(book: Book, parts: list[Presented], tables: tuple[Any, ...] = ()) -> None:
    """What the models show beside their lines, placed once every line is defined: their charts, views, grids and
    headline, each kind in the order of `parts`, then the build-time tables. No model places its own."""
    for part in parts:
        book.charts += part.charts
        book.views += part.views
        book.grids += part.grids
        book.headline += part.headline
    book.tables += tables
