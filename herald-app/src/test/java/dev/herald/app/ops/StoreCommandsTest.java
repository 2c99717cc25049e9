package dev.herald.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.app.process.InProcessHerald;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald backup}, {@code herald export} and {@code herald store copy} as an operator uses them, on a real
 * Herald (the real wiring: SQLite store, gateway, model agent, API server) talking to a scripted model on loopback.
 */
class StoreCommandsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase pg = new TestDatabase();
    final FakeModelServer model = FakeModelServer.start();
    final HttpClient http = HttpClient.newHttpClient();
    final List<InProcessHerald> running = new ArrayList<>();

    record Cli(int exit, String out, String err) {
    }

    private Cli herald(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new CliEnvironment(Map.of(), dir, new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new Cli(exit, out.toString(), err.toString());
    }

    /** Starts Herald on {@code home} with {@code storeYaml} (empty: SQLite) and returns its API port. */
    private int start(Path home, String storeYaml) throws Exception {
        InProcessHerald herald = InProcessHerald.in(home).start("model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n"
                + "  max_retries: 0\nplatforms:\n  api_server:\n    port: {port}\nagent:\n  tools: []\n" + storeYaml);
        running.add(herald);
        return herald.port();
    }

    private void stopAll() {
        running.forEach(InProcessHerald::close);
        running.clear();
    }

    @AfterEach
    void tearDown() {
        stopAll();
        model.close();
    }

    private String ask(int port, String text) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", "notes").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body()).path("choices").path(0).path("message").path("content").asText();
    }

    @Test
    void backup_whileHeraldRuns_restoresIntoANewHomeWhereTheConversationContinues() throws Exception {
        Path home = dir.resolve("home");
        int port = start(home, "");
        model.enqueue(Reply.text("Noted: 42."));
        assertThat(ask(port, "remember 42")).isEqualTo("Noted: 42.");

        Cli backup = herald("backup", "--home", home.toString(), dir.resolve("herald-backup.db").toString());

        assertThat(backup.exit()).as(backup.err()).isZero();
        assertThat(backup.out()).startsWith("backup - wrote " + dir.resolve("herald-backup.db")).contains("schema v", "2 message(s)");
        stopAll();

        Path restored = dir.resolve("restored");
        Files.createDirectories(restored);
        Files.copy(dir.resolve("herald-backup.db"), restored.resolve("herald.db"));
        int again = start(restored, "");
        model.enqueue(Reply.text("It was 42."));

        assertThat(ask(again, "what number?")).isEqualTo("It was 42.");
        assertThat(model.lastRequest().messages()).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("user:remember 42", "assistant:Noted: 42.", "user:what number?");
    }

    @Test
    void backup_ontoAnExistingFile_failsNamingItAndKeepsTheFile() throws Exception {
        Path home = dir.resolve("home");
        start(home, "");
        Path existing = Files.writeString(dir.resolve("old.db"), "an older backup");

        Cli backup = herald("backup", "--home", home.toString(), existing.toString());

        assertThat(backup.exit()).isEqualTo(1);
        assertThat(backup.err().strip()).isEqualTo("backup - " + existing + " exists already; name a new file (a backup never overwrites one)");
        assertThat(Files.readString(existing)).isEqualTo("an older backup");
    }

    @Test
    void export_writesEveryMessageAsJsonLinesOrMarkdown_andOneSessionByKey() throws Exception {
        Path home = dir.resolve("home");
        int port = start(home, "");
        model.enqueue(Reply.text("Noted: \"42\"."));
        ask(port, "remember 42");

        Cli jsonl = herald("export", "--home", home.toString());
        Cli markdown = herald("export", "--home", home.toString(), "--format", "markdown");

        assertThat(jsonl.exit()).as(jsonl.err()).isZero();
        List<JsonNode> lines = jsonl.out().lines().map(StoreCommandsTest::parse).toList();
        assertThat(lines).extracting(l -> l.path("role").asText() + ":" + l.path("content").asText())
                .containsExactly("user:remember 42", "assistant:Noted: \"42\".");
        String key = lines.getFirst().path("session_key").asText();
        assertThat(key).contains("notes");
        assertThat(lines).allSatisfy(l -> assertThat(l.path("at").asText()).isNotEmpty());
        assertThat(markdown.out()).startsWith("# Herald conversations\n").contains("## " + key + " · session ")
                .contains("**user** · ").contains("remember 42").contains("**assistant** · ").contains("Noted: \"42\".");

        Cli one = herald("export", "--home", home.toString(), "--session", key, "--output", dir.resolve("notes.jsonl").toString());
        Cli none = herald("export", "--home", home.toString(), "--session", "agent:main:api_server:dm:nobody");
        Cli badFormat = herald("export", "--home", home.toString(), "--format", "pdf");

        assertThat(one.exit()).isZero();
        assertThat(Files.readString(dir.resolve("notes.jsonl"))).isEqualTo(jsonl.out());
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).contains("no session with key 'agent:main:api_server:dm:nobody'");
        assertThat(badFormat.exit()).isEqualTo(64);
        assertThat(badFormat.err()).contains("format must be jsonl or markdown, was 'pdf'");
    }

    @Test
    void storeCopy_movesTheHomeIntoPostgres_whereHeraldContinuesTheConversation() throws Exception {
        Path home = dir.resolve("home");
        int port = start(home, "");
        model.enqueue(Reply.text("Noted: 42."));
        ask(port, "remember 42");
        // the gateway's pid file, as `herald run` writes it (the in-process gateway here writes none)
        long pid = ProcessHandle.current().pid();
        new dev.herald.app.runtime.RunFiles(home).writePid(pid, java.util.OptionalLong.empty(), java.time.Instant.now());
        Cli whileRunning = herald("store", "copy", "--home", home.toString(), "--to", pg.url(), "--user", "postgres");
        assertThat(whileRunning.exit()).isEqualTo(1);
        assertThat(whileRunning.err()).contains("Herald runs on this home (pid " + pid + "); stop it first");
        assertThat(pg.text("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'messages'")).isEqualTo("0");
        String exportedFromSqlite = herald("export", "--home", home.toString()).out();
        stopAll();
        new dev.herald.app.runtime.RunFiles(home).removePid(pid);

        Cli copy = herald("store", "copy", "--home", home.toString(), "--to", pg.url(), "--user", "postgres");
        Cli again = herald("store", "copy", "--home", home.toString(), "--to", pg.url(), "--user", "postgres");

        assertThat(copy.exit()).as(copy.err()).isZero();
        assertThat(copy.out()).contains("messages", "row counts match", "Next: set store.url: " + pg.url());
        assertThat(again.exit()).isZero();
        assertThat(again.out()).containsPattern("messages +2 row\\(s\\) in SQLite, +0 copied now, +2 in PostgreSQL");

        Path onPostgres = dir.resolve("pg-home");
        int pgPort = start(onPostgres, "store:\n  url: " + pg.url() + "\n  user: postgres\n");
        assertThat(herald("export", "--home", onPostgres.toString()).out()).isEqualTo(exportedFromSqlite);
        model.enqueue(Reply.text("It was 42."));
        assertThat(ask(pgPort, "what number?")).isEqualTo("It was 42.");
        assertThat(model.lastRequest().messages()).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("user:remember 42", "assistant:Noted: 42.", "user:what number?");
    }

    @Test
    void storeCopy_refusesAUrlWithAPassword_withoutEchoingIt() {
        Cli copy = herald("store", "copy", "--home", dir.resolve("home").toString(), "--to",
                "jdbc:postgresql://127.0.0.1:5432/herald?password=hunter2");

        assertThat(copy.exit()).isEqualTo(64);
        assertThat(copy.err()).contains("carries a password").doesNotContain("hunter2");
    }

    private static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
