"""Retail orders: cancellations, address changes and returns, under a written policy.

>>> from agentgym.draws import Draws
>>> import numpy as np
>>> rows = RETAIL.build(Draws(np.random.default_rng(0)))
>>> sorted(rows), len(rows["users"])
(['items', 'orders', 'refunds', 'users'], 6)
"""

from __future__ import annotations

from typing import Any

from agentgym.draws import Draws

from ..domain import Domain, Fact, Template, TemplateDraw, step
from ..tools import EMAIL_PATTERN, ID_PATTERN, TEXT_PATTERN, Param, Tool, ToolError
from .common import one, people, unique_ids

__all__ = ["RETAIL"]

POLICY = """\
Retail support policy.
1. Authenticate first: find the customer with find_user, using the email the customer gives
   you. Act only on orders of that account.
2. Before any change (cancel_order, update_address, return_item), state the change with its
   exact arguments and ask the customer to confirm; change only after they answer yes.
3. Only pending orders may be cancelled or have their address changed. The cancellation
   reason is the customer's: "no longer needed" or "ordered by mistake".
4. Only items of delivered orders may be returned, each once; the refund goes to the
   original payment method. Tell the customer the refund amount.
5. Each change is done once: calling a change again on the same order or item is refused."""

REASONS = ("no longer needed", "ordered by mistake")
STREETS = ("Elm Street", "Oak Avenue", "Maple Road", "Pine Lane", "Cedar Court", "Birch Way")
CITIES = ("Springfield", "Riverton", "Lakeside", "Fairview", "Georgetown")
PRODUCTS = (("desk lamp", 2450), ("water bottle", 1299), ("backpack", 5400),
            ("keyboard", 7990), ("headphones", 8900), ("yoga mat", 2575),
            ("coffee grinder", 3999), ("umbrella", 1850), ("notebook set", 1120),
            ("phone case", 1595))
STATUSES = ("pending", "pending", "delivered", "delivered", "shipped")

SCHEMA = (
    "CREATE TABLE users (user_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE)",
    "CREATE TABLE orders (order_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT "
    "NULL, address TEXT NOT NULL, cancel_reason TEXT)",
    "CREATE TABLE items (item_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, product TEXT NOT "
    "NULL, price_cents INTEGER NOT NULL, status TEXT NOT NULL)",
    "CREATE TABLE refunds (refund_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, item_id TEXT "
    "NOT NULL, amount_cents INTEGER NOT NULL)",
)
TABLES = (("users", "user_id"), ("orders", "order_id"), ("items", "item_id"),
          ("refunds", "refund_id"))


def _address(draws: Draws) -> str:
    return f"{10 + draws.below(890)} {draws.pick(STREETS)}, {draws.pick(CITIES)}"


def build(draws: Draws) -> dict[str, list[tuple[Any, ...]]]:
    """Six customers with two or three orders each, one to three items an order."""
    persons = people(draws, 6)
    user_ids = unique_ids(draws, "U", 6)
    order_ids = unique_ids(draws, "O", 18)
    item_ids = unique_ids(draws, "I", 54)
    users, orders, items = [], [], []
    for u, (name, email) in zip(user_ids, persons, strict=True):
        users.append((u, name, email))
        for _ in range(2 + draws.below(2)):
            o = order_ids.pop()
            orders.append((o, u, draws.pick(STATUSES), _address(draws), None))
            for product, price in draws.sample(PRODUCTS, 1 + draws.below(3)):
                items.append((item_ids.pop(), o, product, price, "ok"))
    return {"users": users, "orders": orders, "items": items, "refunds": []}


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


