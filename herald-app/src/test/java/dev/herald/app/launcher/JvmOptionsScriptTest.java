package dev.herald.app.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * bin/lib/jvm-options.sh (also a release's lib/jvm-options.sh) run by a POSIX sh: which JVM options the launcher gives
 * `herald ARGS...` for each way it is started. The processes behind it are checked by LauncherJvmOptionsIT.
 */
class JvmOptionsScriptTest {
    @Test
    void run_supervised_launcherGetsSmallOptions_andTheChildGetsTheGatewayDefaultsThenHeraldJavaOpts() throws Exception {
        Map<String, List<String>> o = options(Map.of("HERALD_JAVA_OPTS", "-Xmx2g"), "run", "--home", "/tmp/h");

        assertThat(o.get("jvm")).contains("-Xmx16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1").doesNotContain("-Xmx2g");
        assertThat(o.get("child")).containsExactly("-XX:+UseSerialGC", "-Xms32m", "-Xmx1g", "-Xmx2g");
    }

    @Test
    void run_foregroundUnderSystemdOrAsTheChild_oneJvmGetsTheGatewayOptions() throws Exception {
        for (Map<String, String> env : List.<Map<String, String>>of(Map.of(), Map.of("INVOCATION_ID", "abc"),
                Map.of("HERALD_SUPERVISED_CHILD", "1"))) {
            List<String> args = env.isEmpty() ? List.of("run", "--foreground") : List.of("run");
            Map<String, List<String>> o = options(env, args.toArray(String[]::new));

            assertThat(o.get("jvm")).as("env %s", env).containsExactly("-XX:+UseSerialGC", "-Xms32m", "-Xmx1g");
            assertThat(o.get("child")).as("env %s", env).isEmpty();
        }
    }

    @Test
    void heraldJavaOptsNamingAnotherCollector_replacesTheSerialOne() throws Exception {
        Map<String, List<String>> o = options(Map.of("HERALD_JAVA_OPTS", "-XX:+UseG1GC -Xmx2g"), "run", "--foreground");

        assertThat(o.get("jvm")).containsExactly("-Xms32m", "-Xmx1g", "-XX:+UseG1GC", "-Xmx2g");
    }

    @Test
    void otherCommands_getHeraldJavaOptsOnly() throws Exception {
        assertThat(options(Map.of("HERALD_JAVA_OPTS", "-Xmx64m"), "status").get("jvm")).containsExactly("-Xmx64m");
        assertThat(options(Map.of(), "config", "check").get("jvm")).isEmpty();
    }

    @Test
    void releaseCaches_theGatewaysToTheGateway_theLaunchersOwnToTheLauncher() throws Exception {
        Map<String, String> env = Map.of("HERALD_EXTRA_JVM_OPTS", "-XX:AOTCache=/r/lib/herald.aot",
                "HERALD_LAUNCHER_EXTRA_JVM_OPTS", "-XX:AOTCache=/r/lib/launcher.aot");

        Map<String, List<String>> supervised = options(env, "run");
        assertThat(supervised.get("jvm")).contains("-XX:AOTCache=/r/lib/launcher.aot").doesNotContain("-XX:AOTCache=/r/lib/herald.aot");
        assertThat(supervised.get("child")).contains("-XX:AOTCache=/r/lib/herald.aot").doesNotContain("-XX:AOTCache=/r/lib/launcher.aot");
        assertThat(options(env, "run", "--foreground").get("jvm")).contains("-XX:AOTCache=/r/lib/herald.aot");
        assertThat(options(env, "status").get("jvm")).containsExactly("-XX:AOTCache=/r/lib/herald.aot");
    }

    /** Sources the script in sh with only {@code env} set, calls herald_jvm_options ARGS, returns both option lists. */
    private static Map<String, List<String>> options(Map<String, String> env, String... args) throws Exception {
        Path script = Scripts.repositoryRoot().resolve("bin/lib/jvm-options.sh");
        String sh = ". '" + script + "'; herald_jvm_options \"$@\"; echo \"jvm:$HERALD_JVM_OPTIONS\"; echo \"child:${HERALD_CHILD_JAVA_OPTS:-}\"";
        List<String> cmd = new java.util.ArrayList<>(List.of("env", "-i", "PATH=/usr/bin:/bin"));
        env.forEach((k, v) -> cmd.add(k + "=" + v));
        cmd.addAll(List.of("sh", "-c", sh, "herald"));
        cmd.addAll(Arrays.asList(args));
        Scripts.Result r = Scripts.run(cmd, script.getParent(), Map.of(), Duration.ofSeconds(30));
        assertThat(r.exit()).as("stderr: %s", r.err()).isZero();
        Map<String, List<String>> out = new HashMap<>();
        for (String line : r.out().lines().toList()) {
            int colon = line.indexOf(':');
            String value = line.substring(colon + 1).strip();
            out.put(line.substring(0, colon), value.isEmpty() ? List.of() : Arrays.asList(value.split("\\s+")));
        }
        return out;
    }
}
