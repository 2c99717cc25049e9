package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald config check} with a PostgreSQL store: a bad URL stops it naming the key; a good one never shows the password. */
class StoreConfigCheckTest {
    @TempDir
    Path userHome;

    @Test
    void badStoreUrl_failsConfigCheckNamingTheKey_andExits78() throws IOException {
        Path home = Files.createDirectories(userHome.resolve("h"));
        Path file = Files.writeString(home.resolve("config.yaml"), "store:\n  url: mysql://localhost/herald\n");

        CliRun run = CliRun.of(Map.of(), userHome, "config", "check", "--home", home.toString());

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("config - " + file + " line 2: store.url must be a PostgreSQL JDBC URL");
    }

    @Test
    void postgresStore_passesConfigCheck_withThePasswordMasked() throws IOException {
        Path home = Files.createDirectories(userHome.resolve("h"));
        Files.writeString(home.resolve("config.yaml"), """
                store:
                  url: jdbc:postgresql://localhost:5432/herald
                  user: herald
                  password: ${HERALD_STORE_PASSWORD}
                """);

        CliRun run = CliRun.of(Map.of("HERALD_STORE_PASSWORD", "s3cret-store-pass"), userHome, "config", "check", "--home", home.toString());

        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("  url: jdbc:postgresql://localhost:5432/herald\n").contains("  password: ****\n")
                .doesNotContain("s3cret-store-pass");
        assertThat(home.resolve("herald.db")).as("no SQLite file").doesNotExist();
    }
}
