"""Values a question names, linked to the column that holds them, from the data itself.

Built once per database from SUPPLYCHAIN's rows and the column comments: every name (vessels,
carriers, ports), code (UN/LOCODE, SCAC, voyage number, container number, IMO number), and
every value of a column with few distinct values (flag, status, region, alliance, size type,
package type). Codes that a comment explains ("40HC high cube", "CT carton") are also found by
their explanation, and ISO country codes by the country's name. A name is found with a typo
(fuzzy match) or by one distinctive word of it ("the Anglesey" is X-Press Anglesey).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz.distance import DamerauLevenshtein

from workshop_lib.assistant.schema_links import SYNONYMS, TABLE_NOUNS, Column, Schema, stem, words_of
from workshop_lib.data import countries
from workshop_lib.data.supplychain_data import TABLES

Query = Callable[[str], Sequence[Sequence[Any]]]
NAME_COLUMNS = {("VESSELS", "VESSEL_NAME"), ("CARRIERS", "CARRIER_NAME"), ("PORTS", "PORT_NAME")}
CODE_COLUMNS = {("PORTS", "UNLOCODE"), ("CARRIERS", "SCAC_CODE"), ("VOYAGES", "VOYAGE_NUMBER"),
                ("CONTAINERS", "CONTAINER_NUMBER"), ("VESSELS", "IMO_NUMBER")}
MAX_CATEGORIES = 20         # a text column with at most this many values is a category to filter on
MAX_SEEN = 256              # questions whose links are kept (bounded memory)
FUZZY_MIN = 84              # rapidfuzz ratio for a name written with a typo


_SQUEEZE = re.compile(r"[\s-]+")


@functools.lru_cache(maxsize=4096)
def _shape(norm_name: str) -> tuple[str, str]:
    """A name's first word (a typo keeps a word's start) and its letters without spaces or hyphens."""
    return re.split(r"[\s-]", norm_name)[0], _SQUEEZE.sub("", norm_name)


def _may_reach(a: str, b: str, least: float) -> bool:
    """Whether rapidfuzz's ratio of two words can reach `least`, judged by their lengths alone."""
    return 200 * min(len(a), len(b)) >= least * (len(a) + len(b))


def _longest_first(found: list[Link]) -> list[Link]:
    """The longest misspelt name wins where two overlap ("Gunhil Mersk" is the ship, not the line Maersk)."""
    kept: list[Link] = []
    for lk in sorted(found, key=lambda lk: lk.start - lk.end):
        if not any(o.start < lk.end and lk.start < o.end for o in kept):
            kept.append(lk)
    return sorted(kept, key=lambda lk: lk.start)


# a run of words: start, end, its text, the exact links inside it, (its first word, its letters)
_Window = tuple[int, int, str, list[tuple[int, int]], tuple[str, str]]


def _windows(text: str, tokens: list[tuple[int, int, str]], taken: list[tuple[int, int]], width: int) -> list[_Window]:
    """Every run of `width` words one space or hyphen apart (a window over exact links may only extend
    a name they start)."""
    out = []
    for i in range(len(tokens) - width + 1):
        window = tokens[i:i + width]
        if any(b[0] - a[1] > 1 for a, b in zip(window, window[1:])):
            continue
        a, b = window[0][0], window[-1][1]
        span = text[a:b]
        out.append((a, b, span, [(s, e) for s, e in taken if a < e and s < b], (window[0][2], _SQUEEZE.sub("", span))))
    return out


@dataclass(frozen=True)
class Link:
    table: str
    column: str
    value: Any
    start: int
    end: int
    how: str                # exact | explained | country | fuzzy | partial
    text: str               # the words of the question it came from


