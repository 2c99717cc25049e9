package dev.herald.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.retry.Backoff;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolResult;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.agent.tool.ToolSource;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnRequest;
import dev.herald.testkit.model.FakeModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Builds agents for tests: the real client against a fake model server, the real tools in a temporary workspace root. */
final class Harness {
    static final Backoff FAST = Backoff.jittered(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5));

    private Harness() {
    }

    static OpenAiCompatibleClient client(FakeModelServer fake) {
        return new OpenAiCompatibleClient(new ModelSettings(fake.baseUrl(), "sk-harness-secret", "llama3.1", Duration.ofSeconds(1),
                Duration.ofSeconds(5), 0), FAST);
    }

    static ToolRegistry registry(Path root, List<Tool> extra, ToolSource... sources) {
        List<Tool> tools = new ArrayList<>(BuiltinTools.all(ToolSettings.defaults(root)));
        tools.addAll(extra);
        List<String> names = new ArrayList<>(ToolSettings.DEFAULT_TOOLS);
        extra.forEach(t -> names.add(t.name()));
        return new ToolRegistry(ToolSettings.defaults(root).withTools(names), tools, List.of(sources));
    }

    static TurnRequest turn(String userMessage, ChatMessage... history) {
        return new TurnRequest("s-1", "loopback:dm:1", List.of(history), userMessage, true, "loopback");
    }

    /** A safe tool that records the arguments of every run and answers {@code ran <args>}. */
    static final class Counting implements Tool {
        final String name;
        final List<String> runs = new CopyOnWriteArrayList<>();

        Counting(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return "records its calls";
        }

        @Override
        public JsonNode parameters() {
            return Args.schema(new String[0], "x", "string", "anything");
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        @Override
        public String summarize(JsonNode args) {
            return name + " " + args;
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            runs.add(args.toString());
            return ToolResult.ok("ran " + args);
        }
    }

    /**
     * A tool whose calls meet: each call arrives, then waits (up to 5 s) until {@code parties} calls have
     * arrived. Run one after another, the first call waits alone and answers "alone"; run concurrently, each
     * sees the others and answers "together". Proof of concurrency without timing.
     */
    static final class Rendezvous implements Tool {
        private final CountDownLatch arrived;

        Rendezvous(int parties) {
            this.arrived = new CountDownLatch(parties);
        }

        @Override
        public String name() {
            return "meet";
        }

        @Override
        public String description() {
            return "waits for the other calls";
        }

        @Override
        public JsonNode parameters() {
            return Args.schema(new String[0], "who", "string", "caller");
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        @Override
        public String summarize(JsonNode args) {
            return "meet";
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            arrived.countDown();
            try {
                boolean together = arrived.await(5, TimeUnit.SECONDS);
                return ToolResult.ok(Args.string(args, "who", "?") + (together ? " together" : " alone"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ToolResult.interrupted("meet interrupted");
            }
        }
    }
}
