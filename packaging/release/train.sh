#!/usr/bin/env bash
# The release's ahead-of-time cache (lib/herald.aot, JDK 25's AOT cache, built on class-data sharing): runs
# the staged release once as a user would start it (`herald run` to ready, one API round trip with the demo
# model, SIGTERM) and lets the JVM store every class it loaded, parsed, verified and linked, at exit. Later
# starts map that file instead of doing that work again. The JVM ignores a cache that does not match it.
# A second, supervised run to ready makes lib/launcher.aot: the supervising launcher JVM's own classes only, so that
# small JVM maps 25 MB instead of the gateway's 46 MB (docs/performance.md, "after items 5-6").
# Usage: train.sh STAGE_DIR WORK_DIR
set -euo pipefail
stage=$1
work=$2
rm -rf "$work" && mkdir -p "$work/home"

free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
port=$(free_port)
printf 'platforms:\n  api_server:\n    port: %s\n' "$port" > "$work/home/config.yaml"

# the gateway JVM's options (lib/jvm-options.sh), as bin/herald and the supervisor pass them, or the JVM would not use
# the cache
# shellcheck source=../../bin/lib/jvm-options.sh
. "$stage/lib/jvm-options.sh"
# shellcheck disable=SC2206 # a list of options
java=("$stage/runtime/bin/java" $HERALD_GATEWAY_DEFAULT_OPTS "-XX:AOTCacheOutput=$stage/lib/herald.aot"
      --enable-native-access=ALL-UNNAMED -jar "$stage/lib/herald.jar")
env -u JAVA_TOOL_OPTIONS HERALD_HOME="$work/home" "${java[@]}" run --foreground --demo > "$work/run.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q 'Herald is ready' "$work/run.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if ! grep -q 'Herald is ready' "$work/run.log"; then
  kill -KILL "$pid" 2>/dev/null || true
  echo "train - herald did not get ready; its output:" >&2
  cat "$work/run.log" >&2
  exit 1
fi
if command -v curl >/dev/null; then
  curl -sS -m 20 -H 'Content-Type: application/json' -H 'X-Herald-Session-Id: training' \
    -d '{"messages":[{"role":"user","content":"hello"}]}' "http://127.0.0.1:$port/v1/chat/completions" >/dev/null || true
  curl -sS -m 5 "http://127.0.0.1:$port/health/ready" >/dev/null || true
fi
kill -TERM "$pid"
wait "$pid"
[ -s "$stage/lib/herald.aot" ]

# the launcher: `herald run` supervised (its options as lib/jvm-options.sh gives them), the gateway child on the cache
# just made; the launcher writes its cache when it exits after the child's drain
# shellcheck disable=SC2206 # a list of options
launcher=("$stage/runtime/bin/java" $HERALD_LAUNCHER_DEFAULT_OPTS "-XX:AOTCacheOutput=$stage/lib/launcher.aot"
          --enable-native-access=ALL-UNNAMED -jar "$stage/lib/herald.jar")
env -u JAVA_TOOL_OPTIONS -u INVOCATION_ID -u HERALD_SUPERVISED_CHILD HERALD_HOME="$work/home" \
  HERALD_CHILD_JAVA_OPTS="-XX:AOTCache=$stage/lib/herald.aot $HERALD_GATEWAY_DEFAULT_OPTS" \
  "${launcher[@]}" run --demo > "$work/launcher.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q 'Herald is ready' "$work/launcher.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || { echo "train - the supervised run failed; no launcher cache; its output:" >&2; cat "$work/launcher.log" >&2;
  rm -f "$stage/lib/launcher.aot"; }
