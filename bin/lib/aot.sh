# shellcheck shell=bash
# The gateway's ahead-of-time cache (JDK 25's AOT cache, built on class-data sharing): the classes a start loads, parsed,
# verified and linked, stored once so that later starts map them instead of doing that work again (a checkout's
# `herald run` is ready in about 1.3 s instead of 2.5 s; docs/performance.md, "The launcher that reads nothing").
# Sourced by bin/herald (a checkout's cache, herald-app/target/herald.aot) and packaging/release/train.sh (a release's
# lib/herald.aot). The JVM ignores a cache that does not match it (another jar, another JDK), so a stale one only costs
# the time it would have saved.

# True when the JDK at $1 can write an AOT cache in one training run (-XX:AOTCacheOutput, JDK 25 and newer).
herald_aot_supported() {
  local v
  v=$(herald_java_version "$1") || return 1
  [ "$(herald_java_major "$v")" -ge 25 ]
}

# True when a checkout's scripts make and use a cache: HERALD_AOT is not 0 and the JDK at JAVA_HOME can make one.
herald_aot_wanted() {
  [ "${HERALD_AOT:-1}" != 0 ] && herald_aot_supported "$JAVA_HOME"
}

# The checkout at $1's cache file: HERALD_AOT_CACHE, else herald-app/target/herald.aot next to the jar.
herald_checkout_aot() {
  printf '%s\n' "${HERALD_AOT_CACHE:-$1/herald-app/target/herald.aot}"
}

# A TCP port on 127.0.0.1 that nothing listens on (bash's /dev/tcp; no other tool needed).
herald_free_port() {
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

# herald_await_ready LOG PID SECONDS: waits until LOG has Herald's ready line (true), PID has exited or SECONDS passed.
herald_await_ready() {
  local log=$1 pid=$2 seconds=$3
  for _ in $(seq 1 $((seconds * 10))); do
    grep -q 'Herald is ready' "$log" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q 'Herald is ready' "$log"
}

# herald_train_aot JAVA JAR CACHE WORK [JVM OPTION...]
# Runs the gateway once as a user would start it (`herald run --foreground --demo` in a home of its own under WORK, on a
# free loopback port, to ready; one API round trip; SIGTERM) with the given JVM options and -XX:AOTCacheOutput, and lets
# the JVM write CACHE as it exits (the file appears only when complete). Returns 1, with the run's output on standard
# error, when the gateway did not get ready or no cache was written. Takes about 10 s (most of it the JVM writing the
# cache after the drain).
herald_train_aot() {
  local java=$1 jar=$2 cache=$3 work=$4
  shift 4
  local port pid partial="$cache.partial.$$"
  rm -rf "$work" && mkdir -p "$work/home" || return 1
  port=$(herald_free_port) || { echo "aot - no free port for the training run" >&2; return 1; }
  printf 'platforms:\n  api_server:\n    host: 127.0.0.1\n    port: %s\n' "$port" > "$work/home/config.yaml"
  # a clean environment: nothing of the caller's reaches the training gateway (no HERALD_* setting, key or store, no
  # JAVA_TOOL_OPTIONS), so it can only ever open its own home
  env -i PATH="$PATH" HOME="$work" TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8 HERALD_HOME="$work/home" \
    "$java" "$@" "-XX:AOTCacheOutput=$partial" --enable-native-access=ALL-UNNAMED -jar "$jar" run --foreground --demo \
    > "$work/run.log" 2>&1 < /dev/null &
  pid=$!
  if ! herald_await_ready "$work/run.log" "$pid" 60; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$partial" "$partial.config"
    echo "aot - the training run did not get ready; its output:" >&2
    cat "$work/run.log" >&2
    return 1
  fi
  # one turn through the API with the demo model, so the classes of a turn are in the cache too
  local body='{"messages":[{"role":"user","content":"hello"}]}'
  if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
    printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nX-Herald-Session-Id: training\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
      "$port" "${#body}" "$body" >&3
    timeout 20 cat <&3 > /dev/null || true
    exec 3<&-
  fi
  kill -TERM "$pid"
  wait "$pid" || true
  if [ ! -s "$partial" ]; then
    rm -f "$partial" "$partial.config"
    echo "aot - the training run wrote no cache; its output:" >&2
    cat "$work/run.log" >&2
    return 1
  fi
  mv -f "$partial" "$cache"
}

# herald_prepare_aot JAR CACHE
# A checkout's cache: trains CACHE for JAR with the gateway's default options when CACHE is missing or older than JAR,
# one training at a time per cache (a second caller waits, then finds it fresh), with a line on standard error. A failed
# training says so, leaves CACHE.failed, and returns 0: Herald starts without a cache, and later starts do not try again
# (each try costs seconds) until the jar changes. Needs JAVA_HOME (bin/lib/jdk.sh).
herald_prepare_aot() {
  local jar=$1 cache=$2 lock_fd="" training
  herald_aot_settled "$jar" "$cache" && return 0
  if command -v flock >/dev/null 2>&1; then
    exec {lock_fd}>"${TMPDIR:-/tmp}/herald-aot-$(printf '%s' "$cache" | cksum | cut -d ' ' -f 1).lock"
    flock "$lock_fd"
  fi
  if ! herald_aot_settled "$jar" "$cache"; then
    echo "herald: preparing the start-up cache for this build (once, about 10 s; HERALD_AOT=0 skips it)..." >&2
    rm -f "$cache.failed"
    training=$(mktemp -d "${TMPDIR:-/tmp}/herald-aot.XXXXXX")
    # shellcheck source=jvm-options.sh
    . "$(dirname "${BASH_SOURCE[0]}")/jvm-options.sh"
    # a second try when the first fails: its port can be taken between choosing and binding it (tests start many
    # processes at once); a failure that repeats is the build's
    # shellcheck disable=SC2086 # a list of options
    if ! herald_train_aot "$JAVA_HOME/bin/java" "$jar" "$cache" "$training/run" $HERALD_GATEWAY_DEFAULT_OPTS \
      && ! { echo "herald: the start-up cache's training failed (output above); trying once more" >&2 \
             && herald_train_aot "$JAVA_HOME/bin/java" "$jar" "$cache" "$training/run" $HERALD_GATEWAY_DEFAULT_OPTS; }; then
      echo "herald: no start-up cache for this build (output above); Herald starts without it, and tries again after the next build" >&2
      : > "$cache.failed" 2>/dev/null || true
    fi
    rm -rf "$training"
  fi
  if [ -n "$lock_fd" ]; then
    exec {lock_fd}>&-
  fi
  return 0
}

# True when CACHE is up to date for JAR, or its training failed for this JAR already (CACHE.failed newer than JAR).
herald_aot_settled() {
  local jar=$1 cache=$2
  { [ -f "$cache" ] && [ ! "$cache" -ot "$jar" ]; } || { [ -f "$cache.failed" ] && [ ! "$cache.failed" -ot "$jar" ]; }
}
