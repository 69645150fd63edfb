#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs throng into temporary prefixes, static and shared, and builds an
# outside program (tests/install/) against each both ways: CMake's
# find_package(throng CONFIG) and pkg-config. Every program must run and
# agree on the state hash; the shared library must export only throng_
# symbols. Usage: test_install.sh SOURCE_DIR WORK_DIR [C_COMPILER]
set -euo pipefail
src=$1 work=$2 cc=${3:-cc}
rm -rf "$work"; mkdir -p "$work"
hashes=()
for kind in static shared; do
	shared=OFF; [[ $kind == shared ]] && shared=ON
	prefix="$work/$kind/prefix"
	cmake -S "$src" -B "$work/$kind/build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER="$cc" \
		-DBUILD_SHARED_LIBS=$shared -DTHRONG_BUILD_TESTS=OFF -DTHRONG_BUILD_CLI=OFF -DTHRONG_BUILD_BENCH=OFF \
		-DTHRONG_BUILD_VIEWER=OFF -DTHRONG_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
	cmake --build "$work/$kind/build" -j2 --target throng >/dev/null
	cmake --install "$work/$kind/build" >/dev/null
	lib=$(find "$prefix" -name "libthrong.so" -o -name "libthrong.a" | head -n 1)
	echo "$kind: installed $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"
	if [[ $kind == shared ]]; then
		# Only the public API leaves the shared library.
		leaked=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDRB]/ {print $3}' | grep -v '^throng_' || true)
		if [[ -n $leaked ]]; then
			echo "FAIL: $lib exports non-public symbols: $(echo "$leaked" | head -n 10 | tr '\n' ' ')" >&2
			exit 1
		fi
		echo "shared: exports $(nm -D --defined-only "$lib" | grep -c ' T throng_') throng_ functions and nothing else"
	fi
	# 1. find_package
	cmake -S "$src/tests/install" -B "$work/$kind/consumer" -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_PREFIX_PATH="$prefix" >/dev/null
	cmake --build "$work/$kind/consumer" >/dev/null
	out1=$("$work/$kind/consumer/consumer" "$work/$kind/a.thr")
	# 2. pkg-config (a static library names its dependencies with --static)
	static=(); [[ $kind == static ]] && static=(--static)
	pcdir=$(dirname "$(find "$prefix" -name throng.pc)")
	flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config "${static[@]}" --cflags --libs throng)
	# shellcheck disable=SC2086 # the flags are words
	"$cc" -std=c11 -Wall -Werror "$src/tests/install/consumer.c" -o "$work/$kind/consumer_pc" $flags \
		-Wl,-rpath,"$(dirname "$lib")"
	out2=$("$work/$kind/consumer_pc" "$work/$kind/b.thr")
	echo "$kind find_package: $out1"
	echo "$kind pkg-config:   $out2"
	for out in "$out1" "$out2"; do
		[[ $out == "agents 300 frames 20 complete yes hash "* ]] || { echo "FAIL: unexpected output: $out" >&2; exit 1; }
		hashes+=("${out##* }")
	done
done
if [[ $(printf '%s\n' "${hashes[@]}" | sort -u | wc -l) != 1 ]]; then
	echo "FAIL: the four programs disagree on the hash: ${hashes[*]}" >&2
	exit 1
fi
echo "install: 4 programs (static/shared x find_package/pkg-config) agree, hash ${hashes[0]}"
