"""``tilelang.math``: integer helpers for kernel configuration."""

__all__ = ["next_power_of_2", "prev_power_of_2", "cdiv"]


def next_power_of_2(x):
    """The smallest power of 2 that is at least `x` (1 for x <= 1)."""
    x = int(x)
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def prev_power_of_2(x):
    """The largest power of 2 that is at most `x` (x >= 1)."""
    x = int(x)
    if x < 1:
        raise ValueError("prev_power_of_2 needs x >= 1, got %d" % x)
    return 1 << (x.bit_length() - 1)


def cdiv(a, b):
    """ceil(a / b) of integers."""
    return -(-a // b)
