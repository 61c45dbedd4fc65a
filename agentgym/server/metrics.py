"""Request counters and latency histograms for the server's ``/metrics`` (Prometheus text).

>>> m = Metrics()
>>> m.observe("step", 200, 0.0004)
>>> 'agentgym_requests_total{op="step",status="200"} 1' in m.render(sessions=2)
True
"""

from __future__ import annotations

from bisect import bisect_left

__all__ = ["BUCKETS", "Metrics"]

#: Latency histogram bucket bounds, seconds.
BUCKETS: tuple[float, ...] = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
                              5.0)


class _OpStats:
    """One operation's counters. ``buckets[i]`` counts the latencies whose first bound >= them
    is ``BUCKETS[i]`` (the last slot: above every bound); :meth:`Metrics.render` sums them
    into Prometheus's cumulative buckets."""

    __slots__ = ("buckets", "count", "errors", "statuses", "total")

    def __init__(self) -> None:
        self.statuses: dict[int, int] = {}
        self.errors = 0
        self.count = 0
        self.total = 0.0
        self.buckets = [0] * (len(BUCKETS) + 1)


class Metrics:
    """Counts requests and errors per operation and status, and their latency.

    :meth:`observe` runs once a request: a few integer updates and a bisect, no allocation
    once an (op, status) pair has been seen (benchmark rows server-{http,ws}-16-clients).
    """

    def __init__(self) -> None:
        self.ops: dict[str, _OpStats] = {}

    def observe(self, op: str, status: int, seconds: float) -> None:
        """Record one answered request."""
        stats = self.ops.get(op)
        if stats is None:
            stats = self.ops[op] = _OpStats()
        stats.statuses[status] = stats.statuses.get(status, 0) + 1
        if status >= 400:
            stats.errors += 1
        stats.count += 1
        stats.total += seconds
        stats.buckets[bisect_left(BUCKETS, seconds)] += 1

    def render(self, *, sessions: int, created: int = 0, expired: int = 0) -> str:
        """The Prometheus text exposition of everything counted so far."""
        lines = [
            "# HELP agentgym_sessions Live sessions.",
            "# TYPE agentgym_sessions gauge",
            f"agentgym_sessions {sessions}",
            "# HELP agentgym_sessions_created_total Sessions created.",
            "# TYPE agentgym_sessions_created_total counter",
            f"agentgym_sessions_created_total {created}",
            "# HELP agentgym_sessions_expired_total Sessions closed for being idle.",
            "# TYPE agentgym_sessions_expired_total counter",
            f"agentgym_sessions_expired_total {expired}",
            "# HELP agentgym_requests_total Requests answered, by operation and status.",
            "# TYPE agentgym_requests_total counter",
        ]
        ops = sorted(self.ops.items())
        for op, stats in ops:
            for status, n in sorted(stats.statuses.items()):
                lines.append(f'agentgym_requests_total{{op="{op}",status="{status}"}} {n}')
        lines += [
            "# HELP agentgym_errors_total Requests answered with a 4xx or 5xx status.",
            "# TYPE agentgym_errors_total counter",
        ]
        for op, stats in ops:
            if stats.errors:
                lines.append(f'agentgym_errors_total{{op="{op}"}} {stats.errors}')
        lines += [
            "# HELP agentgym_request_seconds Time to answer a request.",
            "# TYPE agentgym_request_seconds histogram",
        ]
        for op, stats in ops:
            cumulative = 0
            for bound, n in zip(BUCKETS, stats.buckets, strict=False):
                cumulative += n
                lines.append(
                    f'agentgym_request_seconds_bucket{{op="{op}",le="{bound:g}"}} {cumulative}'
                )
            lines.append(f'agentgym_request_seconds_bucket{{op="{op}",le="+Inf"}} {stats.count}')
            lines.append(f'agentgym_request_seconds_sum{{op="{op}"}} {stats.total:.6f}')
            lines.append(f'agentgym_request_seconds_count{{op="{op}"}} {stats.count}')
        return "\n".join(lines) + "\n"
