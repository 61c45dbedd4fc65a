"""The exact mine posterior of a board, kept up to date as cells are revealed.

The posterior is exact Bayes under the only prior the game has: the mines are a uniformly
random set of ``mines`` cells among the hidden ones, conditioned on the revealed numbers.
The frontier (hidden cells next to a number) splits into components that share no number;
each is counted by :mod:`.counting`, and :mod:`.combine` joins the counts with the
``C(U, mines - K)`` ways to put the remaining mines on the ``U`` cells off the frontier.
:class:`PosteriorSolver` keeps one board's components between reveals so that a game pays
only for what each reveal changed; :func:`mine_posterior` is a one-shot use of it.

>>> # "1" revealed in the middle of a 1x3 strip: one mine, either side, 50/50.
>>> post = mine_posterior(1, 3, 1, [False, True, False], [0, 1, 0])
>>> post.probs()
[0.5, None, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import reduce
from operator import or_

from .board import cell_bits, cells_of, dilate, neighbour_masks
from .combine import Evaluation
from .counting import (
    LIST_LEAVES,
    LIST_STAKE,
    POSTERIOR_METHODS,
    BudgetExceeded,
    Component,
    Constraint,
    combination_masks,
    count_component,
    list_layouts,
    tally,
)
from .deduction import degraded_posterior, number_constraints
from .posterior import Posterior

__all__ = ["DEFAULT_POSTERIOR_BUDGET", "PosteriorSolver", "mine_posterior"]

# Work one frontier component may cost (listing decisions, or transitions of the counting
# DP) before the oracle gives up on exactness and degrades. Typical boards need tens to
# hundreds; the hardest 16x16 boards seen in testing need ~100k transitions.
DEFAULT_POSTERIOR_BUDGET: int = 200_000
# Memoised component counts a solver keeps before it starts over (bounds its memory).
_CACHE_LIMIT: int = 4_096


def _group(constraints: list[Constraint], hidden: int) -> list[list] | None:
    """Split constraints into components: ``[cover, sources, constraints]`` each.

    Masks are first cut down to the ``hidden`` cells (a constraint left with none is
    dropped; ``None`` if one of those still needed mines: the numbers contradict each
    other). ``sources`` has a bit per revealed cell whose constraint is in the component.
    Components grow from the first constraint left, a pass at a time; each one's constraints
    come out in the order they joined it, every one meeting those before it, so feeding a
    component back in after a few cells opened usually takes a single pass.
    """
    groups: list[list] = []
    rest: list[Constraint] = []
    cover = sources = 0
    members: list[Constraint] = []
    for item in constraints:
        mask = item[1]
        if mask & ~hidden:
            mask &= hidden
            if not mask:
                if item[2]:
                    return None
                continue
            item = (item[0], mask, item[2])
        if mask & cover or not cover:
            cover |= mask
            sources |= 1 << item[0]
            members.append(item)
        else:
            rest.append(item)
    while members:
        grew = True
        while grew and rest:
            grew = False
            left = []
            for item in rest:
                if item[1] & cover:
                    cover |= item[1]
                    sources |= 1 << item[0]
                    members.append(item)
                    grew = True
                else:
                    left.append(item)
            rest = left
        groups.append([cover, sources, members])
        if not rest:
            break
        first = rest[0]
        cover, sources, members = first[1], 1 << first[0], [first]
        rest = rest[1:]
    return groups


class PosteriorSolver:
    """The exact mine posterior of one board, kept up to date as cells are revealed.

    ``counts`` are the board's numbers (read only for revealed cells), which must come from
    a real mine layout (:func:`mine_posterior` checks hand-made ones). Between questions the
    solver keeps the frontier split into components, each with its counted layouts, and
    works only on what a reveal changed:

    * components the opened cells do not touch keep their counts;
    * a touched one is counted again from its memo (a component's counts depend only on the
      hidden cells it covers and the revealed numbers over them, so they are memoised under
      that pair), or by extending the layouts of the components it grew from and checking
      only the new numbers, or else from scratch as :func:`mine_posterior` describes;
    * cells a component settles (safe, or a mine, in every one of its layouts) leave the
      frontier: their mines are taken off the numbers around them and off the total, so the
      components that remain are smaller (the counts, and so the posterior, are unchanged);
    * the components are combined at most once per state, and only when a question needs
      it: whether a cell is certainly safe is often known from its own component.

    Results are identical to :func:`mine_posterior` on the same revealed cells, which is
    this class used once. (The one exception is a component that exhausts ``budget``: a
    solver that has cut it down over several reveals may still count it exactly where a
    one-shot count degrades. The default budget leaves wide room on boards up to 16x16.)
    Flags are not knowledge: the solver never sees them.

    >>> from agentgym.environments.games.minesweeper.board import neighbour_counts
    >>> solver = PosteriorSolver(1, 4, 1, neighbour_counts(1, 4, [3]))  # the mine is cell 3
    >>> solver.reveal([2])  # shows 1: cell 1 or cell 3, and no mine is left for cell 0
    >>> solver.posterior().probs()
    [0.0, 0.5, None, 0.5]
    >>> solver.reveal([1])  # shows 0: cell 1 was safe, so the mine is on cell 3
    >>> solver.cell(3), solver.cell(0), solver.safe(0), solver.lowest()
    ((1, 1, False), (0, 1, False), True, 0)
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        mines: int,
        counts: Sequence[int],
        budget: int = DEFAULT_POSTERIOR_BUDGET,
        *,
        method: str = "auto",
    ) -> None:
        if method not in POSTERIOR_METHODS:
            raise ValueError(f"method must be one of {POSTERIOR_METHODS}, got {method!r}")
        self.rows, self.cols, self.mines = rows, cols, mines
        self.budget, self.method = budget, method
        self._n = rows * cols
        self._nbr = neighbour_masks(rows, cols)
        self._bit = cell_bits(self._n)
        self._counts = list(counts)
        self._hidden = (1 << self._n) - 1
        self._hidden_count = self._n
        # Cells revealed since the components were last brought up to date.
        self._opened: list[int] = []
        self._opened_mask = 0
        self._groups: list[list] = []  # [cover, sources, constraints, component]
        # Settled cells, out of every component: mines in all layouts, and safe hidden ones.
        self._sure_mines = 0
        self._safe_cells = 0
        self._cache: dict[tuple[int, int], Component | None] = {}
        self._inconsistent = False
        # Settling and extending need listed layouts, which the counting DP (the only
        # counter a tiny budget or method="transfer" allows) does not keep.
        self._incremental = method == "auto" and budget >= LIST_STAKE
        self._eval: Evaluation | None = None

    def reveal(self, cells: Iterable[int]) -> None:
        """Mark ``cells`` revealed (already revealed ones are ignored)."""
        cells = list(cells)
        bit = self._bit
        mask = reduce(or_, map(bit.__getitem__, cells), 0)
        new = mask & self._hidden
        if not new:
            return
        if new != mask or len(cells) != new.bit_count():
            # Some were revealed already, or repeated: keep each new cell once.
            cells = cells_of(new)
        self._hidden ^= new
        self._hidden_count -= len(cells)
        self._opened += cells
        self._opened_mask |= new
        self._eval = None

    def posterior(self) -> Posterior:
        """P(mine) of every cell (raises ``ValueError`` if no layout fits the numbers)."""
        return self._evaluate().posterior(self._n)

    def cell(self, cell: int) -> tuple[int | None, int, bool]:
        """``(numerator, denominator, degraded)`` of one cell's P(mine), as in
        :meth:`posterior`, without building the whole posterior."""
        ev = self._evaluate()
        num = ev.numerator(cell)
        if ev._post is None:
            ev.weigh()  # the denominator, even when the cell did not need it
        return num, ev.denominator, ev.degraded

    def safe(self, cell: int) -> bool:
        """Whether the hidden ``cell`` has P(mine) = 0, often answered without combining the
        components. Assumes the numbers are consistent, as a real board's are."""
        return self._evaluate().safe(cell)

    def degraded(self) -> bool:
        """Whether the posterior of this state fell back to local deduction."""
        return self._evaluate().degraded

    def lowest(self) -> int | None:
        """The smallest numerator over hidden cells (``None`` when no cell is hidden)."""
        return self._evaluate().lowest()

    def _evaluate(self) -> Evaluation:
        if self._eval is None:
            self._eval = self._combine()
        return self._eval

    def _combine(self) -> Evaluation:
        mines, hidden = self.mines, self._hidden
        if not 0 <= mines <= self._hidden_count:
            raise ValueError(f"{mines} mines cannot fit in {self._hidden_count} hidden cells")
        if self._opened:
            self._update()
        if self._inconsistent:
            raise ValueError("no mine layout is consistent with the revealed numbers")
        comps = [g[3] for g in self._groups]
        if None in comps:
            revealed = [not hidden >> i & 1 for i in range(self._n)]
            post = degraded_posterior(self.rows, self.cols, mines, revealed, self._counts)
            return Evaluation([], hidden, self._hidden_count, mines, post=post)
        return Evaluation(
            comps,  # type: ignore[arg-type]  # no None left
            hidden,
            self._hidden_count,
            mines,
            self._sure_mines,
            self._safe_cells,
        )

    def _update(self) -> None:
        """Bring the components up to date with the cells opened since the last call."""
        opened, opened_mask = self._opened, self._opened_mask
        hidden, nbr, counts = self._hidden, self._nbr, self._counts
        self._opened, self._opened_mask = [], 0
        sure_mines = self._sure_mines
        if opened_mask & sure_mines:
            self._inconsistent = True  # a settled mine cannot be revealed
        live = hidden & ~(sure_mines | self._safe_cells)
        kept: list[list] = []
        parents: list[list] = []
        loose: list[Constraint] = []
        for g in self._groups:
            if g[0] & opened_mask:
                parents.append(g)
                loose += g[2]
            else:
                kept.append(g)
        fresh: list[Constraint] = []
        reach = 0
        if len(opened) > 8 and not sure_mines:
            # Many cells at once (a fresh solver, a flood): only those next to a live cell
            # make constraints, found for all of them by shifting the board; the others
            # must show 0.
            border = opened_mask & dilate(live, self.rows, self.cols)
            if any(map(counts.__getitem__, cells_of(opened_mask & ~border))):
                self._inconsistent = True
            opened = cells_of(border)
        for c in opened:
            # Settled neighbours are out of the frontier; their mines are off the number.
            around = nbr[c]
            mask = around & live
            if mask:
                fresh.append((c, mask, counts[c] - (around & sure_mines).bit_count()))
                reach |= mask
            elif counts[c] and counts[c] != (around & sure_mines).bit_count():
                self._inconsistent = True
        if not parents and not reach:
            return  # only settled or unconstrained cells opened: no component changes
        if reach:
            # New numbers may reach components the opened cells did not touch: join them.
            untouched = []
            for g in kept:
                if g[0] & reach:
                    parents.append(g)
                    loose += g[2]
                else:
                    untouched.append(g)
            kept = untouched
            loose += fresh
        groups = _group(loose, hidden)
        if groups is None:
            self._inconsistent = True  # a number lost every cell its mines could hide in
            groups = []
        cache = self._cache
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        for group in groups:
            cover, sources, cons = group
            # The constraints on a component are the numbers of `sources` over their hidden
            # neighbours, all inside `cover`: the pair fixes them on this board.
            key = (cover, sources)
            if key in cache:
                comp = cache[key]
            else:
                comp = self._extend(cover, fresh, parents, opened_mask)
                if comp is None:
                    try:
                        comp = count_component(cons, cover, self.mines, self.budget, self.method)
                    except BudgetExceeded:
                        comp = None
                cache[key] = comp
            group.append(comp)
            if self._incremental and comp is not None and comp.layouts:
                kept += self._settle(group)
            else:
                kept.append(group)
        self._groups = kept

    def _settle(self, group: list) -> list[list]:
        """Take the cells the component settles out of it; the rest, split into components.

        A cell mined in every layout is a mine in every layout of the board, one mined in
        none is safe in all: both leave the frontier for good, the mines taken off the
        numbers around them. What is left of the component may fall apart; each part's
        layouts are the old ones cut down to it (distinct, as the settled cells agreed).
        """
        cover, _, cons, comp = group
        always = cover
        for layout in comp.layouts:
            always &= layout
        never = cover & ~comp.union
        settled = always | never
        if not settled:
            return [group]
        self._sure_mines |= always
        self._safe_cells |= never
        rest = cover & ~settled
        if not rest:
            return []
        left = [
            (src, mask & rest, need - (mask & always).bit_count())
            for src, mask, need in cons
            if mask & rest
        ]
        parts = _group(left, rest) or []
        cache = self._cache
        for part in parts:
            key = (part[0], part[1])
            sub = cache.get(key)
            if sub is None:
                sub = tally(part[0], sorted({layout & part[0] for layout in comp.layouts}))
                cache[key] = sub
            part.append(sub)
        return parts

    def _extend(
        self, cover: int, fresh: list[Constraint], parents: list[list], opened_mask: int
    ) -> Component | None:
        """Layouts of a changed component from the listed layouts of the ones it grew from.

        Each parent's layouts that keep the opened cells clear, cut down to this component,
        are exactly the assignments its old numbers allow here (revealed cells are safe, so
        those numbers still hold over the cells left, and the parts of a parent that now
        lie in other components are independent of this one); only the numbers of the cells
        just opened (``fresh``) need checking. ``None`` when a parent was not listed, or the
        listing would be large: then the caller counts from scratch, with the same result.
        """
        if not self._incremental:
            return None
        seeds = [0]
        fixed = 0
        for g in parents:
            part = g[0] & cover
            if not part:
                continue
            comp = g[3]
            if comp is None or comp.layouts is None:
                return None
            fixed |= part
            cut = {layout & part for layout in comp.layouts if not layout & opened_mask}
            seeds = [s | c for s in seeds for c in sorted(cut)]
            if len(seeds) > LIST_LEAVES:
                return None
        if not fixed:
            return None
        new = [item for item in fresh if item[1] & cover]
        if len(new) == 1:
            # One new number (the usual reveal): its new cells, all seen by it alone, take
            # whatever mines each seed leaves it, in every possible way.
            _, mask, need = new[0]
            free = cover & ~fixed
            size = free.bit_count()
            max_mines = self.mines
            layouts = []
            for seed in seeds:
                v = need - (seed & mask).bit_count()
                if v == 0:
                    layouts.append(seed)
                elif v == size:
                    layouts.append(seed | free)
                elif 0 < v < size:
                    layouts += [seed | p for p in combination_masks(free, v)]
            if len(layouts) > LIST_LEAVES:
                return None
            return tally(cover, [x for x in layouts if x.bit_count() <= max_mines])
        if fixed == cover:
            # No cell is new: the seeds are whole layouts, and the new numbers filter them.
            return tally(
                cover,
                [
                    seed
                    for seed in seeds
                    if all((seed & mask).bit_count() == need for _, mask, need in new)
                ],
            )
        try:
            return list_layouts(
                new, cover, self.mines, min(self.budget, LIST_STAKE), LIST_LEAVES, seeds, fixed
            )
        except BudgetExceeded:
            return None


