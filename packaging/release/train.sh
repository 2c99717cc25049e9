#!/usr/bin/env bash
# The release's ahead-of-time cache (lib/herald.aot, JDK 25's AOT cache, built on class-data sharing): runs
# the staged release once as a user would start it (`herald run` to ready, one API round trip with the demo
# model, SIGTERM) and lets the JVM store every class it loaded, parsed, verified and linked, at exit. Later
# starts map that file instead of doing that work again. The JVM ignores a cache that does not match it.
# A second, supervised run to ready makes lib/launcher.aot: the supervising launcher JVM's own classes only, so that
# small JVM maps 25 MB instead of the gateway's 46 MB (docs/performance.md, "after items 5-6").
# The gateway's run is bin/lib/aot.sh's (a checkout's bin/herald makes its cache the same way).
# Usage: train.sh STAGE_DIR WORK_DIR
set -euo pipefail
stage=$1
work=$2
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=../../bin/lib/jdk.sh
. "$here/../../bin/lib/jdk.sh"
# shellcheck source=../../bin/lib/aot.sh
. "$here/../../bin/lib/aot.sh"
rm -rf "$work" && mkdir -p "$work"

# the gateway JVM's options (lib/jvm-options.sh), as bin/herald and the supervisor pass them, or the JVM would not use
# the cache
# shellcheck source=../../bin/lib/jvm-options.sh
. "$stage/lib/jvm-options.sh"
# shellcheck disable=SC2086 # a list of options
herald_train_aot "$stage/runtime/bin/java" "$stage/lib/herald.jar" "$stage/lib/herald.aot" "$work/gateway" \
  $HERALD_GATEWAY_DEFAULT_OPTS
port=$(herald_free_port)
mkdir -p "$work/home"
printf 'platforms:\n  api_server:\n    port: %s\n' "$port" > "$work/home/config.yaml"

# the launcher: `herald run` supervised (its options as lib/jvm-options.sh gives them), the gateway child on the cache
# just made; the launcher writes its cache when it exits after the child's drain
# shellcheck disable=SC2206 # a list of options
launcher=("$stage/runtime/bin/java" $HERALD_LAUNCHER_DEFAULT_OPTS "-XX:AOTCacheOutput=$stage/lib/launcher.aot"
          --enable-native-access=ALL-UNNAMED -jar "$stage/lib/herald.jar")
env -u JAVA_TOOL_OPTIONS -u INVOCATION_ID -u HERALD_SUPERVISED_CHILD HERALD_HOME="$work/home" \
  HERALD_CHILD_JAVA_OPTS="-XX:AOTCache=$stage/lib/herald.aot $HERALD_GATEWAY_DEFAULT_OPTS" \
  "${launcher[@]}" run --demo > "$work/launcher.log" 2>&1 &
pid=$!
herald_await_ready "$work/launcher.log" "$pid" 30 || true
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || { echo "train - the supervised run failed; no launcher cache; its output:" >&2; cat "$work/launcher.log" >&2;
  rm -f "$stage/lib/launcher.aot"; }
