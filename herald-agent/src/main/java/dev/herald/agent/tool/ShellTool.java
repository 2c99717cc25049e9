package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code shell}: runs one command with {@code bash -c} in the session's workspace. Always dangerous.
 *
 * <p>The command gets a clean environment (PATH, locale, time zone, user name, {@code TERM=dumb} and
 * {@code HOME} = the workspace), never Herald's own, which holds API keys. Its output (stdout and stderr
 * together) is kept up to the result limit, head and tail. On timeout or interrupt the whole process tree
 * is killed ({@link ProcessTree}); background processes of a command that exits normally are left running.
 */
public final class ShellTool implements Tool {
    private static final Logger log = LoggerFactory.getLogger(ShellTool.class);
    private static final String[] PASSED_ENV = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "TMPDIR"};
    private static final JsonNode SCHEMA = Args.schema(new String[] {"command"},
            "command", "string", "the command line, run with bash -c in the session's workspace directory",
            "timeout_seconds", "integer", "optional: stop the command after this many seconds (capped by the configured limit)");

    private final ToolSettings settings;

    public ShellTool(ToolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "shell";
    }

    @Override
    public String description() {
        return "Run a shell command in the session's workspace directory and return its exit code and output (stdout and stderr "
                + "combined, long output shortened). Commands that exceed the time limit are killed.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return Danger.because("runs a shell command");
    }

    @Override
    public boolean alwaysAsks() {
        return true;
    }

    @Override
    public String summarize(JsonNode args) {
        return Texts.line(Args.string(args, "command", ""), 300);
    }

    /** The whole command, verbatim, and where it runs; refused when longer than {@link #APPROVAL_LIMIT}. */
    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        String command = TooLongToApprove.check(Args.string(args, "command", ""), "command", APPROVAL_LIMIT);
        return "Command (" + Texts.number(command.length()) + " characters, run with bash -c in " + context.workspace() + "):\n" + command;
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        String command = Args.string(args, "command");
        if (command.isBlank()) {
            return ToolResult.error("the command is empty");
        }
        long limitSeconds = settings.shellTimeout().toSeconds();
        Duration timeout = Duration.ofSeconds(Math.max(1, Math.min(limitSeconds, Args.number(args, "timeout_seconds", limitSeconds))));
        try {
            context.createWorkspace();
            return run(command, timeout, context);
        } catch (IOException e) {
            return ToolResult.error("could not start the command in " + context.workspace() + " (" + e.getMessage() + ")");
        }
    }

    private ToolResult run(String command, Duration timeout, ToolContext context) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(ProcessTree.shellCommand(command)).directory(context.workspace().toFile())
                .redirectErrorStream(true);
        cleanEnvironment(builder.environment(), context);
        long start = System.nanoTime();
        Process process = builder.start();
        process.getOutputStream().close();
        OutputCapture output = OutputCapture.start(process.getInputStream(), settings.resultLimit());
        Killer killer = new Killer(process);
        context.interrupt().onRaise(killer);
        boolean finished;
        try {
            finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        } finally {
            context.interrupt().forget(killer);
        }
        if (!finished) {
            killer.run();
        }
        int killed = killer.killed();
        output.finish(killed < 0 ? 1_000 : 200);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return result(process, killed, ms, output, timeout, context);
    }

    /** Kills the process tree once, from whichever thread asks first; {@link #killed} waits for a kill in progress. */
    private static final class Killer implements Runnable {
        private final Process process;
        private int killed = -1;

        Killer(Process process) {
            this.process = process;
        }

        @Override
        public synchronized void run() {
            if (killed < 0) {
                killed = ProcessTree.kill(process);
            }
        }

        /** How many processes were killed, or -1 when the command was not killed. */
        synchronized int killed() {
            return killed;
        }
    }

    private static ToolResult result(Process process, int killed, long ms, OutputCapture output, Duration timeout, ToolContext context) {
        String text = output.text();
        String shown = text.isEmpty() ? "(no output)" : text;
        if (killed >= 0 && context.interrupt().isRaised()) {
            log.info("tool - shell stopped after {} ms ({}), {} processes killed, {} bytes of output", Texts.number(ms),
                    context.interrupt().reason(), killed, Texts.number(output.totalBytes()));
            return ToolResult.interrupted("the command was stopped after " + Texts.number(ms) + " ms (" + context.interrupt().reason()
                    + ") and its process tree was killed (" + killed + " processes). Output so far:\n" + shown);
        }
        if (killed >= 0) {
            log.info("tool - shell timed out after {} ms, {} processes killed", Texts.number(ms), killed);
            return ToolResult.error("the command timed out after " + Texts.number(timeout.toMillis()) + " ms and was killed (" + killed
                    + " processes). Output so far:\n" + shown);
        }
        int exit = process.exitValue();
        log.debug("tool - shell exited {} after {} ms ({} bytes of output)", exit, Texts.number(ms), Texts.number(output.totalBytes()));
        return ToolResult.ok("exit code " + exit + " (" + Texts.number(ms) + " ms)\n" + shown);
    }

    private static void cleanEnvironment(Map<String, String> env, ToolContext context) {
        Map<String, String> kept = new java.util.HashMap<>();
        for (String name : PASSED_ENV) {
            String value = env.get(name);
            if (value != null) {
                kept.put(name, value);
            }
        }
        env.clear();
        env.putAll(kept);
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", context.workspace().toString());
        env.put("TERM", "dumb");
    }
}
