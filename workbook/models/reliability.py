"""Reliability and storage: how often the job stops, how big and fast checkpoint storage must be, and how many
spares to hold. Every figure is a formula on the Reliability sheet, checkable by hand:

1. Interruptions. The Llama 3 paper's counts (Dubey et al., "The Llama 3 Herd of Models", 2024, section 3.3.4,
   table 5: 419 unexpected interruptions in 54 days on 16,384 H100 GPUs) grouped by component, each a rate per
   GPU-hour (count / (GPUs x days x 24 h)), scaled to this site's job: interruptions come in proportion to the
   GPUs a job holds, so its mean time between interruptions (MTBI) is 1 / (rate x job GPUs). A share of them
   (78%, the paper's hardware share) needs a part replaced; the rest clear on a restart.
2. Checkpoints. A checkpoint is parameters x state bytes per parameter; it is written and read at the slower of
   the job's nodes together and the shared storage. The first-order model of time lost (Young 1974, Daly 2006),
   with W the write time, tau the interval, R the restart time, Rs the restore time and M the MTBI:
   overhead = W / tau + (tau / 2 + R + Rs) / M; goodput = 1 - overhead, at least 0. It is least at Young's
   interval tau* = (2 M W)^0.5. The job stalls while it writes (a synchronous checkpoint).
3. Storage, sized from the checkpoint burst (unless the site gives its storage as before): a fast tier of
   all-flash appliances, as many as the larger of the bandwidth that writes a checkpoint in the target time and
   the capacity for the checkpoints kept there; a capacity (object) tier for the checkpoints retained. Their
   power feeds the power chain, their price the bill of materials.
4. Spares per part type: the repair pipeline by Little's law (replacements per day x turnaround), the hot pool
   a job restarts on without waiting, and the correlated-failure buffer (the most nodes that fail at once: a
   rack's, a leaf switch's, a CDU's), added; less the nodes the cluster holds beyond the job. A part's stock is
   held when the waiting it saves over the service life (the expected GPUs idle with none on the shelf x the
   rent x the life) costs more than the stock; what a missing node costs depends on the job: a synchronous job
   waits whole, an elastic one drops a data-parallel replica.

The model is defined in two steps: `define` from inputs only, before the fleet (its storage power feeds the
power chain), and `define_spares` after it (the failure domains come from the power chain, fabric and cooling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Chart, Presented
from workbook.book.sheets import RELIABILITY as TITLE
from workbook.formula.expr import Const, Node
from workbook.formula.functions import added, binomial_quantile, ceil, flag, max_, min_, where
from workbook.formula.line import BOOL, COUNT, PERCENT, Line
from workbook.models.base import AllInputs, Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.network.fabric import FabricOut
from workbook.models.power.power import PowerOut
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "reliability"
USD = "#,##0"
RATE = "#,##0.00"  # interruptions per million GPU-hours (9.23, not 9.231E-06 per GPU-hour)
PER_MILLION = "/million GPU-h"
CURVE_POINTS = 10  # checkpoint intervals on the goodput curve: step, 2 x step, ... of the optimal interval
MONTH = Const(1, "fmonth")  # 730 h
SIZED, GIVEN = ("reliability.storage_sizing", "sized"), ("reliability.storage_sizing", "given")

# The Llama 3 paper's root causes grouped by component (key, label); the inputs hold the counts with sources.
COMPONENTS = (
    ("gpu", "GPU (incl. SRAM, GSP, SDC, thermal)"),
    ("hbm", "GPU HBM memory"),
    ("nic", "NIC"),
    ("network", "network switch and cable"),
    ("psu", "power supply"),
    ("host", "host hardware (CPU, memory, SSD, chassis, IO board)"),
    ("maintenance", "host maintenance (no part: cleared by the host's own maintenance)"),
    ("software", "software (bugs, NCCL, dependencies)"),
)
NODE_COMPONENTS = ("gpu", "hbm", "host")  # a failure of these needs a part: the node (unit) is swapped for repair
# The support contracts a node comes back under (choice, key of its turnaround input, what it buys): each contract's
# turnaround is an input with its source (templates/defaults.yaml); `own` takes the site's repair_turnaround.
CONTRACTS = (("onsite-4h", "onsite_4h", "on-site parts replacement within 4 hours, 24x7"),
             ("onsite-nbd", "onsite_nbd", "on-site parts replacement next business day"),
             ("depot", "depot", "return-to-depot repair (RMA) of the failed unit"))
OWN = "own"

_COUNT = dict(expect="a count", lo=0.0, integer=True, fmt=COUNT)
_GBS = dict(expect="a bandwidth", example="20 GB/s", lo=0.0, lo_open=True, hi=1000.0, fmt="#,##0.0")
_USD = dict(expect="an amount of money", example="1500 USD", lo=0.0, hi=1e7, fmt=USD)
_AFR = dict(expect="a share per year", example="0.02 / year", lo=0.0, hi=1.0, fmt=PERCENT)
_DAYS = dict(expect="a duration", example="7 days", lo=0.0, hi=365.0, fmt="#,##0.0")

INPUTS = with_limits([
    Spec("reliability.storage_sizing", "Shared storage: sized from the checkpoint burst, or given", "", "a choice",
         "sized", choices=("sized", "given")),
    Spec("reliability.ref_gpus", "Reference job: GPUs (Llama 3 405B pre-training)", "GPUs", "a count of GPUs",
         "16384", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("reliability.ref_days", "Reference job: days observed", "days", "a duration", "54 days", lo=0.0,
         lo_open=True, hi=3650.0, fmt="#,##0.0"),
    *(Spec(f"reliability.ref_{key}", f"Reference job: unexpected interruptions, {label}", "interruptions",
           example="148", **_COUNT) for key, label in COMPONENTS),
    Spec("reliability.ref_planned", "Reference job: planned interruptions (besides)", "interruptions",
         example="47", **_COUNT),
    Spec("reliability.replacement_share", "Share of interruptions that need a part replaced (the rest clear on a "
         "restart)", "%", "a fraction", "0.78", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("reliability.job_gpus", "GPUs of the training job (absent: every GPU of the site)", "GPUs",
         "a count of GPUs", "1024", lo=0, lo_open=True, integer=True, optional=True, fmt=COUNT),
    Spec("reliability.model_parameters", "Model parameters (billions)", "B params", "a count of parameters",
         "70e9", lo=0.0, lo_open=True, hi=1e5, fmt="#,##0.0"),
    Spec("reliability.state_bytes", "Checkpoint state per parameter (weights and optimiser state)", "bytes",
         "a size in bytes", "16 bytes", lo=1.0, hi=64.0, fmt="#,##0"),
    Spec("reliability.node_write_bandwidth", "Write bandwidth per node to shared storage", "GB/s", **_GBS),
    Spec("reliability.node_read_bandwidth", "Read bandwidth per node from shared storage", "GB/s", **_GBS),
    Spec("reliability.restart_time", "Restart time after an interruption (requeue, start, initialise)", "min",
         "a duration", "10 min", lo=0.0, hi=1440.0, fmt="#,##0.0"),
    Spec("reliability.checkpoint_interval", "Checkpoint interval chosen", "min", "a duration",
         "30 min", lo=0.0, lo_open=True, hi=10080.0, fmt="#,##0.0"),
    Spec("reliability.curve_step", "Goodput curve: interval step, share of the optimal interval", "%",
         "a fraction", "0.25", lo=0.05, hi=1.0, fmt=PERCENT),
    Spec("reliability.target_write_time", "Target time to write a checkpoint (sizes the fast tier)", "s",
         "a duration", "60 s", lo=0.0, lo_open=True, hi=3600.0, when=SIZED, fmt="#,##0.0"),
    Spec("reliability.fast_capacity", "Fast tier appliance: usable capacity", "TB", "a capacity", "250 TB",
         lo=0.0, lo_open=True, hi=1e5, when=SIZED, fmt=COUNT),
    Spec("reliability.fast_write_bandwidth", "Fast tier appliance: write bandwidth", "GB/s", when=SIZED, **_GBS),
    Spec("reliability.fast_read_bandwidth", "Fast tier appliance: read bandwidth", "GB/s", when=SIZED, **_GBS),
    Spec("reliability.fast_power", "Fast tier appliance: power", "kW", "a power", "2.5 kW", lo=0.0, hi=1000.0,
         when=SIZED),
    Spec("reliability.fast_price", "Fast tier appliance: price, installed", "USD", when=SIZED, **_USD),
    Spec("reliability.fast_storage_ports", "Fast tier appliance: storage network ports (Fabric)", "count",
         example="8", when=SIZED, **{**_COUNT, "hi": 1024.0}),
    Spec("reliability.fast_inband_ports", "Fast tier appliance: in-band front-end ports (Fabric)", "count",
         example="2", when=SIZED, **{**_COUNT, "hi": 1024.0}),
    Spec("reliability.fast_checkpoints", "Checkpoints kept on the fast tier", "count", example="2",
         when=SIZED, **{**_COUNT, "lo": 1.0, "hi": 1000.0}),
    Spec("reliability.fast_data", "Other data on the fast tier (training data, working sets)", "TB",
         "a capacity", "100 TB", lo=0.0, hi=1e7, when=SIZED, fmt=COUNT),
    Spec("reliability.capacity_checkpoints", "Checkpoints retained on the capacity (object) tier", "count",
         example="20", when=SIZED, **{**_COUNT, "hi": 1e5}),
    Spec("reliability.capacity_price", "Capacity tier: price per TB usable, installed", "USD", when=SIZED,
         **{**_USD, "example": "100 USD"}),
    Spec("reliability.capacity_power", "Capacity tier: power per TB usable", "W/TB", "a power per TB", "1 W/TB",
         lo=0.0, hi=1000.0, when=SIZED),
    Spec("reliability.storage_write_bandwidth", "Shared storage as given: write bandwidth", "GB/s", when=GIVEN,
         **{**_GBS, "hi": 1e6}),
    Spec("reliability.storage_read_bandwidth", "Shared storage as given: read bandwidth", "GB/s", when=GIVEN,
         **{**_GBS, "hi": 1e6}),
    Spec("reliability.support_contract", "Hardware support contract a failed node comes back under", "",
         "a contract", "onsite-nbd", choices=(*(c for c, _, _ in CONTRACTS), OWN)),
    *(Spec(f"reliability.turnaround_{key}", f"Node repair turnaround, {words}", "days",
           **{**_DAYS, "example": example}) for (_, key, words), example in zip(CONTRACTS, ("2 days", "5 days",
                                                                                         "14 days"), strict=True)),
    Spec("reliability.repair_turnaround", "Node repair turnaround, the site's own (support_contract: own)", "days",
         when=("reliability.support_contract", OWN), **{**_DAYS, "example": "14 days"}),
    Spec("reliability.parts_lead_time", "Lead time of a replacement part (NIC, optic, cable, PSU, fan, switch)",
         "days", **_DAYS),
    Spec("reliability.hot_refill_time", "Time to bring a cold spare node into the hot pool (rack, burn in)", "h",
         "a duration", "24 h", lo=0.0, hi=8760.0, fmt="#,##0.0"),
    Spec("reliability.service_level", "Spares service level: chance the pipeline stock covers the units in repair",
         "%", "a fraction", "0.95", lo=0.5, hi=0.9999, fmt=PERCENT),
    Spec("reliability.spare_unit", "The unit a failed node is repaired by swapping", "", "a unit", "node",
         choices=("node", "host")),
    Spec("reliability.spare_unit_price", "Price of a spare field-replaceable host (a rack-scale node's compute tray)",
         "USD", when=("reliability.spare_unit", "host"), **{**_USD, "example": "170000 USD"}),  # a GB200 tray
    Spec("reliability.fan_redundancy", "Fans a spare unit can lose and still cool at full power (the k of N+k)",
         "fans", example="1", **{**_COUNT, "hi": 1000.0}),
    Spec("reliability.job_kind", "What a missing node costs the job with no spare to restart on: the whole job "
         "(synchronous) or one data-parallel replica (elastic)", "", "a kind of job", "synchronous",
         choices=("synchronous", "elastic")),
    Spec("reliability.replica_gpus", "GPUs of one data-parallel replica (tensor x pipeline x context parallel)",
         "GPUs", "a count of GPUs", "128", lo=0, lo_open=True, integer=True, when=("reliability.job_kind", "elastic"),
         fmt=COUNT),
    Spec("reliability.correlated_domain", "Correlated-failure buffer: the failure domain held as spare nodes", "",
         "a domain", "largest", choices=("largest", "rack", "leaf", "cdu", "none")),
    Spec("reliability.fans_per_node", "Fans per node", "count", example="12", **{**_COUNT, "hi": 1000.0}),
    *(Spec(f"reliability.{key}_afr", f"Annual failure rate, {label}", "share/year", **_AFR)
      for key, label in (("optic", "transceivers"), ("cable", "fibre cables"), ("psu", "power supplies"),
                         ("fan", "fans"), ("switch", "fabric switches"))),
    Spec("reliability.nic_price", "Price per spare NIC", "USD", **_USD),
    Spec("reliability.psu_price", "Price per spare power supply", "USD", **_USD),
    Spec("reliability.fan_price", "Price per spare fan module", "USD", **_USD),
])

RULES = [("reliability.job_gpus", "<=", "power.gpus", "a training job runs on the site's own GPUs")]


@dataclass(frozen=True)
class ReliabilityOut:
    """What the power chain, the bill of materials, the TCO and the Summary read (storage lines: sized only)."""

    job_gpus: Line
    job_nodes: Line
    node_rate: Line  # node replacements per million GPU-hours (the spares' repair pipeline and hot pool)
    nic_rate: Line
    mtbi: Line
    interruptions_per_month: Line
    checkpoint_size: Line
    write_time: Line
    optimal_interval: Line
    goodput: Line
    goodput_optimal: Line
    presented: Presented  # the goodput curve's chart
    write_overhead: Line  # the share of the job's time writing checkpoints at the chosen interval
    storage_power: Line | None = None  # None: the site gives its storage (power.storage_power, tco.storage_capex)
    fast_appliances: Line | None = None
    fast_price: Line | None = None
    capacity_tb: Line | None = None
    capacity_price: Line | None = None


@dataclass(frozen=True)
class Spare:
    """One part type's spares for the bill of materials: its held count and the price it is bought at."""

    key: str
    label: str
    held: Line
    unit: str
    price: Line
    part: str  # the catalog kind that names it (the BOM's spec), or ""
    spec: str


