"""Writes q.npy, k.npy, v.npy (1 x 2 x 300 x 128, f16) into the directory
given: attention inputs whose row maxima keep growing along the keys (key j
scaled by j / 100, half of the query rows aligned with the keys), by more
than 2^8 per 128-key tile in those rows and not in the others, so that a
conditional rescale of O must happen in some rows of a warp and not in
others."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
b, h, s, d = 1, 2, 300, 128
q = rng.normal(0.0, 0.1, (b, h, s, d))
q[:, :, 0::2, :] += 0.5  # even rows: scores grow with j
k = rng.normal(0.0, 0.1, (b, h, s, d)) + 1.0
k *= (np.arange(s) / 100.0)[None, None, :, None]
v = rng.normal(0.0, 1.0, (b, h, s, d))
for name, x in (("q", q), ("k", k), ("v", v)):
    np.save(os.path.join(out, name + ".npy"), x.astype(np.float16))
