#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs throng into temporary prefixes, static and shared, in two
# rounds: first the install component `core` alone, then all three.
#   core alone: an outside program that uses the core (tests/install/
#     core_only.c) builds with find_package(throng) and with pkg-config
#     throng, runs, and links neither libyaml nor SQLite nor the other two
#     libraries; a project that asks for the components scene and io fails
#     and says they are not installed.
#   all three: an outside program that uses each library (tests/install/
#     consumer.c) builds with find_package(throng COMPONENTS scene io) and
#     with pkg-config throng-scene throng-io, and runs.
# Every program runs without LD_LIBRARY_PATH: a shared build in a prefix
# the dynamic linker does not search gives pkg-config's line a run path,
# and libthrong_scene and libthrong_io find libthrong through $ORIGIN.
# The programs of one kind agree on the state hash. Shared libraries: each
# has its SONAME; libthrong_scene and libthrong_io export only throng_
# symbols, and libthrong beyond those only what its two components use.
# Usage: test_install.sh SOURCE_DIR WORK_DIR [C_COMPILER]
set -euo pipefail
src=$1 work=$2 cc=${3:-cc}
rm -rf "$work"; mkdir -p "$work"
core_hashes=() all_hashes=()

fail() { echo "FAIL: $*" >&2; exit 1; }

# What an executable needs (NEEDED, and for a shared build ldd's list) and
# which yaml_/sqlite3_ symbols it holds or calls: none of the scene's or
# io's dependencies may appear in a program that uses the core alone.
check_core_only() {
	local exe=$1 needed
	needed=$(readelf -d "$exe" | awk '/NEEDED/ {print $NF}' | tr -d '[]' | tr '\n' ' ')
	if [[ $needed =~ (yaml|sqlite|geos|throng_scene|throng_io) ]]; then
		fail "$exe needs $needed"
	fi
	# The libraries' names only (ldd's first column): a path holding one of
	# the words (a build directory /tmp/b-sqlite) is no dependency.
	if ldd "$exe" | awk '{print $1}' | grep -E 'yaml|sqlite|geos|throng_scene|throng_io'; then
		fail "$exe loads the above"
	fi
	if nm "$exe" | grep -E ' (yaml_|sqlite3_|throng_scene_|throng_exporter_)'; then
		fail "$exe holds or calls the above"
	fi
	echo "  $(basename "$exe"): NEEDED $needed"
}

