package dev.herald.core.config;

import java.io.Serial;

/**
 * The configuration cannot be used. The message is complete and meant for the operator as is: it names
 * where (file and line, or environment variable), the key path, the fact, and where useful the next step.
 * Herald exits with 78 (EX_CONFIG) on it.
 */
public final class ConfigException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code config - <where>: <fact>}. */
    public static ConfigException at(String where, String fact) {
        return new ConfigException("config - " + where + ": " + fact);
    }
}
