"""Round 46 mend MA2: the audit checker's CPU back to the pre-round cost, no score or message changed.

The literal prefilters of the checklist's phrase groups are a trie (checklist._literal_trie) in place of a flat
alternation (16 of a 20 KiB audit's ~95 ms, 9 as a trie); an ASCII text's units and width skip the CJK scan."""
import re

import pytest

from rubric.audit.checklist import _literal_trie, load_checklist
from rubric.audit.text import _CJK, _LATIN_WORD, _units, _width

_LITERALS = ("cause", "causes", "causal", "ca", "no evidence", "不能", "不能证明", "无法", "a\\b", "k2.", "(x)", "是否")
_TEXTS = ("", "c", "the heatmap cannot prove causality", "k2 caused it", "k2x", "k2. is", "不能说", "不", "a\\b c",
          "(x) marks", "( x)", "无 法", "它是否重要", "CAUSE", "ca")


@pytest.mark.parametrize("text", _TEXTS)
def test_the_literal_trie_finds_a_literal_exactly_where_the_flat_alternation_does(text):
    flat = re.compile("|".join(re.escape(t) for t in sorted(_LITERALS, key=len, reverse=True)))
    assert (re.search(_literal_trie(_LITERALS), text) is not None) == (flat.search(text) is not None)


def test_the_trie_branches_one_character_at_a_time():
    assert _literal_trie(("causal", "cause", "no")) == "(?:caus(?:al|e)|no)"
    assert _literal_trie(("cause", "causes")) == "cause"      # a literal another extends ends the branch


def test_every_prefilter_of_the_checklist_agrees_with_its_literals():
    cl = load_checklist()
    seen = 0
    for name in dir(cl):
        group = getattr(cl, name, None)
        for p in [group, *getattr(group, "parts", ())] if hasattr(group, "triggers") else ():
            if p.triggers:
                for text in ("the heatmap cannot prove causality, k2 is not important",
                             "热力图不能证明因果，也不能说明 k2 最重要", "no ablation was run"):
                    assert (p._pre.search(text) is not None) == any(t in text for t in p.triggers)
                seen += 1
    assert seen > 5


@pytest.mark.parametrize("text", ["k2 causes q1's output", "a b c", "", "  ", "热力图不能证明 k2", "权重"])
def test_units_and_width_are_the_cjk_scan_s(text):
    assert _units(text) == len(_CJK.findall(text)) + 2 * len(_LATIN_WORD.findall(text))
    assert _width(text) == len(text) + len(_CJK.findall(text))
