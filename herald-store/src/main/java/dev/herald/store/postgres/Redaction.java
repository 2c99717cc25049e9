package dev.herald.store.postgres;

import java.sql.SQLException;

/**
 * Keeps a password out of exception messages. The driver does not quote passwords in its messages, but
 * a connection failure travels into logs and onto the console, so the failure of opening the store is
 * checked once more here: when any message in its chain contains the password, the chain is replaced by
 * one exception whose message has it masked.
 */
final class Redaction {
    private static final String MASK = "****";

    private Redaction() {
    }

    /** {@code failure} itself, or a copy of its messages with {@code secret} masked when any of them contains it. */
    static Throwable withoutSecret(Throwable failure, String secret) {
        if (secret == null || secret.isEmpty() || !mentions(failure, secret)) {
            return failure;
        }
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                messages.append(messages.isEmpty() ? "" : "; caused by ").append(t.getMessage());
            }
        }
        SQLException masked = new SQLException(messages.toString().replace(secret, MASK), sqlState(failure));
        masked.setStackTrace(failure.getStackTrace());
        return masked;
    }

    /** The first SQL exception in the chain, or null. */
    static SQLException sqlCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    private static String sqlState(Throwable failure) {
        SQLException sql = sqlCause(failure);
        return sql == null ? null : sql.getSQLState();
    }

    private static boolean mentions(Throwable failure, String secret) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(secret)) {
                return true;
            }
            for (Throwable s : t.getSuppressed()) {
                if (s.getMessage() != null && s.getMessage().contains(secret)) {
                    return true;
                }
            }
        }
        return false;
    }
}
