# SPDX-License-Identifier: MIT
"""`pip install .` of the Python module throng (docs/PYTHON.md, "Installing
with pip"): setuptools with a build_ext that builds the extension
throng._throng through this project's CMake, as `cmake --build` does,
instead of compiling sources itself. pyproject.toml holds the metadata;
this file adds what setuptools cannot read from there: the version (from
CMakeLists.txt) and the extension (built by CMake).

Options of the CMake build, from the environment:
  CMAKE_ARGS                  more -D options, shell words (as
                              scikit-build's): -DTHRONG_SIMD=sse2 for a
                              machine without AVX2
  CMAKE_BUILD_PARALLEL_LEVEL  parallel jobs (default: every CPU)
  THRONG_BUILD_TYPE           CMake build type (default Release)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version() -> str:
    """CMakeLists.txt's project(throng VERSION X.Y.Z), checked against the
    THRONG_VERSION_* macros of include/throng/throng.h (what
    throng.__version__ reports at run time), so the two cannot drift."""
    cmake = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    found = re.search(r"^project\(throng\s+VERSION\s+(\d+)\.(\d+)\.(\d+)", cmake, re.MULTILINE)
    if not found:
        raise RuntimeError("setup.py: no 'project(throng VERSION X.Y.Z' in CMakeLists.txt")
    header = (ROOT / "include" / "throng" / "throng.h").read_text(encoding="utf-8")
    macros = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        macro = re.search(r"^#define THRONG_VERSION_%s (\d+)$" % part, header, re.MULTILINE)
        if not macro:
            raise RuntimeError("setup.py: no THRONG_VERSION_%s in include/throng/throng.h" % part)
        macros.append(macro.group(1))
    if list(found.groups()) != macros:
        raise RuntimeError("setup.py: CMakeLists.txt says version %s, include/throng/throng.h says %s"
                           % (".".join(found.groups()), ".".join(macros)))
    return ".".join(macros)


class CMakeExtension(Extension):
    """The extension throng._throng, whose sources CMake compiles
    (python/CMakeLists.txt, target throng_python)."""

    def __init__(self) -> None:
        super().__init__("throng._throng", sources=[])


class CMakeBuild(build_ext):
    """Configures the project with only the Python module on (no tests,
    command, benchmarks, viewer or examples) for the interpreter that runs
    the build, builds the target throng_python, and copies the module
    where setuptools packs the extension."""

    def build_extension(self, ext: Extension) -> None:
        cmake = shutil.which("cmake")
        if cmake is None:
            raise RuntimeError("setup.py: cmake not found (Debian: cmake; scripts/setup installs it)")
        build = Path(self.build_temp).resolve() / "cmake"
        configure = [
            cmake, "-S", str(ROOT), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=" + os.environ.get("THRONG_BUILD_TYPE", "Release"),
            "-DPython3_EXECUTABLE=" + sys.executable,
            "-DTHRONG_BUILD_PYTHON=ON",
            "-DTHRONG_BUILD_TESTS=OFF", "-DTHRONG_BUILD_CLI=OFF", "-DTHRONG_BUILD_BENCH=OFF",
            "-DTHRONG_BUILD_VIEWER=OFF", "-DTHRONG_BUILD_EXAMPLES=OFF", "-DTHRONG_MPI=OFF",
            *shlex.split(os.environ.get("CMAKE_ARGS", "")),
        ]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run([cmake, "--build", str(build), "--target", "throng_python", "-j", jobs], check=True)

        built = sorted((build / "python" / "throng").glob("_throng*.so"))
        if not built:
            # python/CMakeLists.txt skips the module, with a message in the
            # configure output above, when the interpreter lacks Python.h or
            # NumPy: say it here too instead of packing a package without it.
            raise RuntimeError("setup.py: CMake built no throng._throng for %s: it needs its development "
                               "files (Python.h; Debian: python3-dev) and NumPy (python3-numpy); "
                               "see the configure output above" % sys.executable)
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)
        shutil.copymode(built[0], target)


# build/pip: setuptools' build tree (and CMake's, below it) beside the
# presets' build/release..., not setuptools' default build/lib.*.
setup(version=project_version(), ext_modules=[CMakeExtension()], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build/pip"}})
