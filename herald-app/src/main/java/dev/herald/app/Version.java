package dev.herald.app;

import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.sqlite.SqliteStorage;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code herald --version} prints: Herald's version (the runnable jar's manifest, "dev" when run from
 * classes), the commit it was built from ({@code build.properties}, filled in by the build; "unknown" unless
 * {@code bin/release} or {@code -Dherald.commit} named it), the store schema versions it writes, and the Java
 * runtime it runs on (the bundled one in a release).
 */
public final class Version implements IVersionProvider {
    private static final String UNKNOWN = "unknown";

    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "dev" : v;
    }

    /** The commit this build came from, or "unknown". */
    public static String commit() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return UNKNOWN;
        }
        String c = p.getProperty("commit", UNKNOWN).strip();
        return c.isEmpty() || c.startsWith("${") ? UNKNOWN : c;
    }

    /** {@code sqlite v5, postgresql v1}: the schema versions this Herald migrates a store to. */
    public static String schemas() {
        return "sqlite v" + SqliteStorage.schemaVersion() + ", postgresql v" + PostgresStorage.schemaVersion();
    }

    static List<String> lines() {
        return List.of("herald " + current(),
                "commit " + commit(),
                "store schema " + schemas(),
                "java " + Runtime.version() + " (" + System.getProperty("java.home") + ")");
    }

    @Override
    public String[] getVersion() {
        return lines().toArray(String[]::new);
    }
}
