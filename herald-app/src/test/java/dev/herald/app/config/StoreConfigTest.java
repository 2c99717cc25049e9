package dev.herald.app.config;

import dev.herald.store.StoreConfig;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code store:} SQLite by default, PostgreSQL when {@code url} is set; the password never shows. */
class StoreConfigTest {
    private static final String PASSWORD = "pg-pass-7f3c9e21";

    @TempDir
    Path home;

    @Test
    void url_choosesPostgres_withThePasswordFromTheEnvironment_andNoSqlitePath() {
        LoadedConfig loaded = new ConfigFixture(home).write("""
                store:
                  url: jdbc:postgresql://db.internal:5432/herald
                  user: herald
                  password: ${HERALD_STORE_PASSWORD}
                """).load(Map.of("HERALD_STORE_PASSWORD", PASSWORD));
        StoreConfig store = loaded.config().store();

        assertThat(store.postgres()).isTrue();
        assertThat(store.path()).isNull();
        assertThat(store.url()).isEqualTo("jdbc:postgresql://db.internal:5432/herald");
        assertThat(store.user()).isEqualTo("herald");
        assertThat(store.password().reveal()).contains(PASSWORD);
        assertThat(loaded.effective()).doesNotContain(PASSWORD).contains("  url: jdbc:postgresql://db.internal:5432/herald\n")
                .contains("\n  password: ****");
        assertThat(loaded.config().toString()).doesNotContain(PASSWORD);
    }

    @Test
    void noUrl_keepsSqliteInTheHome() {
        StoreConfig store = new ConfigFixture(home).config("").store();

        assertThat(store.postgres()).isFalse();
        assertThat(store.path()).isEqualTo(home.resolve("herald.db").toAbsolutePath());
    }

    @Test
    void urlThatIsNotAPostgresJdbcUrl_isRejectedNamingTheKey() {
        ConfigFixture f = new ConfigFixture(home);

        String error = f.error("store:\n  url: postgres://db.internal:5432/herald\n");

        assertThat(error).startsWith("config - " + f.file + " line 2: store.url must be a PostgreSQL JDBC URL such as "
                + "jdbc:postgresql://localhost:5432/herald");
    }

    @Test
    void pathAndUrlBothSet_areRejected() {
        ConfigFixture f = new ConfigFixture(home);

        String error = f.error("store:\n  path: data/h.db\n  url: jdbc:postgresql://localhost/herald\n");

        assertThat(error).contains("store.url and store.path are both set");
    }

    @Test
    void passwordInsideTheUrl_isRejectedWithoutQuotingIt() {
        String error = new ConfigFixture(home).error("store:\n  url: jdbc:postgresql://localhost/herald?password=" + PASSWORD + "\n");

        assertThat(error).contains("store.url must not carry the password").contains("store.password").doesNotContain(PASSWORD);
    }

    @Test
    void userOrPasswordWithoutUrl_areRejectedNamingTheKey() {
        ConfigFixture f = new ConfigFixture(home);

        assertThat(f.error("store:\n  user: herald\n")).contains("store.user is set but store.url is not");
        assertThat(f.error("store:\n  password: " + PASSWORD + "\n")).contains("store.password is set but store.url is not")
                .doesNotContain(PASSWORD);
    }

    @Test
    void outageWaitAndLowSpaceWarning_defaultTo60SecondsAnd512MiB_andAreRead() {
        StoreConfig defaults = new ConfigFixture(home).config("").store();
        StoreConfig set = new ConfigFixture(home).config("store:\n  outage_wait_seconds: 5\n  low_space_warning_mb: 0\n").store();

        assertThat(defaults.outageWait()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(defaults.lowSpaceWarningBytes()).isEqualTo(512L * 1024 * 1024);
        assertThat(set.outageWait()).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(set.lowSpaceWarningBytes()).isZero();
    }

    @Test
    void outageWaitOrLowSpaceWarningOutOfRange_isRejectedNamingTheKeyAndTheValue() {
        ConfigFixture f = new ConfigFixture(home);

        assertThat(f.error("store:\n  outage_wait_seconds: -1\n")).contains("store.outage_wait_seconds must be 0..3600 seconds, was -1");
        assertThat(f.error("store:\n  outage_wait_seconds: 7200\n")).contains("store.outage_wait_seconds must be 0..3600 seconds, was 7200");
        assertThat(f.error("store:\n  low_space_warning_mb: -5\n")).contains("store.low_space_warning_mb must be 0 (no warning)", "was -5");
    }
}