@dataclass
class ValueIndex:
    # (normalised phrase, table, column, stored value, how)
    phrases: list[tuple[str, str, str, Any, str]]
    names: list[tuple[str, str, str, Any]]          # name columns, for fuzzy and partial matches
    common: set[str]                                # words too common to stand for a name alone
    plain: frozenset[str] = frozenset()             # words the schema's comments use as ordinary words
    shapes: dict[str, str] = field(default_factory=dict)  # a code's shape ("AAAA9999999") -> its table
    # the links of the questions seen last: one question is linked by several handlers in turn
    _seen: dict[str, tuple[Link, ...]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, schema: Schema, query: Query, select_distinct: Callable[[str, str], str]) -> ValueIndex:
        phrases: list[tuple[str, str, str, Any, str]] = []
        names: list[tuple[str, str, str, Any]] = []
        for table, cols in schema.columns.items():
            for col in cols:
                _index_column(table, col, query, select_distinct, phrases, names)
        phrases += _initials(phrases)
        common = {w for w in _COMMON.split()}
        comments = list(schema.table_comments.values()) + [c.comment for cols in schema.columns.values() for c in cols]
        # a port named like its country ("Singapore") is read as the port first; the planner turns it
        # into the country when the words ask for a flag or a country
        shapes = {_code_shape(str(value)): table for _, table, column, value, _ in phrases
                  if (table, column) in CODE_COLUMNS and re.search(r"[A-Za-z]", str(value)) and re.search(r"\d", str(value))}
        return cls(sorted(phrases, key=lambda p: (-len(p[0]), p[4] == "country")), names, common,
                   _ordinary_words(comments), shapes)

    def unheld_codes(self, question: str) -> list[tuple[str, str]]:
        """Words written like a code of the data (a container number's four letters and seven digits,
        a voyage number's "296W") that no stored value matches: a record the data does not hold, as
        (the words, the table whose code they look like)."""
        links = self.links(question)
        out = []
        for m in _CODE_LIKE.finditer(question):
            word = m.group(0)
            table = self.shapes.get(_code_shape(word))
            if table is None or not (word.upper() == word or len(word) >= 7) or _UNIT_AFTER.search(word):
                continue  # (a code is written in capitals, or long; "300m" is a length)
            if not _EXAMPLE_BEFORE.search(question[:m.start()]) \
                    and not any(lk.start < m.end() and m.start() < lk.end for lk in links):
                out.append((word, table))
        return out

    def links(self, question: str) -> list[Link]:
        """Every value the question names, longest match first, no two overlapping."""
        if (known := self._seen.get(question)) is None:
            known = tuple(self._links(question))
            if len(self._seen) >= MAX_SEEN:
                self._seen.clear()
            self._seen[question] = known
        return list(known)

    def _links(self, question: str) -> list[Link]:
        # the question keeps its length (offsets are the question's own); values are compared with
        # their words one or more spaces apart
        text = _same_length(question)
        found, taken = self._exact(question, text)
        found += self._listed_before(text, taken)
        approximate = self._approximate(question, text, taken)
        found = [lk for lk in found if not any(o.start <= lk.start and lk.end <= o.end and o.how == "fuzzy"
                                               for o in approximate)] + approximate
        found = [lk for lk in self._as_listed_beside(found, question) if not _describes_an_outside_party(lk, question)]
        return sorted(_intersected(_narrowed(found, text), text), key=lambda link: link.start)

    def _as_listed_beside(self, found: list[Link], question: str) -> list[Link]:
        """"Each alliance (Gemini, Ocean, Premier)": one word that begins a value of the column of the values
        listed right beside it ("Ocean Alliance") is read as that value, not as another name it begins
        (the carrier Ocean Network Express)."""
        out = []
        for lk in found:
            beside = {(o.table, o.column) for o in found if o is not lk and _listed_together(lk, o, question)}
            if lk.how == "partial" and beside and (lk.table, lk.column) not in beside:
                begun = self._category_by_first_word(lk.text.lower(), True)
                if len(begun) == 1 and begun[0][:2] in beside:
                    lk = Link(*begun[0], lk.start, lk.end, "partial", lk.text)
            out.append(lk)
        return out

    def _exact(self, question: str, text: str) -> tuple[list[Link], list[tuple[int, int]]]:
        """The values written as stored (longest first, no two overlapping), and the spans they take."""
        flat = " ".join(text.split())
        found: list[Link] = []
        taken: list[tuple[int, int]] = []
        for phrase, table, column, value, how in self.phrases:
            if phrase not in flat:
                continue  # most phrases are nowhere in the question: a substring test is cheap
            if len(phrase) < 2 or _short_in_lower_case(question, phrase, how):
                continue
            for m in _occurrences(phrase, text, how):
                if _lower_short_form(question, m, how) or _inside_a_reference(text, m, (table, column)):
                    continue
                same = any(lk.start == m.start() and lk.end == m.end() and (lk.table, lk.column) == (table, column)
                           for lk in found)  # "reefer" is 20RF and 40RF: every value the words stand for
                if same or not any(m.start() < e and s < m.end() for s, e in taken):
                    found.append(Link(table, column, value, m.start(), m.end(), how, m.group(0)))
                    taken.append((m.start(), m.end()))
        return found, taken

    def _listed_before(self, text: str, taken: list[tuple[int, int]]) -> list[Link]:
        """"20 and 40 foot": each number listed before the last one, with the last one's unit, names what
        "20 foot" names."""
        out: list[Link] = []
        for m in re.finditer(r"\b(\d+(?:\s*(?:,|and|or|&|/)\s*\d+)+)(\s*-?\s*[a-z]+)", text):
            for n in list(re.finditer(r"\d+", m.group(1)))[:-1]:
                start, end = m.start(1) + n.start(), m.start(1) + n.end()
                said = _norm(n.group(0) + m.group(2))
                for phrase, table, column, value, how in self.phrases:
                    if phrase == said and not any(start < e and s < end for s, e in taken):
                        out.append(Link(table, column, value, start, end, how, n.group(0)))
        taken += [(lk.start, lk.end) for lk in out]
        return out

    def _approximate(self, question: str, text: str, taken: list[tuple[int, int]]) -> list[Link]:
        """Names written with a typo, or by one word of theirs that no other name has."""
        tokens = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[\w-]+", text)]
        free = [t for t in tokens if not any(t[0] < e and s < t[1] for s, e in taken)]
        out = self._typos(text, tokens, taken)
        capitals = self._capitalised(question)
        out += self._families(tokens, free, capitals) + self._brands(tokens, free, capitals)
        return self._words_of_one_name(question, text, tokens, free, capitals, out)

    def _words_of_one_name(self, question: str, text: str, tokens: list[tuple[int, int, str]],
                           free: list[tuple[int, int, str]], capitals: set[str], out: list[Link]) -> list[Link]:
        """A word that only one name has, widened over the words of that name beside it ("Mount Tabor")."""
        for start, end, word in free:
            if len(word) < 3 or any(o.start <= start and end <= o.end or o.start == start for o in out):
                continue
            owners = self._owners_of(word, word in capitals)
            if len(owners) == 1 and not _inside_other_name(question, start, end, str(owners[0][2])):
                a, b = _widened(tokens, start, end, str(owners[0][2]))
                out = [o for o in out if not (a <= o.start and o.end <= b)]
                out.append(Link(*owners[0], a, b, "partial", text[a:b]))
        return out

    def _families(self, tokens: list[tuple[int, int, str]], free: list[tuple[int, int, str]],
                  capitals: set[str]) -> list[Link]:
        """"The Kota ships": a capitalised word that starts several names of one table, followed by
        that table's noun, names them all (a filter on any of them)."""
        out: list[Link] = []
        following = {t[0]: tokens[i + 1][2] for i, t in enumerate(tokens[:-1])}
        for start, end, word in free:
            noun = SYNONYMS.get(stem(following.get(start, "")))
            family = [(t, c, v) for n, t, c, v in self.names if n.split()[0] == word and len(n.split()) > 1]
            if word in capitals and len(family) > 1 and noun is not None and \
                    {TABLE_NOUNS.get(noun)} == {t for t, _, _ in family}:
                out += [Link(*owner, start, end, "partial", word) for owner in family]
        return out

    def _brands(self, tokens: list[tuple[int, int, str]], free: list[tuple[int, int, str]],
                capitals: set[str]) -> list[Link]:
        """"SCAC for Wan Hai?": two capitalised words that begin one carrier's name (and perhaps ships named
        after it) name the carrier; in lower case too ("scac for wan hai pls") when neither word is one the
        schema's comments use as an ordinary word."""
        out: list[Link] = []
        starts = {t[0] for t in free}
        for (a, _, w1), (b, end, w2) in zip(tokens, tokens[1:]):
            said = {w1, w2} <= capitals or not ({w1, w2} & self.plain)
            if a not in starts or b not in starts or not said:
                continue
            lines = [(t, c, v) for n, t, c, v in self.names if t == "CARRIERS" and n.split()[:2] == [w1, w2]]
            if len(lines) == 1 and len(str(lines[0][2]).split()) > 2:  # a part of the name, not all of it
                out.append(Link(*lines[0], a, end, "partial", f"{w1} {w2}"))
        return out

    def _owners_of(self, word: str, capital: bool) -> list[tuple[str, str, Any]]:
        """The rows one word names: by a word of a name, a misspelt one, or the first word of a category value."""
        return self._owners_of_word(word, capital) or self._owner_of_misspelt(word, capital) \
            or self._category_by_first_word(word, capital)

    def _category_by_first_word(self, word: str, capital: bool) -> list[tuple[str, str, Any]]:
        """"A Gemini carrier": a capitalised word that begins one value of a category column of several
        words ("Gemini Cooperation"), and no other."""
        if not capital or len(word) < 4:
            return []
        found = {(t, c, v) for p, t, c, v, how in self.phrases
                 if how == "exact" and " " in p and p.split()[0] == word and (t, c) not in NAME_COLUMNS | CODE_COLUMNS}
        return sorted(found, key=str) if len(found) == 1 else []

    def _owner_of_misspelt(self, word: str, capital: bool) -> list[tuple[str, str, Any]]:
        """The one name with a word that this one misspells ("Evergren" of Evergreen Marine): a long
        word, not the comments' ordinary English, with its first two letters kept."""
        if len(word) < 6 or not self._name_word(word, capital) or word in self.common:
            return []
        # in lower case, only a name's first word (its brand): "shippin" misspells English, not COSCO Shipping Lines
        found = [(t, c, v) for n, t, c, v in self.names for i, w in enumerate(re.split(r"[\s-]", n))
                 if len(w) >= 6 and w[:2] == word[:2] and w != word and (capital or i == 0)
                 and (fuzz.ratio(word, w) >= 88 or DamerauLevenshtein.distance(word, w) == 1)]  # "Antwrep"
        return found if len(found) == 1 else []

    def _typos(self, text: str, tokens: list[tuple[int, int, str]], taken: list[tuple[int, int]]) -> list[Link]:
        """Names written with a typo: a window of about as many words as the name ("hapag loyd" for
        Hapag-Lloyd), close to it by rapidfuzz. A window may hold an exact link that starts the name
        ("HMM Hanabda" is the vessel HMM Hanbada, not the carrier HMM); that link then gives way."""
        out: list[Link] = []
        windows: dict[int, list[_Window]] = {}
        for norm_name, table, column, value in self.names:
            size, shape = len(norm_name.split()), _shape(norm_name)
            for width in sorted({size, size + 1 if "-" in norm_name else size, max(1, size - 1)}):
                if width not in windows:
                    windows[width] = _windows(text, tokens, taken, width)
                for a, b, span, inside, words in windows[width]:
                    if inside and not all(a <= s and e < b and norm_name.startswith(text[s:e]) for s, e in inside):
                        continue
                    if self._typo_of(span, words, norm_name, shape):
                        out.append(Link(table, column, value, a, b, "fuzzy", span))
        return _longest_first(out)

    def _typo_of(self, span: str, words: tuple[str, str], norm_name: str, shape: tuple[str, str]) -> bool:
        """A window's words (its first word, its letters without spaces) misspell a name's."""
        if len(span) < 5 or span == norm_name or span in self.common:
            return False
        if re.findall(r"\d+", span) != re.findall(r"\d+", norm_name):
            return False  # "Wan Hai 612" is another ship than Wan Hai 611, not a typo of it
        (first, squeezed), (name_first, name_squeezed) = words, shape
        # two words' ratio is at most 200 * shorter / (both lengths): most names are ruled out by length
        # alone, before rapidfuzz compares a letter (the typo test runs for every name and word window)
        return _may_reach(first, name_first, 75) and _may_reach(squeezed, name_squeezed, FUZZY_MIN) and \
            fuzz.ratio(first, name_first) >= 75 and fuzz.ratio(squeezed, name_squeezed) >= FUZZY_MIN

    def _capitalised(self, question: str) -> set[str]:
        """Words written with a capital; a sentence's first word is capitalised whatever it is, so
        there it counts only in capitals or when it is long and the schema's comments do not use it
        as an ordinary word ("Shipping cocoa..." is not COSCO, "Long day" is not Long Beach)."""
        return {m.group(0).lower() for m in re.finditer(r"\b[A-Z][\w-]+", question)
                if m.group(0).isupper() or not re.search(r"(?:^|[.!?:])\W*$", question[:m.start()])
                or (m.group(0).lower() not in self.plain and len(m.group(0)) >= 6)
                or (m.group(0).lower() not in self.plain and len(m.group(0)) >= 4 and _set_apart(question, m.end()))}

    def _owners_of_word(self, word: str, capital: bool) -> list[tuple[str, str, Any]]:
        """The rows one word names: a carrier by its first word ("COSCO", or "hapag" in lower case when
        the comments never use it as an ordinary word, not "ocean"), else the one name having the word
        (capitalised, or in lower case a long word the comments never use: "the callisto")."""
        brand = [(t, c, v) for n, t, c, v in self.names if t == "CARRIERS" and re.split(r"[\s-]", n)[0] == word]
        if len(brand) == 1 and (capital or not (word in self.plain or (word in self.common and len(word) < 5))):
            return brand
        if len(word) < 4 or word in self.common or not self._name_word(word, capital):
            return []
        return [(t, c, v) for n, t, c, v in self.names if word in re.split(r"[\s-]", n)]  # "antwerp" of Antwerp-Bruges

    def _name_word(self, word: str, capital: bool) -> bool:
        return capital or (word not in self.plain and len(word) >= 6)


