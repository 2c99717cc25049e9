package dev.herald.app;

import dev.herald.app.runtime.Supervisor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The common {@code herald run} that supervises (not {@code --foreground}, not under systemd, not a supervisor's child),
 * started without the command-line parser, the configuration or the store: this JVM only starts the gateway JVM, restarts
 * it and passes signals on, so it loads little more than {@link Supervisor}. The gateway child gets the same arguments
 * plus {@code --foreground} and does everything else itself: a bad configuration or a usage error is its to report (it
 * exits 78 or 64, and the supervisor stops). Only {@code run} followed by {@code --home}, {@code --config} (each at most
 * once, with a value) and {@code --demo} takes this way; any other command line (a {@code --help}, an unknown option, a
 * repeated one) goes through {@link Main}'s parser as before, which supervises too when it should.
 */
final class SupervisedRun {
    private SupervisedRun() {
    }

    /** The gateway's home when {@code args} is a plain supervised {@code herald run}; empty when the parser must decide. */
    static Optional<Path> home(String[] args, Map<String, String> env, Path userHome) {
        if (args.length == 0 || !args[0].equals("run") || !Supervisor.wanted(env)) {
            return Optional.empty();
        }
        String home = null;
        boolean config = false;
        boolean demo = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String value = null;
            String name = a;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            } else if ((a.equals("--home") || a.equals("--config")) && i + 1 < args.length) {
                value = args[++i];
            }
            switch (name) {
                case "--demo" -> {
                    if (demo || value != null) {
                        return Optional.empty();
                    }
                    demo = true;
                }
                case "--home" -> {
                    if (home != null || value == null || value.isBlank() || value.startsWith("-")) {
                        return Optional.empty();
                    }
                    home = value;
                }
                case "--config" -> {
                    if (config || value == null || value.isBlank() || value.startsWith("-")) {
                        return Optional.empty();
                    }
                    config = true;
                }
                default -> {
                    return Optional.empty();
                }
            }
        }
        try {
            return Optional.of(HeraldHome.resolve(home == null ? null : Path.of(home), env, userHome));
        } catch (RuntimeException e) { // a path this platform cannot name: the parser's error message says so
            return Optional.empty();
        }
    }

    /** Supervises the gateway of {@code home}: a child JVM running {@code args} plus {@code --foreground}; its exit code. */
    static int supervise(String[] args, Path home, Map<String, String> env) {
        List<String> childArgs = new ArrayList<>(List.of(args));
        childArgs.add(1, "--foreground");
        try {
            return new Supervisor(Supervisor.childCommand(Main.class.getName(), childArgs, env), home).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.FAILURE;
        }
    }
}