def sized(i: AllInputs) -> bool:
    return i.reliability.choice("storage_sizing") == "sized"


def define(scope: Scope, i: AllInputs) -> ReliabilityOut:
    """Interruptions, checkpoints and the shared storage, from inputs only (the fleet is defined after it)."""
    s = scope.sheet(TITLE)
    r = i.reliability
    rates, job, nodes = _interruptions(s, r, i.power)
    mtbi, monthly = rates["mtbi"], rates["monthly"]
    s.section("Checkpoints: size")
    size = s.calc("checkpoint_size", "Checkpoint size", "TB", r.model_parameters * r.state_bytes,
                  "parameters x state bytes per parameter")
    storage = _storage(s, r, size) if sized(i) else _given_storage(s, r)
    write, restore = _bandwidth(s, r, size, nodes, storage)
    out = _goodput(s, r, mtbi, job, write, restore)
    curve = _curve(s, r, mtbi, write, restore, out)
    return ReliabilityOut(
        job_gpus=job, job_nodes=nodes, node_rate=rates["node"], nic_rate=rates["nic"], mtbi=mtbi,
        interruptions_per_month=monthly, checkpoint_size=size, write_time=write, optimal_interval=out["optimal"],
        goodput=out["goodput"], goodput_optimal=out["goodput_optimal"], presented=Presented(charts=(curve,)),
        write_overhead=out["write_overhead"],
        storage_power=storage.get("power"),
        fast_appliances=storage.get("appliances"), fast_price=storage.get("price"),
        capacity_tb=storage.get("capacity_tb"), capacity_price=storage.get("capacity_price"))