def _describes_an_outside_party(lk: Link, question: str) -> bool:
    """"US consignee", "a German importer": a country said of a noun the schema has no word for describes
    someone outside the data, not the rows of a country column ("US carriers", "ports in the US" are)."""
    if "COUNTRY" not in lk.column or re.search(r"\b(?:my|our|your|their)\s+$", question[:lk.start], re.I):
        return False  # ("our UK office": a thing of theirs the user's memory may name by its country)
    after = re.match(r"\s+([a-z][a-z-]+)\b(?:\s+([a-z][a-z-]+)\b)?", question[lk.end:])
    if after is None:
        return False
    # (the noun may be the second word: "Korean shipping lines")
    return not any(w in _SCHEMA_WORDS or stem(w) in _SCHEMA_WORDS for w in after.groups() if w)


# the words the schema's tables, columns and synonyms use ("carrier", "based", "flag", "port" ...)
_SCHEMA_WORDS = frozenset(SYNONYMS) | frozenset(SYNONYMS.values()) | frozenset(TABLE_NOUNS) | frozenset(
    w for t in TABLES for c in t.column_names for w in c.lower().split("_")) | frozenset(
    stem(w) for t in TABLES for w in t.name.lower().split("_")) | frozenset(
    "and or in of with from to is are was were have has that which who the a an for based headquartered".split())


