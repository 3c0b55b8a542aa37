"""Figures over the catalog's availability rows: a total, the port with the most or the fewest
units, how many ports have an item, whether a service is offered at a port.

Part 5's availability handler lists the rows of the item a question names. A question that asks
for a figure over those rows ("how many 20' reefers in Antwerp and Hamburg together?", "which
port has the most 20' dry boxes?") is answered here from the same rows, worked out and shown,
for one item named by its type and size; several items, or none, are left to Part 5. A region
named as the catalog's ports name it ("North Europe", "East Asia") narrows the ports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workshop_lib.assistant import catalog_links
from workshop_lib.assistant.planner import MIN_NOT_MINUTES
from workshop_lib.assistant.schema_links import table_of_noun
from workshop_lib.data import catalog, countries
from workshop_lib.parts import grounded

_TOTAL = re.compile(r"\b(?:total|in total|altogether|combined|together|in all|sum|overall|all (?:the )?ports|"
                    r"across (?:all |every )?(?:the )?ports)\b", re.I)
_MOST = re.compile(r"\b(?:most|largest|biggest|highest|max(?:imum)?)\b", re.I)
_FEWEST = re.compile(rf"\b(?:fewest|least|smallest|lowest|minimum|{MIN_NOT_MINUTES})\b", re.I)
_PORT_COUNT = re.compile(r"\bhow many (?:ports|places|locations|depots|terminals)\b", re.I)
# a price asked, or a lease over a duration ("3 boxes for 10 days, what's the lease total?"): a quote, not stock
_PRICE = re.compile(r"\b(?:cost\w*|price\w*|rates?|charge\w*|pay|quote|how much|usd|eur|dollars?|"
                    r"for (?:\d+|a|one|two|three|four|five|six|ten) (?:days?|weeks?|months?))\b|\$", re.I)
_OFFERED = re.compile(r"\b(?:offer(?:ed|s)?|available|provided?|have|get|buy|purchase|do you do|can i (?:get|book|order))\b",
                      re.I)


@dataclass(frozen=True)
class Figure:
    text: str
    item_ids: tuple[str, ...]
    ports: tuple[str, ...]      # the ports whose rows the figure is worked out from
    reason: str


def _port(code: str) -> str:
    return f"{catalog.ports()[code]['name']} ({code})" if code in catalog.ports() else code


def _regions_named(question: str) -> list[str]:
    """The catalog's regions the question names in full ("North Europe", "Africa")."""
    regions = {str(p["region"]) for p in catalog.ports().values() if p.get("region")}
    return sorted(r for r in regions if re.search(rf"\b{re.escape(r)}\b", question, re.I))


def _rows(item: catalog.Item, question: str) -> tuple[dict[str, int | None], str | None]:
    """The item's availability rows at the ports (or regions) the question names, with how they were
    chosen in words; every port (and None) when it names none."""
    rows = catalog.availability().get(item.item_id, {})
    ports = grounded.find_ports(question)
    if ports:
        return {p: rows.get(p, 0) for p in ports}, "at " + " and ".join(_port(p) for p in ports)
    regions = _regions_named(question)
    if regions:
        inside = {c for c, p in catalog.ports().items() if p.get("region") in regions}
        return {p: u for p, u in rows.items() if p in inside}, f"in {' and '.join(regions)}"
    if named := countries.named_in(question):  # "across the Chinese ports": the ports of that country
        inside = {c for c, p in catalog.ports().items() if p.get("country_code") in named}
        return {p: u for p, u in rows.items() if p in inside}, f"in {' and '.join(map(countries.name_of, named))}"
    return dict(rows), None


# stock a port holds for lease, not boxes on a manifest ("how many reefers on the manifest in total?")
_STOCK = re.compile(r"\b(?:availab\w*|in stock|stock|spare|lease|leasing|rent\w*|hire|pick(?:ed)? up|collect|depots?|"
                    r"have|has|offer\w*|get)\b", re.I)


def figure(question: str, *, stock_asked: bool = False) -> Figure | None:
    """The figure the question asks over one item's availability rows, or None (no figure asked,
    not one item named in the sizes the question gives, not about stock, or no rows to work it out
    from). `stock_asked`: the router already read it as a question about availability."""
    item = _the_item(question, stock_asked)
    if item is None:
        return None
    rows, narrowed = _rows(item, question)
    if _PORT_COUNT.search(question):
        having = [p for p, u in rows.items() if u is None or u > 0]
        return Figure(f"{item.name} [{item.item_id}] is available at {len(having)} ports"
                      f"{' ' + narrowed if narrowed else ''}: {', '.join(_port(p) for p in having)}.",
                      (item.item_id,), tuple(having), "ports counted")
    counted = {p: u for p, u in rows.items() if u is not None}
    if not counted or len(counted) != len(rows):
        return None  # a service (offered, no units) or nothing there: Part 5's listing says it
    where = narrowed or f"across the {len(rows)} ports that have it"
    if _TOTAL.search(question):
        parts = "; ".join(f"{_port(p)}: {u}" for p, u in counted.items())
        return Figure(f"{sum(counted.values())} units of {item.name} [{item.item_id}] are available {where} "
                      f"({parts}).", (item.item_id,), tuple(counted), "units summed over the rows")
    return _extreme(question, item, counted, where)


