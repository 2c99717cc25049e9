# shellcheck shell=sh
# The JVM options of `herald` (sourced by bin/herald and, copied, by a release's bin/herald; POSIX sh).
#
# herald_jvm_options ARGS... sets HERALD_JVM_OPTIONS (a word list) for the JVM that runs `herald ARGS...`:
#   - `herald run` that supervises (no --foreground, not under systemd, not a supervisor's child): this JVM only
#     starts the gateway JVM, restarts it and passes signals on, so it runs small (HERALD_LAUNCHER_JAVA_OPTS, default
#     below); the gateway JVM's options go to the supervisor in HERALD_CHILD_JAVA_OPTS;
#   - `herald run` in the foreground (systemd, containers, --foreground, the supervisor's child): the gateway's options;
#   - any other command: HERALD_JAVA_OPTS only.
# The gateway's options are HERALD_GATEWAY_DEFAULT_OPTS followed by the user's HERALD_JAVA_OPTS: the JVM takes the
# last of two values of one option, so HERALD_JAVA_OPTS=-Xmx2g overrides the default heap bound; a collector named
# there (-XX:+UseG1GC) replaces the default one.
# HERALD_EXTRA_JVM_OPTS (a release's AOT cache) goes to every JVM but the supervising launcher's, which gets
# HERALD_LAUNCHER_EXTRA_JVM_OPTS (a release's small AOT cache of the launcher's own classes) instead.

# The supervising launcher's JVM: a small heap, one GC thread, no optimising compiler (it runs little code, once).
HERALD_LAUNCHER_DEFAULT_OPTS="-Xmx16m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k -XX:CICompilerCount=1"
# The gateway JVM: the serial collector, a small start heap and a ceiling (not a target) of 1 GB; see
# docs/performance.md ("after items 5-6") for the measurements behind each. The gateway itself collects the old
# generation before the serial collector grows it with garbage toward the ceiling (OldGenTrim, -Dherald.heap.trim_mib).
HERALD_GATEWAY_GC_OPTS="-XX:+UseSerialGC"
HERALD_GATEWAY_DEFAULT_OPTS="$HERALD_GATEWAY_GC_OPTS -Xms32m -Xmx1g"

herald_jvm_options() {
  herald_gateway_opts="$HERALD_GATEWAY_DEFAULT_OPTS ${HERALD_JAVA_OPTS:-}"
  case " ${HERALD_JAVA_OPTS:-} " in
    # another collector named by the user: the JVM refuses two, so the default one goes
    *" -XX:+Use"*"GC "*) herald_gateway_opts="${HERALD_GATEWAY_DEFAULT_OPTS#"$HERALD_GATEWAY_GC_OPTS"} ${HERALD_JAVA_OPTS:-}" ;;
  esac
  HERALD_JVM_OPTIONS="${HERALD_EXTRA_JVM_OPTS:-} ${HERALD_JAVA_OPTS:-}"
  [ "${1:-}" = run ] || return 0
  herald_supervised=1
  for herald_arg in "$@"; do
    [ "$herald_arg" = --foreground ] && herald_supervised=0
  done
  if [ "${HERALD_SUPERVISED_CHILD:-}" = 1 ] || [ -n "${INVOCATION_ID:-}" ]; then
    herald_supervised=0
  fi
  if [ "$herald_supervised" = 1 ]; then
    HERALD_JVM_OPTIONS="${HERALD_LAUNCHER_EXTRA_JVM_OPTS:-} ${HERALD_LAUNCHER_JAVA_OPTS:-$HERALD_LAUNCHER_DEFAULT_OPTS}"
    HERALD_CHILD_JAVA_OPTS="${HERALD_EXTRA_JVM_OPTS:-} $herald_gateway_opts"
    export HERALD_CHILD_JAVA_OPTS
  else
    HERALD_JVM_OPTIONS="${HERALD_EXTRA_JVM_OPTS:-} $herald_gateway_opts"
  fi
}
