package dev.herald.app.config;

/**
 * What a section's {@link Validated#validate} uses to state its rules. Each rule names a key relative to
 * the section; a broken rule stops the load with one message carrying the file, line, full key path and
 * the fact, e.g. {@code config - /home/u/.herald/config.yaml line 7: platforms.api_server.port must be
 * 1..65535, was 70000}.
 */
public final class ConfigChecks {
    private final String prefix;
    private final Provenance provenance;

    ConfigChecks(String prefix, Provenance provenance) {
        this.prefix = prefix;
        this.provenance = provenance;
    }

    /** The full dotted path of {@code key} in this section, for messages that point at a sibling key. */
    public String path(String key) {
        return Provenance.child(prefix, key);
    }

    /**
     * Stops with {@code <path(key)> <fact>} unless {@code ok}. The fact must not contain a secret value.
     *
     * @throws ConfigException when {@code ok} is false
     */
    public void require(boolean ok, String key, String fact) {
        if (!ok) {
            String path = path(key);
            throw ConfigException.at(provenance.where(path), path + " " + fact + provenance.origin(path));
        }
    }

    ConfigChecks child(String key) {
        return new ConfigChecks(path(key), provenance);
    }

    /** A number as a person writes it: {@code 3600}, not {@code 3600.0}. */
    public static String number(double value) {
        if (value == Math.rint(value) && !Double.isInfinite(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }
}
