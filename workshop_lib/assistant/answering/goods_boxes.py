"""The box the data's own manifests carry a kind of goods in ("what box do you recommend for bananas?").

The catalog describes its boxes by the goods they suit ("fruit, vegetables, frozen food"), not by
every commodity a coordinator names. The manifests know more: each cargo line sits in a container
of one SIZE_TYPE. So for goods the data holds, the size type most of their containers have names
the box, and the SIZE_TYPE column's own comment says what each code is ("20RF/40RF refrigerated
reefer"), which leads to the catalog item of that length and kind.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workshop_lib import assistant
from workshop_lib.assistant.schema_links import TABLE_NOUNS, words_of
from workshop_lib.data.catalog import ITEMS, Item

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

GOODS = ("CARGO_ITEMS", "DESCRIPTION")     # what the goods are, in the shipper's words
BOX = ("CONTAINERS", "SIZE_TYPE")          # the length and kind of box they travel in
# "20GP/40GP general purpose (dry)": the codes, then what they are (up to the next comma or full stop)
_CODES_SAID = re.compile(r"((?:\d{2}[A-Z]{2})(?:/\d{2}[A-Z]{2})*)\s+([^,.;]+)")


@dataclass(frozen=True)
class GoodsBox:
    goods: str          # the goods as the question names them
    size_type: str      # the size type most of their containers have
    item: Item          # the catalog's box of that length and kind
    rows: str           # the data's answer: containers of those goods per size type
    sql: str

    def sentence(self) -> str:
        return (f"{self.rows}\nThe manifests carry {self.goods} mostly in {self.size_type} boxes; the catalog's "
                f"box of that kind is {self.item.name} [{self.item.item_id}]: USD {self.item.price_usd:,.2f} "
                f"{self.item.price_unit}. {self.item.description}")


def kinds_of_box(comment: str) -> dict[str, set[str]]:
    """The kind words of each size-type suffix the column's comment explains: {"RF": {"refrigerated",
    "reefer"}, "HC": {"high", "cube"}, "GP": {"general", "purpose", "dry"}}."""
    kinds: dict[str, set[str]] = {}
    for codes, said in _CODES_SAID.findall(comment):
        plain = re.sub(r"\([^)]*\d[^)]*\)", " ", said)  # "(9 ft 6 in tall)" is a size, not a kind
        for code in codes.split("/"):
            kinds.setdefault(code[2:], set()).update(w for w in words_of(plain) if len(w) > 2)
    return kinds


def item_of(size_type: str, kinds: dict[str, set[str]]) -> Item | None:
    """The catalog box of the size type's length whose name says its kind, with the fewest words of other kinds."""
    length, suffix = size_type[:2], size_type[2:]
    mine = kinds.get(suffix, set())
    others = set().union(*(w for s, w in kinds.items() if s != suffix)) - mine
    # the kind said first; fewest words of other kinds next ("40' high cube reefer" is the catalog's 40' reefer)
    named = [(len(set(words_of(i.name)) & others), i) for i in ITEMS
             if i.name.startswith(f"{length}'") and set(words_of(i.name)) & mine]
    return min(named, key=lambda s: s[0])[1] if named else None


def _names_other_rows(question: str) -> bool:
    """"Is any frozen shrimp booked on a sailing that hasn't left? Which container?": a table besides the boxes
    and the goods says it asks for the data's rows, not for a box to book."""
    return bool({TABLE_NOUNS.get(w) for w in words_of(question)} - {None, BOX[0], GOODS[0]})


def asks_for_a_box(question: str) -> bool:
    """The question says a box, a container (any word that names the CONTAINERS table) or equipment."""
    return any(TABLE_NOUNS.get(w) == BOX[0] or w == "equipment" for w in words_of(question))


def box_for_goods(eng: Engine, question: str) -> GoodsBox | None:
    """The catalog box the data's containers of the goods the question names mostly are; None when it
    asks no box ("who can do the paperwork for lithium batteries?" asks a service), asks for other rows,
    names no goods of the data, the data has no container of them, or no catalog box is of that kind."""
    if not asks_for_a_box(question) or _names_other_rows(question):
        return None
    schema, values = assistant.knowledge(eng)
    links = values.links(question)
    goods = next((lk for lk in links if (lk.table, lk.column) == GOODS), None)
    column = next((c for c in schema.columns.get(BOX[0], []) if c.name == BOX[1]), None)
    if goods is None or column is None or any((lk.table, lk.column) != GOODS for lk in links):
        return None  # "banana reefers going to North Europe - which ones?" asks for the data's rows
    data = assistant.answer_data(eng, f"how many containers per size type carry {goods.text}?")
    if data.plan is None or data.text is None or data.first_row is None:
        return None
    size_type = str(data.first_row[0])
    item = item_of(size_type, kinds_of_box(column.comment))
    if item is None:
        return None
    return GoodsBox(goods.text, size_type, item, data.text, data.plan.sql)
