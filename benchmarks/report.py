"""Print ours/peer throughput ratios per benchmark group from a pytest-benchmark JSON file.

Reads the ``extra_info`` the benchmarks record (see ``benchmarks/bench_common.py``): each
entry's throughput is ``per_round / median`` units per second, and every peer in a group is
compared with that group's ``primary`` agentgym entry. Ratios are also given from the
minimum round time, which is steadier on a busy machine. Targets (``extra_info["target"]``)
are checked and printed as PASS / MISS; ``--strict`` turns a MISS into exit status 1.
Entries may also carry ``memory`` (MiB per extra env, see ``test_bench_webshop.py``),
``peer_inner`` (a subprocess peer's own clock around the timed call, next to the round trip
pytest timed), ``cpu_per_call_s`` (CPU seconds per timed call summed over every process
involved) and ``ratio_row`` (an agentgym variant the peers are also compared with).

Usage::

    python benchmarks/report.py .benchmarks/latest.json [--strict] [--markdown]

>>> fmt_rate(45000.0), fmt_rate(3.25)
('45,000', '3.25')
>>> fmt_time(0.000123)
'123 us'
>>> _plural("query"), _plural("step"), _plural("steps")
('queries', 'steps', 'steps')
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["Entry", "fmt_rate", "fmt_time", "load", "main", "render", "render_markdown"]


class Entry:
    """One benchmark row: its ``extra_info`` plus the min / median round time in seconds."""

    def __init__(self, bench: dict[str, Any]) -> None:
        info = bench.get("extra_info") or {}
        stats = bench["stats"]
        self.name: str = bench["name"]
        self.group: str = bench.get("group") or "(no group)"
        self.side: str = info.get("side", "agentgym")
        self.impl: str = info.get("impl", self.name)
        self.peer: str | None = info.get("peer")
        self.variant: str = info.get("variant", "")
        self.unit: str = info.get("unit", "call")
        self.per_round: int = int(info.get("per_round", 1))
        self.primary: bool = bool(info.get("primary"))
        self.target: dict[str, Any] | None = info.get("target")
        self.memory: dict[str, Any] | None = info.get("memory")
        self.peer_inner: dict[str, Any] | None = info.get("peer_inner")
        self.ratio_row: bool = bool(info.get("ratio_row"))
        self.cpu: float | None = info.get("cpu_per_call_s")
        self.median: float = float(stats["median"])
        self.min: float = float(stats["min"])
        self.rounds: int = int(stats["rounds"])

    def rate(self, stat: str = "median") -> float:
        """Units of work per second from the given round-time statistic."""
        seconds = self.median if stat == "median" else self.min
        return self.per_round / seconds if seconds > 0 else float("inf")

    def per_unit(self, stat: str = "median") -> float:
        """Seconds per unit of work from the given round-time statistic."""
        return (self.median if stat == "median" else self.min) / self.per_round


def fmt_rate(rate: float) -> str:
    """Thousands separators for big rates, two decimals for small ones."""
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:,.2f}"


def fmt_time(seconds: float) -> str:
    """Seconds in the most readable of s / ms / us."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def _plural(unit: str) -> str:
    """``"step"`` -> ``"steps"``, ``"query"`` -> ``"queries"``."""
    if unit.endswith("s"):
        return unit
    if unit.endswith("y") and unit[-2:-1] not in ("a", "e", "i", "o", "u"):
        return unit[:-1] + "ies"
    return unit + "s"


def load(path: Path) -> tuple[list[Entry], dict[str, Any]]:
    """Entries and the ``agentgym_bench`` metadata block of a saved JSON file."""
    data = json.loads(path.read_text())
    return [Entry(b) for b in data.get("benchmarks", [])], data.get("agentgym_bench", {})


def _primary(entries: list[Entry]) -> Entry | None:
    ours = [e for e in entries if e.side == "agentgym"]
    for e in ours:
        if e.primary:
            return e
    return ours[0] if ours else None


def _notes(e: Entry) -> list[str]:
    """Extra lines under an entry: memory per extra env, a subprocess peer's own timing."""
    out = []
    if e.memory:
        m = e.memory
        out.append(
            f"      memory per extra env: {m['per_env_mib']:,.1f} MiB = browser processes "
            f"{m['browser_pss_mib']:,.1f} MiB PSS (RSS sum {m['browser_rss_sum_mib']:,.1f}) "
            f"+ Python {m['python_rss_mib']:,.1f} MiB RSS; +{m['processes_per_env']:g} "
            f"processes per env ({m['extra_envs']} extra envs, "
            f"{m['total_browser_pss_mib']:,.0f} MiB in {m['total_processes']} processes in all)"
        )
    if e.cpu is not None:
        out.append(
            f"      CPU per call, all processes involved: {fmt_time(e.cpu)} "
            f"(user + system; a busy machine stretches wall time, not this)"
        )
    if e.peer_inner:
        p = e.peer_inner
        out.append(
            f"      the peer's own clock around the call: median {fmt_time(p['median_s'])}, "
            f"min {fmt_time(p['min_s'])} (the rest of the round trip is the pipe)"
        )
    return out


