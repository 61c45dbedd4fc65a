"""Travel bookings: cancellations, checked bags and delay compensation within the rules.

>>> from agentgym.draws import Draws
>>> import numpy as np
>>> rows = TRAVEL.build(Draws(np.random.default_rng(0)))
>>> sorted(rows)
['bookings', 'compensations', 'customers', 'flights']
"""

from __future__ import annotations

from typing import Any

from agentgym.draws import Draws

from ..domain import Domain, Fact, Template, TemplateDraw, step
from ..tools import EMAIL_PATTERN, ID_PATTERN, Param, Tool, ToolError
from .common import one, people, unique_ids

__all__ = ["TRAVEL"]

#: Checked bags allowed per booking, by tier; compensation (whole dollars) for a delay of 3
#: hours or more, by tier.
ALLOWANCE = {"regular": 1, "silver": 2, "gold": 3}
COMPENSATION = {"regular": 50, "silver": 100, "gold": 200}
TIERS = ("regular", "silver", "gold")

POLICY = """\
Airline support policy.
1. Authenticate first: find the customer with find_customer, using the email they give you.
   Act only on bookings of that account.
2. Before any change (cancel_booking, set_bags, issue_compensation), state the change with
   its exact arguments and ask the customer to confirm; change only after they answer yes.
3. Cancellation: refundable fares may be cancelled by anyone; basic fares only by gold
   members. The reason is the customer's: "change of plans" or "schedule conflict".
4. Checked bags per booking: regular 1, silver 2, gold 3. set_bags sets the total.
5. Compensation only for a flight delayed 3 hours or more, once per booking, and exactly:
   regular 50, silver 100, gold 200 (dollars). Tell the customer the amount.
6. Each change is done once: calling it again on the same booking is refused."""

REASONS = ("change of plans", "schedule conflict")
AIRPORTS = ("BOS", "SFO", "JFK", "ORD", "SEA", "DEN", "ATL", "MIA")

SCHEMA = (
    "CREATE TABLE customers (customer_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT "
    "UNIQUE, tier TEXT NOT NULL)",
    "CREATE TABLE flights (flight_id TEXT PRIMARY KEY, route TEXT NOT NULL, date TEXT NOT "
    "NULL, status TEXT NOT NULL, delay_hours INTEGER NOT NULL)",
    "CREATE TABLE bookings (booking_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, "
    "flight_id TEXT NOT NULL, fare TEXT NOT NULL, bags INTEGER NOT NULL, status TEXT NOT "
    "NULL, cancel_reason TEXT)",
    "CREATE TABLE compensations (comp_id TEXT PRIMARY KEY, booking_id TEXT NOT NULL, "
    "amount INTEGER NOT NULL)",
)
TABLES = (("customers", "customer_id"), ("flights", "flight_id"), ("bookings", "booking_id"),
          ("compensations", "comp_id"))


def build(draws: Draws) -> dict[str, list[tuple[Any, ...]]]:
    """Six customers of every tier, eight flights (some delayed), two bookings each."""
    persons = people(draws, 6)
    cids = unique_ids(draws, "C", 6)
    fids = unique_ids(draws, "FL", 8)
    bids = unique_ids(draws, "B", 12)
    flights = []
    for k, f in enumerate(fids):
        origin, dest = draws.sample(AIRPORTS, 2)
        delay = (0, 1, 3, 5)[k % 4] if k % 2 else 0
        flights.append((f, f"{origin}-{dest}", f"2026-06-{10 + draws.below(19):02d}",
                        "delayed" if delay else "on time", delay))
    customers, bookings = [], []
    for k, (c, (name, email)) in enumerate(zip(cids, persons, strict=True)):
        customers.append((c, name, email, TIERS[k % 3]))
        for _ in range(2):
            bookings.append((bids.pop(), c, draws.pick(fids),
                             draws.pick(("refundable", "basic")), draws.below(2), "active",
                             None))
    return {"customers": customers, "flights": flights, "bookings": bookings,
            "compensations": []}


def _tier(s: Any, booking_id: str) -> str:
    (tier,) = one(s.conn, "SELECT c.tier FROM bookings b JOIN customers c ON c.customer_id = "
                  "b.customer_id WHERE b.booking_id = ?", (booking_id,),
                  f"no booking {booking_id}")
    return tier


