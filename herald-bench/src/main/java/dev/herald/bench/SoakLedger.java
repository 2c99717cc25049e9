package dev.herald.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the clients of one scenario sent and what became of it, judged against the node's store after the load:
 * <ul>
 *   <li><b>lost</b>: a message that was never answered (no 200 and no answer following it in the transcript), or one
 *       answered but missing from its transcript (the session's next turn would not know it);</li>
 *   <li><b>duplicated</b>: a message stored twice in the transcript, or answered twice (two answers echo it);</li>
 *   <li><b>truncated</b>: an answer the client received as complete that is not the whole answer;</li>
 *   <li><b>stuck</b>: turns not finished (RECEIVED, RUNNING, AWAITING_DELIVERY) a minute after the load stopped.</li>
 * </ul>
 */
final class SoakLedger {
    static final Duration SETTLE = Duration.ofSeconds(60);
    private static final String OPEN = "state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')";
    private static final int SAMPLES = 5;

    /** One message a client sent, and what it came to. */
    record Sent(String session, String text, SoakClient.Outcome outcome) {
    }

    /** One transcript row of the store. */
    record Stored(String sessionId, long seq, String role, String content) {
    }

    /** The counts of one scenario, and a few examples of each problem. */
    record Counts(int messages, int lost, int duplicated, int truncated, int stuck, Map<SoakClient.Kind, Integer> kinds, List<String> problems) {
        int kind(SoakClient.Kind k) {
            return kinds.getOrDefault(k, 0);
        }

        boolean clean() {
            return lost == 0 && duplicated == 0 && truncated == 0 && stuck == 0;
        }
    }

    private final Queue<Sent> sent = new ConcurrentLinkedQueue<>();

    void add(String session, String text, SoakClient.Outcome outcome) {
        sent.add(new Sent(session, text, outcome));
    }

    List<Sent> sent() {
        return List.copyOf(sent);
    }

    /** Judges every message against {@code transcript}; {@code stuck} is the store's count of open turns. */
    Counts count(List<Stored> transcript, int stuck) {
        Map<String, List<Stored>> users = new HashMap<>();
        Map<String, Integer> echoes = new HashMap<>();
        Map<String, Long> lastAnswer = new HashMap<>();
        for (Stored s : transcript) {
            if ("user".equals(s.role()) && s.content() != null) {
                users.computeIfAbsent(EchoModel.withoutNote(s.content()), k -> new ArrayList<>()).add(s);
            } else if ("assistant".equals(s.role()) && s.content() != null) {
                lastAnswer.merge(s.sessionId(), s.seq(), Math::max);
                String echoed = echoed(s.content());
                if (echoed != null) {
                    echoes.merge(echoed, 1, Integer::sum);
                }
            }
        }
        int lost = 0;
        int duplicated = 0;
        int truncated = 0;
        Map<SoakClient.Kind, Integer> kinds = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Sent s : sent) {
            SoakClient.Outcome o = s.outcome();
            kinds.merge(o.kind(), 1, Integer::sum);
            List<Stored> rows = users.getOrDefault(s.text(), List.of());
            boolean delivered = o.kind() == SoakClient.Kind.ANSWERED || o.kind() == SoakClient.Kind.CUT_OFF;
            boolean answeredAfter = rows.stream().anyMatch(r -> lastAnswer.getOrDefault(r.sessionId(), 0L) > r.seq());
            if (!delivered && !answeredAfter) {
                lost++;
                sample(problems, "lost: " + s.text() + " (session " + s.session() + "): " + shorten(o.text()));
            } else if (rows.isEmpty()) {
                lost++;
                sample(problems, "lost: " + s.text() + " (session " + s.session() + ") was answered but is not in its transcript");
            }
            int answers = echoes.getOrDefault(s.text(), 0);
            if (rows.size() > 1 || answers > 1) {
                duplicated++;
                sample(problems, "duplicated: " + s.text() + " stored " + rows.size() + " time(s), answered " + answers + " time(s)");
            }
            if (o.kind() == SoakClient.Kind.ANSWERED && !o.text().equals(EchoModel.whole(s.text()))) {
                truncated++;
                sample(problems, "truncated: " + s.text() + " was answered as complete with '" + shorten(o.text()) + "'");
            }
        }
        return new Counts(sent.size(), lost, duplicated, truncated, stuck, kinds, problems);
    }

    /** The message an answer echoes ({@code ECHO: <message> ...}), or null. */
    private static String echoed(String answer) {
        if (!answer.startsWith("ECHO: ")) {
            return null;
        }
        int end = answer.indexOf(' ', 6);
        return end < 0 ? null : answer.substring(6, end);
    }

    private static void sample(List<String> problems, String line) {
        if (problems.size() < SAMPLES * 3) {
            problems.add(line);
        }
    }

    private static String shorten(String s) {
        String one = s.replaceAll("\\s+", " ").strip();
        return one.length() <= 160 ? one : one.substring(0, 160) + "...";
    }

    /** Reads one node's store (a SQLite file or a PostgreSQL database) after the load. */
    record Store(String url, String user) {
        static Store sqlite(java.nio.file.Path file) {
            return new Store("jdbc:sqlite:" + file, null);
        }

        static Store postgres(String url) {
            return new Store(url, "postgres");
        }

        Connection connect() throws SQLException {
            return user == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, user, "");
        }

        List<Stored> transcript() throws SQLException {
            List<Stored> out = new ArrayList<>();
            try (Connection c = connect(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT session_id, seq, role, content FROM messages ORDER BY session_id, seq")) {
                while (rs.next()) {
                    out.add(new Stored(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4)));
                }
            }
            return out;
        }

        long count(String sql) throws SQLException {
            try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        /** Waits until no turn is open, at most {@link #SETTLE}; returns the turns still open then. */
        int awaitSettled() throws SQLException, InterruptedException {
            long deadline = System.nanoTime() + SETTLE.toNanos();
            long open = count("SELECT COUNT(*) FROM turns WHERE " + OPEN);
            while (open > 0 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                open = count("SELECT COUNT(*) FROM turns WHERE " + OPEN);
            }
            return (int) open;
        }

        /** Turns by a state, e.g. FAILED. */
        long turns(String state) throws SQLException {
            return count("SELECT COUNT(*) FROM turns WHERE state = '" + state + "'");
        }
    }
}