def mine_posterior(
    rows: int,
    cols: int,
    mines: int,
    revealed: Sequence[bool],
    counts: Sequence[int],
    budget: int = DEFAULT_POSTERIOR_BUDGET,
    *,
    method: str = "auto",
) -> Posterior:
    """Exact P(mine) for every hidden cell given the revealed numbers and the mine total.

    ``counts[i]`` is read only where ``revealed[i]``. Frontier cells (hidden cells next to a
    revealed number) are split into components that share no constraint; each component's
    consistent layouts are counted by mine number (and, per cell, those with a mine there),
    the components are combined by convolution, and every total ``K`` of frontier mines is
    weighted by the ``C(U, mines - K)`` ways to place the rest among the ``U`` unconstrained
    hidden cells, which each get the expected leftover mines divided by ``U``. All arithmetic
    is on Python ints, so the fractions are exact.

    ``method`` picks how a component is counted (see :mod:`.counting`): ``"bitmask"`` lists
    its layouts as bitmasks, ``"transfer"`` counts them by dynamic programming over merged
    partial layouts, and ``"auto"`` (default) lists with a small stake and switches to the
    DP on long frontiers (with a ``budget`` below that stake it uses the DP only). All give
    identical results. If a component needs more than ``budget`` units of work (decisions
    or transitions, by counter), the whole posterior falls back to local deduction
    (:func:`~.deduction.degraded_posterior`, ``degraded=True``). For a game in progress,
    :class:`PosteriorSolver` gives the same numbers incrementally.

    >>> # Row 1 shows "1 1 0" over hidden row 2: the 0 clears two cells, so the mine is left.
    >>> post = mine_posterior(2, 3, 1, [True, True, True, False, False, False], [1, 1, 0])
    >>> [post.fraction(i) for i in (3, 4, 5)]
    [Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    if method not in POSTERIOR_METHODS:
        raise ValueError(f"method must be one of {POSTERIOR_METHODS}, got {method!r}")
    # Numbers that no layout could explain get a precise error before any counting.
    number_constraints(rows, cols, revealed, counts)
    solver = PosteriorSolver(rows, cols, mines, counts, budget, method=method)
    solver.reveal(i for i in range(rows * cols) if revealed[i])
    return solver.posterior()
