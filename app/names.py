"""People's names in the order a class list is read: Chinese names by pinyin, other names by letter.

Code point order put 张 (U+5F20) before 李 (U+674E) and 王 (U+738B) after both, nothing like a Chinese class
list (李 li, 王 wang, 张 zhang). A name's key reads each Han character as its pinyin syllable (pypinyin's
character table) and each run of other letters casefolded, so 阿强 (a qiang) and Alice sort among each other by letters; ties go by tone, then by the name's characters, then by the email,
so two students never swap places between two page loads.
"""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# A surname's reading where it differs from the character's everyday one (曾 zeng, not ceng "once"):
# pypinyin reads characters as words and has no surname mode; these are the common surnames of this kind.
_SURNAMES = {"曾": "zeng1", "单": "shan4", "区": "ou1", "仇": "qiu2", "解": "xie4", "查": "zha1", "朴": "piao2",
             "盖": "ge3", "乐": "yue4", "缪": "miao4", "种": "chong2", "覃": "qin2", "翟": "zhai2", "召": "shao4",
             "秘": "bi4", "尉": "yu4", "重": "chong2"}

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
_WORD = re.compile(r"\w+")


# Pinyin's tone marks as combining characters (NFD): the tone's number.
_TONES = {"\u0304": "1", "\u0301": "2", "\u030c": "3", "\u0300": "4"}


@lru_cache(maxsize=1)
def _readings() -> dict[int, str]:
    """pypinyin's character table ({code point: "wáng,wàng,yù"}, the most common reading first), read from its
    data file without importing the package: importing it loads its phrase table too, 55 MiB and a second in
    each web worker, for names, which are seldom dictionary words."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pypinyin is not installed (pyproject.toml lists it): make install")
    path = Path(next(iter(spec.submodule_search_locations))) / "pinyin_dict.json"
    return {int(k): v for k, v in json.loads(path.read_text(encoding="utf-8")).items()}


def _tone3(reading: str) -> str:
    """'wáng' -> 'wang2', 'lǜ' -> 'lv4', 'ma' -> 'ma5' (neutral)."""
    tone, letters = "5", []
    for ch in unicodedata.normalize("NFD", reading):
        if ch in _TONES:
            tone = _TONES[ch]
        elif ch == "\u0308":  # ü: written v, after u
            letters[-1] = "v"
        elif not unicodedata.combining(ch):
            letters.append(ch)
    return "".join(letters) + tone


def _syllables(han: str, surname: bool) -> list[str]:
    """The pinyin of a run of Han characters, one 'syllable+tone' item each, each character by its most common
    reading; a surname by _SURNAMES' reading."""
    table = _readings()
    out = [_tone3(table[ord(ch)].split(",")[0]) if ord(ch) in table else ch for ch in han]
    if surname and han[0] in _SURNAMES:
        out[0] = _SURNAMES[han[0]]
    return out


@lru_cache(maxsize=4096)
def name_key(name: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(letters of each syllable or word, their tones, the name casefolded): a sort key for one name."""
    text = unicodedata.normalize("NFKC", name or "").strip()
    letters: list[str] = []
    tones: list[str] = []
    pos = 0
    for m in _HAN.finditer(text):
        for word in _WORD.findall(text[pos:m.start()]):
            letters.append(word.casefold())
            tones.append("")
        for syllable in _syllables(m.group(), surname=not letters):
            letters.append(syllable.rstrip("012345"))
            tones.append(syllable[len(syllable.rstrip("012345")):])
        pos = m.end()
    for word in _WORD.findall(text[pos:]):
        letters.append(word.casefold())
        tones.append("")
    return tuple(letters), tuple(tones), text.casefold()


def person_key(name: str | None, email: str) -> tuple:
    """The class-list key of a person: the name (the email for one without a name), then the email."""
    return (*name_key(name or email), (email or "").casefold())


def by_name(items: Iterable[T], person: Callable[[T], tuple[str | None, str]]) -> list[T]:
    """`items` in class-list order; `person(item)` gives the item's (name, email)."""
    return sorted(items, key=lambda item: person_key(*person(item)))
