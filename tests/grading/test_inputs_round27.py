"""Round 27, read in Chromium: a text file renamed heatmap.png (the code, an audit, a CSV of the weights) was
refused as "not a PNG or JPEG image, nor any image format we recognise"; it is now said to be a text file, which its
bytes show. And the Chinese refusals called the extension the file's name (图……（文件名为「.png」） for heatmap.png):
they now say 扩展名为「.png」."""

from __future__ import annotations

import json

import pytest

from grading.inputs import InputError, validate_audit, validate_code, validate_figure
from tests.audit.helpers import make_heatmap
from tests.grading.helpers import english_in_zh


def refusal(fn, name: str, data: bytes) -> InputError:
    with pytest.raises(InputError) as info:
        fn(name, data)
    return info.value


@pytest.mark.parametrize("data", [
    b"import torch\n\nclass ScaledDotProductAttention(torch.nn.Module):\n    pass\n",
    "# 审计\n\n图中每一行的和为 1。\n".encode(),
    b"q,k0,k1,k2\nq0,0.21,0.58,0.21\n",
], ids=["code", "audit", "csv"])
def test_a_text_file_given_as_the_figure_is_said_to_be_text(data):
    err = refusal(validate_figure, "heatmap.png", data)
    assert err.code == "figure_bad_type"
    assert "The figure is a text file (extension '.png'), not a PNG or JPEG image" in err.en
    assert "renaming a file does not change what is inside it" in err.en
    assert "图是一个文本文件（扩展名为「.png」），不是 PNG 或 JPEG 图片" in err.zh
    assert "savefig('heatmap.png')" in err.en and "savefig('heatmap.png')" in err.zh
    assert english_in_zh(err.zh, frozenset({"savefig", "plt", "heatmap", "png"})) == []


@pytest.mark.parametrize("data", [bytes(range(256)) * 4, b"\x00" * 64 + b"abc", b"   \n\t"],
                         ids=["binary", "nul", "blank"])
def test_what_is_not_text_is_not_called_text(data):
    err = refusal(validate_figure, "heatmap.png", data)
    assert "text file" not in err.en and "文本文件" not in err.zh


def test_a_name_without_an_extension_is_not_told_about_renaming():
    err = refusal(validate_figure, "heatmap", b"x = 1\n")
    assert "renaming" not in err.en and "改文件名" not in err.zh
    assert "文件名没有扩展名" in err.zh


NOTEBOOK = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


@pytest.mark.parametrize(("fn", "name", "data"), [
    (validate_figure, "heatmap.png", b"PK\x03\x04" + b"\x00" * 60),        # an archive as the figure
    (validate_figure, "heatmap.png", b"\x00\x01\x02\x03" * 32),            # unrecognised bytes
    (validate_figure, "heatmap.png", b"x = 1\n"),                          # text
    (validate_code, "attention.py", NOTEBOOK),                             # a notebook as the code
    (validate_audit, "audit.pdf", b"PK\x03\x04" + b"\x00" * 60),           # an archive named .pdf
    (validate_figure, "wechat.jpg", make_heatmap(fmt="PNG")[:0] + b"RIFF\x00\x00\x00\x00WEBPVP8 "),
])
def test_the_chinese_refusal_calls_the_extension_an_extension(fn, name, data):
    err = refusal(fn, name, data)
    assert "文件名为「." not in err.zh and "文件名却是「." not in err.zh, err.zh
    assert "扩展名" in err.zh, err.zh