def _inside_a_reference(text: str, m: re.Match, column: tuple[str, str]) -> bool:
    """A code of the data written as the start or end of a longer reference ("HLCU" of the booking
    "HLCU-88213"): that reference is something else."""
    return column in CODE_COLUMNS and (re.match(r"-?\d", text[m.end():m.end() + 2]) is not None
                                       or re.search(r"\w-$", text[:m.start()]) is not None)


def _set_apart(question: str, end: int) -> bool:
    """"Tabor: who operates it?", "Pelepas - its locode?": a word said alone before a colon, a dash or a
    question mark is the name of what the sentence is about."""
    return re.match(r"\s*(?:[:?\u2013\u2014]|-\s)", question[end:]) is not None


def _value_phrases(col: Any, values: list[Any], *, named: bool) -> list[tuple[str, str, str, Any, str]]:
    """The phrases that name a value of a name, code or category column: the value as stored, a short
    form in brackets, the words its comment explains it with, a country's names for an ISO code."""
    table, column = col.table, col.name
    phrases = [(_norm(str(v)), table, column, v, "exact") for v in values]
    phrases += _short_forms(values, table, column) if named else []
    phrases += _explained(col.comment, table, column, values)
    phrases += _lengths(col.comment, table, column, values)
    phrases += _prefixed(column, values, table)
    phrases += [] if named else _shared_starts(values, table, column)
    phrases += _with_direction(col.comment, table, column, values)
    if "3166" in col.comment:
        phrases += [(_norm(n), table, column, code, "country") for code in values for n in countries.NAMES.get(code, ())]
    return phrases


_COMPASS = {"N": "north", "S": "south", "E": "east", "W": "west"}


