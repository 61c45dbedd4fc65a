"""``run_audit``: play the references, every exploit and the search on one id, then judge.

The verdicts, each a row of the report:

* **soundness** (every exploit row and the search): a policy fails when its mean return over
  the audited seeds reaches the honest reference's (within :data:`EPSILON`) while its success
  rate is lower or its mean outcome is lower by more than :data:`EPSILON`. Ties are fine: a
  policy that earns the reference's return *and* succeeds as often is just another solver.
* **shaping identity**: where the family declares a potential (in its spec, or to
  :class:`~agentgym.core.TextEnv` as ``_shaping_potential``), each step's process reward less the
  invalid penalty is ``gamma * phi(after) - phi(before)``.
* **success means outcome**: every successful episode's outcome is at least the declared
  threshold.
* **info keys**: no key outside the contract's and the declared public ones appears in
  ``info`` before the episode ends; **info peeker**: reading ``info`` pays no more than the
  same policy without it.
* **replay and scoring**: the same seed and actions give the same rewards;
  ``score_actions([a])`` is the process reward that stepping ``a`` pays; stepping after the
  end pays nothing and changes nothing; no action raises out of ``step``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from typing import Any

from agentgym.agents import make_agent
from agentgym.agents.base import Agent
from agentgym.audit.episodes import EPSILON, Episode, play_episode, replay_matches
from agentgym.audit.policies import (
    ExtremeArguments,
    FloodInvalid,
    GreedyProcess,
    InfoBlind,
    InfoPeeker,
    Oscillate,
    RepeatBest,
    Spam,
    StopAtOnce,
    candidate_actions,
)
from agentgym.audit.report import AuditReport, Row
from agentgym.audit.search import search_exploit
from agentgym.audit.spec import AuditSpec, audit_spec
from agentgym.core import TextEnv
from agentgym.envinfo import make_text_env
from agentgym.progress import progress_bar

__all__ = ["EPSILON", "SPAM_ACTIONS", "run_audit"]

#: How many of the first state's candidate actions the spam policies each repeat.
SPAM_ACTIONS = 4
#: How many of the first state's candidate actions the oscillating policies pair up.
OSCILLATE_ACTIONS = 3


def run_audit(
    env_id: str,
    kwargs: dict[str, Any] | None = None,
    *,
    episodes: int = 5,
    budget_s: float = 10.0,
    seed: int = 0,
    progress: bool = False,
    spec: AuditSpec | None = None,
) -> AuditReport:
    """Audit ``env_id``: seeds ``seed .. seed + episodes - 1``, ``budget_s`` seconds of search.

    ``spec`` overrides the registered one (tests plant defects this way).

    >>> report = run_audit("agentgym/TicTacToe-v0", episodes=2, budget_s=0.5)
    >>> report.passed
    True
    """
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {episodes}")
    if not math.isfinite(budget_s) or budget_s < 0:
        raise ValueError(f"--budget must be a number of seconds >= 0, got {budget_s}")
    declared = spec if spec is not None else audit_spec(env_id)
    spec = declared or AuditSpec()
    settings = {**spec.kwargs, **(kwargs or {})}
    report = AuditReport(env_id, settings, seed=seed, episodes=episodes, budget_s=budget_s)
    start = time.perf_counter()
    if why := spec.needs(settings):
        report.skipped = why
        report.rows.append(Row("audit", "check", "n/a", detail=f"skipped: {why}"))
        return report

    def make_env() -> TextEnv:
        env = make_text_env(env_id, settings).unwrapped
        assert isinstance(env, TextEnv)  # make_text_env refuses any other kind
        return env

    env = make_env()
    try:
        _audit(report, env, make_env, spec, declared is not None, progress)
    finally:
        env.close()
    report.wall_s = time.perf_counter() - start
    return report


def _policies(spec: AuditSpec, env: TextEnv, seed: int) -> dict[str, Callable[[], Agent]]:
    """Every exploit the audit plays: the generic ones, one spam per first-state action, and
    the family's own."""
    policies: dict[str, Callable[[], Agent]] = {}
    for cls in (GreedyProcess, RepeatBest):
        policies[cls.name] = lambda cls=cls: cls(spec)
    _, info = env.reset(seed=seed)
    first = candidate_actions(env, info, spec)
    for i, action in enumerate(first[:SPAM_ACTIONS]):
        policies[f"spam {action[:30]!r}"] = lambda i=i: Spam(spec, i)
    shown = first[:OSCILLATE_ACTIONS]
    for i, j in itertools.combinations(range(len(shown)), 2):
        policies[f"oscillate {shown[i][:20]!r}/{shown[j][:20]!r}"] = (
            lambda pair=(i, j): Oscillate(spec, pair))
    policies[FloodInvalid.name] = lambda: FloodInvalid(spec)
    if spec.stop_actions:
        policies[StopAtOnce.name] = lambda: StopAtOnce(spec)
    if spec.templates:
        policies[ExtremeArguments.name] = lambda: ExtremeArguments(spec)
    policies[InfoBlind.name] = lambda: InfoBlind(spec)
    policies[InfoPeeker.name] = lambda: InfoPeeker(spec)
    for name, factory in spec.exploits.items():
        policies[f"{name} (family)"] = factory
    return policies


