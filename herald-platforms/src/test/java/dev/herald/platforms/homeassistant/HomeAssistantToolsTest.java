package dev.herald.platforms.homeassistant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.PlatformToolSource;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.PlatformTools;
import dev.herald.platforms.RecordingSink;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools in the real agent loop: a scripted model asks for {@code ha_call_service}; a call in an allowed domain runs at
 * once, any other waits for the chat's approval (shown in full) and runs only when approved, and a call with a hostile
 * entity id or data is refused before anything reaches Home Assistant.
 */
class HomeAssistantToolsTest {
    static final FakeHomeAssistant HA = new FakeHomeAssistant();

    @TempDir
    Path tmp;

    final FakeModelServer model = FakeModelServer.start();
    final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "house-model").withMaxRetries(0));
    final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    HomeAssistantAdapter adapter;
    ModelAgent agent;

    @AfterAll
    static void stopFake() {
        HA.close();
    }

    @BeforeEach
    void start() throws Exception {
        PlatformTools tools = new PlatformTools();
        adapter = HomeAssistantPlugin.create(HomeAssistantSettings.of(HA.url(), FakeHomeAssistant.TOKEN), HomeAssistantHarness.timing(),
                HomeAssistantHarness.context(tools));
        adapter.start(new RecordingSink());
        ToolSettings settings = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("mcp"));
        agent = new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(settings, BuiltinTools.all(settings),
                List.of(new PlatformToolSource(tools))));
    }

    @AfterEach
    void stop() {
        adapter.close();
        client.close();
        model.close();
    }

    /** One turn in which the model calls ha_call_service with {@code args}, the chat answering approvals with {@code answer}. */
    private String turn(String args, ApprovalDecision answer) {
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_1", "ha_call_service", args)), Reply.text("ok"));
        TurnListener listener = new TurnListener() {
            @Override
            public void onMessage(ChatMessage message) {
            }

            @Override
            public ApprovalDecision requestApproval(ApprovalRequest request) {
                asked.add(request);
                return answer;
            }
        };
        agent.runTurn(new TurnRequest("s-1", "telegram:dm:1", List.of(), "do it", true, "telegram"), listener, new Interrupt());
        return model.lastRequest().messages().getLast().content();
    }

    private List<String> callsSince(int n) {
        return HA.calls.subList(n, HA.calls.size()).stream().map(c -> c.domain() + "." + c.service() + " " + c.target().path("entity_id")
                + (c.serviceData().isMissingNode() ? "" : " " + c.serviceData())).toList();
    }

    @Test
    void aLightCall_runsAtOnce_withoutAnApproval() {
        int n = HA.calls.size();

        String result = turn("{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\"],\"data\":{\"brightness_pct\":40}}",
                ApprovalDecision.DENIED);

        assertThat(asked).isEmpty();
        assertThat(result).isEqualTo("Done: light.turn_on on light.kitchen with {\"brightness_pct\":40}.");
        assertThat(callsSince(n)).containsExactly("light.turn_on [\"light.kitchen\"] {\"brightness_pct\":40}");
        assertThat(HA.stateOf("light.kitchen")).isEqualTo("on");
    }

    @Test
    void unlockingTheDoor_asksFirst_showingTheWholeCall_andDoesNothingWhenDenied() {
        int n = HA.calls.size();

        String result = turn("{\"domain\":\"lock\",\"service\":\"unlock\",\"entity\":[\"lock.front_door\"]}", ApprovalDecision.DENIED);

        assertThat(asked).singleElement().satisfies(a -> {
            assertThat(a.toolName()).isEqualTo("ha_call_service");
            assertThat(a.reason()).contains("lock is not in platforms.homeassistant.allow_domains");
            assertThat(a.summary()).isEqualTo("Home Assistant lock.unlock on lock.front_door");
        });
        assertThat(result).startsWith("Denied");
        assertThat(callsSince(n)).isEmpty();
        assertThat(HA.stateOf("lock.front_door")).isEqualTo("locked");
    }

    @Test
    void unlockingTheDoor_runsOnceApproved() {
        int n = HA.calls.size();

        String result = turn("{\"domain\":\"lock\",\"service\":\"unlock\",\"entity\":[\"lock.front_door\"]}", ApprovalDecision.APPROVED_ONCE);

        assertThat(asked).hasSize(1);
        assertThat(result).isEqualTo("Done: lock.unlock on lock.front_door.");
        assertThat(callsSince(n)).containsExactly("lock.unlock [\"lock.front_door\"]");
        turn("{\"domain\":\"lock\",\"service\":\"lock\",\"entity\":[\"lock.front_door\"]}", ApprovalDecision.APPROVED_ONCE);
    }

    @Test
    void aLightServiceAimedAtALock_asksFirst() {
        turn("{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"lock.front_door\"]}", ApprovalDecision.DENIED);

        assertThat(asked).singleElement().satisfies(a -> assertThat(a.reason()).contains("lock.front_door is not a light entity"));
    }

    @Test
    void hostileEntityIdsAndData_areRefused_beforeAnythingIsSent() {
        int n = HA.calls.size();
        List<String> hostile = List.of(
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\\\",\\\"lock.front_door\"]}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"all\"]}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"Light.Kitchen\"]}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light._kitchen\"]}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\"],\"data\":{\"entity_id\":\"lock.front_door\"}}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\"],\"data\":\"brightness 100\"}",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\"],\"data\":{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1}}}}}}",
                "{\"domain\":\"light.turn_on\",\"service\":\"x\",\"entity\":[\"light.kitchen\"]}",
                "{\"domain\":\"light\",\"service\":\"turn_on\\n\",\"entity\":[\"light.kitchen\"]}");
        for (String args : hostile) {
            assertThat(turn(args, ApprovalDecision.APPROVED_ONCE)).as(args).startsWith("Error: refused, nothing was sent: ");
        }
        assertThat(asked).as("a call refused anyway asks nobody").isEmpty();
        assertThat(callsSince(n)).isEmpty();
    }
}
