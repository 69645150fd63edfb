#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes examples/NAME.yaml for every built-in scene with `throng save`
# (tests/test_scene_save.c fails when one is stale). circle, field and
# dense are written at 1,000 agents (their default of 10,000 would make 1 MB
# files).
# Usage: examples/make_examples.sh [path/to/throng]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
throng=${1:-$here/../build/release/cli/throng}
for name in $("$throng" list | awk '{print $1}'); do
	case $name in
	circle | field | dense) agents="--agents 1000" ;;
	*) agents="" ;;
	esac
	# shellcheck disable=SC2086 # $agents is empty or two words
	"$throng" save "$name" $agents --out "$here/$name.yaml.new"
	{ echo "# SPDX-License-Identifier: MIT"; cat "$here/$name.yaml.new"; } >"$here/$name.yaml"
	rm "$here/$name.yaml.new"
done
