"""The site state machine: pages, navigation, options, purchase and refusals."""

from __future__ import annotations

import json

import pytest

from agentgym.environments.webshop.engine import (
    BACK_TO_SEARCH,
    BUY_NOW,
    ELEMENT_KINDS,
    NEXT,
    PAGE_DONE,
    PAGE_ITEM,
    PAGE_RESULTS,
    PAGE_SEARCH,
    PAGE_SUB,
    PREV,
    TABS,
    EngineState,
    WebShopEngine,
    get_shop,
)
from agentgym.environments.webshop.reward import purchase_reward

BROAD = "quality"  # matches well over 50 products


@pytest.fixture(scope="module")
def shop():
    return get_shop(2000)


@pytest.fixture
def engine(shop):
    return WebShopEngine(shop, shop.goals.goal(3))


def open_product_with_options(engine: WebShopEngine, groups: int = 2):
    """Search, then open the first hit with at least ``groups`` option groups."""
    assert engine.search(BROAD).ok
    for page in range(5):
        for pid in engine.state.results[page * 10 : page * 10 + 10]:
            product = engine.shop.catalog.product(pid)
            if len(product.options) >= groups:
                while engine.state.results_page < page + 1:
                    assert engine.click(NEXT).ok
                assert engine.click(product.asin).ok
                return product
    raise AssertionError("no product with options found")


def test_search_page(engine):
    page = engine.page()
    assert page.kind == PAGE_SEARCH and page.has_search_bar
    assert page.text() == f"WebShop [SEP] Instruction: [SEP] {engine.goal.instruction} [SEP] Search"
    assert page.clickables() == []
    assert engine.available_actions() == {"has_search_bar": True, "clickables": []}
    assert all(e.kind in ELEMENT_KINDS for e in page.elements)


def test_results_pages_and_paging(engine):
    assert engine.search(BROAD).ok
    page = engine.page()
    assert page.kind == PAGE_RESULTS and not page.has_search_bar
    assert len(engine.state.results) == 50
    assert page.clickables()[:2] == [BACK_TO_SEARCH, NEXT]  # no < Prev on page 1
    asins = [e.text for e in page.elements if e.kind == "product_link"]
    assert len(asins) == 10 and page.clickables()[2:] == asins
    assert "Page 1 (Total results: 50)" in page.text()
    kinds = [e.kind for e in page.elements if e.ref == asins[0]]
    assert kinds == ["product_link", "product_title", "product_price"]
    for _ in range(4):
        assert engine.click(NEXT).ok
    last = engine.page()
    assert "Page 5 (Total results: 50)" in last.text()
    assert PREV in last.clickables() and NEXT not in last.clickables()
    assert not engine.click(NEXT).ok
    assert engine.click(PREV).ok and engine.state.results_page == 4
    assert len(engine.state.listed) == 50  # all five pages were shown
    assert engine.click(BACK_TO_SEARCH).ok and engine.page().kind == PAGE_SEARCH


def test_no_results_page(engine):
    assert engine.search("zzqx").ok
    page = engine.page()
    assert page.kind == PAGE_RESULTS and page.clickables() == [BACK_TO_SEARCH]
    assert "No results found" in page.text()


def test_item_page_options_tabs_and_navigation(engine):
    product = open_product_with_options(engine)
    results_page = engine.state.results_page
    page = engine.page()
    assert page.kind == PAGE_ITEM
    assert page.clickables()[:2] == [BACK_TO_SEARCH, PREV]
    assert page.clickables()[-4:] == [*TABS, BUY_NOW]
    assert product.option_values() == page.clickables()[2:-4]
    assert product.title in page.visible_strings()
    assert "Attributes" not in page.text()
    g0, g1 = product.options[0], product.options[1]
    # radio semantics: the second click in a group replaces the first
    assert engine.click(g0.values[0]).ok
    if len(g0.values) > 1:
        assert engine.click(g0.values[1].upper()).ok  # labels are case-insensitive
    assert engine.click(f"  {g1.values[-1]} (selected) ").ok  # the text rendering's suffix
    chosen = {g0.name: g0.values[min(1, len(g0.values) - 1)], g1.name: g1.values[-1]}
    assert engine.state.chosen == chosen
    assert f"{g1.values[-1]} (selected)" in engine.page().visible_strings()
    # a tab and back keeps the options
    assert engine.click("features").ok and engine.page().kind == PAGE_SUB
    sub = engine.page()
    assert sub.clickables() == [BACK_TO_SEARCH, PREV]
    assert [e.text for e in sub.elements if e.kind == "text"] == list(product.bullets)
    assert engine.click(PREV).ok and engine.state.chosen == chosen
    assert engine.click("Reviews").ok and len(
        [e for e in engine.page().elements if e.kind == "text"]) == len(product.reviews)
    assert engine.click(PREV).ok
    # < Prev on the item page returns to the same results page and drops the options
    assert engine.click(PREV).ok
    assert engine.page().kind == PAGE_RESULTS and engine.state.results_page == results_page
    assert engine.state.chosen == {}
    assert engine.state.viewed == [product.pid]


