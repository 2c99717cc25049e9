package dev.herald.store.postgres;

import java.sql.SQLException;
import java.sql.SQLTransientException;

/** What a PostgreSQL error means to the store, read from its SQLSTATE. */
final class PgErrors {
    private PgErrors() {
    }

    /** A UNIQUE or PRIMARY KEY constraint refused a row. */
    static boolean uniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    /** Two transactions collided (serialization failure, deadlock): running the transaction again can succeed. */
    static boolean collision(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state);
    }

    /**
     * Whether the server could not be reached or went away: a refused or lost connection (class 08), the server shutting
     * down or starting (57P01..57P03), or the pool finding no connection in time (it could not open one). Such a failure
     * is the database's, not the call's: the store waits it out.
     */
    static boolean unreachable(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            String state = s.getSQLState();
            if (s instanceof java.sql.SQLTransientConnectionException || s instanceof java.sql.SQLNonTransientConnectionException
                    || state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03"))) {
                return true;
            }
            if (s.getCause() instanceof SQLException cause && cause != s && unreachable(cause)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a later attempt may succeed: collisions, a lost or refused connection (class 08), the server
     * shutting down or out of connections (57P01..57P03, 53300), a lock or statement timeout (55P03, 57014),
     * or the pool finding no free connection in time.
     */
    static boolean retryable(SQLException e) {
        if (e instanceof SQLTransientException || collision(e)) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                || state.equals("53300") || state.equals("55P03") || state.equals("57014");
    }
}