def _interruptions(s: SheetBuilder, r: Inputs, p: Inputs) -> tuple[dict[str, Line], Line, Line]:
    """Each component's rate per million GPU-hours from the reference job; the job's MTBI and interruptions a month."""
    s.section("Interruptions: the reference job (Llama 3 pre-training) and this site's job")
    s.text("Rate per million GPU-hours = interruptions / (GPUs x days x 24 h) x 1,000,000; a job of n GPUs is "
           "interrupted n x rate / 1,000,000 times an hour: its mean time between interruptions is the inverse.")
    exposure = s.calc("ref_gpu_hours", "Reference job: GPU-hours observed", "GPU-h", r.ref_gpus * r.ref_days,
                      "GPUs x days x 24 h", fmt=COUNT)
    rates = {key: s.calc(f"rate_{key}", f"Interruptions per million GPU-hours, {label}", PER_MILLION,
                         getattr(r, f"ref_{key}") / exposure, "reference count / reference GPU-hours", fmt=RATE)
             for key, label in COMPONENTS}
    total = s.calc("rate_total", "Interruptions per million GPU-hours, all components", PER_MILLION,
                   added(list(rates.values())), fmt=RATE)
    s.calc("ref_mtbi", "Reference job: mean time between interruptions", "h",
           1 / (total * r.ref_gpus), "1 / (rate x reference GPUs)", fmt="#,##0.00")
    job = s.calc("gpus_in_job", "GPUs of the training job", "GPUs", r.job_gpus if r.has("job_gpus") else p.gpus,
                 "the job's GPUs (Inputs)" if r.has("job_gpus") else "all the site's GPUs (power.gpus)",
                 fmt=COUNT)
    nodes = s.calc("job_nodes", "Nodes of the training job", "nodes", ceil(job / p.gpus_per_node),
                   "ROUNDUP(job GPUs / GPUs per node)", fmt=COUNT)
    mtbi = s.calc("mtbi", "Job: mean time between interruptions (MTBI)", "h", 1 / (total * job),
                  "1 / (rate x job GPUs)", fmt="#,##0.00")
    monthly = s.calc("interruptions_per_month", "Job: unexpected interruptions per month (730 h)", "interruptions",
                     total * job * MONTH, "rate x job GPUs x 730 h", fmt="#,##0.00")
    for key, label in COMPONENTS:
        s.calc(f"per_month_{key}", f"Of which {label}", "interruptions", rates[key] * job * MONTH, fmt="#,##0.00")
    s.calc("replacements_per_month", "Job: interruptions that need a part replaced, per month", "interruptions",
           monthly * r.replacement_share, "interruptions x share that needs a part", fmt="#,##0.00")
    s.calc("restarts_per_month", "Job: interruptions cleared by a restart, per month", "interruptions",
           monthly * (1 - r.replacement_share), "interruptions x (1 - share that needs a part)", fmt="#,##0.00")
    s.calc("planned_per_month", "Job: planned interruptions per month, besides (not in the goodput below)",
           "interruptions", r.ref_planned / exposure * job * MONTH,
           "reference planned count / reference GPU-hours x job GPUs x 730 h: a planned stop checkpoints first",
           fmt="#,##0.00")
    node = s.calc("node_rate", "Node replacements per million GPU-hours (GPU, HBM, host)", PER_MILLION,
                  added([rates[k] for k in NODE_COMPONENTS]),
                  "GPU + HBM + host rates: these categories are hardware already, so the hardware share (which "
                  "splits the mixed total) is not applied again", fmt=RATE)
    nic = s.calc("nic_rate", "NIC replacements per million GPU-hours", PER_MILLION, rates["nic"],
                 "the NIC rate (hardware already)", fmt=RATE)
    return {"mtbi": mtbi, "monthly": monthly, "node": node, "nic": nic}, job, nodes


def _storage(s: SheetBuilder, r: Inputs, size: Line) -> dict[str, Line]:
    """The fast tier from the checkpoint burst and the capacity it keeps; the capacity tier for retention."""
    s.section("Shared storage, sized from the checkpoint burst (fast tier) and retention (capacity tier)")
    burst = s.calc("burst_bandwidth", "Write bandwidth to write a checkpoint in the target time", "GB/s",
                   size / r.target_write_time, "checkpoint size / target write time", fmt="#,##0.0")
    room = s.calc("fast_capacity_need", "Fast tier capacity needed", "TB",
                  size * r.fast_checkpoints + r.fast_data, "checkpoints kept x size + other data", fmt="#,##0.0")
    by_bandwidth = s.calc("fast_by_bandwidth", "Appliances for the burst bandwidth", "appliances",
                          burst / r.fast_write_bandwidth, "bandwidth needed / write bandwidth per appliance")
    by_capacity = s.calc("fast_by_capacity", "Appliances for the capacity", "appliances", room / r.fast_capacity,
                         "capacity needed / usable capacity per appliance")
    count = s.calc("fast_appliances", "Fast tier appliances", "appliances", ceil(max_(by_bandwidth, by_capacity)),
                   "ROUNDUP(MAX(for the bandwidth, for the capacity))", fmt=COUNT)
    write = s.calc("fast_tier_write_bandwidth", "Fast tier write bandwidth", "GB/s", count * r.fast_write_bandwidth,
                   "appliances x write bandwidth each", fmt="#,##0.0")
    read = s.calc("fast_tier_read_bandwidth", "Fast tier read bandwidth", "GB/s", count * r.fast_read_bandwidth,
                  "appliances x read bandwidth each", fmt="#,##0.0")
    fast_power = s.calc("fast_tier_power", "Fast tier power", "kW", count * r.fast_power, "appliances x power each")
    tb = s.calc("capacity_tb", "Capacity tier: usable capacity", "TB", size * r.capacity_checkpoints,
                "checkpoints retained x size", fmt="#,##0.0")
    slow_power = s.calc("capacity_tier_power", "Capacity tier power", "kW", tb * r.capacity_power,
                        "usable TB x power per TB")
    power = s.calc("storage_power", "Shared storage power (-> Power chain)", "kW", fast_power + slow_power,
                   "fast tier + capacity tier")
    s.text("Their prices are lines of the BOM's storage group: appliances x price, TB x price per TB.")
    return {"write": write, "read": read, "power": power, "appliances": count, "price": r.fast_price,
            "capacity_tb": tb, "capacity_price": r.capacity_price}


