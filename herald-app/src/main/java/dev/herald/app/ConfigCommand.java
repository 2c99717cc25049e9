package dev.herald.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code herald config}: groups the configuration commands; on its own it prints its usage and exits 64. */
@Command(name = "config", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Check or describe the configuration.")
final class ConfigCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    ConfigCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald config: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }
}