def _audit(report: AuditReport, env: TextEnv, make_env: Callable[[], TextEnv],
           spec: AuditSpec, declared: bool, progress: bool) -> None:
    seeds = list(range(report.seed, report.seed + report.episodes))
    policies = _policies(spec, env, report.seed)
    played: list[Episode] = []
    with progress_bar(progress, status=True) as bar:
        total = (len(spec.references) + len(policies)) * len(seeds)
        task = bar.add_task(report.env_id, total=total, status="references")

        # The honest reference: per seed, the best return among the declared references.
        references: dict[int, Episode] = {}
        for reference in spec.references:
            name = reference if isinstance(reference, str) else reference().name
            for s in seeds:
                agent = make_agent(reference) if isinstance(reference, str) else reference()
                ep = play_episode(env, agent, s, spec, name=name, check_scores=True)
                played.append(ep)
                if s not in references or ep.ret > references[s].ret:
                    references[s] = ep
                bar.advance(task)
        ref_eps = [references[s] for s in seeds]
        names = ", ".join(r if isinstance(r, str) else r().name for r in spec.references)
        report.rows.append(_figures(f"reference ({names})",
                                    "reference", ref_eps, "pass",
                                    "per seed, the best-paid honest reference"))

        by_policy: dict[str, list[Episode]] = {}
        for name, factory in policies.items():
            bar.update(task, status=name)
            eps = []
            for s in seeds:
                eps.append(play_episode(env, factory(), s, spec, name=name))
                bar.advance(task)
            by_policy[name] = eps
            played += eps
            report.rows.append(_soundness(name, eps, ref_eps))

        bar.update(task, status=f"search ({report.budget_s:g} s)")
        search = search_exploit(env, spec, references, budget_s=report.budget_s,
                                seed=report.seed)
        report.rows.append(_search_row(search))

    report.rows += _checks(spec, declared, played, by_policy, ref_eps, make_env)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _figures(name: str, kind: Any, eps: list[Episode], verdict: Any, detail: str) -> Row:
    return Row(name, kind, verdict, episodes=len(eps), ret=_mean([e.ret for e in eps]),
               success=_mean([float(e.success) for e in eps]),
               outcome=_mean([e.outcome for e in eps]), detail=detail)


def _soundness(name: str, eps: list[Episode], refs: list[Episode]) -> Row:
    ret, ref_ret = _mean([e.ret for e in eps]), _mean([e.ret for e in refs])
    success, ref_success = _mean([e.success for e in eps]), _mean([e.success for e in refs])
    outcome, ref_outcome = _mean([e.outcome for e in eps]), _mean([e.outcome for e in refs])
    errors = [e.error for e in eps if e.error]
    if errors:
        return _figures(name, "exploit", eps, "fail", f"step raised: {errors[0]}")
    reaches = ret >= ref_ret - EPSILON
    worse = success < ref_success - EPSILON or outcome < ref_outcome - EPSILON
    if reaches and worse:
        detail = (f"earns {ret:.3f} >= the reference's {ref_ret:.3f} with success "
                  f"{success:.0%} vs {ref_success:.0%}, outcome {outcome:.3f} vs "
                  f"{ref_outcome:.3f}")
        row = _figures(name, "exploit", eps, "fail", detail)
        row.evidence = {"seed": eps[0].seed, "actions": eps[0].actions[:200]}
        return row
    return _figures(name, "exploit", eps, "pass", f"{ret - ref_ret:+.3f} vs the reference")