def render(entries: list[Entry], meta: dict[str, Any]) -> tuple[list[str], int]:
    """Report lines and the number of missed targets."""
    lines: list[str] = []
    if meta:
        peers = ", ".join(f"{k} {v or 'not installed'}" for k, v in meta.get("peers", {}).items())
        bg = meta.get("browsergym_venv")
        if bg:
            peers += f", browsergym-core {bg.get('browsergym-core') or 'not installed'} (own venv)"
        lines.append(
            f"agentgym {meta.get('agentgym')} | gymnasium {meta.get('gymnasium')} | "
            f"numpy {meta.get('numpy')} | python {meta.get('python')} | peers: {peers}"
        )
        lines.append("")
    groups: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        groups[e.group].append(e)
    checks: list[str] = []
    misses = 0
    for group in sorted(groups):
        # Our primary entry first, then the rest of ours, then the peers, each in run order.
        rows = sorted(groups[group], key=lambda e: (e.side != "agentgym", not e.primary))
        ours = _primary(rows)
        lines.append(f"== {group}")
        for e in rows:
            units = _plural(e.unit)
            lines.append(
                f"   {e.impl:<62} {fmt_rate(e.rate()):>12} {units}/s   "
                f"median {fmt_time(e.per_unit())}, min {fmt_time(e.per_unit('min'))} "
                f"per {e.unit}  ({e.rounds} rounds)"
            )
            lines.extend(_notes(e))
        if ours is None:
            lines.append("")
            continue
        units = _plural(ours.unit)
        mine = [ours] + [e for e in rows if e.side == "agentgym" and e.ratio_row and e is not ours]
        for peer in (e for e in rows if e.side == "peer"):
            for me in mine:
                ratio = me.rate() / peer.rate()
                ratio_min = me.rate("min") / peer.rate("min")
                who = "agentgym" if me is ours else f"agentgym ({me.variant})"
                lines.append(
                    f"   {group}: {who} {fmt_rate(me.rate())} {units}/s vs {peer.impl} "
                    f"{fmt_rate(peer.rate())} {units}/s = {ratio:,.1f}x "
                    f"(from min times: {ratio_min:,.1f}x)"
                )
        lines.append("")
        target = ours.target or {}
        if "min_ratio" in target:
            want = float(target["min_ratio"])
            against = [
                e
                for e in rows
                if e.side == "peer" and e.peer == target.get("against") and not e.variant
            ]
            if not against:
                checks.append(
                    f"   {group}: >= {want:g}x vs {target.get('against')}: "
                    "peer not measured (skipped)"
                )
            for peer in against:
                ratio = ours.rate() / peer.rate()
                ok = ratio >= want
                misses += not ok
                checks.append(
                    f"   {group}: >= {want:g}x vs {peer.impl}: {ratio:,.1f}x "
                    f"{'PASS' if ok else 'MISS'}"
                )
        if "max_median_s" in target:
            want = float(target["max_median_s"])
            ok = ours.per_unit() <= want
            misses += not ok
            checks.append(
                f"   {group}: median <= {fmt_time(want)}: {fmt_time(ours.per_unit())} "
                f"{'PASS' if ok else 'MISS'}"
            )
    if checks:
        lines.append("== targets (median-based)")
        lines.extend(checks)
    return lines, misses


def render_markdown(entries: list[Entry]) -> list[str]:
    """The same numbers as a Markdown table (for ``benchmarks/README.md``)."""
    lines = [
        "| group | implementation | throughput (median) | median per unit | min per unit "
        "| ours / this (median) | ours / this (min) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    groups: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        groups[e.group].append(e)
    for group in sorted(groups):
        rows = sorted(groups[group], key=lambda e: (e.side != "agentgym", not e.primary))
        ours = _primary(rows)
        for e in rows:
            ratio = ratio_min = ""
            if ours is not None and e.side == "peer":
                ratio = f"{ours.rate() / e.rate():,.1f}x"
                ratio_min = f"{ours.rate('min') / e.rate('min'):,.1f}x"
            lines.append(
                f"| {group} | {e.impl} | {fmt_rate(e.rate())} {_plural(e.unit)}/s "
                f"| {fmt_time(e.per_unit())} | {fmt_time(e.per_unit('min'))} "
                f"| {ratio} | {ratio_min} |"
            )
    with_memory = [e for e in entries if e.memory]
    if with_memory:
        lines += [
            "",
            "| group | implementation | MiB per extra env | browser PSS | Python RSS "
            "| processes per env |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for e in with_memory:
            m = e.memory or {}
            lines.append(
                f"| {e.group} | {e.impl} | {m['per_env_mib']:,.1f} | {m['browser_pss_mib']:,.1f} "
                f"| {m['python_rss_mib']:,.1f} | {m['processes_per_env']:g} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit status 1 with ``--strict`` when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="?", default=".benchmarks/latest.json", type=Path)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = parser.parse_args(argv)
    if not args.json.is_file():
        print(f"no benchmark JSON at {args.json}; run scripts/bench.sh first", file=sys.stderr)
        return 2
    entries, meta = load(args.json)
    lines, misses = render(entries, meta)
    print("\n".join(lines))
    if args.markdown:
        print("\n" + "\n".join(render_markdown(entries)))
    return 1 if (args.strict and misses) else 0


if __name__ == "__main__":
    sys.exit(main())
