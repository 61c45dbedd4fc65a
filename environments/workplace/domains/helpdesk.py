"""IT helpdesk with dual control: the agent fixes the account, only the user fixes the device.

The ``device_state`` table is the user's own laptop: no agent tool writes it. It changes only
through the scripted user's actions (:data:`USER_ACTIONS`), which the user performs when a
message asks for them, so the agent must guide the user as well as act.

>>> from agentgym.draws import Draws
>>> import numpy as np
>>> rows = HELPDESK.build(Draws(np.random.default_rng(0)))
>>> sorted(rows)
['device_state', 'devices', 'employees', 'tickets']
"""

from __future__ import annotations

from typing import Any

from agentgym.draws import Draws

from ..domain import Domain, Fact, Template, TemplateDraw, UserAction, step
from ..tools import EMAIL_PATTERN, ID_PATTERN, Param, Tool, ToolError
from .common import one, people, unique_ids

__all__ = ["HELPDESK"]

POLICY = """\
IT helpdesk policy.
1. Authenticate first: find the employee with find_employee, using the email they give you.
   Act only on that employee's tickets and devices.
2. Before any change (reissue_vpn_profile, close_ticket), state the change with its exact
   arguments and ask the employee to confirm; change only after they answer yes.
3. You cannot change the employee's laptop. Run run_diagnostics, then ask the employee to do
   what only they can: "Please turn off airplane mode on your laptop." or "Please install the
   new VPN profile from the company portal on your laptop."
4. Reissue a VPN profile only when diagnostics show it expired, once per device; the
   employee must install it afterwards. Tell the employee the new profile's name.
5. Close a ticket only once the laptop is connected, with the resolution that names what was
   fixed: "airplane mode turned off", "vpn profile reissued" or "airplane mode and vpn
   profile"."""

RESOLUTIONS = ("airplane mode turned off", "vpn profile reissued", "airplane mode and vpn profile")
MODELS = ("ThinkPad T14", "MacBook Air", "Latitude 7440", "EliteBook 840")
#: The problems devices are built with: (airplane mode on, VPN profile expired).
PROBLEMS = ((True, False), (False, True), (True, True), (False, False))

SCHEMA = (
    "CREATE TABLE employees (employee_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT "
    "UNIQUE)",
    "CREATE TABLE devices (device_id TEXT PRIMARY KEY, employee_id TEXT NOT NULL, model TEXT "
    "NOT NULL, vpn_version INTEGER NOT NULL, vpn_expired INTEGER NOT NULL, reissued INTEGER "
    "NOT NULL)",
    "CREATE TABLE device_state (device_id TEXT PRIMARY KEY, airplane_mode INTEGER NOT NULL, "
    "installed_vpn INTEGER NOT NULL)",
    "CREATE TABLE tickets (ticket_id TEXT PRIMARY KEY, employee_id TEXT NOT NULL, device_id "
    "TEXT NOT NULL, issue TEXT NOT NULL, status TEXT NOT NULL, resolution TEXT)",
)
TABLES = (("employees", "employee_id"), ("devices", "device_id"),
          ("device_state", "device_id"), ("tickets", "ticket_id"))


def build(draws: Draws) -> dict[str, list[tuple[Any, ...]]]:
    """Eight employees with one laptop each; every problem kind twice, an open ticket for
    each broken laptop."""
    persons = people(draws, 8)
    eids, dids, tids = (unique_ids(draws, "E", 8), unique_ids(draws, "D", 8),
                        unique_ids(draws, "T", 8))
    problems = [PROBLEMS[k % 4] for k in range(8)]
    draws.shuffle(problems)
    employees, devices, states, tickets = [], [], [], []
    for e, d, t, (name, email), (airplane, expired) in zip(eids, dids, tids, persons, problems,
                                                           strict=True):
        version = 1 + draws.below(5)
        employees.append((e, name, email))
        devices.append((d, e, draws.pick(MODELS), version, int(expired), 0))
        states.append((d, int(airplane), version))
        if airplane or expired:
            tickets.append((t, e, d, "cannot connect to the company network", "open", None))
    return {"employees": employees, "devices": devices, "device_state": states,
            "tickets": tickets}


def _diagnose(conn: Any, device_id: str) -> dict[str, Any]:
    row = one(conn, "SELECT s.airplane_mode, s.installed_vpn, d.vpn_version, d.vpn_expired "
              "FROM devices d JOIN device_state s ON s.device_id = d.device_id WHERE "
              "d.device_id = ?", (device_id,), f"no device {device_id}")
    airplane, installed, version, expired = row
    return {"device_id": device_id, "airplane_mode": "on" if airplane else "off",
            "vpn_profile_installed": f"corp-vpn-v{installed}",
            "vpn_profile_current": f"corp-vpn-v{version}",
            "vpn_profile_expired": bool(expired),
            "connected": not airplane and not expired and installed == version}


