package dev.herald.core.config;

/**
 * What a section's {@link Validated#validate} uses to state its rules. Each rule names a key relative to
 * the section; a broken rule stops the load with one message carrying the file, line, full key path and
 * the fact, e.g. {@code config - /home/u/.herald/config.yaml line 7: platforms.api_server.port must be
 * 1..65535, was 70000}.
 */
public final class ConfigChecks {
    /** Where configuration values came from, as the loader recorded it while reading them. */
    public interface Origins {
        /** Where the value at {@code path} was written: "{@code <file> line N}", "environment variable X", or the file. */
        String where(String path);

        /** A suffix telling how the value at {@code path} was made when not written literally (a template), or "". */
        String origin(String path);
    }

    private final String prefix;
    private final Origins origins;

    /** Checks for the section at {@code prefix} ("" for the whole file). */
    public ConfigChecks(String prefix, Origins origins) {
        this.prefix = prefix;
        this.origins = origins;
    }

    /** The full dotted path of {@code key} in this section, for messages that point at a sibling key. */
    public String path(String key) {
        return prefix.isEmpty() ? key : prefix + "." + key;
    }

    /**
     * Stops with {@code <path(key)> <fact>} unless {@code ok}. The fact must not contain a secret value.
     *
     * @throws ConfigException when {@code ok} is false
     */
    public void require(boolean ok, String key, String fact) {
        if (!ok) {
            String path = path(key);
            throw ConfigException.at(origins.where(path), path + " " + fact + origins.origin(path));
        }
    }

    /** The checks of the section {@code key} inside this one. */
    public ConfigChecks child(String key) {
        return new ConfigChecks(path(key), origins);
    }

    /**
     * Checks made outside a configuration file (a component built in code): a broken rule throws a
     * {@link ConfigException} naming the key under {@code prefix}.
     */
    public static ConfigChecks inCode(String prefix) {
        return new ConfigChecks(prefix, new Origins() {
            @Override
            public String where(String path) {
                return "settings";
            }

            @Override
            public String origin(String path) {
                return "";
            }
        });
    }

    /** True when {@code text} is an absolute http:// or https:// URL with a host. */
    public static boolean isHttpUrl(String text) {
        if (text == null) {
            return false;
        }
        try {
            java.net.URI uri = new java.net.URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null && !uri.getHost().isBlank();
        } catch (java.net.URISyntaxException malformed) {
            return false;
        }
    }

    /** A number as a person writes it: {@code 3600}, not {@code 3600.0}. */
    public static String number(double value) {
        if (value == Math.rint(value) && !Double.isInfinite(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }
}