def find_customer(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    cid, name, tier = one(s.conn, "SELECT customer_id, name, tier FROM customers WHERE "
                          "email = ?", (a["email"],), "no customer has that email")
    rows = s.conn.execute("SELECT booking_id, status FROM bookings WHERE customer_id = ? "
                          "ORDER BY booking_id", (cid,)).fetchall()
    return {"customer_id": cid, "name": name, "tier": tier,
            "bookings": [{"booking_id": b, "status": st} for b, st in rows]}


def get_booking(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    row = one(s.conn, "SELECT b.booking_id, b.customer_id, b.fare, b.bags, b.status, "
              "f.flight_id, f.route, f.date, f.status, f.delay_hours FROM bookings b JOIN "
              "flights f ON f.flight_id = b.flight_id WHERE b.booking_id = ?",
              (a["booking_id"],), f"no booking {a['booking_id']}")
    b, c, fare, bags, status, f, route, date, fstatus, delay = row
    comp = s.conn.execute("SELECT amount FROM compensations WHERE booking_id = ?",
                          (b,)).fetchone()
    return {"booking_id": b, "customer_id": c, "fare": fare, "bags": bags, "status": status,
            "compensated": comp is not None,
            "flight": {"flight_id": f, "route": route, "date": date, "status": fstatus,
                       "delay_hours": delay}}


def _owner(s: Any, a: dict[str, Any]) -> str | None:
    row = s.conn.execute("SELECT customer_id FROM bookings WHERE booking_id = ?",
                         (a["booking_id"],)).fetchone()
    return row[0] if row else None


def _active(s: Any, booking_id: str) -> tuple[Any, ...]:
    row = one(s.conn, "SELECT status, fare, bags FROM bookings WHERE booking_id = ?",
              (booking_id,), f"no booking {booking_id}")
    if row[0] != "active":
        raise ToolError(f"booking {booking_id} is {row[0]}")
    return row


def cancel_booking(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    _active(s, a["booking_id"])
    s.conn.execute("UPDATE bookings SET status = 'cancelled', cancel_reason = ? WHERE "
                   "booking_id = ?", (a["reason"], a["booking_id"]))
    return {"booking_id": a["booking_id"], "status": "cancelled"}


def cancel_rules(s: Any, a: dict[str, Any]) -> list[str]:
    row = s.conn.execute("SELECT fare FROM bookings WHERE booking_id = ?",
                         (a["booking_id"],)).fetchone()
    if row and row[0] == "basic" and _tier(s, a["booking_id"]) != "gold":
        return ["basic fares are cancelled only for gold members"]
    return []


def set_bags(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    _, _, bags = _active(s, a["booking_id"])
    if bags == a["bags"]:
        raise ToolError(f"booking {a['booking_id']} already has {bags} checked bags")
    s.conn.execute("UPDATE bookings SET bags = ? WHERE booking_id = ?",
                   (a["bags"], a["booking_id"]))
    return {"booking_id": a["booking_id"], "bags": a["bags"]}


def bags_rules(s: Any, a: dict[str, Any]) -> list[str]:
    tier = _tier(s, a["booking_id"])
    return [f"{tier} members may check {ALLOWANCE[tier]} bags"] if a["bags"] > ALLOWANCE[tier] \
        else []


def issue_compensation(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    _active(s, a["booking_id"])
    if s.conn.execute("SELECT 1 FROM compensations WHERE booking_id = ?",
                      (a["booking_id"],)).fetchone():
        raise ToolError(f"booking {a['booking_id']} was already compensated")
    s.conn.execute("INSERT INTO compensations VALUES (?, ?, ?)",
                   ("CP-" + a["booking_id"][2:], a["booking_id"], a["amount"]))
    return {"booking_id": a["booking_id"], "compensation_amount": f"{a['amount']}.00"}


def compensation_rules(s: Any, a: dict[str, Any]) -> list[str]:
    row = s.conn.execute("SELECT f.delay_hours FROM bookings b JOIN flights f ON f.flight_id "
                         "= b.flight_id WHERE b.booking_id = ?", (a["booking_id"],)).fetchone()
    broken = []
    if row and row[0] < 3:
        broken.append("compensation needs a delay of 3 hours or more")
    tier = _tier(s, a["booking_id"]) if row else ""
    if row and a["amount"] != COMPENSATION[tier]:
        broken.append(f"{tier} compensation is {COMPENSATION[tier]}")
    return broken


BOOKING = Param("booking_id", "the booking id, e.g. B-1234", ID_PATTERN, source="booking_id")
TOOLS = (
    Tool("find_customer", "Find a customer by email; shows tier and bookings.",
         (Param("email", "the customer's email", EMAIL_PATTERN, source="email"),),
         find_customer, authenticates=True),
    Tool("get_booking", "Read a booking and its flight (status, delay).", (BOOKING,),
         get_booking),
    Tool("cancel_booking", "Cancel an active booking.",
         (BOOKING, Param("reason", "why the customer cancels", choices=REASONS)),
         cancel_booking, writes=True, owner=_owner, rules=cancel_rules, verb="cancel booking"),
    Tool("set_bags", "Set the number of checked bags of a booking.",
         (BOOKING, Param("bags", "checked bags in total", choices=(0, 1, 2, 3))), set_bags,
         writes=True, owner=_owner, rules=bags_rules, verb="set the checked bags of booking"),
    Tool("issue_compensation", "Pay delay compensation (dollars) on a booking.",
         (BOOKING, Param("amount", "dollars", choices=(50, 100, 200, 400))),
         issue_compensation, writes=True, owner=_owner, rules=compensation_rules,
         verb="issue compensation for booking", tells=("compensation_amount",)),
)

FACTS = (
    Fact("email", "email", "Could you tell me the email address on your account?",
         (("email",),)),
    Fact("booking_id", "booking number", "What is the booking number (booking id)?",
         (("booking", "id"), ("booking", "number"), ("reservation",))),
    Fact("reason", "reason", "What is the reason for the cancellation?",
         (("reason",), ("why",))),
    Fact("bags", "number of bags", "How many checked bags do you want in total?",
         (("how", "many", "bags"),)),
)


def _bookings(conn: Any) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT b.booking_id, c.email, c.tier, b.fare, b.bags, f.delay_hours "
                        "FROM bookings b JOIN customers c ON c.customer_id = b.customer_id "
                        "JOIN flights f ON f.flight_id = b.flight_id WHERE b.status = 'active' "
                        "ORDER BY b.booking_id").fetchall()


def _start(email: str, booking_id: str) -> list[Any]:
    return [step("ask", "email"), step("call", "find_customer", email=email),
            step("ask", "booking_id"), step("call", "get_booking", booking_id=booking_id)]


def draw_cancel(draws: Draws, conn: Any) -> TemplateDraw | None:
    ok = [b for b in _bookings(conn) if b[3] == "refundable" or b[2] == "gold"]
    if not ok:
        return None
    booking_id, email, *_ = draws.pick(ok)
    reason = draws.pick(REASONS)
    write = step("call", "cancel_booking", booking_id=booking_id, reason=reason)
    plan = [*_start(email, booking_id), step("ask", "reason"),
            step("confirm", "cancel_booking", booking_id=booking_id, reason=reason), write,
            step("end")]
    return TemplateDraw({"email": email, "booking_id": booking_id, "reason": reason},
                        draws.pick(("Hi, I need to cancel a flight booking.",
                                    "Hello, please cancel my trip.")), tuple(plan), (write,))


def draw_bags(draws: Draws, conn: Any) -> TemplateDraw | None:
    ok = [b for b in _bookings(conn) if b[4] < ALLOWANCE[b[2]]]
    if not ok:
        return None
    booking_id, email, tier, _, bags, _ = draws.pick(ok)
    want = bags + 1 + draws.below(ALLOWANCE[tier] - bags)
    write = step("call", "set_bags", booking_id=booking_id, bags=want)
    plan = [*_start(email, booking_id), step("ask", "bags"),
            step("confirm", "set_bags", booking_id=booking_id, bags=want), write, step("end")]
    return TemplateDraw({"email": email, "booking_id": booking_id, "bags": f"{want} bags"},
                        draws.pick(("Hi, I want to add checked bags to my booking.",
                                    "Hello, I'll be travelling with more luggage.")),
                        tuple(plan), (write,))


def draw_compensation(draws: Draws, conn: Any) -> TemplateDraw | None:
    ok = [b for b in _bookings(conn) if b[5] >= 3]
    if not ok:
        return None
    booking_id, email, tier, *_ = draws.pick(ok)
    write = step("call", "issue_compensation", booking_id=booking_id,
                 amount=COMPENSATION[tier])
    plan = [*_start(email, booking_id),
            step("confirm", "issue_compensation", booking_id=booking_id,
                 amount=COMPENSATION[tier]), write, step("tell", "compensation_amount"),
            step("end")]
    return TemplateDraw({"email": email, "booking_id": booking_id},
                        draws.pick(("My flight was hours late. I'd like compensation.",
                                    "Hi, my flight got delayed a lot, what can you do?")),
                        tuple(plan), (write,))


TRAVEL = Domain(
    name="travel",
    policy=POLICY,
    schema=SCHEMA,
    tables=TABLES,
    build=build,
    tools=TOOLS,
    facts=FACTS,
    templates=(Template("cancel", "train", draw_cancel),
               Template("bags", "train", draw_bags),
               Template("compensation", "test", draw_compensation)),
)
