package dev.herald.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code herald}: the top command; on its own it prints the usage and exits 64. */
@Command(name = "herald", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "A self-hosted messaging gateway between chat platforms and an LLM agent; "
                + "conversations survive restarts and crashes.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:done",
            " 1:failure (I/O, crash, runtime error)",
            "64:usage error (unknown option or command)",
            "78:configuration error (the message names file, line and key)"},
        footerHeading = "%nEnvironment:%n",
        footer = {
            "  HERALD_HOME       Herald's folder when --home is not given (default ~/.herald)",
            "  HERALD_CONFIG     the configuration file when --config is not given (default <home>/config.yaml)",
            "  HERALD_LOG_LEVEL  trace, debug, info (default), warn or error"})
final class HeraldCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    HeraldCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald: a command is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }
}
