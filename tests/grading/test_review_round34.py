"""Round 34: a public submodule of torch.utils.data imported under a name of its own (``import
torch.utils.data.sampler as S``, then ``S.SubsetRandomSampler``) was a review finding (13 points pending review),
though ``from torch.utils.data.sampler import SubsetRandomSampler`` was not (round 33's sweep). The alias is now
followed attribute by attribute as ``import torch.utils.data as Data`` is (static._aliased_module): the package's
listed names pass, anything else read off it, the alias as a value and private or nested submodules stay found."""

from __future__ import annotations

import pytest

from grader_tests.attention import static

HEADER = "import torch\n"
HARMLESS = {
    "sampler": "import torch.utils.data.sampler as S\nx = S.SubsetRandomSampler([1, 2])\n",
    "dataloader_and_collate": "import torch.utils.data.dataloader as DL\nx = DL.DataLoader([1], collate_fn=DL.default_collate)\n",
    "dataset_beside_another_import": "import math, torch.utils.data.dataset as D\nx = D.TensorDataset(torch.ones(2))\n",
}
STILL_FOUND = {
    "a_module_attribute": ("import torch.utils.data.sampler as S\nx = S.torch\n", "S.torch"),
    "the_alias_as_a_value": ("import torch.utils.data.sampler as S\nx = S\n", "S used as a value"),
    "distributed_sampler": ("import torch.utils.data.distributed as D\nx = D.DistributedSampler\n",
                            "D.DistributedSampler"),
    "a_private_submodule": ("import torch.utils.data._utils as U\nx = U.collate\n", "torch.utils.data._utils"),
    "a_nested_submodule": ("import torch.utils.data.datapipes.iter as it\nx = it.IterableWrapper\n",
                           "torch.utils.data.datapipes.iter"),
    "datapipes_read_off_its_alias": ("import torch.utils.data.datapipes as dp\nx = dp.iter\n", "dp.iter"),
}


@pytest.mark.parametrize("code", HARMLESS.values(), ids=HARMLESS.keys())
def test_a_data_submodule_under_a_name_of_its_own_reading_the_packages_listed_names_is_no_finding(code):
    assert static.hidden_name_uses(HEADER + code) == ()


@pytest.mark.parametrize(("code", "reason"), STILL_FOUND.values(), ids=STILL_FOUND.keys())
def test_what_else_is_read_off_such_an_alias_is_still_found(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found