def _given_storage(s: SheetBuilder, r: Inputs) -> dict[str, Line]:
    s.section("Shared storage, as the site gives it (power.storage_power, tco.storage_capex)")
    s.text("storage_sizing is given: the storage power and capex are the site's own inputs, as before; only its "
           "bandwidth is read here.")
    return {"write": r.storage_write_bandwidth, "read": r.storage_read_bandwidth}


def _bandwidth(s: SheetBuilder, r: Inputs, size: Line, nodes: Line, storage: dict[str, Line]) -> tuple[Line, Line]:
    """Write and restore at the slower of the job's nodes together and the shared storage."""
    s.section("Checkpoints: write and restore")
    lines = []
    for key, what, per_node in (("write", "write", r.node_write_bandwidth), ("restore", "read", r.node_read_bandwidth)):
        agg = s.calc(f"nodes_{what}_bandwidth", f"Job nodes together: {what} bandwidth", "GB/s",
                     nodes * per_node, f"job nodes x {what} bandwidth per node", fmt="#,##0.0")
        used = s.calc(f"{key}_bandwidth", f"Checkpoint {key} bandwidth (the slower of the two)", "GB/s",
                      min_(agg, storage[what]), f"MIN(job nodes, shared storage {what} bandwidth)", fmt="#,##0.0")
        lines.append(s.calc(f"{key}_time", f"Time to {key} a checkpoint", "s", size / used,
                            f"checkpoint size / {key} bandwidth", fmt="#,##0.0"))
    if "power" in storage:
        s.check("write_within_target", "A checkpoint is written within the target time",
                lines[0] <= r.target_write_time)
    return lines[0], lines[1]


def _goodput(s: SheetBuilder, r: Inputs, mtbi: Line, job: Line, write: Line, restore: Line) -> dict[str, Line]:
    """Young's optimal interval; goodput and lost work at the chosen and at the optimal interval."""
    s.section("Checkpoint interval and goodput (first-order model: Young 1974, Daly 2006)")
    s.text("overhead = W / tau + (tau / 2 + R + Rs) / M; goodput = 1 - overhead (at least 0). W write time, tau "
           "interval, R restart, Rs restore, M the job's MTBI; the job stalls while it writes.")
    optimal = s.calc("optimal_interval", "Optimal interval (Young/Daly: (2 x MTBI x write time)^0.5)", "min",
                     (2 * mtbi * write) ** 0.5, "(2 x MTBI x write time)^0.5", fmt="#,##0.0")
    out = {"optimal": optimal}
    for key, label, tau in (("", "chosen", r.checkpoint_interval), ("_optimal", "optimal", optimal)):
        lost = s.calc(f"lost_per_interruption{key}", f"Time lost per interruption, {label} interval", "min",
                      tau / 2 + r.restart_time + restore, "interval / 2 + restart + restore", fmt="#,##0.0")
        s.calc(f"lost_gpu_hours{key}", f"GPU-hours lost per interruption, {label} interval", "GPU-h",
               lost * job, "time lost x job GPUs", fmt=COUNT)
        out[f"write_overhead{key}"] = s.calc(
            f"write_overhead{key}", f"Share of time writing checkpoints, {label} interval", "%", write / tau,
            "write time / interval", fmt="0.00%")
        s.calc(f"rework_overhead{key}", f"Share of time lost to interruptions, {label} interval", "%",
               lost / mtbi, "time lost per interruption / MTBI", fmt="0.00%")
        out[f"goodput{key}"] = s.calc(
            f"goodput{key}", f"Goodput (useful share of the job's time), {label} interval", "%",
            goodput_at(tau, lost, write, mtbi), "1 - write / interval - time lost / MTBI, at least 0",
            fmt="0.00%")
    return out


def goodput_at(tau: Any, lost: Any, write: Line, mtbi: Line) -> Node:
    """The first-order goodput at interval tau, with `lost` the time lost per interruption (tau / 2 + restart +
    restore): 1 - W / tau - lost / M, at least 0."""
    return max_(0, 1 - write / tau - lost / mtbi)


def _curve(s: SheetBuilder, r: Inputs, mtbi: Line, write: Line, restore: Line, out: dict[str, Line]) -> Chart:
    """Goodput at intervals of step, 2 x step... of the optimal one, and the chart with the optimum marked."""
    s.section("Goodput against the checkpoint interval (the chart's rows)")
    step = s.calc("curve_interval_step", "Interval step", "min", out["optimal"] * r.curve_step,
                  "optimal interval x step share", fmt="#,##0.0")
    points: list[Line] = []
    for k in range(1, CURVE_POINTS + 1):
        points.append(s.calc(f"curve_interval_{k}", f"Interval at point {k}", "min",
                             points[-1] + step if points else step, fmt="#,##0.0"))
    goodput = [s.calc(f"curve_goodput_{k}", f"Goodput at point {k}", "%",
                      goodput_at(tau, tau / 2 + r.restart_time + restore, write, mtbi),
                      "as the goodput above, at this interval", fmt="0.00%")
               for k, tau in enumerate(points, start=1)]
    return Chart(s.title, "Goodput against the checkpoint interval (the optimum marked)", "scatter", goodput,
                 y_title="goodput", x_title="checkpoint interval (min)", categories=points,
                 highlight=(out["optimal"], out["goodput_optimal"]))


