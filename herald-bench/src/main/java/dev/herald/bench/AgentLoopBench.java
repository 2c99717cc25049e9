package dev.herald.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.agent.model.Usage;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolResult;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * The agent loop's own cost per iteration, model and tool time excluded: an in-process model that answers
 * at once (a tool call, then, once the tool result is in, a final answer) and a tool that does nothing.
 * One turn is two iterations (model call + tool call, then model call + answer); each turn is timed and
 * halved. What remains is the loop: building the request from the history, the listener calls, the
 * approval check, argument parsing, the tool batch, the per-turn bookkeeping. Logging is at WARN (the
 * per-turn INFO line would measure the console).
 *
 * <pre>bin/bench-agent [--turns N] [--warmup N] [--history N,N,...]</pre>
 */
public final class AgentLoopBench {

    private AgentLoopBench() {
    }

    public static void main(String[] argv) throws Exception {
        int turns = 200_000;
        int warmup = 50_000;
        int[] histories = {0, 20, 200};
        for (int i = 0; i + 1 < argv.length; i += 2) {
            switch (argv[i]) {
                case "--turns" -> turns = Integer.parseInt(argv[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(argv[i + 1]);
                case "--history" -> histories = Arrays.stream(argv[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("unknown option " + argv[i] + "; use --turns, --warmup, --history");
            }
        }
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.herald")).setLevel(ch.qos.logback.classic.Level.WARN);
        Path root = Files.createTempDirectory("herald-bench-agent");
        NoopTool noop = new NoopTool();
        ToolSettings settings = ToolSettings.defaults(root).withTools(List.of(noop.name()));
        ModelAgent agent = new ModelAgent(new InstantModel(), AgentSettings.withSystemPrompt("You are Herald."),
                new ToolRegistry(settings, List.of(noop), List.of()));
        System.out.printf(Locale.ROOT, "agent loop overhead per iteration (instant model, no-op tool), JDK %s, %d turns of 2 iterations%n",
                Runtime.version(), turns);
        System.out.printf(Locale.ROOT, "%-16s %14s %10s %10s %10s%n", "history (msgs)", "iterations/s", "p50 µs", "p99 µs", "max µs");
        for (int history : histories) {
            TurnRequest request = new TurnRequest("bench", "bench:dm:1", history(history), "go", true, "bench");
            run(agent, request, warmup);
            long[] nanos = run(agent, request, turns);
            report(history, nanos);
        }
    }

    private static long[] run(ModelAgent agent, TurnRequest request, int turns) {
        long[] nanos = new long[turns];
        CountingListener listener = new CountingListener();
        for (int i = 0; i < turns; i++) {
            long start = System.nanoTime();
            TurnOutcome outcome = agent.runTurn(request, listener, new Interrupt());
            nanos[i] = System.nanoTime() - start;
            if (!(outcome instanceof TurnOutcome.Final)) {
                throw new IllegalStateException("unexpected outcome " + outcome);
            }
        }
        if (listener.messages.get() != 3L * turns) {
            throw new IllegalStateException("expected 3 messages per turn, got " + listener.messages.get());
        }
        return nanos;
    }

    private static void report(int history, long[] turnNanos) {
        long total = 0;
        long[] sorted = turnNanos.clone();
        Arrays.sort(sorted);
        for (long n : sorted) {
            total += n;
        }
        double perIteration = total / 2.0 / sorted.length;
        System.out.printf(Locale.ROOT, "%-16d %,14.0f %10.2f %10.2f %10.2f%n", history, 1e9 / perIteration,
                percentile(sorted, 0.50) / 2_000.0, percentile(sorted, 0.99) / 2_000.0, sorted[sorted.length - 1] / 2_000.0);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static List<ChatMessage> history(int size) {
        List<ChatMessage> messages = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            messages.add(i % 2 == 0 ? ChatMessage.user("question number " + i + " about something")
                    : ChatMessage.assistant("answer number " + i + " with a few more words in it"));
        }
        return messages;
    }

    /** Answers at once: a tool call while the last message is not a tool result, else the final answer. */
    private static final class InstantModel implements ModelClient {
        private static final Usage USAGE = new Usage(100, 10);
        private final ModelResponse call = new ModelResponse("", "", List.of(new ToolCall("call_1", "noop", "{\"x\":1}")), "tool_calls", USAGE);
        private final ModelResponse answer = new ModelResponse("done", "", List.of(), "stop", USAGE);

        @Override
        public ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) {
            boolean afterTool = request.messages().get(request.messages().size() - 1).role() == Role.TOOL;
            if (afterTool) {
                observer.onContent("done");
                return answer;
            }
            return call;
        }

        @Override
        public String describe() {
            return "instant model";
        }
    }

    /** Does nothing, safely. */
    private static final class NoopTool implements Tool {
        private static final JsonNode SCHEMA = Args.schema(new String[0], "x", "integer", "ignored");

        @Override
        public String name() {
            return "noop";
        }

        @Override
        public String description() {
            return "does nothing";
        }

        @Override
        public JsonNode parameters() {
            return SCHEMA;
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        @Override
        public String summarize(JsonNode args) {
            return "noop";
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            return ToolResult.ok("ok");
        }
    }

    /** Counts recorded messages, so the work cannot be optimized away. */
    private static final class CountingListener implements TurnListener {
        final AtomicLong messages = new AtomicLong();

        @Override
        public void onMessage(ChatMessage message) {
            messages.incrementAndGet();
        }
    }
}
