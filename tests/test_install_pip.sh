#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `pip install .` of the Python module (pyproject.toml, setup.py;
# docs/PYTHON.md, "Installing with pip"), into a temporary target, never a
# system path:
#   a copy of the source tree (pip builds in the tree: build/pip, an
#   egg-info) is installed with Debian's pip and setuptools alone
#   (--no-build-isolation --no-index: no package index is reached), the
#   extension built by the project's CMake;
#   the target holds the package: the .py files, py.typed, _throng.pyi and
#   the extension, which needs no libthrong at run time;
#   imported from there (not from the build tree), its version is the
#   project's (CMakeLists.txt) in throng.__version__ and in pip's metadata,
#   a World spawns and steps, and Scene.builtin("field", agents=200,
#   seed=1).step(40) has the hash the build tree's module gives.
# It builds the library once more (release, -j2; a few minutes on a busy
# machine): labelled `install` with test_install, which the asan preset
# leaves out.
# Usage: test_install_pip.sh SOURCE_DIR WORK_DIR PYTHON BUILD_TREE_PYTHONPATH PROJECT_VERSION
set -euo pipefail
src=$1 work=$2 python=$3 built=$4 version=$5
rm -rf "$work"; mkdir -p "$work/src" "$work/target"

fail() { echo "FAIL: $*" >&2; exit 1; }

# The source tree as a checkout has it: no .git, no build trees.
tar -C "$src" --exclude=./.git --exclude=./build --exclude='*.egg-info' -cf - . | tar -C "$work/src" -xf -

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 CMAKE_BUILD_PARALLEL_LEVEL=2
# Outside the source tree, so that `import throng` cannot find python/throng.
cd "$work"
"$python" -m pip install --no-build-isolation --no-index --no-deps --no-cache-dir \
	--target "$work/target" "$work/src" >"$work/pip.log" 2>&1 ||
	{ tail -n 40 "$work/pip.log" >&2; fail "pip install failed (whole log: $work/pip.log)"; }
echo "pip install --target: $(grep -E '^Successfully (built|installed)' "$work/pip.log" | tr '\n' ' ')"

for f in __init__.py _errors.py _scene.py _types.py _world.py _throng.pyi py.typed; do
	[[ -f $work/target/throng/$f ]] || fail "the installed package lacks throng/$f"
done
so=$(find "$work/target/throng" -name '_throng*.so')
[[ -n $so ]] || fail "the installed package has no extension throng/_throng*.so"
if readelf -d "$so" | grep -E 'NEEDED.*throng'; then
	fail "the installed extension needs a throng library at run time"
fi
echo "installed: $(cd "$work/target" && find throng -type f ! -name '*.pyc' | sort | tr '\n' ' ')"

# The hash of the same scene from the build tree's module and from the
# installed one; the installed one checked to be imported from the target.
field='import throng; s = throng.Scene.builtin("field", agents=200, seed=1); s.step(40); print(f"{s.hash():016x}")'
expected=$(env PYTHONPATH="$built" PYTHONDONTWRITEBYTECODE=1 "$python" -c "$field")
out=$(env PYTHONPATH="$work/target" PYTHONDONTWRITEBYTECODE=1 "$python" - "$work/target" "$version" <<'EOF'
import importlib.metadata
import os
import sys

import numpy as np

import throng

target, version = sys.argv[1], sys.argv[2]
assert os.path.dirname(os.path.dirname(os.path.abspath(throng.__file__))) == target, throng.__file__
assert throng.__version__ == version, (throng.__version__, version)
assert importlib.metadata.version("throng") == version, importlib.metadata.version("throng")

world = throng.World(bounds_min=(-50, -50), bounds_max=(50, 50), seed=7)
archetype = world.add_archetype(throng.Controller([throng.Slot.make("arrive", slow_radius=5.0)]))
ids = world.spawn(np.stack([np.linspace(-40, 40, 50), np.full(50, -20.0)], axis=1), targets=(0.0, 20.0),
                  archetype=archetype)
assert list(ids) == list(range(50)), ids
world.step(120)
assert world.steps == 120 and len(world) == 50
# Every agent moved towards y = 20 from y = -20.
assert float(world.positions[:, 1].min()) > -20.0, world.positions[:, 1].min()
try:
    throng.World(dt=float("nan"))
except throng.InvalidArgument as e:
    assert "dt" in str(e), e
else:
    raise AssertionError("World(dt=nan) did not raise")

scene = throng.Scene.builtin("field", agents=200, seed=1)
scene.step(40)
print(f"{scene.hash():016x}")
EOF
) || fail "the installed package does not work"
[[ $out == "$expected" ]] || fail "installed: field hash $out, build tree: $expected"
echo "install_pip: throng $version imported from $work/target; World steps; field (200 agents, seed 1, 40 steps) hash $out, as the build tree's"
