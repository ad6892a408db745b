# --8<-- [start:footprint]
import os
import re
from importlib.metadata import distribution
from pathlib import Path

import torch


def installed_bytes(name):
    """Bytes on disk of the files one installed distribution lists in its RECORD.

    Only that distribution's own files: each of its dependencies is a distribution
    of its own, and is not counted.
    """
    files = distribution(name).files
    # RECORD gives most files' sizes at
    # install time; they must match the disk.
    assert all(
        os.path.getsize(file.locate()) == file.size for file in files if file.size
    )
    # Files RECORD lists without a size (mostly
    # bytecode compiled at install) count too.
    return sum(
        os.path.getsize(file.locate())
        for file in files
        if os.path.isfile(file.locate())
    )


def requirements(name):
    """Names of the distributions name requires, its optional extras left out."""
    return {
        re.match(r"[A-Za-z0-9._-]+", requirement).group().lower()
        for requirement in distribution(name).requires or []
        if "extra ==" not in requirement
    }


# The numbers depend on the build and platform, so they
# are checked, not printed: on the build these tests use,
# torch's own files take more than five times NumPy's.
torch_bytes, numpy_bytes = installed_bytes("torch"), installed_bytes("numpy")
assert torch_bytes > 5 * numpy_bytes
# Its dependencies come on top, sympy and networkx among them.
assert {"sympy", "networkx"} <= requirements("torch")

# The release this site pins, tests and builds
# with, read from its requirements.txt.
requirements_txt = Path("requirements.txt").read_text(encoding="utf-8")
pin = re.search(r"^torch==([^\s;#]+)", requirements_txt, re.M)
# A requirements.txt of your own may pin none.
pinned = pin.group(1) if pin else "no torch== line"
print(pinned)
# > 2.13.0
# The release running here, without its "+" build suffix: the same one, or another?
release = torch.__version__.split("+")[0]
print(release == pinned)
# >[torch==2.13.0] True
# >[torch!=2.13.0] False

# Which CUDA a build was compiled against: a version string, or None when the
# build has no CUDA support at all (a CPU-only build).
if not torch.backends.cuda.is_built():
    assert torch.version.cuda is None
else:  # a ROCm build uses the same API and reports HIP's version instead
    assert torch.version.cuda is not None or torch.version.hip is not None
# --8<-- [end:footprint]
