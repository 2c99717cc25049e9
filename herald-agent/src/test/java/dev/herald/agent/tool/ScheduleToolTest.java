package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.core.retry.Backoff;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.JobChoices;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's {@code schedule} tool in the real agent loop (the real model client against a fake model server)
 * with its jobs in a real SQLite store: creating a job is asked about first and happens only when approved;
 * the other actions act on this chat's jobs without asking.
 */
class ScheduleToolTest {
    private static final SessionSource ALICE = new SessionSource(Platform.of("telegram"), "123", ChatType.DM, "u1", null, null, null);
    private static final String SCOPE = SessionKey.of(ALICE).value();

    /** Profiles default and fast; telegram's turns get read_file and schedule, not shell. */
    private static final JobChoices CHOICES = new JobChoices() {
        @Override
        public List<String> profiles() {
            return List.of("default", "fast");
        }

        @Override
        public List<String> tools() {
            return List.of("schedule", "read_file", "shell");
        }

        @Override
        public List<String> allowedOn(Platform platform, List<String> names) {
            return names.stream().filter(n -> !n.equals("shell")).toList();
        }
    };

    @TempDir
    Path dir;
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(new ModelSettings(fake.baseUrl(), null, "llama3.1",
            Duration.ofSeconds(1), Duration.ofSeconds(5), 0), Backoff.jittered(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5)));
    private final MutableClock clock = MutableClock.atNoon();
    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    private final List<ChatMessage> results = new CopyOnWriteArrayList<>();
    private SqliteStorage storage;
    private Schedules schedules;
    private ModelAgent agent;

    @BeforeEach
    void setUp() {
        storage = SqliteStorage.open(dir.resolve("herald.db"), clock);
        schedules = new Schedules(storage.schedules(), clock, ZoneId.of("Europe/Berlin"), p -> true, CHOICES);
        Function<String, Optional<SessionSource>> chatOf = scope -> scope.equals(SCOPE) ? Optional.of(ALICE) : Optional.empty();
        ScheduleTool tool = new ScheduleTool(schedules, chatOf, s -> false);
        ToolSettings settings = ToolSettings.defaults(dir.resolve("ws")).withTools(List.of("schedule"));
        agent = new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(settings, List.of(tool), List.of()));
    }

    @AfterEach
    void tearDown() {
        client.close();
        fake.close();
        storage.close();
    }

    private void run(String userMessage, Function<ApprovalRequest, ApprovalDecision> approver) {
        TurnListener listener = new TurnListener() {
            @Override
            public void onMessage(ChatMessage m) {
                if (m.toolCallId() != null) {
                    results.add(m);
                }
            }

            @Override
            public ApprovalDecision requestApproval(ApprovalRequest request) {
                asked.add(request);
                return approver.apply(request);
            }
        };
        agent.runTurn(new TurnRequest("s-1", SCOPE, List.of(), userMessage, true, "telegram"), listener, new Interrupt());
    }

    private void modelCalls(String id, String argumentsJson, String finalText) {
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall(id, "schedule", argumentsJson)), Reply.text(finalText));
    }

    @Test
    void create_denied_asksShowingScheduleAndPrompt_andStoresNothing() {
        modelCalls("c1", "{\"action\":\"create\",\"schedule\":\"0 9 * * 1-5\",\"prompt\":\"Summarise my inbox\"}", "ok, not scheduled");

        run("summarise my inbox every weekday morning", r -> ApprovalDecision.DENIED);

        assertThat(asked).singleElement().satisfies(r -> {
            assertThat(r.toolName()).isEqualTo("schedule");
            assertThat(r.reason()).isEqualTo("schedules a task that runs later without anyone present");
            assertThat(r.detail()).isEqualTo("Schedule a task in this chat: 0 9 * * 1-5 (Europe/Berlin), misfire run_once. At each run "
                    + "the agent is asked:\nSummarise my inbox");
        });
        assertThat(schedules.all()).isEmpty();
        assertThat(results).singleElement().satisfies(m -> assertThat(m.content()).isEqualTo(ApprovalDecision.DENIED.toolResultText()));
    }

    @Test
    void create_approved_storesAJobThatRunsInThisChatAsThisUser() {
        modelCalls("c1", "{\"action\":\"create\",\"schedule\":\"every 2h\",\"prompt\":\"Check the build\",\"misfire\":\"skip\"}", "scheduled");

        run("check the build every two hours", r -> ApprovalDecision.APPROVED_ONCE);

        assertThat(schedules.all()).singleElement().satisfies(j -> {
            assertThat(j.prompt()).isEqualTo("Check the build");
            assertThat(j.source()).isEqualTo(ALICE);
            assertThat(j.definedBy()).isEqualTo(Definer.AGENT);
            assertThat(j.misfire().code()).isEqualTo("skip");
            assertThat(j.nextRunAt()).isEqualTo(clock.instant().plus(Duration.ofHours(2)));
        });
        assertThat(results).singleElement().satisfies(m -> assertThat(m.content()).startsWith("Created job ")
                .contains("every 2h (Europe/Berlin)"));
    }

    @Test
    void create_withAModelAndTools_asksShowingThem_andKeepsOnlyTheToolsOfThisChat() {
        modelCalls("c1", "{\"action\":\"create\",\"schedule\":\"every 2h\",\"prompt\":\"Check the build\",\"model\":\"fast\","
                + "\"tools\":[\"read_file\",\"shell\"]}", "scheduled");

        run("check the build every two hours with the fast model", r -> ApprovalDecision.APPROVED_ONCE);

        assertThat(asked).singleElement().satisfies(r -> assertThat(r.detail()).isEqualTo("Schedule a task in this chat: every 2h "
                + "(Europe/Berlin), misfire run_once, model fast, tools read_file, shell. At each run the agent is asked:\nCheck the build"));
        assertThat(schedules.all()).singleElement().satisfies(j -> {
            assertThat(j.model()).isEqualTo("fast");
            assertThat(j.tools()).as("shell is not offered in this chat").containsExactly("read_file");
        });
        assertThat(results).singleElement().satisfies(m -> assertThat(m.content()).contains("model fast, tools read_file")
                .contains("left out, not offered in this chat: shell"));
    }

    @Test
    void create_withAnUnknownModel_tellsTheModelWhichThereAre() {
        modelCalls("c1", "{\"action\":\"create\",\"schedule\":\"every 2h\",\"prompt\":\"x\",\"model\":\"huge\"}", "no such model");

        run("use the huge model", r -> ApprovalDecision.APPROVED_ONCE);

        assertThat(schedules.all()).isEmpty();
        assertThat(results).singleElement().satisfies(m -> assertThat(m.content())
                .contains("There is no model profile 'huge'; the profiles are default, fast."));
    }

    @Test
    void listAndPause_ofThisChatsJobs_areNotAskedAbout() {
        Job mine = schedules.create(Schedules.Draft.of("0 9 * * *", "morning digest"), ALICE, false, Definer.CHAT);
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("c1", "schedule", "{\"action\":\"list\"}")),
                Reply.toolCalls(new Reply.ToolCall("c2", "schedule", "{\"action\":\"pause\",\"id\":\"" + mine.id() + "\"}")),
                Reply.text("paused it"));

        run("pause my morning digest", r -> ApprovalDecision.DENIED);

        assertThat(asked).isEmpty();
        assertThat(results.get(0).content()).contains(mine.id() + " \u00b7 0 9 * * * \u00b7 next 2026-04-19 09:00 Europe/Berlin");
        assertThat(results.get(1).content()).isEqualTo("Paused " + mine.id() + ".");
        assertThat(schedules.find(mine.id()).orElseThrow().enabled()).isFalse();
    }

    @Test
    void create_withABadSchedule_tellsTheModelWhatIsWrong() {
        modelCalls("c1", "{\"action\":\"create\",\"schedule\":\"every 10s\",\"prompt\":\"spin\"}", "too often");

        run("every ten seconds", r -> ApprovalDecision.APPROVED_ONCE);

        assertThat(results).singleElement().satisfies(m -> assertThat(m.content()).contains("too often").contains("1m"));
        assertThat(schedules.all()).isEmpty();
    }
}
