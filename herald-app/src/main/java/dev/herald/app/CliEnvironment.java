package dev.herald.app;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command reads from the outside world: the environment, the user's home folder, and where to
 * print. {@link #system()} is the real process; tests pass their own, so commands never call
 * {@code System.getenv()} or {@code System.out} directly.
 */
public record CliEnvironment(Map<String, String> env, Path userHome, PrintWriter out, PrintWriter err) {
    public CliEnvironment {
        env = Map.copyOf(env);
    }

    public static CliEnvironment system() {
        return new CliEnvironment(System.getenv(), Path.of(System.getProperty("user.home")),
                new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    }
}
