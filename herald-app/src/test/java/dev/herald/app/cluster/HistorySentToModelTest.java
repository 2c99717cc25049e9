package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history a turn sends the model is exactly the stored transcript, whatever the store's transcript cache holds:
 * through a continuing conversation, /new, /compress, a restart and a purge on SQLite, and with two nodes writing one
 * conversation on PostgreSQL. The model's requests are read from the fake model server; the transcript is read with
 * plain SQL beside the store, so a stale copy in the store cannot hide itself.
 */
class HistorySentToModelTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    @TempDir
    Path dir;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(
            new ModelSettings(fake.baseUrl(), null, "history-test", Duration.ofSeconds(2), Duration.ofSeconds(10), 0));
    private final List<Node> nodes = new ArrayList<>();
    private final AtomicInteger messageIds = new AtomicInteger();
    private final SessionSource carol = Node.dm("carol");
    private final SessionKey key = SessionKey.of(carol);

    @AfterEach
    void stop() {
        nodes.forEach(n -> n.gateway.stop(StopKind.SHUTDOWN, false));
        nodes.forEach(n -> n.storage.close());
        client.close();
        fake.close();
    }

    private Node node(String id, Storage storage, boolean clustered) {
        Node n = new Node(id, storage, clustered, Duration.ofSeconds(3), Clock.systemUTC(), new ModelAgent(client));
        nodes.add(n);
        n.start();
        return n;
    }

    private Node sqliteNode(String id) {
        return node(id, SqliteStorage.open(dir.resolve("herald.db"), Clock.systemUTC()), false);
    }

    private Connection sqlite() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("herald.db"));
    }

    /** Sends {@code text}, waits for the model's echo, and returns what the model was sent as "role: content". */
    private List<String> turn(Node n, String text) {
        n.chat.say(carol, text, "m-" + messageIds.incrementAndGet());
        n.chat.awaitSent(t -> t.equals("echo: " + text), WAIT);
        RecordedRequest request = fake.lastRequest();
        assertThat(request.lastUserMessage()).isEqualTo(text);
        return request.messages().stream().map(m -> m.role() + ": " + m.content()).toList();
    }

    /** Sends a command and returns the first message sent after it. */
    private String command(Node n, String text) throws InterruptedException {
        int before = n.chat.sent().size();
        n.chat.say(carol, text, "m-" + messageIds.incrementAndGet());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (n.chat.sent().size() <= before && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(n.chat.sent()).as("an answer to " + text).hasSizeGreaterThan(before);
        return n.chat.sent().get(before).text();
    }

    /**
     * Sends a command that needs the lane, again (as the answer asks a user to) while the answer says the previous turn
     * is still running: its reply was sent, but its lane is released only once the delivery is recorded.
     */
    private String commandOnceTheLaneIsFree(Node n, String text) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String answer = command(n, text);
        while (answer.startsWith("A turn is running") && System.nanoTime() < deadline) {
            Thread.sleep(20);
            answer = command(n, text);
        }
        return answer;
    }

    /**
     * The lane's current transcript as the model sees it ("role: content", bookkeeping and empty rows left out), read
     * with plain SQL; without its newest row (the answer to the request being checked).
     */
    private static List<String> storedBeforeAnswer(Connection c, String sessionKey) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (c; PreparedStatement ps = c.prepareStatement("""
                SELECT m.role, m.content FROM messages m JOIN sessions s ON s.session_id = m.session_id
                WHERE s.session_key = ? ORDER BY m.seq""")) {
            ps.setString(1, sessionKey);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String role = rs.getString(1);
                    String content = rs.getString(2);
                    if (!role.equals("system") && !role.equals("session_meta") && content != null && !content.isEmpty()) {
                        rows.add(role + ": " + content);
                    }
                }
            }
        }
        assertThat(rows.get(rows.size() - 1)).startsWith("assistant: echo: ");
        return rows.subList(0, rows.size() - 1);
    }

    @Test
    void continuingConversation_throughNewCompressRestartAndPurge_sendsTheModelExactlyTheStoredTranscript() throws Exception {
        Node first = sqliteNode("a");
        for (String text : List.of("one", "two", "three")) {
            assertThat(turn(first, text)).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        }
        assertThat(turn(first, "four")).hasSize(7);

        assertThat(command(first, "/new")).isNotBlank();
        List<String> afterNew = turn(first, "after new");
        assertThat(afterNew).containsExactly("user: after new");
        assertThat(afterNew).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        for (String text : List.of("five", "six", "seven")) {
            assertThat(turn(first, text)).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        }

        assertThat(commandOnceTheLaneIsFree(first, "/compress")).contains("Compressed");
        List<String> afterCompress = turn(first, "after compress");
        assertThat(afterCompress).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        assertThat(afterCompress.get(0)).as("the summary opens the child session").doesNotContain("user: after new");

        first.gateway.stop(StopKind.SHUTDOWN, false);
        first.storage.close();
        nodes.remove(first);
        Node second = sqliteNode("a");
        List<String> afterRestart = turn(second, "after restart");
        assertThat(afterRestart).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        assertThat(afterRestart).containsSubsequence(afterCompress);

        assertThat(second.storage.sessions().purge(key)).isInstanceOf(PurgeResult.Purged.class);
        List<String> afterPurge = turn(second, "after purge");
        assertThat(afterPurge).containsExactly("user: after purge");
        assertThat(afterPurge).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
        assertThat(turn(second, "and on")).isEqualTo(storedBeforeAnswer(sqlite(), key.value()));
    }

    @Test
    void twoNodesOnOneStore_aNodeThatKeptACopyWhileTheOtherWrote_sendsTheModelExactlyTheStoredTranscript() throws Exception {
        PostgresStorage storeOfA = PostgresStorage.open(db.options(), Clock.systemUTC());
        Node a = node("a", storeOfA, true);
        for (String text : List.of("one on a", "two on a")) {
            assertThat(turn(a, text)).isEqualTo(storedBeforeAnswer(db.connect(), key.value()));
        }
        a.gateway.stop(StopKind.SHUTDOWN, false); // its store, and the transcripts it read, stay open
        nodes.remove(a);

        Node b = node("b", PostgresStorage.open(db.options(), Clock.systemUTC()), true);
        for (String text : List.of("three on b", "four on b")) {
            assertThat(turn(b, text)).isEqualTo(storedBeforeAnswer(db.connect(), key.value()));
        }
        b.gateway.stop(StopKind.SHUTDOWN, false);
        nodes.remove(b);
        b.storage.close();

        Node again = node("a-again", storeOfA, true);
        List<String> sent = turn(again, "five on a");
        assertThat(sent).isEqualTo(storedBeforeAnswer(db.connect(), key.value()));
        assertThat(sent).containsExactly("user: one on a", "assistant: echo: one on a", "user: two on a", "assistant: echo: two on a",
                "user: three on b", "assistant: echo: three on b", "user: four on b", "assistant: echo: four on b", "user: five on a");
    }
}
