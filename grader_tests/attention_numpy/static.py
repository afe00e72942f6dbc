"""What the jail watches while this suite runs (names relative to the torch package)."""

# Ready-made softmax and attention: the lab is NumPy by hand, so calling these loses the point.
FORBID_RUNTIME = [
    "torch.softmax",
    "torch.nn.functional.softmax",
    "torch.special.softmax",
    "torch.Tensor.softmax",
    "torch.nn.functional.scaled_dot_product_attention",
]
