"""The README's Python example runs as written, and its kernel computes the
product (checked here against numpy on the arrays the example makes)."""
# RUN: %tile_python %s %tile_src/README.md | FileCheck %s
# CHECK: README example: ok

import re
import sys

import numpy as np

text = open(sys.argv[1]).read()
code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
code = code.replace("print(kernel.get_kernel_source())", "")
scope = {}
np.random.seed(0)
exec(compile(code, "README.md", "exec"), scope)
np.random.seed(0)
a = np.random.randn(100, 128).astype(np.float16)
b = np.random.randn(128, 256).astype(np.float16)
np.testing.assert_allclose(scope["c"].astype(np.float32),
                           a.astype(np.float32) @ b.astype(np.float32),
                           rtol=1e-2, atol=5e-2)
assert "loc(" in scope["kernel"].get_kernel_source()
print("README example: ok")
