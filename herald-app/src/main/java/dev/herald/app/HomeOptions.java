package dev.herald.app;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --home} and {@code --config}, shared by every command that reads the configuration. */
public final class HomeOptions {
    @Option(names = "--home", paramLabel = "DIR",
            description = "Herald's folder (config.yaml, herald.db, logs/). Default: $HERALD_HOME, else ~/.herald.")
    Path home;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file. Default: <home>/config.yaml (a missing default file means all defaults).")
    Path config;

    /** The home folder: {@code --home}, else {@code $HERALD_HOME}, else {@code ~/.herald}; absolute. */
    Path home(CliEnvironment cli) {
        return HeraldHome.resolve(home, cli.env(), cli.userHome());
    }

    Path configFile(Path resolvedHome) {
        return config != null ? config.toAbsolutePath().normalize() : resolvedHome.resolve("config.yaml");
    }

    /** True when the file was named with {@code --config}, which then must exist. */
    boolean configExplicit() {
        return config != null;
    }
}
