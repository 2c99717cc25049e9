package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.session.StoreException;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.PostgresTestServer;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.store.StoreOwner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Herald opens the store its configuration names: PostgreSQL through {@code store.url}, else the SQLite file. */
class StoresTest {
    @TempDir
    Path home;

    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    private HeraldConfig load(String yaml, Map<String, String> env) throws IOException {
        Files.writeString(home.resolve("config.yaml"), yaml);
        return new ConfigLoader(env).load(home.resolve("config.yaml"), true, home).config();
    }

    @Test
    void storeUrl_opensPostgres_withTheUserAndPasswordOfTheConfig() throws IOException {
        HeraldConfig config = load("""
                platforms:
                  api_server: {enabled: false}
                store:
                  url: %s
                  user: %s
                  password: ${HERALD_STORE_PASSWORD}
                """.formatted(db.url(), PostgresTestServer.PASSWORD_ROLE), Map.of("HERALD_STORE_PASSWORD", PostgresTestServer.PASSWORD));
        SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");

        try (Wiring wiring = Wiring.build(config, home, true, Clock.systemUTC())) {
            Storage storage = wiring.storage();
            assertThat(storage).isInstanceOf(PostgresStorage.class);
            assertThat(storage.describe()).isEqualTo("postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name());
            storage.sessions().getOrCreate(SessionKey.of(source), source);
        }

        assertThat(db.text("SELECT COUNT(*) FROM sessions")).isEqualTo("1");
        assertThat(home.resolve("herald.db")).as("no SQLite file beside it").doesNotExist();
    }

    @Test
    void aSecondGatewayOnTheSameDatabase_isRefusedNamingIt_untilTheFirstCloses() throws IOException {
        HeraldConfig config = load("""
                store:
                  url: %s
                  user: %s
                  password: ${HERALD_STORE_PASSWORD}
                """.formatted(db.url(), PostgresTestServer.PASSWORD_ROLE), Map.of("HERALD_STORE_PASSWORD", PostgresTestServer.PASSWORD));
        String where = "postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name();

        try (StoreOwner first = Stores.claim(config.store())) {
            assertThatThrownBy(() -> Stores.claim(config.store()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("store - " + where + " is in use by another Herald gateway (pid " + ProcessHandle.current().pid() + " on ")
                    .hasMessageEndingWith("); run one gateway per database");
            try (Storage reader = Stores.open(config.store(), Clock.systemUTC())) {
                assertThat(reader.sessions().count()).as("opening without claiming (tools, status) still works").isZero();
            }
        }

        try (StoreOwner next = Stores.claim(config.store())) {
            assertThat(next.describe()).isEqualTo(where);
        }
    }

    @Test
    void aSecondGatewayOnTheSameSqliteFile_isRefusedNamingThePidOfTheFirst_untilTheFirstCloses() throws IOException {
        HeraldConfig config = load("store:\n  path: data/h.db\n", Map.of());

        try (StoreOwner first = Stores.claim(config.store())) {
            assertThatThrownBy(() -> Stores.claim(config.store()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("store - " + home.resolve("data/h.db") + " is in use by another Herald gateway (pid "
                            + ProcessHandle.current().pid() + " on ")
                    .hasMessageEndingWith("); run one gateway per database");
            assertThat(first.describe()).isEqualTo(home.resolve("data/h.db-lock").toString());
        }

        try (StoreOwner next = Stores.claim(config.store())) {
            assertThat(home.resolve("data/h.db-lock")).content().startsWith("pid " + ProcessHandle.current().pid() + " on ");
        }
    }

    @Test
    void clusterNodes_shareOneDatabase_whileAGatewayWithoutClusteringIsRefused_andRefusesThem() throws IOException {
        HeraldConfig config = load("""
                store:
                  url: %s
                  user: %s
                  password: ${HERALD_STORE_PASSWORD}
                cluster:
                  enabled: true
                """.formatted(db.url(), PostgresTestServer.PASSWORD_ROLE), Map.of("HERALD_STORE_PASSWORD", PostgresTestServer.PASSWORD));
        String where = "postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name();

        try (StoreOwner a = Stores.claim(config.store(), true); StoreOwner b = Stores.claim(config.store(), true)) {
            assertThatThrownBy(() -> Stores.claim(config.store(), false))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("store - " + where + " is in use by another Herald gateway (pid ")
                    .hasMessageEndingWith("); run one gateway per database");
        }
        try (StoreOwner alone = Stores.claim(config.store(), false)) {
            assertThatThrownBy(() -> Stores.claim(config.store(), true))
                    .isInstanceOf(StoreException.class)
                    .hasMessage("store - " + where + " is in use by a Herald gateway that runs without clustering ("
                            + StoreOwner.thisProcess() + "); set cluster.enabled: true on every node that shares it, or run one gateway per database");
        }
    }

    @Test
    void noStoreUrl_opensTheSqliteFile() throws IOException {
        HeraldConfig config = load("store:\n  path: data/h.db\n", Map.of());

        try (Storage storage = Stores.open(config.store(), Clock.systemUTC())) {
            assertThat(storage).isInstanceOf(SqliteStorage.class);
        }

        assertThat(home.resolve("data/h.db")).exists();
    }
}