def names_data_rows(question: str) -> bool:
    """The question names a table of the data other than the boxes and the ports that stock them
    ("on the manifests", "on that voyage", "aboard the vessels"), or asks the boxes' numbers, which only
    the data's boxes have ("which containers have lithium batteries? need the box numbers")."""
    named = {w for item in grounded.named_items(question) for w in re.findall(r"[a-z]+", item.name.lower())}
    # (a word of a catalog item the question names is that item's: the "trip" of "pre-trip inspection")
    return any(table_of_noun(w) not in (None, "CONTAINERS", "PORTS") for w in re.findall(r"[A-Za-z]+", question)
               if w.lower() not in named) \
        or re.search(r"\b(?:container|box)\s+(?:numbers?|nos?\.?|ids?)\b", question, re.I) is not None


def asks_price_or_lease(question: str) -> bool:
    """A price, a quote or a lease: what the catalog's rows answer, even of boxes the data records."""
    return _PRICE.search(question) is not None or re.search(r"\b(?:leas\w*|rent\w*|hire\w*|book\w*)\b", question, re.I) is not None


def _the_item(question: str, stock_asked: bool) -> catalog.Item | None:
    """The one item a question about stock names, in the one size it gives; else None."""
    items = grounded.named_items(question)
    if len(items) != 1 or not (stock_asked or _STOCK.search(question)) or _PRICE.search(question):
        return None  # "3 x 40' high cubes for two weeks - total lease cost?": a price, not stock
    if names_data_rows(question):
        return None  # "how many 40' high cubes on the manifests": boxes the data records, not stock to lease
    size = re.match(r"(\d{2})'", items[0].name)
    if catalog_links.sizes_named(question) - ({size.group(1)} if size else set()):
        return None  # "20 and 40 foot together": more than the one item's size
    return items[0]


def _extreme(question: str, item: catalog.Item, counted: dict[str, int], where: str) -> Figure | None:
    """The port(s) with the most or the fewest units, when the question asks for one."""
    for pattern, word, pick in ((_MOST, "most", max), (_FEWEST, "fewest", min)):
        if pattern.search(question) and len(counted) > 1:
            best = pick(counted.values())
            top = [p for p, u in counted.items() if u == best]
            return Figure(f"The {word} {item.name} [{item.item_id}] units {where}: {' and '.join(map(_port, top))}, "
                          f"with {best} units.", (item.item_id,), tuple(counted), f"the {word} units among the rows")
    return None


_WHICH_PORTS = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?(?:ports?|places|locations|depots)\b|\bwhere\b", re.I)


def _ports_offering(question: str, item: catalog.Item) -> Figure | None:
    """"Which ports offer transloading?": the ports the item's rows name (in the countries named, when it
    names some); None when it asks no "which ports", or names a place it does not say by country."""
    if not _WHICH_PORTS.search(question) or countries.continents_in(question):
        return None
    named = countries.named_in(question)
    if not named and re.search(r"\b(?:in|at|near|around)\s+(?:the\s+)?[A-Z]", question):
        return None  # "in the States": a place it cannot tell the ports of
    rows = catalog.availability().get(item.item_id, {})
    found = [p for p in rows if not named or catalog.ports().get(p, {}).get("country_code") in named]
    if not found:
        return Figure(f"{item.name} [{item.item_id}] is offered at no port in {', '.join(map(countries.name_of, named))}.",
                      (item.item_id,), (), "the item's rows, none in the countries named")
    said = [_port(p) + _units(rows[p]) for p in found]
    return Figure(f"{item.name} [{item.item_id}] is offered at {len(found)} port{'s' if len(found) != 1 else ''}: "
                  f"{', '.join(said)}.", (item.item_id,), tuple(found), "the ports of the item's rows")


def _units(units: int | None) -> str:
    """" (12 units)" for a box in stock; "" for a service, which has no units."""
    return f" ({units} units)" if units is not None else ""


def _at_port(port: str, rows: dict[str, int | None]) -> str:
    if port not in rows:
        return f"no, not available at {_port(port)}"
    return f"yes at {_port(port)}" + (_units(rows[port]) or " (offered there)")


