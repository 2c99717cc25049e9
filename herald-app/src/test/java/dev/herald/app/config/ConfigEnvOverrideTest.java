package dev.herald.app.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The freshness window and the restore-drain bound can be set from the environment: Herald's name, then the legacy one. */
class ConfigEnvOverrideTest {
    @TempDir
    Path home;

    @Test
    void freshness_heraldVariable_beatsTheFile() {
        LoadedConfig loaded = new ConfigFixture(home).write("gateway:\n  auto_continue_freshness_seconds: 10\n")
                .load(Map.of("HERALD_AUTO_CONTINUE_FRESHNESS", "120"));

        assertThat(loaded.config().gateway().autoContinueFreshness()).isEqualTo(Duration.ofSeconds(120));
        assertThat(loaded.envOverrides()).containsEntry("gateway.auto_continue_freshness_seconds", "HERALD_AUTO_CONTINUE_FRESHNESS");
    }

    @Test
    void freshness_legacyHermesVariable_isHonouredWhenHeraldsIsUnset() {
        HeraldConfig c = new ConfigFixture(home).write("")
                .load(Map.of("HERMES_AUTO_CONTINUE_FRESHNESS", "1800")).config();

        assertThat(c.gateway().autoContinueFreshness()).isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void freshness_heraldVariable_beatsTheLegacyOne() {
        HeraldConfig c = new ConfigFixture(home).write("").load(Map.of(
                "HERALD_AUTO_CONTINUE_FRESHNESS", "60", "HERMES_AUTO_CONTINUE_FRESHNESS", "1800")).config();

        assertThat(c.gateway().autoContinueFreshness()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void freshness_blankHeraldVariable_fallsThroughToTheLegacyOne() {
        HeraldConfig c = new ConfigFixture(home).write("").load(Map.of(
                "HERALD_AUTO_CONTINUE_FRESHNESS", " ", "HERMES_AUTO_CONTINUE_FRESHNESS", "5")).config();

        assertThat(c.gateway().autoContinueFreshness()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void freshness_zeroOrNegative_isAllowedAndDisablesTheGate() {
        ConfigFixture f = new ConfigFixture(home).write("");

        assertThat(f.load(Map.of("HERALD_AUTO_CONTINUE_FRESHNESS", "0")).config().gateway().autoContinueFreshness()).isZero();
        assertThat(f.load(Map.of("HERALD_AUTO_CONTINUE_FRESHNESS", "-1")).config().gateway().autoContinueFreshness().isNegative()).isTrue();
    }

    @Test
    void freshness_malformedVariable_isAConfigErrorNamingTheVariable() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("gateway:\n  auto_continue_freshness_seconds: 10\n", Map.of("HERALD_AUTO_CONTINUE_FRESHNESS", "1h"));

        assertThat(message).isEqualTo("config - environment variable HERALD_AUTO_CONTINUE_FRESHNESS: "
                + "gateway.auto_continue_freshness_seconds must be a number, was \"1h\"");
    }

    @Test
    void freshness_notFiniteVariable_isAConfigErrorNamingTheVariable() {
        String message = new ConfigFixture(home).error("", Map.of("HERMES_AUTO_CONTINUE_FRESHNESS", "NaN"));

        assertThat(message).startsWith("config - environment variable HERMES_AUTO_CONTINUE_FRESHNESS: "
                + "gateway.auto_continue_freshness_seconds must be a number of seconds");
    }

    @Test
    void restoreDrain_fractionalLegacyVariable_isHonoured() {
        HeraldConfig c = new ConfigFixture(home).write("")
                .load(Map.of("HERMES_STARTUP_RESTORE_DRAIN_TIMEOUT", "0.05")).config();

        assertThat(c.gateway().startupRestoreDrainTimeout()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void restoreDrain_heraldVariable_beatsFileAndLegacy() {
        HeraldConfig c = new ConfigFixture(home).write("gateway:\n  startup_restore_drain_timeout_seconds: 9\n").load(Map.of(
                "HERALD_STARTUP_RESTORE_DRAIN_TIMEOUT", "2", "HERMES_STARTUP_RESTORE_DRAIN_TIMEOUT", "7")).config();

        assertThat(c.gateway().startupRestoreDrainTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void restoreDrain_negativeVariable_isAConfigErrorNamingTheVariable() {
        String message = new ConfigFixture(home).error("", Map.of("HERMES_STARTUP_RESTORE_DRAIN_TIMEOUT", "-3"));

        assertThat(message).isEqualTo("config - environment variable HERMES_STARTUP_RESTORE_DRAIN_TIMEOUT: "
                + "gateway.startup_restore_drain_timeout_seconds must be 0 or more seconds, was -3");
    }

    @Test
    void overrides_applyWithoutAConfigFile() {
        LoadedConfig loaded = new ConfigLoader(Map.of("HERALD_STARTUP_RESTORE_DRAIN_TIMEOUT", "4"))
                .load(home.resolve("config.yaml"), false, home);

        assertThat(loaded.fileFound()).isFalse();
        assertThat(loaded.config().gateway().startupRestoreDrainTimeout()).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void effectiveConfig_marksTheValuesAnOverrideSet() {
        LoadedConfig loaded = new ConfigFixture(home).write("")
                .load(Map.of("HERMES_AUTO_CONTINUE_FRESHNESS", "90"));

        assertThat(loaded.effective()).contains("auto_continue_freshness_seconds: 90   # from HERMES_AUTO_CONTINUE_FRESHNESS");
    }
}