# ---------------------------------------------------------------------------- tools
def find_user(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    user_id, name = one(s.conn, "SELECT user_id, name FROM users WHERE email = ?",
                        (a["email"],), "no customer has that email")
    orders = s.conn.execute("SELECT order_id, status FROM orders WHERE user_id = ? ORDER BY "
                            "order_id", (user_id,)).fetchall()
    return {"user_id": user_id, "name": name,
            "orders": [{"order_id": o, "status": st} for o, st in orders]}


def get_order(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    order_id, user_id, status, address = one(
        s.conn, "SELECT order_id, user_id, status, address FROM orders WHERE order_id = ?",
        (a["order_id"],), f"no order {a['order_id']}")
    items = s.conn.execute("SELECT item_id, product, price_cents, status FROM items WHERE "
                           "order_id = ? ORDER BY item_id", (order_id,)).fetchall()
    return {"order_id": order_id, "user_id": user_id, "status": status, "address": address,
            "items": [{"item_id": i, "product": p, "price": money(c), "status": st}
                      for i, p, c, st in items]}


def _order_owner(s: Any, a: dict[str, Any]) -> str | None:
    row = s.conn.execute("SELECT user_id FROM orders WHERE order_id = ?",
                         (a["order_id"],)).fetchone()
    return row[0] if row else None


def _pending(s: Any, order_id: str, what: str) -> None:
    (status,) = one(s.conn, "SELECT status FROM orders WHERE order_id = ?", (order_id,),
                    f"no order {order_id}")
    if status != "pending":
        raise ToolError(f"order {order_id} is {status}; only pending orders can {what}")


def cancel_order(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    _pending(s, a["order_id"], "be cancelled")
    s.conn.execute("UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE "
                   "order_id = ?", (a["reason"], a["order_id"]))
    return {"order_id": a["order_id"], "status": "cancelled"}


def update_address(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    _pending(s, a["order_id"], "have their address changed")
    (old,) = one(s.conn, "SELECT address FROM orders WHERE order_id = ?", (a["order_id"],), "")
    if old == a["address"]:
        raise ToolError(f"order {a['order_id']} already ships to that address")
    s.conn.execute("UPDATE orders SET address = ? WHERE order_id = ?",
                   (a["address"], a["order_id"]))
    return {"order_id": a["order_id"], "address": a["address"]}


def return_item(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    (status,) = one(s.conn, "SELECT status FROM orders WHERE order_id = ?", (a["order_id"],),
                    f"no order {a['order_id']}")
    if status != "delivered":
        raise ToolError(f"order {a['order_id']} is {status}; only delivered orders take returns")
    item_status, price = one(s.conn, "SELECT status, price_cents FROM items WHERE item_id = ? "
                             "AND order_id = ?", (a["item_id"], a["order_id"]),
                             f"order {a['order_id']} has no item {a['item_id']}")
    if item_status != "ok":
        raise ToolError(f"item {a['item_id']} is already {item_status}")
    s.conn.execute("UPDATE items SET status = 'returned' WHERE item_id = ?", (a["item_id"],))
    s.conn.execute("INSERT INTO refunds VALUES (?, ?, ?, ?)",
                   ("R-" + a["item_id"][2:], a["order_id"], a["item_id"], price))
    return {"item_id": a["item_id"], "status": "returned", "refund_amount": money(price),
            "refund_to": "original payment method"}


ORDER = Param("order_id", "the order id, e.g. O-1234", ID_PATTERN, source="order_id")
TOOLS = (
    Tool("find_user", "Find a customer account by email; lists its orders.",
         (Param("email", "the customer's email", EMAIL_PATTERN, source="email"),), find_user,
         authenticates=True),
    Tool("get_order", "Read an order: status, address and items.", (ORDER,), get_order),
    Tool("cancel_order", "Cancel a pending order.",
         (ORDER, Param("reason", "why the customer cancels", choices=REASONS)), cancel_order,
         writes=True, owner=_order_owner, verb="cancel order"),
    Tool("update_address", "Change the shipping address of a pending order.",
         (ORDER, Param("address", "the new address", TEXT_PATTERN, source="address")),
         update_address, writes=True, owner=_order_owner, verb="change the address of order"),
    Tool("return_item", "Return one item of a delivered order; refunds its price.",
         (ORDER, Param("item_id", "the item id, e.g. I-1234", ID_PATTERN, source="item_id")),
         return_item, writes=True, owner=_order_owner, verb="return item",
         tells=("refund_amount",)),
)

FACTS = (
    Fact("email", "email", "Could you tell me the email address on your account?",
         (("email",),)),
    Fact("order_id", "order number", "What is the order number (order id)?",
         (("order", "id"), ("order", "number"))),
    Fact("reason", "reason", "What is the reason for the cancellation?",
         (("reason",), ("why",))),
    Fact("address", "new address", "What new shipping address should the order go to?",
         (("new", "address"), ("shipping", "address"))),
    Fact("product", "item", "Which item would you like to return?",
         (("which", "item"), ("which", "product"), ("what", "item"))),
)


# ---------------------------------------------------------------------------- templates
def _orders(conn: Any, status: str) -> list[tuple[str, str, str]]:
    return conn.execute("SELECT o.order_id, o.address, u.email FROM orders o JOIN users u ON "
                        "u.user_id = o.user_id WHERE o.status = ? ORDER BY o.order_id",
                        (status,)).fetchall()


def _start(email: str, order_id: str) -> list[Any]:
    return [step("ask", "email"), step("call", "find_user", email=email),
            step("ask", "order_id"), step("call", "get_order", order_id=order_id)]


def draw_cancel(draws: Draws, conn: Any) -> TemplateDraw | None:
    pending = _orders(conn, "pending")
    if not pending:
        return None
    order_id, _, email = draws.pick(pending)
    reason = draws.pick(REASONS)
    write = step("call", "cancel_order", order_id=order_id, reason=reason)
    plan = [*_start(email, order_id), step("ask", "reason"),
            step("confirm", "cancel_order", order_id=order_id, reason=reason), write,
            step("end")]
    return TemplateDraw({"email": email, "order_id": order_id, "reason": reason},
                        draws.pick(("Hi, I want to cancel one of my orders.",
                                    "Hello. Please cancel an order I placed.",
                                    "I need an order cancelled, can you help?")),
                        tuple(plan), (write,))


def draw_address(draws: Draws, conn: Any) -> TemplateDraw | None:
    pending = _orders(conn, "pending")
    if not pending:
        return None
    order_id, old, email = draws.pick(pending)
    address = _address(draws)
    if address == old:
        return None
    write = step("call", "update_address", order_id=order_id, address=address)
    plan = [*_start(email, order_id), step("ask", "address"),
            step("confirm", "update_address", order_id=order_id, address=address), write,
            step("end")]
    return TemplateDraw({"email": email, "order_id": order_id, "address": address},
                        draws.pick(("Hi, I moved and need to change where an order ships.",
                                    "Can you update the delivery address of my order?")),
                        tuple(plan), (write,))


def draw_return(draws: Draws, conn: Any) -> TemplateDraw | None:
    delivered = _orders(conn, "delivered")
    if not delivered:
        return None
    order_id, _, email = draws.pick(delivered)
    items = conn.execute("SELECT item_id, product FROM items WHERE order_id = ? AND status = "
                         "'ok' ORDER BY item_id", (order_id,)).fetchall()
    if not items:
        return None
    item_id, product = draws.pick(items)
    write = step("call", "return_item", order_id=order_id, item_id=item_id)
    plan = [*_start(email, order_id), step("ask", "product"),
            step("confirm", "return_item", order_id=order_id, item_id=item_id), write,
            step("tell", "refund_amount"), step("end")]
    return TemplateDraw({"email": email, "order_id": order_id, "product": f"the {product}"},
                        draws.pick(("Hello, I'd like to return something I received.",
                                    "Hi, one of the things I ordered has to go back.")),
                        tuple(plan), (write,))


RETAIL = Domain(
    name="retail",
    policy=POLICY,
    schema=SCHEMA,
    tables=TABLES,
    build=build,
    tools=TOOLS,
    facts=FACTS,
    templates=(Template("cancel", "train", draw_cancel),
               Template("address", "train", draw_address),
               Template("return", "test", draw_return)),
)
