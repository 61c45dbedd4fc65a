"""The static site: its tables and charts from the validator's numbers, sorting in Chromium.

The Chromium test skips only where Chromium is missing *and* ``CI`` is unset (as
``tests/test_browser.py`` does). ``AGENTGYM_LEADERBOARD_SCREENSHOT=docs/leaderboard.png`` makes
it save the rendered page there (the picture in docs/leaderboard.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgym.browser import browser_available, chromium_path, launch_args
from agentgym.leaderboard.site import build_site, rows_of, scatter_svg
from agentgym.leaderboard.validate import ValidationReport, validate_bundle

needs_browser = pytest.mark.skipif(
    not browser_available() and not os.environ.get("CI"),
    reason="Chromium/playwright not installed (scripts/install_browser.sh); required in CI",
)


@pytest.fixture(scope="module")
def reports(bundles: dict[str, Path]) -> list[ValidationReport]:
    return [validate_bundle(bundles["oracle"]), validate_bundle(bundles["random"])]


@pytest.fixture(scope="module")
def site(reports: list[ValidationReport], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(reports, out, rejected=[("bad.tar.gz", "manifest.json: git.dirty: ...")])
    return out


def test_scatter_svg_places_points_on_the_axes() -> None:
    svg = scatter_svg([("a", 0.0, 0.0), ("b", 10.0, 100.0)], "mean steps", "score")
    # Plot area: x from 44 to 336 (width 360, right margin 24); y from 204 (0) up to 20 (100).
    # x spans 0 .. 10 (4 intervals of 2.5): 10 steps sit at the right end, 336.
    assert '<circle class="point" cx="44.0" cy="204.0"' in svg
    assert '<circle class="point" cx="336.0" cy="20.0"' in svg
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<title>b: 100.0 at 10</title>" in svg


def test_crowded_points_get_labels_that_do_not_overlap() -> None:
    svg = scatter_svg([("random (test)", 3.0, 0.0), ("llm (smollm2) (test)", 3.1, 0.0),
                       ("oracle (test)", 8.0, 65.0)], "mean steps", "score")
    names = ("random (test)", "llm (smollm2) (test)", "oracle (test)")
    baselines = [float(re.search(r'y="([\d.]+)"[^>]*>' + re.escape(n) + "<", svg).group(1))
                 for n in names]
    assert all(20 <= b < 204 for b in baselines)  # inside the plot, above the x axis
    assert abs(baselines[0] - baselines[1]) >= 12  # the two crowded labels sit a line apart
    assert ">4k<" in scatter_svg([("a", 3500.0, 10.0)], "tokens", "score")


def _run_script(path: Path) -> dict:
    text = path.read_text(encoding="ascii")
    assert text.startswith("agentgymRun(") and text.endswith(");\n")
    return json.loads(text[len("agentgymRun("):-len(");\n")])


def test_site_files_and_offline(site: Path, reports: list[ValidationReport]) -> None:
    index = (site / "index.html").read_text()
    for asset in ("style.css", "sort.js", "trace.html", "trace.js"):
        assert (site / asset).is_file(), asset
    for page in ("index.html", "trace.html", "trace.js"):
        text = (site / page).read_text()
        assert not re.search(r"(src|href)=[\"'](https?:)?//", text), "the site fetches nothing"
        assert "fetch(" not in text and "XMLHttpRequest" not in text  # file:// would refuse
    assert index.count('<section id="family-games">') == 1
    assert index.count("<svg") == 3  # one chart per env: no run used tokens
    runs = rows_of(reports)
    assert len(runs) == 6
    # One data file per run, no page or file per episode.
    assert sorted(p.name for p in (site / "traces").iterdir()) == sorted(
        f"{run_id}.js" for _, _, run_id in runs)
    for run, row, run_id in runs:
        assert row["traces"] == f"trace.html#{run_id}" and f'href="{row["traces"]}"' in index
        data = _run_script(site / "traces" / f"{run_id}.js")
        assert data["id"] == run_id and data["title"] == f"{row['agent']} on {row['env']}"
        assert data["episodes"] == run.results["episodes"]  # the submitted traces, as they are
        assert [r["episode_return"] for r in data["records"]] == [
            e["episode_return"] for e in run.episodes]  # the validator's numbers
    assert "Rejected bundles" in index and "bad.tar.gz" in index


def test_each_family_shows_its_recorded_audit(site: Path) -> None:
    from agentgym import __version__
    from agentgym.audit import recorded_audit

    index = (site / "index.html").read_text()
    audit = re.search(r'<p class="audit">Reward audit: (.*?)</p>', index)
    assert audit, "the games section names its reward audit"
    sokoban = recorded_audit()["agentgym/Sokoban-v0"]
    assert f"Sokoban-v0 <b>{sokoban['status']}</b> (agentgym {__version__}," in audit.group(1)


def test_a_rebuild_leaves_no_stale_runs(reports: list[ValidationReport], tmp_path: Path) -> None:
    build_site(reports, tmp_path)
    build_site(reports[:1], tmp_path)
    assert len(list((tmp_path / "traces").iterdir())) == len(reports[0].runs)


def _cells(page, table: str) -> list[list[tuple[str, str | None]]]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all(
        f"{table} tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => [c.textContent.trim(), "
        "c.getAttribute('data-value')]))")


@pytest.fixture(scope="module")
def page(site: Path) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=launch_args())
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto((site / "index.html").as_uri())
            yield page
        finally:
            browser.close()


@needs_browser
def test_page_shows_the_validators_numbers(page, reports: list[ValidationReport]) -> None:  # type: ignore[no-untyped-def]
    from agentgym.leaderboard.site import COLUMNS

    names = [name for name, _ in COLUMNS]
    assert page.eval_on_selector_all("#table-games thead th",
                                     "ths => ths.map(t => t.textContent)") == names
    shown = {(r[0][0], r[1][0]): r for r in _cells(page, "#table-games")}
    assert len(shown) == 6
    for run, row, _ in rows_of(reports):
        cells = shown[(run.agent["name"], row["env"])]
        s = run.summary
        expected = {"episodes": s["episodes"], "success": s["success_rate"], "score": s["score"],
                    "pass^k": s[f"pass^{run.trials}"], "mean steps": s["mean_steps"],
                    "tokens": s["mean_tokens"]}
        for name, value in expected.items():
            text, data = cells[names.index(name)]
            assert float(data) == value, (name, data, value)  # full precision, exactly
            fmt = dict(COLUMNS)[name]
            assert text.startswith(fmt.format(value)), (name, text)
        assert cells[names.index("split")][0] == "test"


@needs_browser
def test_clicking_a_header_sorts_the_rows(page) -> None:  # type: ignore[no-untyped-def]
    from agentgym.leaderboard.site import COLUMNS

    names = [name for name, _ in COLUMNS]
    score = names.index("score")

    def scores() -> list[float]:
        return [float(r[score][1]) for r in _cells(page, "#table-games")]

    page.click(f"#table-games thead th:nth-child({score + 1})")
    ascending = scores()
    assert ascending == sorted(ascending) and ascending != sorted(ascending, reverse=True)
    assert page.get_attribute(f"#table-games thead th:nth-child({score + 1})",
                              "aria-sort") == "ascending"
    page.click(f"#table-games thead th:nth-child({score + 1})")
    assert scores() == sorted(ascending, reverse=True)
    agent = names.index("agent")
    page.click(f"#table-games thead th:nth-child({agent + 1})")
    agents = [r[agent][1] for r in _cells(page, "#table-games")]
    assert agents == sorted(agents)
    target = os.environ.get("AGENTGYM_LEADERBOARD_SCREENSHOT")
    if target:
        page.click(f"#table-games thead th:nth-child({score + 1})")
        page.click(f"#table-games thead th:nth-child({score + 1})")  # best first
        page.screenshot(path=target, full_page=True)


@needs_browser
def test_trace_viewer_renders_a_run_and_an_episode(page, site: Path,  # type: ignore[no-untyped-def]
                                                   reports: list[ValidationReport]) -> None:
    run, row, run_id = rows_of(reports)[1]  # oracle on Sudoku 4x4: several steps per episode
    page.goto((site / "index.html").as_uri())
    page.click(f'a[href="{row["traces"]}"]')
    page.wait_for_selector("#episodes tbody tr")
    assert page.text_content("#title") == f"{row['agent']} on {row['env']}"
    rows = _cells(page, "#episodes table")
    assert len(rows) == len(run.episodes)
    assert [float(r[5][1]) for r in rows] == [e["episode_return"] for e in run.episodes]
    page.click("#episodes tbody tr:nth-child(2) a")
    page.wait_for_selector("#episode table")
    assert page.url.endswith(f"#{run_id}/1")
    claimed = run.results["episodes"][1]
    steps = _cells(page, "#episode table")
    assert [r[1][0] for r in steps] == [s["action"] for s in claimed["trace"]]
    assert [float(r[2][1]) for r in steps] == [s["reward"] for s in claimed["trace"]]
    # Straight to an episode (a link someone shared), then an unknown run.
    page.goto((site / "trace.html").as_uri() + f"#{run_id}/0")
    page.wait_for_selector("#episode table")
    assert len(_cells(page, "#episode table")) == len(run.results["episodes"][0]["trace"])
    page.goto((site / "trace.html").as_uri() + "#no-such-run")
    page.wait_for_function("document.getElementById('title').textContent.startsWith('No such')")


def test_trace_data_is_a_plain_literal(bundles: dict[str, Path], forge, tmp_path: Path
                                    ) -> None:  # type: ignore[no-untyped-def]
    def edit(manifest: dict, results: dict) -> None:
        for data in results.values():
            data["agent"]["name"] = "</script><script>alert(1)</script>\u2028"
        manifest["agent"]["name"] = "</script><script>alert(1)</script>\u2028"
        for entry in manifest["files"]:
            entry["agent"] = manifest["agent"]["name"]

    report = validate_bundle(forge(bundles["oracle"], edit))
    build_site([report], tmp_path)
    for script in (tmp_path / "traces").iterdir():
        text = script.read_text(encoding="ascii")  # ASCII: U+2028 is escaped
        assert "\u2028" not in text
        assert _run_script(script)["title"].startswith("</script>")
    assert "&lt;/script&gt;" in (tmp_path / "index.html").read_text()


def test_token_chart_where_a_run_used_tokens(bundles: dict[str, Path], forge, tmp_path: Path
                                             ) -> None:  # type: ignore[no-untyped-def]
    from agentgym.leaderboard.replay import episode_totals
    from agentgym.metrics import summarise

    def edit(manifest: dict, results: dict) -> None:
        data = results["results/000-tictactoe-v0.json"]
        for ep in data["episodes"]:
            for step in ep["trace"]:
                step["prompt_tokens"], step["completion_tokens"] = 300, 20
            ep.update(episode_totals(ep["trace"]))
        data["summary"] = summarise(data["episodes"], trials=data["trials"], family="games")

    report = validate_bundle(forge(bundles["oracle"], edit))
    index = build_site([report], tmp_path / "site").read_text()
    assert index.count("<svg") == 4  # TicTacToe also gets score against tokens
    assert "TicTacToe-v0: score against mean tokens per episode" in index
    tokens = report.runs[0].summary["mean_tokens"]
    assert f'data-value="{tokens!r}">{tokens:,.0f}</td>' in index