def define_spares(scope: Scope, i: AllInputs, rel: ReliabilityOut, power: PowerOut, fabric: FabricOut,
                  cooling: CoolingOut, parts: dict[str, str],
                  models: dict[str, str] | None = None) -> tuple[tuple[Spare, ...], Presented]:
    """Spares per part type (per part model: each switch model is a pool of its own), from the fleet's counts and
    failure domains (after the fleet is defined), and the chart of the spares held. `parts`: each catalog kind's
    description (the BOM's specs); `models`: each kind's catalog entry (`switch`: `QM9700`), which pools switches."""
    s = scope.sheet(TITLE)
    r, t, p = i.reliability, i.tco, i.power
    unit = _spare_unit(s, r, p, t)
    s.section("Spares: what a missing unit costs, and the rule that decides holding")
    s.text(HOLD_RULE)
    s.calc("job_value_per_hour", "The job's capacity per hour (what waiting for a spare node idles)", "USD/h",
           rel.job_gpus * t.on_demand_price, "job GPUs x on-demand rent per GPU-hour (renting it instead)", fmt=USD)
    unit["loss"] = _loss(s, r, rel, unit)
    switches = _switch_pools(s, i, rel, power, fabric, models or {})
    buffer = _domains(s, r, power, fabric, cooling, switches[0][2], unit)
    nodes = _node_spares(s, r, t, rel, power, buffer, unit)
    hot = _hot_rack(s, r, t, rel, unit) if unit["host"] else None
    restart = s.calc("restart_units", "Spare units the job restarts on (held + the site's beyond the job)", "units",
                     nodes[2] + unit["idle"] + (hot[2] * unit["per_node"] if hot else 0),
                     "spare units held + units beyond the job" + (" + a spare rack's units" if hot else ""),
                     fmt=COUNT)
    idle = _idled(s, r, p, rel, unit, restart)
    cheap = [  # key, label, unit, installed, replacements per day (None: from the annual rate), price, catalog kind
        ("nic", "NICs", "NICs", power.nodes * p.nics_per_node, rel.nic_rate * power.gpus, r.nic_price, ""),
        ("optic", "transceivers", "modules", fabric.transceivers_total, None, t.transceiver_price, "optic"),
        ("cable", "fibre cables", "cables", fabric.cables_total, None, t.cable_price, ""),
        ("psu", "power supplies", "PSUs", power.nodes * p.psus_per_node, None, r.psu_price, ""),
        ("fan", "fans", "fans", power.nodes * r.fans_per_node, None, r.fan_price, ""),
    ]
    spares = ([nodes, *([hot] if hot else [])] + [_part(s, r, t, (idle[row[0]], rel.job_gpus), *row) for row in cheap]
              + switches)
    specs = dict(parts)
    if unit["host"] and parts.get("node"):
        specs["node"] = f"compute tray (field-replaceable host) of the {parts['node']}"
        specs["hot_rack"] = parts["node"]
    spares = [Spare(k, lbl, held, u, price, kind, specs.get(kind, "")) for k, lbl, held, u, price, kind in spares]
    s.section("Spares held, by part type (the chart's rows)")
    rows = [s.show(x.held, f"held_{x.key}_by_part", f"Spare {x.label}") for x in spares]
    return tuple(spares), Presented(charts=(Chart(s.title, "Spares held, by part type", "bar", rows,
                                              y_title="spares held"),))


# The networks whose switches are spared, in the order their pools are named: (key, network, catalog kind, what a
# missing switch of the network idles). Networks whose switches are one catalog model share a pool.
SWITCH_NETWORKS = (("switch", "compute fabric", "switch"), ("storage_switch", "storage network", "storage_switch"),
                   ("inband_switch", "in-band network", "inband_switch"))


def _switch_pools(s: SheetBuilder, i: AllInputs, rel: ReliabilityOut, power: PowerOut, fabric: FabricOut,
                  models: dict[str, str]) -> list[tuple[Any, ...]]:
    """A pool of spares per switch model: networks of one catalog model share it (the compute fabric's and the
    storage network's QM9700), another model is a pool of its own (the in-band SN4600C). A missing switch idles
    what the most exposed of its networks loses: a compute leaf its hosts; a storage leaf its nodes (cut off from
    storage); an in-band leaf nothing until its pair's other leaf fails while it is awaited."""
    r, t, p = i.reliability, i.tco, i.power
    s.section("Spares: what a missing switch idles, by network")
    gpus = s.calc("gpus_per_node_spared", "GPUs per node", "GPUs", p.gpus_per_node, "Inputs", fmt=COUNT)
    idled = {
        "switch": s.calc("switch_idled_gpus", "GPUs a missing compute leaf idles while awaited", "GPUs",
                         fabric.leaf_gpus, "a leaf switch takes its hosts off the fabric until it is replaced (a "
                         "spine or core switch only narrows the fabric): their GPUs (Fabric)", fmt=COUNT),
        "storage_switch": s.calc(
            "storage_switch_idled_gpus", "GPUs a missing storage leaf idles while awaited", "GPUs",
            min_(power.nodes, ceil(fabric.storage_leaf_down_ports / max_(1, i.fabric.storage_ports_per_node))) * gpus,
            "MIN(nodes, ROUNDUP(storage leaf ports down / storage ports per node)) x GPUs per node: the nodes it "
            "serves lose the shared storage (endpoints fill the leaves in order)", fmt=COUNT),
        "inband_switch": s.calc(
            "inband_switch_idled_gpus", "GPUs a missing in-band leaf idles while awaited", "GPUs",
            min_(1, r.switch_afr * r.parts_lead_time) * gpus
            * min_(power.nodes, ceil(fabric.inband_leaf_down_ports / max_(1, i.fabric.inband_ports_per_node / 2))),
            "its pair's other leaf failing within the lead time (MIN(1, annual rate x lead time)) x the GPUs of the "
            "nodes the pair serves (each node bonds half its in-band ports on each leaf)", fmt="#,##0.00"),
    }
    counts = {"switch": fabric.switches, "storage_switch": fabric.storage_switches,
              "inband_switch": fabric.inband_switches}
    prices = {"switch": t.switch_price, "storage_switch": t.switch_price, "inband_switch": i.bom.inband_switch_price}
    pools: dict[str, list[str]] = {}  # a catalog model, or a network without one -> its networks
    for key, _, kind in SWITCH_NETWORKS:
        pools.setdefault(models.get(kind) or key, []).append(key)
    out = []
    for model, keys in pools.items():
        first = keys[0]
        words = " and ".join(net for key, net, _ in SWITCH_NETWORKS if key in keys)
        label = f"{model} switches, {words}" if model not in counts else f"switches, {words}"
        worst = s.calc(f"{first}_pool_idled_gpus", f"GPUs a missing switch idles, {words}", "GPUs",
                       max_(*[idled[k] for k in keys]) if len(keys) > 1 else idled[first],
                       "the most any of its networks loses", fmt="#,##0.00")
        out.append(_part(s, r, t, (worst, rel.job_gpus), first, label, "switches", added([counts[k] for k in keys]),
                         None, prices[first], first, r.switch_afr))
    return out


def _hot_rack(s: SheetBuilder, r: Inputs, t: Inputs, rel: ReliabilityOut, unit: dict[str, Any]) -> tuple[Any, ...]:
    """A rack-scale node has no empty tray slot: a spare tray cannot stand hot, and the job runs without the rack
    until a tray is swapped in. Its hot pool is a whole spare rack, held when the waiting for tray swaps over the
    life costs more than the rack; else none."""
    s.section("Spares: the hot pool of a rack-scale node (a spare rack or none)")
    racks = s.calc("hot_rack_need", "Spare racks the job would restart on while a tray is swapped", "racks",
                   ceil(rel.node_rate * rel.job_gpus * r.hot_refill_time),
                   "ROUNDUP(the job's tray swaps per hour x the time to swap a tray in and ready it)", fmt=COUNT)
    s.calc("hot_rack_wait_one", "One tray swap with no spare rack: the job's loss", "USD",
           r.hot_refill_time * unit["loss"] * t.on_demand_price,
           "swap time x GPUs a missing unit idles x on-demand rent", fmt=USD)
    wait = s.calc("hot_rack_wait_cost", "Expected cost of waiting for tray swaps over the useful life, with no "
                  "spare rack", "USD",
                  min_(rel.job_gpus, rel.node_rate * rel.job_gpus * r.hot_refill_time * unit["loss"])
                  * t.on_demand_price * t.useful_life,
                  "MIN(job GPUs, swaps under way at once x GPUs a missing unit idles) x on-demand rent x useful life",
                  fmt=USD)
    held = _hold(s, "hot_rack", "racks for the hot pool", wait, t.server_price, racks)
    return "hot_rack", "racks for the hot pool (whole rack-scale nodes)", held, "racks", t.server_price, "hot_rack"


