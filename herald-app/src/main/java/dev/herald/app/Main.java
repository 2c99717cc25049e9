package dev.herald.app;

import dev.herald.core.config.ConfigException;
import picocli.CommandLine;

/**
 * The {@code herald} command line. Each command is its own class; this only assembles them and maps
 * failures to exit codes: a {@link ConfigException}, or an environment error no restart can cure
 * ({@link FatalStart}), prints its one line and exits 78, a usage error exits 64, anything else exits 1 with
 * its stack trace.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        var plain = PlainRun.parse(args);
        if (plain.isPresent()) { // the common `herald run`: no command-line parser (PlainRun)
            System.exit(plain.get().run(args, CliEnvironment.system()));
        }
        System.exit(run(CliEnvironment.system(), args));
    }

    /** Runs one command line in-process and returns its exit code (tests call this). */
    public static int run(CliEnvironment cli, String... args) {
        int code = commandLine(cli).execute(args);
        cli.out().flush();
        cli.err().flush();
        return code;
    }

    static CommandLine commandLine(CliEnvironment cli) {
        CommandLine config = new CommandLine(new ConfigCommand(cli))
                .addSubcommand(new ConfigCheckCommand(cli))
                .addSubcommand(new ConfigReferenceCommand(cli));
        CommandLine pairing = new CommandLine(new PairingCommand(cli))
                .addSubcommand(new PairingCommand.Approve(cli))
                .addSubcommand(new PairingCommand.ListPairing(cli))
                .addSubcommand(new PairingCommand.Revoke(cli));
        CommandLine herald = new CommandLine(new HeraldCommand(cli))
                .addSubcommand(new RunCommand(cli))
                .addSubcommand(new StatusCommand(cli))
                .addSubcommand(new RestartCommand(cli))
                .addSubcommand(config)
                .addSubcommand(pairing)
                .addSubcommand(new BackupCommand(cli))
                .addSubcommand(new ExportCommand(cli))
                .addSubcommand(new CommandLine(new StoreCommand(cli)).addSubcommand(new StoreCommand.Copy(cli)))
                .addSubcommand(new CommandLine(new ScheduleCommand(cli)).addSubcommand(new ScheduleCommand.ListJobs(cli)))
                .addSubcommand(new CommandLine(new UsersCommand(cli)).addSubcommand(new UsersCommand.Add(cli))
                        .addSubcommand(new UsersCommand.ListUsers(cli)).addSubcommand(new UsersCommand.Disable(cli)))
                .addSubcommand(new CommandLine(new MemoryCliCommand(cli)).addSubcommand(new MemoryCliCommand.Export(cli))
                        .addSubcommand(new MemoryCliCommand.Purge(cli)));
        herald.registerConverter(dev.herald.core.platform.Platform.class, dev.herald.core.platform.Platform::of);
        herald.setOut(cli.out());
        herald.setErr(cli.err());
        herald.setParameterExceptionHandler((ex, args) -> {
            cli.err().println("herald: " + ex.getMessage());
            CommandLine cmd = ex.getCommandLine();
            boolean suggested = CommandLine.UnmatchedArgumentException.printSuggestions(ex, cli.err());
            if (!suggested && !cmd.getSubcommands().isEmpty()) {
                cli.err().println("Commands: " + String.join(", ", cmd.getSubcommands().keySet()));
            }
            cli.err().println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
            return ExitCodes.USAGE;
        });
        herald.setExecutionExceptionHandler((ex, cmd, parseResult) -> exitCode(ex, cmd.getCommandName(), cli));
        return herald;
    }

    /**
     * The exit code of a command that failed with {@code ex}, after its message: a {@link ConfigException}, or an environment
     * error no restart can cure ({@link FatalStart}), prints its one line (78); a store that may come back prints one line
     * (1); anything else its stack trace (1).
     */
    static int exitCode(Exception ex, String commandName, CliEnvironment cli) {
        if (ex instanceof ConfigException) {
            cli.err().println(ex.getMessage());
            return ExitCodes.CONFIG;
        }
        var fatal = FatalStart.line(ex);
        if (fatal.isPresent()) {
            cli.err().println(fatal.get());
            return ExitCodes.CONFIG;
        }
        if (ex instanceof dev.herald.core.session.StoreException) {
            // a store that may come back (busy, a server restarting): one line, no stack trace; a supervisor retries
            cli.err().println(ex.getMessage());
            return ExitCodes.FAILURE;
        }
        cli.err().println("herald " + commandName + " - failed: " + ex.getMessage());
        ex.printStackTrace(cli.err());
        return ExitCodes.FAILURE;
    }
}
