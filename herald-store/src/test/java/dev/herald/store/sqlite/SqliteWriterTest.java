package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.StoreException;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteWriterTest {
    @TempDir
    Path dir;
    SqliteWriter writer;
    ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() throws SQLException {
        SqlConn conn = new SqlConn(DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("w.db")));
        conn.exec("PRAGMA journal_mode = WAL");
        conn.exec("CREATE TABLE t (n INTEGER PRIMARY KEY)");
        writer = new SqliteWriter(conn, dir.resolve("w.db"), 256);
    }

    @AfterEach
    void tearDown() {
        writer.close();
        callers.close();
    }

    /** Holds the writer inside one task until released, so that the writes queued meanwhile commit as one batch. */
    private CountDownLatch blockWriter() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        callers.submit(() -> writer.write("blocker", c -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private List<Future<Integer>> queueInserts(int count, int failEvery) {
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            int n = i;
            results.add(callers.submit(() -> writer.write("insert " + n, c -> {
                c.update("INSERT INTO t (n) VALUES (?)", n);
                if (n % failEvery == 0) {
                    c.update("INSERT INTO t (n) VALUES (?)", 0); // duplicate of the seed row: this write fails
                }
                return n;
            })));
        }
        return results;
    }

    private long rows() {
        return writer.write("count", c -> c.scalar("SELECT COUNT(*) FROM t"));
    }

    @Test
    void write_failingWriteInABatch_failsAloneAndItsNeighboursCommit() throws Exception {
        writer.write("seed", c -> c.update("INSERT INTO t (n) VALUES (?)", 0));
        CountDownLatch release = blockWriter();
        List<Future<Integer>> results = queueInserts(30, 7);
        Thread.sleep(200); // let every caller queue behind the blocker
        release.countDown();

        int failed = 0;
        for (Future<Integer> f : results) {
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(StoreException.class).hasMessageContaining("insert");
                failed++;
            }
        }
        assertThat(failed).isEqualTo(4);
        assertThat(rows()).as("the seed and the 26 writes that did not fail").isEqualTo(27);
        boolean seven = writer.write("check", c -> c.exists("SELECT 1 FROM t WHERE n = 7"));
        assertThat(seven).isFalse();
    }

    @Test
    void write_runtimeExceptionInTheWork_reachesTheCallerUnchanged() {
        IllegalStateException boom = new IllegalStateException("boom");

        assertThatThrownBy(() -> writer.write("x", c -> {
            c.update("INSERT INTO t (n) VALUES (5)");
            throw boom;
        })).isSameAs(boom);
        assertThat(rows()).isZero();
    }

    @Test
    void close_commitsEveryQueuedWriteFirst() throws Exception {
        CountDownLatch release = blockWriter();
        List<Future<Integer>> results = queueInserts(20, Integer.MAX_VALUE);
        Thread.sleep(200);
        Future<?> closing = callers.submit(writer::close);
        release.countDown();
        closing.get(10, TimeUnit.SECONDS);

        for (Future<Integer> f : results) {
            assertThat(f.get(1, TimeUnit.SECONDS)).isPositive();
        }
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("w.db"));
                var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM t")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(20);
        }
    }

    @Test
    void write_afterClose_failsNamingTheSubject() {
        writer.close();
        writer.close();

        assertThatThrownBy(() -> writer.write("insert 1", c -> 1))
                .isInstanceOf(StoreException.class).hasMessageContaining("closed").hasMessageContaining("insert 1");
    }

    @Test
    void write_interruptedCaller_stillGetsTheCommittedResultAndKeepsItsFlag() throws Exception {
        Future<Boolean> result = callers.submit(() -> {
            Thread.currentThread().interrupt();
            Integer n = writer.write("insert", c -> c.update("INSERT INTO t (n) VALUES (9)"));
            return n == 1 && Thread.currentThread().isInterrupted();
        });

        assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(rows()).isEqualTo(1);
    }

    /** Commits seen by another connection: SQLite's data_version moves once per commit of another connection. */
    private static long dataVersion(java.sql.Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("PRAGMA data_version")) {
            return rs.getLong(1);
        }
    }

    @Test
    void writeSoon_followedByAWrite_commitsWithIt_inOneTransaction() throws Exception {
        try (java.sql.Connection reader = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("w.db"))) {
            boolean shared = false;
            int attempts = 0;
            for (int attempt = 1; attempt <= 5 && !shared; attempt++) {
                attempts = attempt;
                long before = dataVersion(reader);
                int n = attempt * 10;
                writer.writeSoon("usage " + n, c -> c.update("INSERT INTO t (n) VALUES (?)", n), null);
                writer.write("append " + n, c -> c.update("INSERT INTO t (n) VALUES (?)", n + 1));
                shared = dataVersion(reader) - before == 1;
            }
            assertThat(shared).as("a deferred write and the next write share one commit").isTrue();
            assertThat(rows()).isEqualTo(2L * attempts);
        }
    }

    @Test
    void writeSoon_alone_isCommittedWithoutAnotherWrite() throws Exception {
        writer.writeSoon("usage", c -> c.update("INSERT INTO t (n) VALUES (?)", 7), null);

        try (java.sql.Connection reader = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("w.db"))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long seen = 0;
            while (seen == 0 && System.nanoTime() < deadline) {
                try (var st = reader.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM t WHERE n = 7")) {
                    seen = rs.getLong(1);
                }
                Thread.sleep(5);
            }
            assertThat(seen).isEqualTo(1);
        }
    }

    @Test
    void writeSoon_failing_failsTheCallersNextWrite_andTheOneAfterThatCommits() {
        writer.write("seed", c -> c.update("INSERT INTO t (n) VALUES (?)", 0));

        writer.writeSoon("duplicate", c -> c.update("INSERT INTO t (n) VALUES (?)", 0), null);

        assertThatThrownBy(() -> writer.write("relies on it", c -> c.update("INSERT INTO t (n) VALUES (?)", 1)))
                .isInstanceOf(StoreException.class).hasMessageContaining("relies on it not written: an earlier write of the same caller failed");
        writer.write("after", c -> c.update("INSERT INTO t (n) VALUES (?)", 2));
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    void writeSoon_failingOnOneThread_doesNotFailAnotherThreadsWrite() throws Exception {
        writer.write("seed", c -> c.update("INSERT INTO t (n) VALUES (?)", 0));
        CountDownLatch release = blockWriter();
        writer.writeSoon("duplicate", c -> c.update("INSERT INTO t (n) VALUES (?)", 0), null);
        Future<Integer> other = callers.submit(() -> writer.write("other", c -> c.update("INSERT INTO t (n) VALUES (?)", 5)));
        release.countDown();

        assertThat(other.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void writeSoon_onCommit_getsTheResultAfterTheCommit() throws Exception {
        java.util.concurrent.CompletableFuture<Long> seen = new java.util.concurrent.CompletableFuture<>();
        writer.writeSoon("insert", c -> {
            c.update("INSERT INTO t (n) VALUES (?)", 3);
            return 3L;
        }, seen::complete);
        writer.write("next", c -> null);

        assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(3L);
        try (java.sql.Connection reader = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("w.db"));
                var st = reader.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM t WHERE n = 3")) {
            assertThat(rs.getLong(1)).isEqualTo(1);
        }
    }

    @Test
    void writeSoon_afterClose_isRefused() {
        writer.close();

        assertThatThrownBy(() -> writer.writeSoon("late", c -> c.update("INSERT INTO t (n) VALUES (?)", 1), null))
                .isInstanceOf(StoreException.class).hasMessageContaining("closed");
    }

    /**
     * Steady writes with a reader reading every millisecond, and no checkpoint inside commits (as the store runs): SQLite can only
     * start the log over after a checkpoint, so without the writer's restart the WAL grew without end (2.6 GB after
     * 50,000 benchmark turns). With it the file stays near its limit.
     */
    @Test
    void underSteadyWritesAndReads_theWalStartsOverOncePastItsLimit_insteadOfGrowingWithoutEnd() throws Exception {
        // 600 writes of an 8 KiB blob, one every 2 ms: about 5 MB of log in all. The writer looks at the log every 100 ms,
        // so with restarts it holds at most the limit plus what two looks apart let through (one restart may find a reader)
        long limit = 256 * 1024;
        assertThat(walAfterSteadyLoad(Long.MAX_VALUE, limit)).as("WAL bytes without restarts").isGreaterThan(4_800_000L);
        assertThat(walAfterSteadyLoad(limit, limit)).as("WAL bytes with restarts past %d", limit).isLessThan(2_500_000L);
    }

    private long walAfterSteadyLoad(long restartPast, long sizeLimit) throws Exception {
        Path db = dir.resolve("steady-" + (restartPast == Long.MAX_VALUE ? "never" : "restarting") + ".db");
        SqlConn conn = new SqlConn(DriverManager.getConnection("jdbc:sqlite:" + db));
        conn.exec("PRAGMA journal_mode = WAL");
        conn.exec("PRAGMA synchronous = OFF");
        conn.exec("PRAGMA wal_autocheckpoint = 0");
        conn.exec("PRAGMA journal_size_limit = " + sizeLimit);
        conn.exec("CREATE TABLE b (id INTEGER PRIMARY KEY, data BLOB)");
        SqliteWriter steady = new SqliteWriter(conn, null, db, 256, java.time.Duration.ofSeconds(5), restartPast,
                new dev.herald.store.jdbc.StoreOutage(db.toString(), java.time.Duration.ZERO));
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader = Thread.ofPlatform().start(() -> {
            try (var r = DriverManager.getConnection("jdbc:sqlite:" + db)) {
                while (!done.get()) {
                    try (var st = r.createStatement(); var rs = st.executeQuery("SELECT MAX(id) FROM b")) {
                        rs.next();
                    }
                    Thread.sleep(1); // a gateway's readers come and go; one that never lets go would hold the log (as SQLite documents)
                }
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            byte[] blob = new byte[8 * 1024];
            for (int i = 0; i < 600; i++) {
                steady.write("blob", c -> c.update("INSERT INTO b (data) VALUES (?)", (Object) blob));
                Thread.sleep(2);
            }
            return java.nio.file.Files.size(Path.of(db + "-wal"));
        } finally {
            done.set(true);
            reader.join();
            steady.close();
        }
    }
}
