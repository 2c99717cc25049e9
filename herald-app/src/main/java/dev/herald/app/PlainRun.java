package dev.herald.app;

import dev.herald.app.runtime.Supervisor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The common {@code herald run} command lines, started without the command-line parser: {@code run} followed only by
 * {@code --home DIR}, {@code --config FILE} (each at most once, with a value; {@code --opt=value} too), {@code --demo} and
 * {@code --foreground}. Any other command line (a {@code --help}, an unknown option, a repeated one) goes through
 * {@link Main}'s parser, which does the same for these. Skipping the parser saves the start the most (picocli builds every
 * command's model by reflection, and its classes are too old a class-file version for the AOT cache: about 0.4 s).
 *
 * <p>Two cases:
 * <ul>
 *   <li>the supervising launcher (not {@code --foreground}, not under systemd, not a supervisor's child): it starts the
 *       gateway JVM, restarts it and passes signals on, and reads neither the configuration nor the store, so it loads
 *       little more than {@link Supervisor}. The child gets the same arguments plus {@code --foreground}, and a bad
 *       configuration or a usage error is its to report (it exits 78 or 64, and the supervisor stops);</li>
 *   <li>the gateway itself: {@link RunCommand} with these options, its failures mapped to exit codes as the parser's
 *       handler maps them ({@link Main#exitCode}).</li>
 * </ul>
 */
record PlainRun(Path home, Path config, boolean demo, boolean foreground) {

    /** {@code args} as a plain {@code herald run}; empty when the parser must decide. */
    static Optional<PlainRun> parse(String[] args) {
        if (args.length == 0 || !args[0].equals("run")) {
            return Optional.empty();
        }
        Set<String> flags = new HashSet<>();
        Map<String, String> values = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            String value = null;
            int eq = name.indexOf('=');
            if (name.startsWith("--") && eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if ((name.equals("--home") || name.equals("--config")) && i + 1 < args.length) {
                value = args[++i];
            }
            boolean plain = switch (name) {
                case "--demo", "--foreground" -> value == null && flags.add(name);
                case "--home", "--config" -> value != null && !value.isBlank() && !value.startsWith("-")
                        && values.putIfAbsent(name, value) == null;
                default -> false;
            };
            if (!plain) {
                return Optional.empty();
            }
        }
        String home = values.get("--home");
        String config = values.get("--config");
        try {
            return Optional.of(new PlainRun(home == null ? null : Path.of(home), config == null ? null : Path.of(config),
                    flags.contains("--demo"), flags.contains("--foreground")));
        } catch (RuntimeException e) { // a path this platform cannot name: the parser's error message says so
            return Optional.empty();
        }
    }

    /** Whether this command line only supervises (the gateway runs in a child JVM) in this environment. */
    boolean supervises(Map<String, String> env) {
        return !foreground && Supervisor.wanted(env);
    }

    /** The gateway's home, as the parser's {@link HomeOptions} resolves it. */
    Path resolvedHome(CliEnvironment cli) {
        return HeraldHome.resolve(home, cli.env(), cli.userHome());
    }

    /** Runs it: supervises, or runs the gateway in this JVM; returns the exit code. */
    int run(String[] args, CliEnvironment cli) {
        if (supervises(cli.env())) {
            List<String> childArgs = new ArrayList<>(List.of(args));
            childArgs.add(1, "--foreground");
            return supervise(childArgs, resolvedHome(cli), cli.env());
        }
        RunCommand command = new RunCommand(cli);
        command.where = new HomeOptions();
        command.where.home = home;
        command.where.config = config;
        command.demo = demo;
        command.foreground = foreground;
        try {
            return command.call();
        } catch (Exception e) {
            return Main.exitCode(e, "run", cli);
        } finally {
            cli.out().flush();
            cli.err().flush();
        }
    }

    /**
     * Supervises the gateway of {@code home}: a child JVM running {@code childArgs} (a {@code run --foreground} command
     * line); returns the exit code. {@link RunCommand} supervises through this too.
     */
    static int supervise(List<String> childArgs, Path home, Map<String, String> env) {
        try {
            return new Supervisor(Supervisor.childCommand(Main.class.getName(), childArgs, env), home).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.FAILURE;
        }
    }
}
