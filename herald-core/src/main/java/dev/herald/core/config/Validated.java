package dev.herald.core.config;

/**
 * A configuration section that checks its own values once, after binding. The loader walks the record
 * tree and calls this on every section (nested sections after their parent), so a new section only
 * implements this interface; nobody has to call it.
 */
public interface Validated {
    /** Checks this section's values; the first violation stops the load with one message. */
    void validate(ConfigChecks check);
}