def _with_direction(comment: str, table: str, column: str, values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """A number plus the direction of travel (the comment says so: "214E"), as people write it: "214 E",
    "214-E", "214 east", "214 eastbound"."""
    if not re.search(r"\bdirection\b", comment, re.I):
        return []
    out = []
    for v in values:
        if (m := re.fullmatch(r"(\d+)([NSEW])", str(v))) is not None:
            n, letter = m.groups()
            word = _COMPASS[letter]
            out += [(_norm(said), table, column, v, "exact")
                    for said in (f"{n} {letter}", f"{n}-{letter}", f"{n} {word}", f"{n} {word}bound")]
    return out


def _shared_starts(values: list[Any], table: str, column: str) -> list[tuple[str, str, str, Any, str]]:
    """"North America": the first two words or more that several values of a category column share ("North
    America West", "North America East") name each of them, when no value is written so."""
    taken = {_norm(str(v)) for v in values}
    starts: dict[str, list[Any]] = {}
    for v in values:
        words = _norm(str(v)).split()
        for n in range(2, len(words)):
            starts.setdefault(" ".join(words[:n]), []).append(v)
    return [(start, table, column, v, "exact") for start, vs in starts.items() if len(vs) > 1 and start not in taken
            for v in vs]


def _prefixed(column: str, values: list[Any], table: str) -> list[tuple[str, str, str, Any, str]]:
    """A code written after the short word its column is named by: "UN3480" and "UN 3480" for 3480 of
    UN_NUMBER, "HS 030617" of HS_CODE (the column's first name word, two to four letters)."""
    head = column.split("_")[0]
    if not (2 <= len(head) <= 4) or not head.isalpha() or len(column.split("_")) < 2:
        return []
    return [(_norm(f"{head}{sep}{v}"), table, column, v, "exact") for v in values
            if str(v).isdigit() for sep in ("", " ", "-")]


def _short_forms(values: list[Any], table: str, column: str) -> list[tuple[str, str, str, Any, str]]:
    """"Pacific International Lines (PIL)": the short form in brackets names it too; "Jebel Ali (Dubai)":
    so does the name without its bracket, and "New York / New Jersey" each of its two names, when no
    other value is named by it."""
    out = [(_norm(m.group(1)), table, column, v, "exact") for v in values
           if (m := re.search(r"\(([A-Z][A-Z0-9&-]{1,9})\)", str(v)))]
    bare = [(re.sub(r"\s*\([^)]*\)\s*$", "", str(v)).strip(), v) for v in values if str(v).rstrip().endswith(")")]
    # "New York / New Jersey": each name of a value written as two names names it
    parts = [(p.strip(), v) for v in values if " / " in str(v) for p in str(v).split(" / ")]
    taken = {_norm(str(v)) for v in values}
    return out + _unique_names(bare, taken, table, column) + _unique_names(parts, taken, table, column)


def _initials(phrases: list[tuple[str, str, str, Any, str]]) -> list[tuple[str, str, str, Any, str]]:
    """"LA", "NY": a port of two or three words by its initials, when no other port has them and no value of the
    data is written so ("PK" is a package type, not Port Klang); written in capitals to count (_short_in_lower_case)."""
    named: dict[str, set[Any]] = {}
    for phrase, table, column, value, _ in phrases:
        # (a name with its bracket, "Jebel Ali (Dubai)", by the name alone: "JA")
        if (table, column) == ("PORTS", "PORT_NAME") and len(words := phrase.split()) in (2, 3) and \
                all(w.isalpha() for w in words) and not (phrase == _norm(str(value)) and "(" in str(value)):
            named.setdefault("".join(w[0] for w in words), set()).add(value)
    taken = {p[0] for p in phrases}
    return [(short, "PORTS", "PORT_NAME", next(iter(values)), "exact") for short, values in sorted(named.items())
            if len(values) == 1 and short not in taken and short not in _COMMON.split()]


def _unique_names(said: list[tuple[str, Any]], taken: set[str], table: str,
                  column: str) -> list[tuple[str, str, str, Any, str]]:
    """Each shorter name of a value that no other value is named by, and no value is called."""
    return [(_norm(b), table, column, v, "exact") for b, v in said
            if len(b) >= 4 and _norm(b) not in taken and sum(x == b for x, _ in said) == 1]


_A_CURRENCY = re.compile(r"\s*dollars?\b", re.I)


def _occurrences(phrase: str, text: str, how: str = "exact") -> list[re.Match[str]]:
    """Where a value's words stand in the text: "panamanian-flagged" and "cartons" too, never a plural
    of a short code ("uses"), never a country or its code that names a currency ("US dollars"). A word
    a comment explains a code by is a word, short or not ("bags" for BG bag)."""
    pattern = r"\s+".join(re.escape(w) for w in phrase.split())
    plural = "(?:e?s)?" if len(phrase) > 3 or how == "explained" else ""
    return [m for m in re.finditer(rf"(?<![\w-]){pattern}{plural}(?!\w)", text) if not _A_CURRENCY.match(text[m.end():])]


def _description_words(values: list[Any], table: str, column: str) -> list[tuple[str, str, str, Any, str]]:
    """Each word of a free-text column's values ("shrimp", "smartphones"), singular and plural,
    linked as a part of the text (the planner filters with LIKE)."""
    words: set[str] = set()
    pairs: set[str] = set()
    for v in values:
        words |= _goods_words(str(v))
        pairs |= _short_word_pairs(str(v))
    # a short head noun of two words is the goods too ("oil" of "olive oil"; not "red" of "red wine")
    words |= {pair.split()[1] for pair in pairs if len(pair.split()[1]) < 4}
    out = [(pair, table, column, pair, "word") for pair in sorted(pairs)]
    for w in sorted(words):
        stem = w[:-1] if w.endswith("s") and len(w) > 4 else w
        # a long word's clipped form ("pharma" for pharmaceutical), as people write it
        clipped = {w[:6]} if len(w) >= 10 and w[:6] not in words else set()
        for form in {w, stem, stem + "s"} | clipped:
            out.append((form, table, column, stem, "word"))
    return out


def _goods_words(value: str) -> set[str]:
    """The words of four letters or more of one description, not its packaging ("lithium-ion": lithium too)."""
    found = re.findall(r"[a-z][a-z-]{3,}", value.lower())
    found += [w.split("-")[0] for w in found if "-" in w and len(w.split("-")[0]) >= 5]
    return {w for w in found if w not in _DESCRIPTION_STOP}


def _short_word_pairs(value: str) -> set[str]:
    """Two words written together, a short one among them ("red wine", "olive oil"): the goods said as the text
    says them (a word of three letters alone is no link)."""
    said = re.findall(r"[a-z]+", value.lower())
    return {f"{a} {b}" for a, b in zip(said, said[1:], strict=False)
            if min(len(a), len(b)) < 4 <= max(len(a), len(b)) and a not in _NO_PAIR and b not in _NO_PAIR}
_DESCRIPTION_STOP = set("""with from carton cartons case cases bags bag pallet pallets drum drums box boxes pack packs
unit units piece pieces pair pairs size sizes kind type types each part parts parts spare spares set sets""".split())
# the words no pair of goods' words holds: those above and the small words between them ("of", "kg", "ml")
_NO_PAIR = frozenset(_DESCRIPTION_STOP | {"of", "in", "on", "for", "and", "or", "the", "a", "an", "to", "per", "x", "l",
                                          "kg", "g", "ml", "cm", "mm"})


def _same_length(text: str) -> str:
    """Lower case, marks as spaces, accents dropped ("Panamá"), every character where it was (offsets stay
    the question's)."""
    text = re.sub(r"[^\w\s/-]", " ", unaccented(text.lower()))
    # "voyage 0813N" is 813N: a voyage-number-like code's leading zeros are padding
    return re.sub(r"\b0+(?=[1-9]\d{1,4}[a-z]\b)", lambda m: " " * len(m.group(0)), text)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s/-]", " ", unaccented(text.lower()))).strip()