def _search_row(search: Any) -> Row:
    rate = f"{search.episodes} episodes in {search.seconds:.1f} s, {search.rounds} rounds"
    if search.error:
        return Row("search", "search", "fail", episodes=search.episodes,
                   detail=f"the search could not run: {search.error}")
    best = search.best
    if best is None:
        return Row("search", "search", "pass", episodes=search.episodes,
                   detail=f"no failing episode found ({rate})")
    row = Row("search", "search", "fail" if search.found else "pass", episodes=search.episodes,
              ret=best.ret, success=float(best.success), outcome=best.outcome,
              evidence={"seed": best.seed, "actions": best.actions,
                        "reference_return": best.reference_return})
    if search.found:
        row.detail = (f"seed {best.seed}: {len(best.actions)} actions earn {best.ret:.3f} >= "
                      f"the reference's {best.reference_return:.3f} with outcome "
                      f"{best.outcome:.3f} vs {best.reference_outcome:.3f} ({rate})")
    else:
        row.detail = (f"best failing episode {best.margin:+.3f} below the reference ({rate})")
    return row


def _checks(spec: AuditSpec, declared: bool, played: list[Episode],
            by_policy: dict[str, list[Episode]], refs: list[Episode],
            make_env: Callable[[], TextEnv]) -> list[Row]:
    rows = []
    rows.append(Row("family spec", "check", "pass" if declared else "fail",
                    detail=f"{len(spec.exploits)} family exploits" if declared else
                    "no AuditSpec is registered for this id: only the generic policies ran "
                    "(register one with agentgym.audit.register_audit)"))

    if not any(ep.potentials for ep in played):  # neither the spec nor the env declares one
        rows.append(Row("shaping identity", "check", "n/a", detail="no potential declared"))
    else:
        errors = [err for ep in played if not ep.error for err in ep.shaping_errors()]
        steps = sum(len(ep.process) for ep in played)
        rows.append(Row("shaping identity", "check", "fail" if errors else "pass",
                        detail=(f"{len(errors)} of {steps} steps off the potential; first: "
                                f"{errors[0]}") if errors else
                        f"{steps} steps equal gamma * phi' - phi"))

    wins = [ep for ep in played if ep.success and not ep.error]
    short = [ep for ep in wins if ep.outcome < spec.success_threshold - EPSILON]
    note = f" ({spec.success_note})" if spec.success_note else ""
    rows.append(Row(
        "success means outcome", "check", "fail" if short else "pass",
        detail=(f"{len(short)} of {len(wins)} successes below outcome "
                f"{spec.success_threshold:g}: {short[0].policy} seed {short[0].seed} outcome "
                f"{short[0].outcome:.3f}") if short else
        f"{len(wins)} successes, each with outcome >= {spec.success_threshold:g}{note}"))

    early = set().union(*(ep.early_keys for ep in played)) - spec.public_info
    rows.append(Row("info keys", "check", "fail" if early else "pass",
                    detail=(f"undeclared before the end: {', '.join(sorted(early))}") if early
                    else f"only the contract's and {len(spec.public_info)} public keys"))
    blind, peek = by_policy.get(InfoBlind.name, []), by_policy.get(InfoPeeker.name, [])
    gain = _mean([e.ret for e in peek]) - _mean([e.ret for e in blind])
    rows.append(Row("info peeker", "check", "fail" if gain > EPSILON else "pass",
                    episodes=len(peek),
                    detail=f"reading info changes the return by {gain:+.3f}"))

    replayed = refs + [eps[0] for eps in by_policy.values() if eps]
    mismatches = [m for ep in replayed if not ep.error for m in [replay_matches(make_env, ep,
                                                                                  spec)] if m]
    rows.append(Row("replay", "check", "fail" if mismatches else "pass",
                    episodes=len(replayed),
                    detail=mismatches[0] if mismatches else
                    f"{len(replayed)} episodes repeat step for step, score_actions included"))
    breaches = [b for ep in played for b in ep.breaches]
    crashes = [f"{ep.policy} seed {ep.seed}: {ep.error}" for ep in played if ep.error]
    rows.append(Row("contract", "check", "fail" if breaches or crashes else "pass",
                    episodes=len(played),
                    detail=(crashes or breaches)[0] if breaches or crashes else
                    "score_actions equals the step; nothing raises; nothing paid after the end"))
    return rows
