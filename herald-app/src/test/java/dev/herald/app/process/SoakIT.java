package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded soak of the real process: several API sessions send messages while a disruptor kills the gateway
 * with kill -9, restarts it with SIGUSR1, or stops it with SIGTERM and starts it again, at random moments.
 * Clients retry a failed message with the same request id (the gateway's durable dedupe makes that safe).
 * Afterwards the database is checked: no message lost or stored twice, no turn answered twice, no
 * interruption resumed twice, no turn left running. Size: {@code -Dsoak.sessions} (4), {@code -Dsoak.messages}
 * (20 each), {@code -Dsoak.disruptions} (at most 10), {@code -Dsoak.seed}; the seed is printed so a failure can be
 * replayed.
 */
class SoakIT {
    @TempDir
    Path home;

    @Test
    void randomKillsRestartsAndStops_loseNothingAndAnswerNothingTwice() throws Exception {
        long seed = Long.getLong("soak.seed", System.nanoTime());
        int sessions = Integer.getInteger("soak.sessions", 4);
        int messages = Integer.getInteger("soak.messages", 20);
        int maxDisruptions = Integer.getInteger("soak.disruptions", 10);
        System.out.println("SoakIT seed=" + seed + " sessions=" + sessions + " messages=" + messages + " (replay: -Dsoak.seed=" + seed + ")");
        Random random = new Random(seed);
        try (FakeModelServer model = FakeModelServer.start();
                HeraldProcess herald = HeraldProcess.configure(home, model.baseUrl().toString(),
                        "drain_timeout_seconds: 0.3\nstartup_restore_drain_timeout_seconds: 2", null)) {
            Random replies = new Random(seed ^ 0x5DEECE66DL);
            model.defaultReply(r -> Reply.text("echo: " + r.lastUserMessage()).delayed(Duration.ofMillis(replies.nextInt(400))));
            herald.start();
            herald.awaitReady();
            AtomicBoolean done = new AtomicBoolean();
            List<Thread> clients = new ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                int session = s;
                clients.add(Thread.ofVirtual().start(() -> client(herald, session, messages, done)));
            }
            int disruptions = disrupt(herald, random, clients, maxDisruptions);
            done.set(true);
            for (Thread c : clients) {
                c.join(Duration.ofMinutes(2));
            }
            herald.terminate();
            herald.awaitExit(Duration.ofSeconds(60));
            System.out.println("SoakIT seed=" + seed + ": " + disruptions + " disruptions, " + model.requests().size() + " model calls");
            check(seed, sessions, messages);
        }
    }

    /** Sends each message until the gateway has it (answered, or stored before a failure), in order. */
    private static void client(HeraldProcess herald, int session, int messages, AtomicBoolean stop) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int m = 0; m < messages; m++) {
            String text = "s" + session + "-m" + m;
            String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + herald.port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").header("X-Herald-Session-Id", "soak-" + session)
                    .header("X-Herald-Request-Id", text).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            while (true) {
                try {
                    int status = http.send(req, HttpResponse.BodyHandlers.ofString()).statusCode();
                    if (status == 200 || status == 409) {
                        break; // answered, or stored by an earlier attempt
                    }
                } catch (Exception e) {
                    // the gateway is down or restarting: try again
                }
                sleep(200);
            }
        }
    }

    private static int disrupt(HeraldProcess herald, Random random, List<Thread> clients, int max) throws Exception {
        int count = 0;
        while (clients.stream().anyMatch(Thread::isAlive) && count < max) {
            sleep(300 + random.nextInt(1500));
            if (clients.stream().noneMatch(Thread::isAlive)) {
                break;
            }
            long pid = herald.gatewayPid().orElse(-1);
            switch (random.nextInt(3)) {
                case 0 -> herald.killGateway();
                case 1 -> herald.signal(pid, "USR1");
                default -> {
                    herald.terminate();
                    herald.awaitExit(Duration.ofSeconds(60));
                    herald.start();
                }
            }
            herald.awaitReady(pid);
            count++;
        }
        return count;
    }

    private void check(long seed, int sessions, int messages) {
        try (SqliteStorage storage = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            List<TurnRecord> turns = new ArrayList<>();
            for (TurnState s : TurnState.values()) {
                turns.addAll(storage.turns().inState(s, 100_000));
            }
            assertThat(storage.turns().inState(TurnState.RUNNING, 10)).as("seed %d: no turn left running", seed).isEmpty();
            for (int s = 0; s < sessions; s++) {
                SessionKey key = storage.sessions().search(new SessionQuery(SessionQuery.State.ALL, java.util.Optional.empty(),
                        java.util.Optional.of("soak-" + s), 10, 0)).stream().map(SessionEntry::key).findFirst().orElseThrow();
                List<TurnRecord> lane = turns.stream().filter(t -> t.sessionKey().equals(key))
                        .sorted(Comparator.comparingLong(TurnRecord::id)).collect(Collectors.toList());
                List<TranscriptRow> rows = transcripts(storage, lane);
                List<String> userTexts = rows.stream().filter(r -> r.role() == Role.USER).map(TranscriptRow::content).toList();
                for (int m = 0; m < messages; m++) {
                    String text = "s" + s + "-m" + m;
                    assertThat(userTexts.stream().filter(text::equals).count())
                            .as("seed %d: message %s stored exactly once in %s; its turns: %s", seed, text, key, lane.stream()
                                    .filter(t -> t.text().equals(text))
                                    .map(t -> t.id() + ":" + t.state() + ":" + t.outcome() + ":" + t.platformMessageId()).toList())
                            .isEqualTo(1);
                }
                for (int i = 1; i < rows.size(); i++) {
                    assertThat(rows.get(i).role() == Role.ASSISTANT && rows.get(i - 1).role() == Role.ASSISTANT)
                            .as("seed %d: two replies in a row in %s at seq %d", seed, key, rows.get(i).seq()).isFalse();
                }
                int resumesSinceInterruption = 0;
                for (TurnRecord t : lane) {
                    if (t.origin() == MessageEvent.Origin.RESUME && t.sessionId() != null) {
                        resumesSinceInterruption++;
                        assertThat(resumesSinceInterruption).as("seed %d: one interruption of %s resumed twice; turns: %s", seed, key,
                                lane.stream().map(x -> x.id() + ":" + x.origin() + ":" + x.state() + ":" + x.outcome()).toList())
                                .isLessThanOrEqualTo(1);
                    }
                    if (t.state() == TurnState.INTERRUPTED) {
                        resumesSinceInterruption = 0;
                    }
                }
            }
        }
    }

    /** Every transcript the lane's turns ran in (a suspension starts a new one), in order. */
    private static List<TranscriptRow> transcripts(SqliteStorage storage, List<TurnRecord> lane) {
        List<TranscriptRow> rows = new ArrayList<>();
        lane.stream().map(TurnRecord::sessionId).filter(java.util.Objects::nonNull).distinct()
                .forEach(id -> rows.addAll(storage.transcripts().load(id)));
        return rows;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