HOLD_RULE = ("Hold a part's stock when the waiting it saves over the service life costs more than the stock: the "
             "expected GPUs idle with none on the shelf (replacements a year x the wait x what one missing part "
             "idles, or for a synchronous job the share of the time one of its units is in repair x the whole job) "
             "x the on-demand rent x the useful life, against the stock x its price. With a spare unit to restart "
             "on, a missing part idles only what it takes down.")


def _loss(s: SheetBuilder, r: Inputs, rel: ReliabilityOut, unit: dict[str, Any]) -> Line:
    """What a missing unit takes from the job when no spare unit is at hand: a synchronous job waits whole; an
    elastic one drops the data-parallel replica the unit is in and runs on."""
    if r.choice("job_kind") == "elastic":
        return s.calc("loss_gpus", "GPUs a missing unit idles with no spare to restart on: its replica (elastic)",
                      "GPUs", min_(rel.job_gpus, max_(unit["gpus"], r.replica_gpus)),
                      "an elastic job drops the data-parallel replica the unit is in and runs on: MIN(job GPUs, "
                      "MAX(GPUs in a unit, GPUs of a replica))", fmt=COUNT)
    return s.calc("loss_gpus", "GPUs a missing unit idles with no spare to restart on: the whole job "
                  "(synchronous)", "GPUs", rel.job_gpus,
                  "a synchronous job cannot run without every one of its units: it waits whole", fmt=COUNT)


def _spare_unit(s: SheetBuilder, r: Inputs, p: Inputs, t: Inputs) -> dict[str, Any]:
    """The unit a failed node is repaired by swapping: the node itself (a server), or its field-replaceable host
    (a rack-scale node's compute tray): the repair pipeline, hot pool and buffer count these units."""
    host = r.choice("spare_unit") == "host"
    s.section("Spares: the unit replaced")
    per_node = s.calc("units_per_node", "Spare units per node (the field-replaceable unit)", "units",
                      p.hosts_per_node if host else Const(1),
                      "a rack-scale node is repaired by swapping a compute tray: its hosts (power.hosts_per_node)"
                      if host else "a server is swapped whole: one unit a node", fmt=COUNT)
    price = s.calc("unit_price", "Price of a spare unit", "USD", r.spare_unit_price if host else t.server_price,
                   "the compute tray's price (Inputs)" if host else "the node's price (tco.server_price)", fmt=USD)
    gpus = s.calc("gpus_per_unit", "GPUs in a spare unit", "GPUs", p.gpus_per_node / per_node,
                  "GPUs per node / units per node", fmt=COUNT)
    label = "compute trays" if host else "GPU nodes"
    return {"per_node": per_node, "price": price, "gpus": gpus, "label": label, "host": host,
            "turnaround": _turnaround(s, r)}


def _turnaround(s: SheetBuilder, r: Inputs) -> Line:
    """How long a failed unit is away: the turnaround of the support contract the site buys (or its own)."""
    contract = r.choice("support_contract")
    if contract == OWN:
        return s.calc("node_turnaround", "Node repair turnaround (the site's own)", "days", r.repair_turnaround,
                      "support_contract: own (Inputs)", fmt="#,##0.0")
    key, words = next((k, w) for c, k, w in CONTRACTS if c == contract)
    return s.calc("node_turnaround", f"Node repair turnaround under the support contract: {words}", "days",
                  getattr(r, f"turnaround_{key}"), f"the {contract} contract's turnaround (Inputs, with its source)",
                  fmt="#,##0.0")


def contract_words(r: Inputs) -> str:
    """What the site's support contract buys, in words (the bill of materials' support lines say it)."""
    contract = r.choice("support_contract")
    if contract == OWN:
        return "parts replacement within the site's own repair turnaround"
    return next(w for c, _, w in CONTRACTS if c == contract)


def _by_contract(s: SheetBuilder, r: Inputs, per_day: Line, installed: Line, rest: tuple[Line, Line, Line],
                 unit: dict[str, Any]) -> None:
    """The spare units to buy at each contract's turnaround, beside the chosen one (the hot pool, buffer and units
    beyond the job do not depend on it)."""
    hot, buffer, idle = rest
    what = unit["label"]
    s.section(f"Spares: {what} at each support contract's turnaround (the chosen contract's are above)")
    for contract, key, words in CONTRACTS:
        turnaround = getattr(r, f"turnaround_{key}")
        mean = s.calc(f"contract_{key}_pipeline", f"Repair pipeline, mean, {words}", "parts",
                      per_day * turnaround, f"replacements per day x the {contract} turnaround", fmt="#,##0.00")
        stock = _stock(s, r, f"contract_{key}", f"{what}, {words}", "units", installed, mean)
        need = s.calc(f"contract_{key}_need", f"Spare {what} to buy, {words}", "units",
                      max_(0, stock + hot + buffer - idle), "MAX(0, stock + hot pool + buffer - units beyond the "
                      "job)", fmt=COUNT)
        s.calc(f"contract_{key}_cost", f"Their price, {words}", "USD", need * unit["price"],
               "units x the unit's price", fmt=USD)


def _domains(s: SheetBuilder, r: Inputs, power: PowerOut, fabric: FabricOut, cooling: CoolingOut,
             switches_held: Line, unit: dict[str, Any]) -> Line:
    """The most spare units one failure keeps out until it is repaired: a rack's; a leaf switch's hosts, unless a
    spare switch is held on site (swapped within hours, as a hot spare node is readied); a CDU's, only where its
    group has no redundant unit (one CDU of an N+1 or 2N group failing takes no node out). In spare units: a
    rack-scale node's compute trays, where a leaf's 32 trays span 2 or 3 racks."""
    s.section("Spares: correlated failures (the most units one failure keeps out)")
    per_node = unit["per_node"]
    rack = s.calc("rack_domain", "Units a rack failure takes (PDUs, rack cabling)", "units",
                  power.nodes_per_rack * per_node, "nodes per rack (Power chain) x units per node", fmt=COUNT)
    leaf_units = fabric.leaf_hosts if unit["host"] else fabric.leaf_nodes
    leaf = s.calc("leaf_domain", "Units a leaf switch failure keeps out", "units",
                  leaf_units * flag(switches_held < 1),
                  ("hosts (compute trays) a leaf switch serves (Fabric)" if unit["host"] else
                   "nodes a leaf switch's hosts sit in (Fabric)") + ", none where a spare switch is held (swapped "
                  "within hours)", fmt=COUNT)
    cdu = s.calc("cdu_domain", "Units a CDU failure takes", "units",
                 cooling.cdu_failure_racks * power.nodes_per_rack * per_node,
                 "racks one CDU failure stops (Cooling sheet: none with a redundant CDU in its group; at N, the "
                 "site's choice, its share of the liquid-cooled racks, an in-rack CDU its own) x nodes per rack x "
                 "units per node", fmt=COUNT)
    largest = s.calc("largest_domain", "Most units that fail at once", "units", max_(rack, leaf, cdu),
                     "MAX(rack, leaf switch, CDU)", fmt=COUNT)
    domain = r.choice("correlated_domain")
    held = {"largest": largest, "rack": rack, "leaf": leaf, "cdu": cdu, "none": Const(0)}[domain]
    why = ("none held: the job runs smaller while a domain is repaired" if domain == "none" else
           f"the {domain} domain's units (the site's choice: {domain})")
    return s.calc("correlated_buffer", "Correlated-failure buffer, in spare units", "units", held, why, fmt=COUNT)


