package dev.herald.store.ops;

import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.store.jdbc.TranscriptTables;
import dev.herald.store.postgres.PostgresOptions;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * Reads stored conversations for an export, one transcript session at a time (so memory does not grow with
 * the store): every transcript session, or those of one lane, by lane and then oldest first, each with its rows.
 * Opens its own read-only connection; a gateway may keep running meanwhile. A session with an unreadable row
 * stops the export naming that row; nothing is changed.
 */
public final class Conversations implements AutoCloseable {
    /** Receives one transcript session and its rows, in order. */
    @FunctionalInterface
    public interface Visitor {
        void visit(TranscriptSession session, List<TranscriptRow> rows) throws java.io.IOException;
    }

    private final PlainConn conn;
    private final String where;

    private Conversations(PlainConn conn, String where) {
        this.conn = conn;
        this.where = where;
    }

    /** The conversations of the Herald SQLite file {@code file}. */
    public static Conversations sqlite(Path file) {
        return new Conversations(SqliteFiles.readOnly(file), file.toString());
    }

    /** The conversations of the PostgreSQL database {@code options} name. */
    public static Conversations postgres(PostgresOptions options) {
        Properties login = new Properties();
        if (options.user() != null) {
            login.setProperty("user", options.user());
        }
        if (options.password() != null) {
            login.setProperty("password", options.password());
        }
        login.setProperty("ApplicationName", "herald-export");
        login.setProperty("readOnly", "true");
        try {
            return new Conversations(new PlainConn(DriverManager.getConnection(options.url(), login)), options.describe());
        } catch (SQLException e) {
            // the driver's message never holds the password; the URL is not repeated
            throw StoreException.unavailable(options.describe() + " could not be opened for the export (SQL state " + e.getSQLState() + ")",
                    null, false);
        }
    }

    /**
     * Visits every transcript session ({@code sessionKey} null) or those of one lane, with their rows.
     *
     * @return how many sessions were visited (0: nothing stored, or no such lane)
     */
    public int forEach(String sessionKey, Visitor visitor) throws java.io.IOException {
        try {
            List<TranscriptSession> sessions = TranscriptTables.sessions(conn, sessionKey);
            for (TranscriptSession s : sessions) {
                visitor.visit(s, TranscriptTables.load(conn, s.id()));
            }
            return sessions.size();
        } catch (SQLException e) {
            throw StoreException.unavailable("reading conversations from " + where + " failed", e, false);
        }
    }

    @Override
    public void close() {
        try {
            conn.close();
        } catch (SQLException e) {
            // a read-only connection: nothing is lost
        }
    }
}
