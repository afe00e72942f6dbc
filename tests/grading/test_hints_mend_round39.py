"""Round 39 mend of brief D (review RD): the multi-head hints' misses the review found.

1. out_proj bound to the first layer of a container (``self.out_proj = self.to_out[0]``) of the wrong size names
   the line that builds the container.
"""

from __future__ import annotations

from grader_tests.attention import source_lines
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import quoted_lines

CLS = "MultiHeadAttention"


def _info(fin: int, fout: int) -> dict:
    lin = {"is_linear": True, "bias": True}
    return {"children": {"q_proj": {**lin, "in_features": 16, "out_features": 16},
                         "k_proj": {**lin, "in_features": 16, "out_features": 16},
                         "v_proj": {**lin, "in_features": 16, "out_features": 16},
                         "out_proj": {**lin, "in_features": fin, "out_features": fout}}}


# ----------------------------------------------------------------------------- 1. out_proj = self.to_out[0]
TO_OUT_0 = probe().replace(
    "self.out_proj = nn.Linear(self.h * self.d_k, d_model)",
    "self.to_out = nn.Sequential(nn.Linear(self.h * self.d_k, self.d_k), nn.Dropout(0.0))\n"
    "        self.out_proj = self.to_out[0]")


def test_an_out_projection_of_the_wrong_size_inside_a_container_names_the_line_that_builds_the_container():
    from grader_tests.attention.drivers import projection_problem

    said = projection_problem(_info(16, 4), 16, 16, source=TO_OUT_0)
    line = line_of(TO_OUT_0, "self.to_out = nn.Sequential(")
    code = "nn.Linear(self.h * self.d_k, self.d_k)"      # the layer out_proj is, not the shortened container
    assert said["en"] == (f"out_proj maps 16 -> 4 features, expected 16 -> 16; line {line} builds self.to_out[0]: "
                          f"{code}"), said
    assert said["zh"].endswith(f"；第 {line} 行构建了 self.to_out[0]：{code}"), said
    assert quoted_lines(said["en"]) == [(line, None, code)]


def test_a_container_layer_the_container_does_not_list_quotes_the_container():
    source = TO_OUT_0.replace("self.to_out[0]", "self.to_out[1]").replace(
        "nn.Sequential(nn.Linear(self.h * self.d_k, self.d_k), nn.Dropout(0.0))", "nn.Sequential(*layers)")
    said = source_lines.projection_build_note(source, CLS, "out_proj")
    assert said is not None and said["en"].endswith("builds self.to_out: nn.Sequential(*layers)"), said
