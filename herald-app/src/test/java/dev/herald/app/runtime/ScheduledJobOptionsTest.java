package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.schedule.ScheduleJobConfig;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.SchedulesConfig;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobTurnOptions;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.schedule.ScheduleCommand;
import dev.herald.core.schedule.ScheduleMetrics;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionSource;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A scheduled job's own model profile and tool list, through the real gateway and the real agent on a SQLite file: the
 * model servers (one per profile) record what each turn sent. The loopback platform's turns get read_file, list_dir and
 * todo ({@code agent.platform_tools.loopback}); the default profile is {@code main-model}, profile {@code fast} is
 * {@code fast-model} on another server. A kill -9 is the harness's: the process is abandoned and the store reopened.
 */
class ScheduledJobOptionsTest {
    static final Duration WAIT = Duration.ofSeconds(15);
    static final Platform LOOPBACK = Platform.of("loopback");
    static final List<String> PLATFORM_TOOLS = List.of("read_file", "list_dir", "todo");

    final MutableClock clock = MutableClock.atNoon();
    @RegisterExtension
    final GatewayHarness kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock);
    final FakeModelServer main = FakeModelServer.start();
    final FakeModelServer fast = FakeModelServer.start();
    final SessionSource u1 = new SessionSource(LOOPBACK, "u1", ChatType.DM, "u1", null, null, null);
    final GatewaySettings settings = GatewaySettings.defaults()
            .withDrainTimeout(Duration.ofMillis(200))
            .withStartupRestoreTimeout(Duration.ofSeconds(10))
            // a gateway abandoned by the simulated kill keeps its threads; keep its background retry and watchdog quiet
            .withRedeliveryInterval(Duration.ofHours(1))
            .withWatchdog(Duration.ofHours(1), Duration.ofMinutes(1));
    final Map<String, ScheduleJobConfig> config = new java.util.LinkedHashMap<>();
    LoopbackPlatform loopback;
    Schedules schedules;

    @BeforeEach
    void peers() {
        kit.closing(main).closing(fast);
    }

    /** Starts one process: the gateway with the real agent over both profiles, /schedule, and the jobs' stored options. */
    private Gateway process() {
        loopback = new LoopbackPlatform(LOOPBACK, Capabilities.basicChat(), clock);
        ToolRegistry tools = ToolRegistry.standard(ToolSettings.defaults(kit.home().resolve("workspaces"))
                .withPlatformTools(LOOPBACK.id(), PLATFORM_TOOLS));
        List<ProfileAgent.Profile> profiles = List.of(profile("default", main, "main-model"), profile("fast", fast, "fast-model"));
        ProfileAgent agent = new ProfileAgent(profiles, tools, platform -> Optional.empty(), kit.storage().modelChoices());
        schedules = new Schedules(kit.storage().schedules(), clock, ZoneId.of("UTC"), p -> true, ScheduleWiring.choices(profiles, () -> tools));
        Authorizer onlyU1 = new Authorizer() {
            @Override
            public boolean isAuthorized(SessionSource source) {
                return "u1".equals(source.userId());
            }

            @Override
            public boolean isAdmin(SessionSource source) {
                return false;
            }
        };
        Gateway gateway = kit.gateway(agent, onlyU1, List.of(loopback), List.of(), settings, GatewayMetrics.NONE,
                b -> b.command(new ScheduleCommand(schedules)).storedOptions(new JobTurnOptions(kit.storage().schedules())));
        gateway.start(Gateway.StartOptions.normal());
        return gateway;
    }

    private ProfileAgent.Profile profile(String name, FakeModelServer server, String model) {
        OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(server.baseUrl(), model).withMaxRetries(0));
        kit.closing(client);
        return new ProfileAgent.Profile(name, client, AgentSettings.DEFAULT);
    }

    /** Adds one job to schedules.jobs and puts them into the store as the start-up does; each answers in u1's chat. */
    private Job configured(String id, String model, List<String> tools) {
        config.put(id, new ScheduleJobConfig("*/5 * * * *", "compile the digest for " + id, "loopback:u1", null, null,
                Misfire.RUN_ONCE, 3600, true, model, tools));
        ScheduleWiring.reconcile(new SchedulesConfig("UTC", config), kit.storage().schedules(), clock, List.of(loopback));
        return kit.storage().schedules().find(id).orElseThrow();
    }

    /** Fires the runs due at the job's next run time and waits for {@code answers} answers in the chat. */
    private void fire(Job job, int answers) {
        clock.set(job.nextRunAt());
        new Scheduler(kit.storage().schedules(), kit.gateway(), clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults()).tick();
        await().atMost(WAIT).until(() -> replies().size() >= answers);
    }

    private void fire(Job job) {
        fire(job, replies().size() + 1);
    }

    /** The one request the run of job {@code id} sent to {@code server}. */
    private static RecordedRequest runOf(FakeModelServer server, String id) {
        return server.requests().stream().filter(r -> r.lastUserMessage().endsWith("compile the digest for " + id)).findFirst()
                .orElseThrow(() -> new AssertionError("no model request for job " + id));
    }

    private List<LoopbackPlatform.Sent> replies() {
        return loopback.sent().stream().filter(s -> s.message().kind() == MessageKind.REPLY).toList();
    }

    @Test
    void aConfiguredJobWithAModel_sendsItsTurnToThatProfilesModelAndEndpoint() {
        process();
        Job job = configured("digest", "fast", null);

        fire(job);

        assertThat(fast.requests()).singleElement().satisfies(r -> {
            assertThat(r.model()).isEqualTo("fast-model");
            assertThat(r.lastUserMessage()).contains("compile the digest");
            assertThat(r.toolNames()).as("no tool list set: the platform's tools").containsExactlyElementsOf(PLATFORM_TOOLS);
        });
        assertThat(main.requests()).as("the default profile's server hears nothing").isEmpty();
        assertThat(replies().getLast().text()).startsWith("echo: ");
    }

    @Test
    void aConfiguredJobWithTools_offersTheModelOnlyThoseTools_evenOnesItsPlatformLacks() {
        process();
        configured("readonly", null, List.of("read_file"));
        configured("fetcher", null, List.of("http_get"));
        fire(configured("quiet", null, List.of()), 3); // all three are due at the same time

        assertThat(main.requests()).hasSize(3);
        assertThat(runOf(main, "readonly").toolNames()).containsExactly("read_file");
        assertThat(runOf(main, "fetcher").toolNames()).as("the operator's list is used as written").containsExactly("http_get");
        assertThat(runOf(main, "quiet").toolNames()).as("an empty list is no tools").isEmpty();
        assertThat(schedules.find("readonly").orElseThrow().model()).isNull();
    }

    @Test
    void aChatMadeJob_askingForAToolItsPlatformDoesNotAllow_doesNotGetIt() {
        process();
        loopback.say(u1, "/schedule add every 5m model=fast tools=read_file,shell check the logs");

        assertThat(loopback.sent().getLast().text()).contains("model fast, tools read_file")
                .contains("left out, not offered on loopback: shell");
        Job job = schedules.forChat(u1).getFirst();
        assertThat(job.tools()).containsExactly("read_file");
        fire(job);
        assertThat(fast.requests()).singleElement().satisfies(r -> assertThat(r.toolNames()).containsExactly("read_file"));
        assertThat(main.requests()).isEmpty();
    }

    @Test
    void aChatMadeJobsStoredTools_areCutToThePlatformsAtEveryRun() {
        process();
        // stored while the platform still offered shell (agent.platform_tools was narrowed since)
        Instant now = clock.instant();
        Schedule every = Schedule.parse("every 5m", ZoneId.of("UTC"), now);
        kit.storage().schedules().create(new Job("older", "check the logs", every, u1, Misfire.RUN_ONCE, Job.DEFAULT_CATCH_UP, true,
                Definer.CHAT, "loopback user u1", now, now, every.nextAfter(now).orElseThrow(), null, null, null, null,
                List.of("shell", "read_file")));

        fire(schedules.find("older").orElseThrow());

        assertThat(main.requests()).singleElement().satisfies(r -> assertThat(r.toolNames())
                .as("a chat user's list never reaches past the platform's").containsExactly("read_file"));
    }

    @Test
    void aScheduledTurnCutByAKill_isResumedWithTheJobsProfileAndTools() {
        process();
        Job job = configured("digest", "fast", List.of("list_dir"));
        Hold hold = fast.enqueueHeld(Reply.stream("half an ", "answer"), 1);
        clock.set(job.nextRunAt());
        new Scheduler(kit.storage().schedules(), kit.gateway(), clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults()).tick();
        hold.awaitArrived(WAIT);
        Gateway killed = kit.gateway();

        kit.nextProcess(); // kill -9: the running process is abandoned as it is, the store reopened from disk
        process();
        await().atMost(WAIT).until(() -> replies().size() == 1);

        assertThat(fast.requests()).as("the cut turn, then its resume").hasSize(2);
        RecordedRequest resumed = fast.requests().get(1);
        assertThat(resumed.model()).isEqualTo("fast-model");
        assertThat(resumed.toolNames()).containsExactly("list_dir");
        assertThat(resumed.messages()).anySatisfy(m -> assertThat(m.content()).contains("compile the digest"));
        assertThat(main.requests()).as("the resume does not fall back to the chat's model").isEmpty();
        hold.release(); // the abandoned process's turn ends now; the store closed it, so it sends nothing
        await().atMost(WAIT).until(() -> killed.activeTurns().isEmpty());
    }
}
