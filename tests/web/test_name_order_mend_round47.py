"""Mend round 47: a Chinese name is read as a name (given names by pypinyin's phrase readings, surnames by their
surname readings, compound surnames as one), accented Latin names among their base letters."""

from __future__ import annotations

import pytest

from app.names import by_name, name_key, phrase_lines


def _letters(name: str) -> list[str]:
    return list(name_key(name)[0])


@pytest.mark.parametrize(("name", "letters"), [
    ("李长青", "li chang qing"), ("王长江", "wang chang jiang"), ("许长安", "xu chang an"),
    ("林长风", "lin chang feng"),  # no phrase: a given name's 长 is cháng
    ("刘朝阳", "liu chao yang"), ("陈朝晖", "chen zhao hui"), ("孙重阳", "sun chong yang"),
    ("郑还珠", "zheng huan zhu"), ("王伟", "wang wei"), ("何朝", "he chao"),
])
def test_a_given_name_is_read_as_pypinyins_phrase_table_reads_it(name, letters):
    assert _letters(name) == letters.split()


def test_a_given_name_read_by_its_phrase_sorts_by_that_reading():
    people = [("王伟", "a@x"), ("王长江", "b@x"), ("王中", "c@x")]
    assert [n for n, _ in by_name(people, lambda p: p)] == ["王长江", "王伟", "王中"]


@pytest.mark.parametrize(("name", "letters"), [
    ("薄一波", "bo yi bo"), ("都敏", "du min"), ("藏天", "zang tian"), ("员明", "yun ming"), ("隗嚣", "wei xiao"),
    ("折克", "she ke"), ("句芒", "gou mang"), ("繁钦", "po qin"), ("能安", "nai an"), ("祭遵", "zhai zun"),
    ("澹台灭明", "tan tai mie ming"), ("万俟卨", "mo qi xie"), ("单于夫", "chan yu fu"), ("长孙无忌", "zhang sun wu ji"),
    ("尉迟恭", "yu chi gong"), ("单雄", "shan xiong"),
])
def test_a_surname_is_read_by_its_surname_letters(name, letters):
    assert _letters(name) == letters.split()


@pytest.mark.parametrize(("surname", "tone"), [("任", "2"), ("华", "4"), ("纪", "3"), ("宁", "4"), ("葛", "3"),
                                               ("燕", "1")])
def test_a_surname_is_read_with_its_surname_tone(surname, tone):
    assert name_key(surname + "明")[1][0] == tone


def test_accented_latin_names_sort_among_their_base_letters_the_accent_breaking_ties():
    people = [("张三", "z@x"), ("Émile", "e1@x"), ("emile", "e2@x"), ("Fang", "f@x"), ("Elena", "e3@x"),
              ("Øyvind", "o@x"), ("Oscar", "o2@x"), ("Łukasz", "l@x"), ("Lucy", "l2@x"), ("Ángel", "a@x")]
    order = [n for n, _ in by_name(people, lambda p: p)]
    assert order == ["Ángel", "Elena", "emile", "Émile", "Fang", "Lucy", "Łukasz", "Oscar", "Øyvind", "张三"]


def test_the_phrase_file_is_what_the_pinned_pypinyin_gives():
    from app.names import _PHRASES_FILE
    assert _PHRASES_FILE.read_text(encoding="utf-8").splitlines() == phrase_lines(), \
        "app/name_phrases.txt is stale: python -m app.names"
