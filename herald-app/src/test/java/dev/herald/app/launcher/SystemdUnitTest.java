package dev.herald.app.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped systemd unit agrees with the exit codes of {@code herald run}: 75 is restarted at once, 78 (a
 * configuration or environment error no restart can fix) and 64 are never restarted, nothing else in the unit can
 * fail with 78 and be restarted, and what Herald creates is private to its user.
 */
class SystemdUnitTest {
    private static List<String> values(List<String> lines, String key) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(key + "=")) {
                out.add(line.substring(key.length() + 1).strip());
            }
        }
        return out;
    }

    @Test
    void unit_restartsCrashesAndRestartRequests_neverConfigurationOrEnvironmentErrors() throws Exception {
        List<String> unit = Files.readAllLines(Scripts.repositoryRoot().resolve(Path.of("packaging", "systemd", "herald.service")));

        assertThat(values(unit, "Restart")).containsExactly("on-failure");
        assertThat(values(unit, "RestartForceExitStatus")).containsExactly("75");
        assertThat(Arrays.asList(values(unit, "RestartPreventExitStatus").get(0).split("\\s+"))).contains("78", "64");
        assertThat(values(unit, "ExecStartPre")).as("a failing ExecStartPre is restarted whatever its exit code").isEmpty();
        assertThat(values(unit, "ExecStart")).singleElement().asString().endsWith(" run");
        assertThat(values(unit, "UMask")).containsExactly("0077");
        assertThat(Integer.parseInt(values(unit, "TimeoutStopSec").get(0))).as("longer than the default drain of 60 s").isGreaterThan(60);
    }
}