def _stock(s: SheetBuilder, r: Inputs, key: str, label: str, unit: str, installed: Any, mean: Line) -> Line:
    """The pipeline's stock at the service level. The units in repair at once are binomial over the installed
    units with the pipeline's mean (Poisson in the limit of many units); a failure finds a spare on the shelf
    when fewer than the stock are in repair already, so the stock is that count's quantile plus one (none where
    nothing fails). Little's law gives only the mean, which runs out about half the time."""
    share = min_(1, mean / max_(installed, 1))
    return s.calc(f"{key}_pipeline_stock", f"Repair pipeline stock at the service level, {label}", unit,
                  where(mean > 0, binomial_quantile(installed, share, r.service_level) + 1, 0),
                  "CRITBINOM(installed, MIN(1, mean / installed), service level) + 1: the fewest spares with which "
                  "a failure finds one on the shelf with that probability (Sherbrooke's fill rate); 0 where nothing "
                  "fails", fmt=COUNT)


def _node_spares(s: SheetBuilder, r: Inputs, t: Inputs, rel: ReliabilityOut, power: PowerOut, buffer: Line,
                 unit: dict[str, Any]) -> tuple[Any, ...]:
    """Spare units: pipeline stock + hot pool + correlated buffer, less the units idle beyond the job; held when
    the waiting they save over the life costs more than they do."""
    what = unit["label"]
    s.section(f"Spares: {what} (repair pipeline stock + hot pool + correlated buffer)")
    installed = s.calc("node_units_installed", f"Installed {what}", "units", power.nodes * unit["per_node"],
                       "nodes x units per node", fmt=COUNT)
    per_day = s.calc("node_per_day", "Unit replacements per day, whole site", "parts/day",
                     rel.node_rate * power.gpus,
                     "node replacements per million GPU-hours x site GPUs x 24 h / 1,000,000 (one unit each)",
                     fmt="#,##0.000")
    pipeline = s.calc("node_pipeline", "Repair pipeline, mean (Little's law: per day x turnaround)", "parts",
                      per_day * unit["turnaround"], "replacements per day x repair turnaround", fmt="#,##0.00")
    stock = _stock(s, r, "node", what, "units", installed, pipeline)
    hot = _hot_pool(s, r, rel, unit)
    reserve = s.calc("node_reserve", "Reserve: pipeline stock + hot pool + buffer", "units",
                     stock + hot + buffer, fmt=COUNT)
    idle = s.calc("idle_nodes", "Units of the site beyond the job (already spare capacity)", "units",
                  (power.nodes - rel.job_nodes) * unit["per_node"], "(site nodes - job nodes) x units per node",
                  fmt=COUNT)
    unit["idle"] = idle
    need = s.calc("node_need", f"Spare {what} to buy", "units", max_(0, reserve - idle),
                  "MAX(0, reserve - units beyond the job)", fmt=COUNT)
    held = _node_hold(s, r, t, rel, (installed, pipeline, need), unit)
    _by_contract(s, r, per_day, installed, (hot, buffer, idle), unit)
    return "node", what, held, "units", unit["price"], "node"


def _node_hold(s: SheetBuilder, r: Inputs, t: Inputs, rel: ReliabilityOut, counts: tuple[Line, Line, Line],
               unit: dict[str, Any]) -> Line:
    """Whether the spare units are held: the waiting they save over the life against their price. `counts`:
    (units installed, units in repair (the pipeline's mean), units to buy)."""
    installed, pipeline, need = counts
    what = unit["label"]
    s.calc("node_wait_one", f"Waiting one repair turnaround for one of the {what}, with none to restart on", "USD",
           unit["turnaround"] * unit["loss"] * t.on_demand_price,
           "turnaround x GPUs a missing unit idles x on-demand rent: one wait", fmt=USD)
    job_units = s.calc("job_units", "Units of the job", "units", rel.job_nodes * unit["per_node"],
                       "job nodes x units per node", fmt=COUNT)
    if r.choice("job_kind") == "elastic":
        idle_gpus = s.calc("node_idle_gpus", "Expected GPUs idle with no spare units (elastic: a replica per unit "
                           "in repair)", "GPUs", min_(rel.job_gpus, pipeline * unit["loss"]),
                           "MIN(job GPUs, units in repair (the pipeline's mean) x GPUs a missing unit idles)",
                           fmt="#,##0.0")
    else:
        share = min_(1, pipeline / max_(installed, 1))
        idle_gpus = s.calc("node_idle_gpus", "Expected GPUs idle with no spare units (synchronous: the whole job "
                           "while any of its units is in repair)", "GPUs",
                           where(share * job_units > 10, 1, 1 - (1 - share) ** job_units) * rel.job_gpus,
                           "(1 - (1 - MIN(1, units in repair / installed))^job units) x job GPUs: the chance one of "
                           "the job's units is in repair (binomial) x the job; 1 where the job's units in repair "
                           "average over 10 (the chance none is, below e^-10 = 0.005%, is taken as 0)",
                           fmt="#,##0.0")
    wait = s.calc("node_wait_cost", f"Expected cost of waiting for {what} over the useful life, with none held",
                  "USD", idle_gpus * t.on_demand_price * t.useful_life,
                  "expected GPUs idle x on-demand rent x useful life; units beyond the job would cut it (they are "
                  "counted as spares first: an upper bound there)", fmt=USD)
    return _hold(s, "node", what, wait, unit["price"], need)


def _hot_pool(s: SheetBuilder, r: Inputs, rel: ReliabilityOut, unit: dict[str, Any]) -> Line:
    """Units the job restarts on at once while a cold spare is readied: a synchronous job needs them; an elastic
    one runs on without the replica meanwhile; a rack-scale node's trays cannot stand hot (a spare rack instead)."""
    if unit["host"]:
        return s.calc("hot_pool", "Hot pool in compute trays: none (a rack-scale node has no empty tray slot, so a "
                      "spare tray cannot stand hot: a spare rack or none, below)", "units", Const(0),
                      "the spare unit is a compute tray (Inputs)", fmt=COUNT)
    if r.choice("job_kind") == "elastic":
        return s.calc("hot_pool", "Hot pool: none (an elastic job runs on without the replica while a cold spare "
                      "is readied)", "units", Const(0), "the job's kind (Inputs): elastic", fmt=COUNT)
    return s.calc("hot_pool", "Hot pool: units the job restarts on while a cold spare is readied", "units",
                  ceil(rel.node_rate * rel.job_gpus * r.hot_refill_time),
                  "ROUNDUP(the job's replacements per hour x time to ready a cold spare): a synchronous job restarts "
                  "only on a full set of units", fmt=COUNT)