for kind in static shared; do
	shared=OFF; [[ $kind == shared ]] && shared=ON
	build="$work/$kind/build" prefix="$work/$kind/prefix"
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER="$cc" \
		-DBUILD_SHARED_LIBS=$shared -DTHRONG_BUILD_TESTS=OFF -DTHRONG_BUILD_CLI=OFF -DTHRONG_BUILD_BENCH=OFF \
		-DTHRONG_BUILD_VIEWER=OFF -DTHRONG_BUILD_EXAMPLES=OFF -DTHRONG_BUILD_PYTHON=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
	cmake --build "$build" -j2 --target throng_lib throng_scene_lib throng_io_lib >/dev/null
	static=(); [[ $kind == static ]] && static=(--static)
	pc() { PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name throng.pc)")" pkg-config "${static[@]}" "$@"; }

	# Round 1: the core alone.
	cmake --install "$build" --component core >/dev/null
	echo "$kind core: installed $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
	for absent in scenario.h scenario_file.h scene_part.h export.h libthrong_scene libthrong_io throng-scene.pc \
		throng_sceneTargets.cmake; do
		[[ -z $(find "$prefix" -name "$absent*") ]] || fail "the core component installs $absent"
	done
	# Every header the core installs compiles on its own with only the core there.
	for h in "$prefix"/include/throng/*.h; do
		echo "#include \"throng/$(basename "$h")\"" |
			"$cc" -std=c11 -Wall -Werror -fsyntax-only -I"$prefix/include" -x c - ||
			fail "the core's $(basename "$h") does not compile alone"
	done
	lib=$(find "$prefix" -name "libthrong.so" -o -name "libthrong.a" | head -n 1)
	libdir=$(dirname "$lib")
	cmake -S "$src/tests/install" -B "$work/$kind/core" -DTHRONG_WANT=core -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_PREFIX_PATH="$prefix" >/dev/null
	cmake --build "$work/$kind/core" >/dev/null
	# shellcheck disable=SC2046 # the flags are words
	"$cc" -std=c11 -Wall -Werror "$src/tests/install/core_only.c" -o "$work/$kind/core_only_pc" \
		$(pc --cflags --libs throng)
	for exe in "$work/$kind/core/core_only" "$work/$kind/core_only_pc"; do
		check_core_only "$exe"
		out=$(env -u LD_LIBRARY_PATH "$exe")
		echo "  $(basename "$exe"): $out"
		[[ $out == "core: agents 200 steps 20 hash "* ]] || fail "unexpected output: $out"
		core_hashes+=("${out##* }")
	done
	# A project that needs the components scene and io does not configure.
	if cmake -S "$src/tests/install" -B "$work/$kind/missing" -DTHRONG_WANT=all -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_PREFIX_PATH="$prefix" >"$work/$kind/missing.log" 2>&1; then
		fail "find_package(throng REQUIRED COMPONENTS scene io) succeeded with the core alone installed"
	fi
	said=$(tr -s ' \n' ' ' <"$work/$kind/missing.log") # cmake wraps the message
	for comp in scene io; do
		[[ $said == *"the component '$comp' is not installed"* ]] ||
			{ cat "$work/$kind/missing.log" >&2; fail "find_package's failure does not name the component $comp"; }
	done
	echo "  find_package(throng REQUIRED COMPONENTS scene io) fails: the components scene and io are not installed"

	# Round 2: all three.
	cmake --install "$build" >/dev/null
	echo "$kind all: installed $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
	for h in "$prefix"/include/throng/*.h; do
		echo "#include \"throng/$(basename "$h")\"" |
			"$cc" -std=c11 -Wall -Werror -fsyntax-only -I"$prefix/include" -x c - ||
			fail "the installed $(basename "$h") does not compile alone"
	done
	if [[ $kind == shared ]]; then
		for name in throng throng_scene throng_io; do
			soname=$(readelf -d "$libdir/lib$name.so" | awk '/SONAME/ {print $NF}')
			[[ $soname == "[lib$name.so.0]" ]] || fail "lib$name.so has SONAME $soname"
		done
		for name in throng_scene throng_io; do
			runpath=$(readelf -d "$libdir/lib$name.so" | awk '/RUNPATH|RPATH/ {print $NF}')
			[[ $runpath == '[$ORIGIN]' ]] || fail "lib$name.so has run path '$runpath', not \$ORIGIN"
		done
		exports() { nm -D --defined-only "$libdir/lib$1.so" | awk '$2 ~ /[TDRBV]/ {print $3}'; }
		for name in throng_scene throng_io; do
			leaked=$(exports "$name" | grep -v '^throng_' || true)
			[[ -z $leaked ]] || fail "lib$name.so exports non-public symbols: $(echo "$leaked" | head -n 10 | tr '\n' ' ')"
		done
		used=$(nm -D --undefined-only "$libdir/libthrong_scene.so" "$libdir/libthrong_io.so" | awk '{print $2}')
		extra=$(exports throng | grep -v '^throng_' | sort -u)
		unused=$(comm -23 <(echo "$extra") <(echo "$used" | sort -u) | sed '/^$/d')
		[[ -z $unused ]] || fail "libthrong.so exports private symbols its components do not use: $(echo "$unused" | tr '\n' ' ')"
		echo "  exports: libthrong $(exports throng | grep -c '^throng_') throng_ and $(echo "$extra" | sed '/^$/d' | wc -l) thr_ for its components," \
			"libthrong_scene $(exports throng_scene | wc -l), libthrong_io $(exports throng_io | wc -l)"
	fi
	cmake -S "$src/tests/install" -B "$work/$kind/all" -DTHRONG_WANT=all -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_PREFIX_PATH="$prefix" >/dev/null
	cmake --build "$work/$kind/all" >/dev/null
	# shellcheck disable=SC2046 # the flags are words
	"$cc" -std=c11 -Wall -Werror "$src/tests/install/consumer.c" -o "$work/$kind/consumer_pc" \
		$(pc --cflags --libs throng-scene throng-io)
	for exe in "$work/$kind/all/consumer" "$work/$kind/consumer_pc"; do
		out=$(env -u LD_LIBRARY_PATH "$exe" "$exe.thr")
		echo "  $(basename "$exe"): $out"
		[[ $out == "agents 300 frames 20 complete yes hash "* ]] || fail "unexpected output: $out"
		all_hashes+=("${out##* }")
	done
done
for set in core_hashes all_hashes; do
	declare -n hashes=$set
	[[ $(printf '%s\n' "${hashes[@]}" | sort -u | wc -l) == 1 ]] || fail "the programs disagree on the hash: ${hashes[*]}"
done
echo "install: 8 programs (core alone and all three x static/shared x find_package/pkg-config) run;" \
	"core hash ${core_hashes[0]}, scene+io hash ${all_hashes[0]}"
