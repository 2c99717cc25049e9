package dev.herald.store.jdbc;

import java.util.function.Supplier;

/**
 * A stored row holds data the store cannot turn into a value (bad JSON, an unknown enum code).
 * Single-key calls turn it into {@code StoreException.corruptRow}; listing calls log and skip the row.
 */
final class RowDecodeException extends RuntimeException {
    private final String problem;

    RowDecodeException(String problem, Throwable cause) {
        super(problem, cause);
        this.problem = problem;
    }

    /** What is wrong with the row, naming the column and quoting (a cut of) the stored value. */
    String problem() {
        return problem;
    }

    /** Runs {@code decode}, turning any runtime failure into a decode failure about column {@code what}. */
    static <T> T decoding(String what, String raw, Supplier<T> decode) {
        try {
            return decode.get();
        } catch (RowDecodeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new RowDecodeException(what + " " + abbreviate(raw) + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** Stored text quoted and cut to 60 characters, for messages. */
    static String abbreviate(String raw) {
        if (raw == null) {
            return "null";
        }
        return "'" + (raw.length() > 60 ? raw.substring(0, 60) + "..." : raw) + "'";
    }
}
