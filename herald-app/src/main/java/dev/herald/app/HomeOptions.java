package dev.herald.app;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --home} and {@code --config}, shared by every command that reads the configuration. Without the
 * options, {@code $HERALD_HOME} and {@code $HERALD_CONFIG} name them (the Debian package's launcher sets both
 * to /var/lib/herald and /etc/herald/config.yaml).
 */
public final class HomeOptions {
    static final String CONFIG_ENV = "HERALD_CONFIG";

    @Option(names = "--home", paramLabel = "DIR",
            description = "Herald's folder (config.yaml, herald.db, logs/). Default: $HERALD_HOME, else ~/.herald.")
    Path home;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file. Default: $HERALD_CONFIG, else <home>/config.yaml (a missing default file means all defaults).")
    Path config;

    /** {@code $HERALD_CONFIG}, read when the home is resolved. */
    private Path configFromEnv;

    /** The home folder: {@code --home}, else {@code $HERALD_HOME}, else {@code ~/.herald}; absolute. */
    Path home(CliEnvironment cli) {
        String fromEnv = cli.env().get(CONFIG_ENV);
        configFromEnv = fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv.strip());
        return HeraldHome.resolve(home, cli.env(), cli.userHome());
    }

    Path configFile(Path resolvedHome) {
        Path named = config != null ? config : configFromEnv;
        return named != null ? named.toAbsolutePath().normalize() : resolvedHome.resolve("config.yaml");
    }

    /** True when the file was named with {@code --config} or {@code $HERALD_CONFIG}, which then must exist. */
    boolean configExplicit() {
        return config != null || configFromEnv != null;
    }
}