def _idled(s: SheetBuilder, r: Inputs, p: Inputs, rel: ReliabilityOut, unit: dict[str, Any],
           restart: Line) -> dict[str, Line]:
    """The GPUs one missing part idles while it is awaited. With a spare unit to restart on, the job runs on it
    and the part idles only what it takes down; with none, what a missing unit costs the job (the whole job, or
    a replica). A part of a redundant set takes its unit down only if the set loses more while it is awaited."""
    s.section("Spares: what a missing part idles while it is awaited")
    s.text("With a spare unit to restart on (the hot pool, or nodes beyond the job), the job restarts within the "
           "restart time and a missing part idles only what it takes down; with none, what a missing unit costs "
           "the job (the whole job, or an elastic job's replica).")
    lead = r.parts_lead_time
    host_gpus = s.calc("gpus_per_host", "GPUs a fabric host holds (what one host link takes down)", "GPUs",
                       ceil(p.gpus_per_node / p.hosts_per_node), "ROUNDUP(GPUs per node / hosts per node)", fmt=COUNT)
    psu_k = p.psus_per_node - p.psus_needed
    psu_set = s.calc("psu_set_failure", "Chance a node's power supplies lose their redundant ones while one is "
                     "awaited (at most)", "%",
                     where(psu_k > 0, min_(1, (p.psus_per_node - 1) * r.psu_afr * lead) ** min_(psu_k, 4), 1),
                     "with k = PSUs per node - PSUs needed redundant, the node goes down only if k more of the other "
                     "PSUs - 1 fail within the lead time: at most MIN(1, (PSUs - 1) x annual rate x lead time)^k, "
                     "the binomial tail's union bound (exact to first order for N+1; 4+2 or 24+24 lose nothing on a "
                     "second failure; k taken at most 4, which keeps it a bound); 1 without redundancy",
                     fmt="0.000000%")
    fans_unit = s.calc("fans_per_unit", "Fans per spare unit (the set that cools it)", "fans",
                       r.fans_per_node / unit["per_node"], "fans per node / units per node", fmt="#,##0.0")
    fan_set = s.calc("fan_set_failure", "Chance a unit's fans lose their redundant ones while one is awaited (at "
                     "most)", "%",
                     where(r.fan_redundancy > 0,
                           min_(1, max_(0, fans_unit - 1) * r.fan_afr * lead) ** min_(r.fan_redundancy, 4), 1),
                     "MIN(1, (fans per unit - 1) x annual rate x lead time)^k with k the fans a unit can lose, as "
                     "the power supplies'; 1 without redundancy", fmt="0.000000%")
    down = where(restart > 0, 1, 0)  # 1: a spare unit to restart on
    domain = {
        "nic": (where(restart > 0, host_gpus, unit["loss"]), "a NIC takes its host off the fabric: the host's GPUs"),
        "optic": (where(restart > 0, host_gpus, unit["loss"]),
                  "at most a host link's host (switch-to-switch links route around a lost link)"),
        "cable": (where(restart > 0, host_gpus, unit["loss"]),
                  "at most a host link's host (switch-to-switch links route around a lost link)"),
        "psu": (psu_set * (down * p.gpus_per_node + (1 - down) * unit["loss"]),
                "a redundant set (N+k, k >= 1) idles nothing until it loses k more: that chance x the node's GPUs "
                "(with none to restart on, what a missing unit costs the job); without redundancy, all of it"),
        "fan": (fan_set * (down * unit["gpus"] + (1 - down) * unit["loss"]),
                "fans in N+k (k >= 1) idle nothing until the unit loses k more: that chance x the unit's GPUs (with "
                "none to restart on, what a missing unit costs the job); without redundancy, all of it"),
    }
    out = {}
    for key, (gpus, why) in domain.items():
        out[key] = s.calc(f"{key}_idled_gpus", f"GPUs one missing part idles while awaited, {key}", "GPUs", gpus,
                          f"with a unit to restart on: {why}; with none, what a missing unit costs the job",
                          fmt="#,##0.00")
    return out


def _part(s: SheetBuilder, r: Inputs, t: Inputs, idled: tuple[Line, Line], key: str, label: str, unit: str,
          installed: Node, rate: Node | None, price: Line, kind: str, afr: Line | None = None) -> tuple[Any, ...]:
    """A part type's repair pipeline by Little's law, from the job's rate (NICs) or an annual failure rate, held at
    the service level when the waiting it saves over the life costs more than the stock. `idled`: (GPUs one missing
    part idles, the job's GPUs: the most it can idle)."""
    gpus, job = idled
    s.section(f"Spares: {label}")
    count = s.calc(f"{key}_installed", f"Installed {label}", unit, installed, fmt=COUNT)
    per_day = s.calc(f"{key}_per_day", f"Replacements per day, {label}", "parts/day",
                     rate if rate is not None else count * (afr if afr is not None else getattr(r, f"{key}_afr")),
                     "replacements per million GPU-hours x site GPUs x 24 h / 1,000,000" if rate is not None else
                     "installed x annual failure rate / 365", fmt="#,##0.000")
    pipeline = s.calc(f"{key}_pipeline", f"Repair pipeline, {label}, mean (Little's law)", "parts",
                      per_day * r.parts_lead_time, "replacements per day x lead time", fmt="#,##0.00")
    need = _stock(s, r, key, label, unit, count, pipeline)
    s.calc(f"{key}_wait_one", f"Waiting one lead time for one of the {label}: the GPUs it idles", "USD",
           gpus * t.on_demand_price * r.parts_lead_time,
           "GPUs it idles x on-demand rent per GPU-hour x lead time: one wait", fmt=USD)
    wait = s.calc(f"{key}_wait_cost", f"Expected cost of waiting for {label} over the useful life, with none held",
                  "USD", min_(job, pipeline * gpus) * t.on_demand_price * t.useful_life,
                  "MIN(job GPUs, parts awaited at once (the pipeline's mean) x GPUs one idles) x on-demand rent x "
                  "useful life: replacements a year x the wait x what it idles x years", fmt=USD)
    held = _hold(s, key, label, wait, price, need)
    return key, label, held, unit, price, kind


def _hold(s: SheetBuilder, key: str, label: str, wait: Line, price: Line, need: Line) -> Line:
    """Hold a part's stock when the waiting it saves over the life costs more than the stock does."""
    stock = s.calc(f"{key}_stock_cost", f"Holding cost: the stock of spare {label} at its price", "USD",
                   need * price, "stock x unit price", fmt=USD)
    hold = s.calc(f"{key}_hold", f"Hold spare {label} (waiting over the life costs more than the stock)",
                  "TRUE/FALSE", wait > stock, "expected waiting cost over the useful life > the stock's price",
                  fmt=BOOL)
    return s.calc(f"{key}_held", f"Spare {label} held", "parts", need * flag(hold), "stock x hold flag",
                  fmt=COUNT)


def summarise(s: SheetBuilder, rel: ReliabilityOut, spares: tuple[Spare, ...]) -> None:
    """The Summary's reliability figures."""
    s.section("Reliability and storage (Reliability sheet)")
    for line in (rel.mtbi, rel.interruptions_per_month, rel.checkpoint_size, rel.optimal_interval, rel.goodput,
                 rel.storage_power):
        if line is not None:
            s.show(line)
    node = spares[0]  # the GPU nodes: the other parts are a few of each (Reliability sheet, BOM)
    s.show(node.held, f"reliability_spare_{node.key}", f"Spare {node.label} held")

