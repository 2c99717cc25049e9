package dev.herald.app;

import dev.herald.app.config.ConfigReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code herald config reference}: every configuration key with its default, as a Markdown table. */
@Command(name = "reference", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Print every configuration key with its default and meaning (Markdown).")
final class ConfigReferenceCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    ConfigReferenceCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.out().print(ConfigReference.markdown());
        cli.out().flush();
        return ExitCodes.OK;
    }
}