def offered_at(question: str) -> Figure | None:
    """"Is reefer monitoring offered in Colombo?", "is a flat rack available there, and lashing?": each item
    named at the ports named, answered from its rows (yes with the units, or no with where it is); None
    when the question asks something else."""
    # "reefers" names the 20' and the 40' high cube reefer: each is answered
    items, ports = grounded.named_items(question, variants=True), grounded.find_ports(question)
    if not items or not _OFFERED.search(question) or (len(items) > 1 and not _named_apart(question, items)) \
            or _asks_another_thing(question, items):
        return None  # one type in several sizes ("dry boxes"): Part 5's listing shows them all
    if not ports:
        return _ports_offering(question, items[0]) if len(items) == 1 else None
    text = " ".join(_item_at_ports(item, ports, priced=asks_price_or_lease(question)) for item in items)
    text += _cost_of_the_quantity(question, items)
    if len(items) == 1 and _every_port_asked(question, ports):  # "which ports have gensets, and how many at Savannah?"
        rows = catalog.availability().get(items[0].item_id, {})
        text += f" It is offered at {len(rows)} port{'s' if len(rows) != 1 else ''}: " \
                f"{', '.join(_port(p) + _units(u) for p, u in rows.items())}."
        ports = list(dict.fromkeys([*ports, *rows]))
    return Figure(text, tuple(i.item_id for i in items), tuple(ports), "the items' rows at the ports named")


_CLAUSES = re.compile(r"[,;]\s*(?:and\s+)?|\s+and\s+(?=(?:how|which|what|where|is|are|do|does)\b)", re.I)


# what "how much ... do they get" asks for: the words between it and the verb
_HOW_MUCH_OF = re.compile(r"\bhow (?:much|many|long)\s+((?:[a-z][\w'-]*\s+){1,4}?)(?:do|does|did|can|could|will|would|is|are)\b",
                          re.I)
_OF_THE_ITEM = {"unit", "units", "box", "boxes", "container", "containers", "of", "them", "those", "these", "it", "stock",
                "piece", "pieces", "equipment"}


def _asks_another_thing(question: str, items: list[catalog.Item]) -> bool:
    """"How much demurrage free time do they get there?": the amount asked is of a thing that is neither the item
    nor its units, so whether the item is offered there does not answer it."""
    m = _HOW_MUCH_OF.search(question)
    if m is None:
        return False
    asked = set(catalog_links.words(m.group(1))) - {"the", "a", "an"}
    named = set().union(*(catalog_links.words(i.name) for i in items))
    return bool(asked) and not asked & named and not asked <= _OF_THE_ITEM


def _cost_of_the_quantity(question: str, items: list[catalog.Item]) -> str:
    """" For 10 x ... over 14 days: ...": the cost of the quantity (and days) a price question about one item
    gives ("... and what would 10 of them cost me for 14 days?"); "" otherwise."""
    if len(items) != 1 or not asks_price_or_lease(question) or (q := catalog_links.quote(question, items[0])) is None:
        return ""
    return " " + q.sentence(items[0])


def _every_port_asked(question: str, ports: list[str]) -> bool:
    """A part of the question asks which ports (or where) without naming the port another part names."""
    return any(_WHICH_PORTS.search(c) and not grounded.find_ports(c) for c in _CLAUSES.split(question))


def _named_apart(question: str, items: list[catalog.Item]) -> bool:
    """Each item named by a type of its own ("a flat rack, and lashing"), not sizes of one type the
    question names once ("reefers", "dry boxes")."""
    plain = grounded.named_items(question)
    return [i.item_id for i in plain] == [i.item_id for i in items] and \
        len({grounded.type_phrase(i)[1] for i in plain}) == len(plain)


def _item_at_ports(item: catalog.Item, ports: list[str], *, priced: bool) -> str:
    rows = catalog.availability().get(item.item_id, {})
    said = [_at_port(p, rows) for p in ports]
    elsewhere = [p for p in rows if p not in ports]
    text = f"{item.name} [{item.item_id}]: {'; '.join(said)}."
    if any(p not in rows for p in ports) and elsewhere:
        text += f" It is available at {', '.join(_port(p) for p in elsewhere)}."
    if priced:  # "do you offer transloading in Savannah, and what does it cost?", "the daily lease"
        text += f" Its price: USD {item.price_usd:,.2f} {item.price_unit}."
    return text + "".join(_of_its_type_there(item, p) for p in ports if p not in rows)


def _of_its_type_there(item: catalog.Item, port: str) -> str:
    """" Of its type, Hamburg has 40' high cube reefer (40 units).": the other sizes of a box not at the port."""
    there = [(o, catalog.availability()[o.item_id][port]) for o in grounded.variants_of(item)
             if port in catalog.availability().get(o.item_id, {})]
    if not there:
        return ""
    return f" Of its type, {_port(port)} has " + ", ".join(f"{o.name} [{o.item_id}]{_units(u)}" for o, u in there) + "."