def unaccented(text: str) -> str:
    """Each letter without its accent when that leaves one letter ("á" is "a"; "ß" stays): the same length."""
    return "".join(_base_letter(c) for c in text) if not text.isascii() else text


@functools.lru_cache(maxsize=1024)
def _base_letter(c: str) -> str:
    base = "".join(x for x in unicodedata.normalize("NFD", c) if not unicodedata.combining(x))
    # (letters no accent makes: "Mærsk", "Ørsted", "Łódź" as one letter each)
    return base if len(base) == 1 and base.isascii() else _OWN_LETTERS.get(c, base if len(base) == 1 else c)


_OWN_LETTERS = {"æ": "a", "Æ": "A", "ø": "o", "Ø": "O", "œ": "o", "Œ": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D"}


def _lower_short_form(question: str, m: re.Match[str], how: str) -> bool:
    """"which one's bigger": this "one" is no carrier ONE, whatever else the question has in capitals."""
    return how in ("exact", "country") and len(m.group(0)) <= 3 and not question[m.start():m.end()].isupper()


def _short_in_lower_case(question: str, phrase: str, how: str) -> bool:
    """"us", "de", "ct": a short code or country counts only when written in capitals."""
    return how in ("exact", "country") and len(phrase) <= 3 and not _upper_in(question, phrase.upper())


def _upper_in(question: str, value: str) -> bool:
    return bool(re.search(rf"(?<![\w-]){re.escape(value.upper())}(?![\w-])", question))


# a word with a digit and a letter: the words a code of the data could be
_CODE_LIKE = re.compile(r"(?<![\w-])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{4,}(?![\w-])")
# what follows a number to make it an ordinal or a measure ("3rd", "500kg"), not a code
UNIT_SUFFIXES = "st|nd|rd|th|kg|kgs|t|m|m3|km|ft|teu|k|usd|eur"
_UNIT_AFTER = re.compile(rf"\d(?:{UNIT_SUFFIXES}|h|hrs|pm|am)$", re.I)
# "a number like CSQU3054383": what follows is an example, not a record asked about
_EXAMPLE_BEFORE = re.compile(r"\b(?:like|e\.g\.?|eg|such as|for example|for instance|say)[\s:,]*$", re.I)


def _code_shape(code: str) -> str:
    """"HLXU2646413" -> "AAAA9999999": what codes of one column share, whatever their values."""
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", code.upper()))


def _index_column(table: str, col: Column, query: Query, select_distinct: Callable[[str, str], str],
                  phrases: list[tuple[str, str, str, Any, str]], names: list[tuple[str, str, str, Any]]) -> None:
    """Adds one column's values to the index: a name column's values as names, a description's
    words, and the values of a code, name or text column with few distinct values as phrases."""
    key = (table, col.name)
    if key not in NAME_COLUMNS and key not in CODE_COLUMNS and not col.is_text:
        return
    values = [r[0] for r in query(select_distinct(table, col.name)) if r[0] is not None]
    if key in NAME_COLUMNS:
        names += [(_norm(str(v)), table, col.name, v) for v in values]
    if col.name == "DESCRIPTION":  # free text: its words, matched inside the text
        phrases += _description_words(values, table, col.name)
    elif key in NAME_COLUMNS or key in CODE_COLUMNS or len(values) <= MAX_CATEGORIES:
        phrases += _value_phrases(col, values, named=key in NAME_COLUMNS)


def _explained(comment: str, table: str, column: str, values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """Codes the comment explains in words: "CT carton", "20RF/40RF refrigerated reefer". A word that
    names the column itself or a table ("package" for PACKAGE_TYPE, "box" for a container) is no value."""
    return _codes_before_words(comment, table, column, values) + _codes_before_brackets(comment, table, column, values)


_LENGTH_WORDS = {"20": "twenty", "40": "forty", "45": "forty-five", "10": "ten"}


def _lengths(comment: str, table: str, column: str, values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """"A 20-foot box is 1 TEU": a length the comment gives names every code that starts with it ("20ft",
    "20-footers": 20GP and 20RF)."""
    out = []
    for n in dict.fromkeys(re.findall(r"\b(\d{2})-foot\b", comment)):
        codes = [v for v in values if isinstance(v, str) and v.startswith(n)]
        spelt = [w for w in [_LENGTH_WORDS.get(n)] if w]  # "forty-footers"
        for size in [n, *spelt]:
            for said in (f"{size}-foot", f"{size} foot", f"{size}ft", f"{size} ft", f"{size}-ft", f"{size}-footer",
                         f"{size}-footers", f"{size} footer", f"{size} footers", f"{size} feet", f"{size}-feet"):
                out += [(_norm(said), table, column, code, "explained") for code in codes]
    return out


def _narrowed(links: list[Link], text: str) -> list[Link]:
    """"40ft reefers": a length written right before other codes of the same column keeps only the codes
    both name (40RF), as one link over both words; a length alone keeps all of its codes. Lengths listed
    before it are narrowed alike ("20 and 40 foot reefers": 20RF and 40RF)."""
    spans: dict[tuple[int, int, str, str], set[Any]] = {}
    for lk in links:
        spans.setdefault((lk.start, lk.end, lk.table, lk.column), set()).add(lk.value)
    for first, second in ((a, b) for a in spans for b in spans if a[2:] == b[2:] and 0 < b[0] - a[1] <= 1):
        both = spans[first] & spans[second]
        if both:
            return _narrowed(_joined(_listed_narrowed(links, spans, first, second, text), first, second, both), text)
    return links


def _listed_narrowed(links: list[Link], spans: dict[tuple[int, int, str, str], set[Any]],
                     first: tuple[int, int, str, str], second: tuple[int, int, str, str], text: str) -> list[Link]:
    """"20 and 40 foot reefers": the lengths listed before the one the kind follows keep only its codes."""
    listed = [a for a in spans if a[2:] == first[2:] and a[1] < first[0]
              and _LISTED.fullmatch(text[a[1]:first[0]]) and spans[a] & spans[second]]
    return [lk for lk in links if not ((lk.start, lk.end, lk.table, lk.column) in listed and lk.value not in spans[second])]


_LISTED = re.compile(r"\s*,?\s*(?:and|or|&|/)?\s*")  # what stands between two things listed


def _intersected(links: list[Link], text: str) -> list[Link]:
    """"Reefers ..., 20 and 40 foot": words of one column listed together name all their codes; two
    such lists apart name only the codes both do (20RF and 40RF), when there are any."""
    out = list(links)
    for column in {(lk.table, lk.column) for lk in links}:
        groups = _listed_groups(sorted({(lk.start, lk.end) for lk in links if (lk.table, lk.column) == column}), text)
        if len(groups) < 2:
            continue
        named = [{lk.value for lk in links if (lk.table, lk.column) == column and (lk.start, lk.end) in g}
                 for g in groups]
        both = set.intersection(*named)
        if both:
            out = [lk for lk in out if (lk.table, lk.column) != column or lk.value in both]
    return out


def _listed_groups(spans: list[tuple[int, int]], text: str) -> list[list[tuple[int, int]]]:
    """The spans, those listed together in one group: sizes with sizes ("20 or 40 foot"), words with words."""
    groups: list[list[tuple[int, int]]] = []
    for span in spans:
        last = groups[-1][-1] if groups else None
        if last and _LISTED.fullmatch(text[last[1]:span[0]]) and \
                text[last[0]:last[0] + 1].isdigit() == text[span[0]:span[0] + 1].isdigit():
            groups[-1].append(span)
        else:
            groups.append([span])
    return groups


def _joined(links: list[Link], first: tuple[int, int, str, str], second: tuple[int, int, str, str],
            both: set[Any]) -> list[Link]:
    """The links of two neighbouring spans of one column replaced by one link per value they share."""
    column = first[2:]
    kept = [lk for lk in links if not ((lk.table, lk.column) == column and lk.start in (first[0], second[0]))]
    return kept + [Link(lk.table, lk.column, lk.value, first[0], second[1], lk.how, lk.text) for lk in links
                   if (lk.table, lk.column) == column and lk.start == first[0] and lk.value in both]


def _codes_before_words(comment: str, table: str, column: str, values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """"CT carton", "20RF/40RF refrigerated reefer": the words after a code (all of them, and the
    last one), unless they name the column or a table."""
    generic = set(words_of(column.replace("_", " "))) | set(TABLE_NOUNS) | set(SYNONYMS)
    out = []
    for codes, words in re.findall(r"\b([A-Z0-9]{2,5}(?:/[A-Z0-9]{2,5})*)\s+([a-z][a-z -]+?)(?=\s*[,;.()]|$)", comment):
        for code in codes.split("/"):
            if code in values:
                for phrase in {words.strip(), words.strip().split(" ")[-1]}:
                    if len(phrase) >= 3 and stem(phrase) not in generic and phrase not in generic:
                        out.append((_norm(phrase), table, column, code, "explained"))
    return out


def _codes_before_brackets(comment: str, table: str, column: str, values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """"ACTIVE (at sea: departed, not yet arrived)", "20GP/40GP general purpose (dry)": the words in
    brackets after a code; a part of one word only when it is all the bracket says."""
    out: list[tuple[str, str, str, Any, str]] = []
    explained = re.findall(r"\b([A-Z0-9]{2,}(?:/[A-Z0-9]{2,})*)\b[a-z -]*\(([^)]+)\)", comment)
    for codes, inside in explained:
        parts = [part.strip() for part in re.split(r"[:,;]", inside) if part.strip()]
        for code in codes.split("/"):
            if code in values:
                out += [(_norm(part), table, column, code, "explained") for part in parts
                        if (" " in part or len(parts) == 1) and part.isascii() and not re.search(r"\d", part)
                        and not _NOT_YET.match(part)]
        for part in parts:
            out += _not_yet(part, explained, table, column, values)
    return out


_NOT_YET = re.compile(r"not\s+(?:yet\s+)?([a-z]+)$", re.I)


def _not_yet(part: str, explained: list[tuple[str, str]], table: str, column: str,
             values: list[Any]) -> list[tuple[str, str, str, Any, str]]:
    """"ACTIVE (not yet arrived)" beside "COMPLETED (arrived before that date)": "not yet arrived" is
    true of every value but the one the word explains (ACTIVE and SCHEDULED), not of ACTIVE alone.
    Contractions are normalised to "haven t arrived", hence the "t" form."""
    m = _NOT_YET.match(part)
    if m is None:
        return []
    word = m.group(1).lower()
    said = {code for codes, inside in explained for code in codes.split("/")
            if any(_NOT_YET.match(p.strip()) is None and word in p.split() for p in re.split(r"[:,;]", inside))}
    others = [v for v in values if v not in said]
    if not said or not others:
        return []
    return [(phrase, table, column, code, "explained") for code in others
            for phrase in (f"not yet {word}", f"not {word}", f"t yet {word}", f"t {word}")]


def _widened(tokens: list[tuple[int, int, str]], start: int, end: int, name: str) -> tuple[int, int]:
    """"Mount Tabor" of "ZIM Mount Tabor": the span of one word of a name, widened over the words beside it
    that are words of the same name."""
    words = {w.lower() for w in re.findall(r"[\w-]+", name)}
    at = next(i for i, t in enumerate(tokens) if t[0] == start)
    first, last = at, at
    while first > 0 and tokens[first - 1][2].lower() in words:
        first -= 1
    while last + 1 < len(tokens) and tokens[last + 1][2].lower() in words:
        last += 1
    return tokens[first][0], max(end, tokens[last][1])


def _inside_other_name(question: str, start: int, end: int, name: str) -> bool:
    """The word sits in a capitalised name that is not this one ("the North Pacific" is no
    Pacific International Lines): a capitalised neighbour that the name does not have."""
    own = {w.lower() for w in re.findall(r"[\w-]+", name)}
    before = re.search(r"([A-Z][\w-]*)\s+$", question[:start])
    if before is not None and _STARTS_SENTENCE.search(question[:before.start()]) and before.group(1).lower() in _FUNCTION:
        before = None  # "The Kaimana ...": a sentence's first word is capitalised whatever it is
    after = re.match(r"\s+([A-Z][\w-]*)", question[end:])
    if after is not None and after.group(1).isupper() and after.group(1).lower() in SYNONYMS:
        after = None  # "Hanbada ETA?": an abbreviation the schema's words know, not a name's next word
    return any(m is not None and m.group(1).lower() not in own for m in (before, after))


_STARTS_SENTENCE = re.compile(r"(?:^|[.!?:;])\W*$")
_FUNCTION = frozenset("the a an that this these those and but so our my your their his her its is are was were "
                      "what which who where when how why do does did can could would will any all some every "
                      "no list show give tell find".split())


def _ordinary_words(comments: list[str]) -> frozenset[str]:
    """Words the schema's comments use as ordinary words: in lower case, or as a comment's first word
    ("Ocean carriers ..."); a name they quote ('Hapag-Lloyd', Maersk) is not one."""
    out: set[str] = set()
    for comment in comments:
        found = re.findall(r"[A-Za-z]+", comment)
        out |= {w for w in found if w.islower()} | {w.lower() for w in found[:1]}
    return frozenset(out)


# Words that name no vessel, carrier or port on their own, even where a name contains them.
_COMMON = """express maersk line lines port ports ship ships vessel vessels the and
ever one all any hmm msc cma cgm cosco zim sitc yang ming wan hai kota x-press new york los angeles
express container containers carrier carriers voyage voyages which what where when how many much""".lower()


def _listed_together(a: Link, b: Link, text: str) -> bool:
    """Nothing but a comma, a slash, "and", "or" or "vs" between the two values."""
    first, second = sorted((a, b), key=lambda lk: lk.start)
    between = text[first.end:second.start]
    return re.fullmatch(r"\s*(?:,|/|&|vs\.?|versus)?\s*(?:(?:and|or)\s+)?", between, re.I) is not None
