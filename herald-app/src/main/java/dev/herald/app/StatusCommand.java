package dev.herald.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.app.runtime.RunFiles;
import dev.herald.app.runtime.StatusFile;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code herald status}: whether the gateway of a home runs, from its pid file and runtime status.
 * Exit 0 when it runs, 3 when it does not (the LSB convention for "program is not running").
 */
@Command(name = "status", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Show whether the gateway runs: state, pid, uptime, active turns, platforms, and the nodes registered on its store. "
                + "Exit 3 when it is not running.")
final class StatusCommand implements Callable<Integer> {
    static final int NOT_RUNNING = 3;
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    StatusCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        Path home = where.home(cli);
        RunFiles files = new RunFiles(home);
        OptionalLong pid = files.readPid();
        Optional<JsonNode> state = new StatusFile(files.stateFile()).read();
        if (pid.isEmpty() || ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
            String last = state.map(s -> s.path("state").asText("unknown")).orElse("never started here");
            cli.out().println("herald - not running (home " + home + "; last recorded state: " + last + ")");
            nodes(home).forEach(line -> cli.out().println("  " + line));
            cli.out().flush();
            return NOT_RUNNING;
        }
        JsonNode s = state.orElse(RunFiles.json().createObjectNode());
        StringBuilder sb = new StringBuilder("herald - ").append(s.path("state").asText("starting"))
                .append(" (pid ").append(pid.getAsLong()).append(')');
        String started = s.path("started_at").asText(null);
        if (started != null) {
            sb.append(", up ").append(age(Duration.between(Instant.parse(started), Instant.now())));
        }
        sb.append('\n').append("  turns: ").append(s.path("active_turns").asInt()).append(" active, ")
                .append(s.path("waiting_turns").asInt()).append(" waiting");
        sb.append("; auto-resume ").append(s.path("auto_resume").asBoolean(true) ? "on" : "OFF (crash-loop breaker)");
        sb.append('\n').append("  agent: ").append(s.path("agent").asText("?"));
        s.path("platforms").properties().forEach(p -> sb.append('\n').append("  ").append(p.getKey()).append(": ")
                .append(p.getValue().path("state").asText()).append(detail(p.getValue())));
        nodes(home).forEach(line -> sb.append('\n').append("  ").append(line));
        cli.out().println(sb);
        cli.out().flush();
        return ExitCodes.OK;
    }

    /** The store's nodes (every gateway process registered on it), when this home's configuration names a store that exists. */
    private java.util.List<String> nodes(Path home) {
        try {
            var config = new dev.herald.app.config.ConfigLoader(cli.env()).load(where.configFile(home), where.configExplicit(), home).config();
            return dev.herald.app.runtime.NodeListing.of(config.store());
        } catch (RuntimeException e) {
            return java.util.List.of();
        }
    }

    private static String detail(JsonNode p) {
        String d = p.path("detail").asText("");
        return d.isEmpty() ? "" : " (" + d + ")";
    }

    static String age(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return (s / 60) + " min";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }
}
