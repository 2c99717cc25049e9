package dev.herald.app;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.LoadedConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code herald config check}: loads the configuration exactly as {@code run} does, without creating
 * anything, and prints {@code config OK: <file>} plus the effective configuration (secrets masked), or the
 * one error and exit 78.
 */
@Command(name = "check", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Validate the configuration and print the effective values (secrets masked). Exit 78 when it is unusable.")
final class ConfigCheckCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    ConfigCheckCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        Path home = where.home(cli);
        LoadedConfig loaded = ConfigLoader.forHome(cli.env(), home).load(where.configFile(home), where.configExplicit(), home);
        cli.out().println("config OK: " + loaded.source());
        cli.out().println(loaded.effective());
        if (!loaded.config().model().configured()) {
            cli.out().println("note: model.base_url is not set, so herald run answers with the built-in demo model");
        }
        cli.out().flush();
        return ExitCodes.OK;
    }
}