def find_employee(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    eid, name = one(s.conn, "SELECT employee_id, name FROM employees WHERE email = ?",
                    (a["email"],), "no employee has that email")
    devices = s.conn.execute("SELECT device_id, model FROM devices WHERE employee_id = ? "
                             "ORDER BY device_id", (eid,)).fetchall()
    tickets = s.conn.execute("SELECT ticket_id, status FROM tickets WHERE employee_id = ? "
                             "ORDER BY ticket_id", (eid,)).fetchall()
    return {"employee_id": eid, "name": name,
            "devices": [{"device_id": d, "model": m} for d, m in devices],
            "tickets": [{"ticket_id": t, "status": st} for t, st in tickets]}


def get_ticket(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    t, e, d, issue, status = one(s.conn, "SELECT ticket_id, employee_id, device_id, issue, "
                                 "status FROM tickets WHERE ticket_id = ?", (a["ticket_id"],),
                                 f"no ticket {a['ticket_id']}")
    return {"ticket_id": t, "employee_id": e, "device_id": d, "issue": issue, "status": status}


def run_diagnostics(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    return _diagnose(s.conn, a["device_id"])


def _device_owner(s: Any, a: dict[str, Any]) -> str | None:
    row = s.conn.execute("SELECT employee_id FROM devices WHERE device_id = ?",
                         (a["device_id"],)).fetchone()
    return row[0] if row else None


def _ticket_owner(s: Any, a: dict[str, Any]) -> str | None:
    row = s.conn.execute("SELECT employee_id FROM tickets WHERE ticket_id = ?",
                         (a["ticket_id"],)).fetchone()
    return row[0] if row else None


def reissue_vpn_profile(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    version, reissued = one(s.conn, "SELECT vpn_version, reissued FROM devices WHERE "
                            "device_id = ?", (a["device_id"],), f"no device {a['device_id']}")
    if reissued:
        raise ToolError(f"the VPN profile of {a['device_id']} was already reissued")
    s.conn.execute("UPDATE devices SET vpn_version = ?, vpn_expired = 0, reissued = 1 WHERE "
                   "device_id = ?", (version + 1, a["device_id"]))
    return {"device_id": a["device_id"], "profile_name": f"corp-vpn-v{version + 1}"}


#: Policy rule 3, as the ledger records it: no change and no instruction to the employee on
#: a laptop before run_diagnostics has read it.
UNDIAGNOSED = "run run_diagnostics before acting on a laptop"


def _undiagnosed(s: Any, device_id: str) -> list[str]:
    return [] if s.key("run_diagnostics", {"device_id": device_id}) in s.reads else [UNDIAGNOSED]


def reissue_rules(s: Any, a: dict[str, Any]) -> list[str]:
    row = s.conn.execute("SELECT vpn_expired FROM devices WHERE device_id = ?",
                         (a["device_id"],)).fetchone()
    broken = _undiagnosed(s, a["device_id"])
    return broken + (["reissue only an expired VPN profile"] if row and not row[0] else [])


def close_ticket(s: Any, a: dict[str, Any]) -> dict[str, Any]:
    (status,) = one(s.conn, "SELECT status FROM tickets WHERE ticket_id = ?",
                    (a["ticket_id"],), f"no ticket {a['ticket_id']}")
    if status != "open":
        raise ToolError(f"ticket {a['ticket_id']} is already {status}")
    s.conn.execute("UPDATE tickets SET status = 'closed', resolution = ? WHERE ticket_id = ?",
                   (a["resolution"], a["ticket_id"]))
    return {"ticket_id": a["ticket_id"], "status": "closed"}


def close_rules(s: Any, a: dict[str, Any]) -> list[str]:
    row = s.conn.execute("SELECT device_id FROM tickets WHERE ticket_id = ?",
                         (a["ticket_id"],)).fetchone()
    if not row:
        return []
    broken = _undiagnosed(s, row[0])
    if not _diagnose(s.conn, row[0])["connected"]:
        broken.append("close a ticket only once the laptop is connected")
    return broken


DEVICE = Param("device_id", "the laptop's id, e.g. D-1234", ID_PATTERN, source="device_id")
TICKET = Param("ticket_id", "the ticket id, e.g. T-1234", ID_PATTERN, source="ticket_id")
TOOLS = (
    Tool("find_employee", "Find an employee by email; lists their laptops and tickets.",
         (Param("email", "the employee's email", EMAIL_PATTERN, source="email"),),
         find_employee, authenticates=True),
    Tool("get_ticket", "Read a ticket.", (TICKET,), get_ticket),
    Tool("run_diagnostics", "Read a laptop's network state (airplane mode, VPN profile).",
         (DEVICE,), run_diagnostics),
    Tool("reissue_vpn_profile", "Issue a new VPN profile for a laptop (the user installs it).",
         (DEVICE,), reissue_vpn_profile, writes=True, owner=_device_owner, rules=reissue_rules,
         verb="reissue the VPN profile of laptop", tells=("profile_name",)),
    Tool("close_ticket", "Close a ticket with a resolution.",
         (TICKET, Param("resolution", "what fixed it", choices=RESOLUTIONS)), close_ticket,
         writes=True, owner=_ticket_owner, rules=close_rules, verb="close ticket"),
)

FACTS = (
    Fact("email", "email", "Could you tell me your work email address?", (("email",),)),
    Fact("ticket_id", "ticket number", "What is your ticket number (ticket id)?",
         (("ticket", "id"), ("ticket", "number"))),
)


def _airplane_off(s: Any) -> str:
    row = s.conn.execute("SELECT airplane_mode FROM device_state WHERE device_id = ?",
                         (s.device,)).fetchone()
    if not row or not row[0]:
        return "Airplane mode was already off."
    s.conn.execute("UPDATE device_state SET airplane_mode = 0 WHERE device_id = ?", (s.device,))
    return "Done, I switched airplane mode off."


def _install_vpn(s: Any) -> str:
    (version,) = one(s.conn, "SELECT vpn_version FROM devices WHERE device_id = ?",
                     (s.device,), "")
    s.conn.execute("UPDATE device_state SET installed_vpn = ? WHERE device_id = ?",
                   (version, s.device))
    return f"I installed corp-vpn-v{version} from the portal."


USER_ACTIONS = (
    UserAction("airplane_off", "Please turn off airplane mode on your laptop.",
               (("airplane", "off"), ("airplane", "disable")), _airplane_off,
               needs="run_diagnostics"),
    UserAction("install_vpn", "Please install the new VPN profile from the company portal on "
               "your laptop.", (("install", "vpn"), ("install", "profile")), _install_vpn,
               needs="run_diagnostics"),
)


def _broken(conn: Any, airplane: bool, expired: bool) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT t.ticket_id, t.device_id, e.email FROM tickets t JOIN "
                        "employees e ON e.employee_id = t.employee_id JOIN devices d ON "
                        "d.device_id = t.device_id JOIN device_state s ON s.device_id = "
                        "t.device_id WHERE t.status = 'open' AND s.airplane_mode = ? AND "
                        "d.vpn_expired = ? ORDER BY t.ticket_id",
                        (int(airplane), int(expired))).fetchall()


def _draw(airplane: bool, expired: bool):
    resolution = RESOLUTIONS[(2 if airplane else 1) if expired else 0]

    def draw(draws: Draws, conn: Any) -> TemplateDraw | None:
        tickets = _broken(conn, airplane, expired)
        if not tickets:
            return None
        ticket_id, device_id, email = draws.pick(tickets)
        plan = [step("ask", "email"), step("call", "find_employee", email=email),
                step("ask", "ticket_id"), step("call", "get_ticket", ticket_id=ticket_id),
                step("call", "run_diagnostics", device_id=device_id)]
        wants = []
        if airplane:
            plan.append(step("instruct", "airplane_off"))
        if expired:
            reissue = step("call", "reissue_vpn_profile", device_id=device_id)
            plan += [step("confirm", "reissue_vpn_profile", device_id=device_id), reissue,
                     step("instruct", "install_vpn")]
            wants.append(reissue)
        close = step("call", "close_ticket", ticket_id=ticket_id, resolution=resolution)
        plan += [step("confirm", "close_ticket", ticket_id=ticket_id, resolution=resolution),
                 close]
        wants.append(close)
        if expired:
            plan.append(step("tell", "profile_name"))
        plan.append(step("end"))
        return TemplateDraw({"email": email, "ticket_id": ticket_id},
                            draws.pick(("Hi, my laptop can't reach the company network.",
                                        "Hello, I opened a ticket: I'm offline at work.")),
                            tuple(plan), tuple(wants), device=device_id)

    return draw


HELPDESK = Domain(
    name="helpdesk",
    policy=POLICY,
    schema=SCHEMA,
    tables=TABLES,
    build=build,
    tools=TOOLS,
    facts=FACTS,
    templates=(Template("airplane", "train", _draw(True, False)),
               Template("vpn", "train", _draw(False, True)),
               Template("airplane_and_vpn", "test", _draw(True, True))),
    user_actions=USER_ACTIONS,
)
