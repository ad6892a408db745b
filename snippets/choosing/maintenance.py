# --8<-- [start:footprint]
import os
from importlib.metadata import distribution

import torch


def installed_bytes(name):
    """Bytes on disk of an installed distribution's files, as its RECORD lists them."""
    files = [file for file in distribution(name).files if file.size]
    recorded = sum(file.size for file in files)
    # RECORD is written at install time; check it against the files on disk.
    assert recorded == sum(os.path.getsize(file.locate()) for file in files)
    return recorded


# The numbers depend on the build and platform, so they are checked, not printed:
# on the build these tests use, torch takes more than ten times NumPy's space.
torch_bytes, numpy_bytes = installed_bytes("torch"), installed_bytes("numpy")
assert torch_bytes > 10 * numpy_bytes

# The release, without any "+" build suffix: the version you pin, test and move.
print(torch.__version__.split("+")[0])
#> 2.13.0

# Which CUDA a build was compiled against: a version string, or None when the
# build has no CUDA support at all (a CPU-only build).
if not torch.backends.cuda.is_built():
    assert torch.version.cuda is None
# --8<-- [end:footprint]
