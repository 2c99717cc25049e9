package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.memory.Memory;
import dev.herald.store.sqlite.SqliteStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald memory export|purge USER} on a home's SQLite store: one user's facts out as JSON, or gone; nobody else's. */
class MemoryCliTest {
    @TempDir
    Path home;

    private CliRun run(String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--home";
        all[args.length + 1] = home.toString();
        return CliRun.of(Map.of(), home, all);
    }

    private void remember(String owner, String text, Memory.Status status) {
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            s.memories().add(owner, text, "agent:main:telegram:dm:1", status, Instant.parse("2026-12-06T10:00:00Z"));
        }
    }

    @Test
    void export_writesTheUsersFactsAsJson_andNoOneElses() throws Exception {
        remember("telegram:1", "Prefers tea", Memory.Status.ACTIVE);
        remember("telegram:2", "Lives in Oslo", Memory.Status.ACTIVE);
        remember("telegram:1", "Has a cat named Io", Memory.Status.PENDING);

        CliRun export = run("memory", "export", "telegram:1");
        assertThat(export.exit()).as(export.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(export.out());
        assertThat(json.path("user").asText()).isEqualTo("telegram:1");
        assertThat(json.path("memories")).hasSize(2);
        assertThat(json.path("memories").get(0).path("text").asText()).isEqualTo("Has a cat named Io");
        assertThat(json.path("memories").get(0).path("status").asText()).isEqualTo("pending");
        assertThat(json.path("memories").get(1).path("created_at").asText()).isEqualTo("2026-12-06T10:00:00Z");
        assertThat(export.out()).doesNotContain("Oslo");

        CliRun none = run("memory", "export", "slack:U9");
        assertThat(none.exit()).isZero();
        assertThat(new ObjectMapper().readTree(none.out()).path("memories")).isEmpty();
    }

    @Test
    void purge_deletesOnlyThatUsersFacts_andABadUserIsAUsageError() {
        remember("telegram:1", "Prefers tea", Memory.Status.ACTIVE);
        remember("telegram:2", "Lives in Oslo", Memory.Status.ACTIVE);

        CliRun purge = run("memory", "purge", "telegram:1");
        assertThat(purge.exit()).as(purge.err()).isZero();
        assertThat(purge.out()).contains("purged: 1 fact of telegram:1");
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            assertThat(s.memories().count("telegram:1")).isZero();
            assertThat(s.memories().count("telegram:2")).isEqualTo(1);
        }
        CliRun bad = run("memory", "purge", "12345");
        assertThat(bad.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("'12345' is no user; give the user as <platform>:<user id>, e.g. telegram:12345 or webchat:u:ann");
    }
}
