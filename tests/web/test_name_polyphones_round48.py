"""Round 48: a given name whose first character is a polyphone. pypinyin's phrase table gives 朝阳 both readings,
"zhāo,cháo" (of its two-character phrases with two readings for one character, 朝阳 and 那些, the only one where
the rule changes anything: 那's own reading comes first); round 47 took the first,
so every 朝阳 sorted as zhāo, where 朝阳区 and 张朝阳 are cháo. A phrase now changes a name's reading only
where its readings leave out the character's own one (朝晖, 朝霞: zhāo alone); which reading one 朝阳 uses is
theirs to say and stays open."""

from __future__ import annotations

import json

import pytest

from app.names import _char, _phrases, _pypinyin_file, _tone3, by_name, name_key


def _letters(name: str) -> list[str]:
    return list(name_key(name)[0])


def test_a_phrase_that_lists_the_characters_own_reading_does_not_change_it():
    assert _letters("刘朝阳") == ["liu", "chao", "yang"]
    assert _letters("朝阳") == ["chao", "yang"]              # a name without a Han surname (a nickname) too
    assert _letters("陈朝晖") == ["chen", "zhao", "hui"]     # the table has zhāo alone: the phrase reads it
    assert _letters("刘朝霞") == ["liu", "zhao", "xia"]


def test_a_zhaoyang_sorts_among_the_chaos():
    people = [("刘畅", "a@x"), ("刘朝阳", "b@x"), ("刘朝霞", "c@x"), ("刘辰", "d@x")]
    assert [n for n, _ in by_name(people, lambda p: p)] == ["刘畅", "刘朝阳", "刘辰", "刘朝霞"]


@pytest.mark.slow   # reads pypinyin's 38 MiB phrase table: over a second
def test_every_phrase_kept_changes_a_reading_the_table_leaves_out():
    # name_phrases.txt as the pages read it (test_name_order_mend_round47 checks it is what phrase_lines writes)
    raw = json.loads(_pypinyin_file("phrases_dict.json").read_text(encoding="utf-8"))
    kept = _phrases()
    assert kept and "朝阳" not in kept
    for pair, reading in kept.items():
        for ch, mine, listed in zip(pair, reading, raw[pair], strict=True):
            listed = [_tone3(r) for r in listed]
            assert mine in listed
            assert mine == _char(ch) or _char(ch) not in listed, pair