def test_price_shown_follows_the_chosen_size(shop):
    engine = WebShopEngine(shop, shop.goals.goal(0))
    assert engine.search(BROAD).ok
    ranged = next(shop.catalog.product(p) for p in range(2000)
                  if len(shop.catalog.product(p).prices) > 1)
    engine.state.results = [ranged.pid]
    assert engine.click(ranged.asin).ok
    assert f"Price: {ranged.price_text()}" in engine.page().visible_strings()
    group = ranged.options[0]
    assert engine.click(group.values[0]).ok
    assert f"Price: ${ranged.prices[0] / 100:.2f}" in engine.page().visible_strings()


def test_purchase_scores_with_the_reward_and_happens_once(engine, shop):
    product = open_product_with_options(engine, groups=1)
    value = product.options[0].values[0]
    assert engine.click(value).ok
    result = engine.click("buy now")
    assert result.ok and result.detail is not None
    expected = purchase_reward(product, {product.options[0].name: value}, engine.goal)
    assert result.detail.reward == expected
    assert result.detail.asin == product.asin and engine.done
    done = engine.page()
    assert done.kind == PAGE_DONE and done.clickables() == []
    assert "Thank you for shopping with us!" in done.text()
    assert "score" not in done.text().lower() and "reward" not in done.text().lower()
    again = engine.click(BUY_NOW)
    assert not again.ok and again.detail is None and "complete" in again.error
    assert not engine.search("more").ok
    assert engine.potential() == expected.total


def test_refusals_never_raise_and_leave_the_state_alone(engine):
    before = engine.state.to_dict()
    for bad in ("x" * 100_000, "", "   ", "☃ snow", "!!!", None, 3):
        result = engine.search(bad)
        assert not result.ok and result.error
    assert engine.state.to_dict() == before
    assert engine.search("shampoo").ok
    before = engine.state.to_dict()
    for bad in ("Buy Now", "Attributes", "no such", "x" * 100_000, "", None, ["a"]):
        result = engine.click(bad)
        assert not result.ok and result.error
        assert engine.state.to_dict() == before
    assert "only on a product's page" in engine.click("Buy Now").error
    assert "Clickable here: Back to Search" in engine.click("nope").error
    refused = engine.search("again")
    assert not refused.ok and "Back to Search" in refused.error


def test_state_round_trips_through_json(engine, shop):
    open_product_with_options(engine)
    engine.click(engine.shop.catalog.product(engine.state.product).options[0].values[0])
    blob = json.dumps(engine.to_dict())
    copy = WebShopEngine(shop, engine.goal, EngineState.from_dict(json.loads(blob)))
    assert copy.page() == engine.page() and copy.state.to_dict() == engine.state.to_dict()
    assert copy.click(BUY_NOW).detail.reward == engine.click(BUY_NOW).detail.reward


def test_potential_is_the_best_listed_score(engine, shop):
    assert engine.potential() == 0.0
    engine.search(engine.goal.search_query)
    listed = engine.state.listed
    assert len(listed) == min(10, len(engine.state.results))
    assert engine.potential() == max(shop.best(engine.goal, p) for p in listed)
    before = engine.potential()
    engine.click(NEXT)
    assert engine.potential() >= before
