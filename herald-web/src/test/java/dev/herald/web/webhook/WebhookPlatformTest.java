package dev.herald.web.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.WebServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The webhook platform on a real web server, with the real gateway on a real SQLite store (built by the testkit's
 * {@link GatewayHarness}, which checks the store invariants after each test), a scripted agent, and a loopback
 * platform as the other platform replies are forwarded to.
 */
class WebhookPlatformTest {
    static final String GITHUB_SECRET = "gh-webhook-secret-5731";
    static final String GITLAB_TOKEN = "gl-webhook-token-8842";
    static final String STANDARD_SECRET = "whsec_" + java.util.Base64.getEncoder().encodeToString("standard-webhooks-key-24b".getBytes());
    static final Duration WAIT = Duration.ofSeconds(10);
    static final ObjectMapper JSON = new ObjectMapper();
    static final String ISSUE = """
            {"action":"opened","issue":{"number":42,"title":"Crash on start","body":"It crashes."},"sender":{"login":"octocat"}}""";

    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();
    final ScriptedAgent agent = new ScriptedAgent();
    final HttpClient http = HttpClient.newHttpClient();
    final LogLines logs = new LogLines();
    GatewayHarness kit;
    Storage storage;
    WebServer web;
    LoopbackPlatform ops;
    Gateway gateway;

    @BeforeEach
    void setUp() {
        ((Logger) LoggerFactory.getLogger("dev.herald")).addAppender(logs);
        logs.start();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        storage = kit.storage();
        ops = new LoopbackPlatform(Platform.of("ops"), new Capabilities(true, false, false, false, false, 100), clock);
        WebhookPlatform webhook = new WebhookPlatform(new WebhookPlatform.Settings(4096, List.of(
                new WebhookRoute("github", GITHUB_SECRET, SignatureStyle.GITHUB,
                        "New issue #{issue.number}: {issue.title} by {sender.login}. Missing: {issue.labels}", new Delivery.Log()),
                new WebhookRoute("gitlab", GITLAB_TOKEN, SignatureStyle.GITLAB, "Merge request: {object_attributes.title}",
                        Delivery.parse("ops:alerts")),
                new WebhookRoute("raw", null, SignatureStyle.NONE, "", new Delivery.Log()),
                new WebhookRoute("saas", STANDARD_SECRET, SignatureStyle.STANDARD, "Event: {type}", new Delivery.Log()),
                new WebhookRoute("comments", null, SignatureStyle.NONE, "{comment}", new Delivery.Log()))),
                web, clock);
        Allowlists access = new Allowlists(Map.of(WebhookPlatform.PLATFORM, AccessPolicy.allowAll()), false);
        gateway = kit.gateway(agent, access, List.of(webhook, ops), List.of(), webhook.relays(), GatewaySettings.defaults().withDrainTimeout(Duration.ofMillis(200)),
                GatewayMetrics.NONE);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    /** Checks the store invariants (the harness stops the gateway first), then closes the web server and the store. */
    @AfterEach
    void tearDown() {
        try {
            kit.close();
        } finally {
            ((Logger) LoggerFactory.getLogger("dev.herald")).detachAppender(logs);
        }
    }

    @Test
    void aCorrectlySignedGitHubDelivery_isAccepted_theModelGetsTheTemplatedPrompt_andTheReplyIsLogged() throws Exception {
        agent.reply("Triage: " + "x".repeat(300));

        HttpResponse<String> r = post("github", ISSUE, "X-Hub-Signature-256", githubSignature(ISSUE), "X-GitHub-Event", "issues");

        assertThat(r.statusCode()).isEqualTo(202);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("status").asText()).isEqualTo("accepted");
        assertThat(turns()).singleElement().extracting(TurnRecord::eventId).isEqualTo(body.path("event_id").asText());
        assertThat(agent.awaitCalls(1, WAIT).getFirst().userMessage())
                .isEqualTo("New issue #42: Crash on start by octocat. Missing: {issue.labels}");
        String line = awaitLog("webhook - route github reply");
        assertThat(line).contains("(308 chars)").contains("Triage: xxx").endsWith("x".repeat(192) + "...");
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).noneMatch(m -> m.contains(GITHUB_SECRET));
    }

    @Test
    void aBadSignature_isRefusedWith401_andNothingIsStored() throws Exception {
        String forged = "sha256=" + HexFormat.of().formatHex(SignatureCheck.hmac("not-the-secret", ISSUE.getBytes(StandardCharsets.UTF_8)));

        HttpResponse<String> wrong = post("github", ISSUE, "X-Hub-Signature-256", forged);
        HttpResponse<String> missing = post("github", ISSUE);
        HttpResponse<String> tampered = post("github", ISSUE.replace("42", "43"), "X-Hub-Signature-256", githubSignature(ISSUE));

        assertThat(List.of(wrong.statusCode(), missing.statusCode(), tampered.statusCode())).containsOnly(401);
        assertThat(turns()).isEmpty();
        assertThat(agent.calls()).isEmpty();
        assertThat(storage.sessions().find(new dev.herald.core.session.SessionKey("agent:main:webhook:dm:github"))).isEmpty();
    }

    @Test
    void aSignedBodyThatIsNotJson_isRefusedWith400_andNothingIsStored() throws Exception {
        String broken = "{\"action\": \"opened\", ";

        HttpResponse<String> r = post("github", broken, "X-Hub-Signature-256", githubSignature(broken));

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(turns()).isEmpty();
    }

    /**
     * Fuzzed bodies and signatures posted to the signed routes: never a 5xx; a turn is stored only for a request
     * whose signature the route verified (correctly signed by the test, then body-mutated requests are refused).
     */
    @Test
    @org.junit.jupiter.api.Tag("fuzz")
    void fuzzedDeliveries_neverGetA5xx_andOnlyCorrectlySignedOnesAreStored() {
        int[] signed = {0};
        dev.herald.testkit.fuzz.Fuzzer.wire("webhook wire", List.of(ISSUE, "{\"object_kind\":\"merge_request\",\"object_attributes\":"
                + "{\"title\":\"Fix\"},\"comment\":\"/stop\"}", "[1,2,{\"a\":null}]"), 300).run(body -> {
            boolean sign = body.hashCode() % 2 == 0;
            String signature = sign ? githubSignature(body) : githubSignature(body + " ");
            int before = turns().size();
            HttpResponse<String> r = post("github", body, "X-Hub-Signature-256", signature);
            assertThat(r.statusCode()).as("status for a fuzzed delivery").isLessThan(500);
            if (r.statusCode() == 202) {
                assertThat(sign).as("accepted only when correctly signed").isTrue();
                signed[0]++;
            } else {
                assertThat(turns()).as("a refused delivery stores nothing").hasSize(before);
            }
        }, t -> false);
        assertThat(turns()).hasSize(signed[0]);
    }

    @Test
    void anUnknownRoute_is404_andABodyOverTheLimit_is413_andNeitherStoresAnything() throws Exception {
        String big = "{\"pad\":\"" + "y".repeat(5000) + "\"}";

        assertThat(post("nope", ISSUE).statusCode()).isEqualTo(404);
        assertThat(post("github", big, "X-Hub-Signature-256", githubSignature(big)).statusCode()).isEqualTo(413);
        assertThat(turns()).isEmpty();
    }

    @Test
    void aGitLabDeliveryWithTheRightToken_isForwardedToTheConfiguredChatOnAnotherPlatform_splitToItsLimit() throws Exception {
        String mr = "{\"object_kind\":\"merge_request\",\"object_attributes\":{\"title\":\"Fix the flaky test\"}}";
        agent.reply(("Reviewed. " + "All good. ".repeat(20)).strip());

        assertThat(post("gitlab", mr, "X-Gitlab-Token", "wrong").statusCode()).isEqualTo(401);
        HttpResponse<String> r = post("gitlab", mr, "X-Gitlab-Token", GITLAB_TOKEN);

        assertThat(r.statusCode()).isEqualTo(202);
        await().atMost(WAIT).until(() -> ops.sent().stream().anyMatch(s -> s.text().endsWith("All good.")));
        assertThat(agent.messages()).containsExactly("Merge request: Fix the flaky test");
        assertThat(ops.sent()).hasSizeGreaterThan(1).allSatisfy(s -> {
            assertThat(s.target().chatId()).isEqualTo("alerts");
            assertThat(s.text().length()).isLessThanOrEqualTo(100);
        });
        assertThat(turns()).singleElement().extracting(TurnRecord::state).isEqualTo(TurnState.DELIVERED);
    }

    @Test
    void aForwardedReplyWhoseSecondPartFails_isSentOnFromThatPartWhenTheTargetReconnects_andNoPartArrivesTwice() throws Exception {
        String mr = "{\"object_kind\":\"merge_request\",\"object_attributes\":{\"title\":\"Big change\"}}";
        String reply = ("Reviewed. " + "Looks fine. ".repeat(20)).strip();
        agent.reply(reply);
        java.util.concurrent.atomic.AtomicBoolean secondPartFails = new java.util.concurrent.atomic.AtomicBoolean(true);
        ops.onSend(m -> secondPartFails.get() && m.part() == 2 ? dev.herald.core.platform.SendResult.failed("502 Bad Gateway", true)
                : dev.herald.core.platform.SendResult.sent("ops-" + m.part()));

        assertThat(post("gitlab", mr, "X-Gitlab-Token", GITLAB_TOKEN).statusCode()).isEqualTo(202);
        await().atMost(WAIT).until(() -> turns().getFirst().deliveryAttempts() >= 1);
        assertThat(turns().getFirst().partsDelivered()).as("the first part went out and is recorded").isEqualTo(1);
        assertThat(turns().getFirst().deliveryError()).startsWith("part 2 of ");

        secondPartFails.set(false);
        ops.disconnect();
        ops.reconnect(); // the target platform is back: the redelivery worker sends its waiting replies, the relayed one included

        await().atMost(WAIT).until(() -> turns().getFirst().state() == TurnState.DELIVERED);
        assertThat(ops.sent()).extracting(s -> s.message().part()).as("each part once, in order").containsExactly(1, 2, 3);
        assertThat(ops.sent().stream().map(s -> s.text()).reduce("", String::concat).replace(" ", ""))
                .isEqualTo(reply.replace(" ", ""));
        assertThat(agent.calls()).as("delivered from the record, not generated again").hasSize(1);
    }

    @Test
    void aRedeliveredWebhook_withTheSameDeliveryId_runsOneTurn() throws Exception {
        String signature = githubSignature(ISSUE);

        HttpResponse<String> first = post("github", ISSUE, "X-Hub-Signature-256", signature, "X-GitHub-Delivery", "d-72d3162e");
        HttpResponse<String> again = post("github", ISSUE, "X-Hub-Signature-256", signature, "X-GitHub-Delivery", "d-72d3162e");

        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(again.body()).path("status").asText()).isEqualTo("duplicate");
        assertThat(turns()).singleElement().extracting(TurnRecord::platformMessageId).asString().startsWith("github:sha256:");
    }

    @Test
    void aReplayedWebhook_underANewDeliveryId_runsOneTurn() throws Exception {
        String signature = githubSignature(ISSUE);

        HttpResponse<String> first = post("github", ISSUE, "X-Hub-Signature-256", signature, "X-GitHub-Delivery", "d-0001");
        HttpResponse<String> replay = post("github", ISSUE, "X-Hub-Signature-256", signature, "X-GitHub-Delivery", "d-9999");
        HttpResponse<String> noId = post("github", ISSUE, "X-Hub-Signature-256", signature);

        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(replay.body()).path("status").asText()).isEqualTo("duplicate");
        assertThat(noId.statusCode()).isEqualTo(200);
        agent.awaitCalls(1, WAIT);
        assertThat(turns()).hasSize(1);
        assertThat(awaitLog("webhook - route github: a request already received was sent again")).contains("d-9999");
    }

    @Test
    void standardWebhooks_aSignedEventRuns_itsRetryIsADuplicate_aStaleOrForgedOneIs401() throws Exception {
        String event = "{\"type\":\"invoice.paid\",\"data\":{\"id\":\"in_1\"}}";
        long now = clock.instant().getEpochSecond();

        HttpResponse<String> ok = postStandard("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", now - 10, event, event);
        HttpResponse<String> retry = postStandard("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", now, event, event);
        HttpResponse<String> stale = postStandard("msg_stale", now - 301, event, event);
        HttpResponse<String> future = postStandard("msg_future", now + 301, event, event);
        HttpResponse<String> forged = postStandard("msg_forged", now, event, event.replace("in_1", "in_2"));
        HttpResponse<String> renamed = post("saas", event, "webhook-id", "msg_other", "webhook-timestamp", Long.toString(now),
                "webhook-signature", standardSignature("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", now, event));

        assertThat(ok.statusCode()).isEqualTo(202);
        assertThat(agent.awaitCalls(1, WAIT).getFirst().userMessage()).isEqualTo("Event: invoice.paid");
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(retry.body()).path("status").asText()).isEqualTo("duplicate");
        assertThat(List.of(stale.statusCode(), future.statusCode(), forged.statusCode(), renamed.statusCode())).containsOnly(401);
        assertThat(turns()).hasSize(1);
        assertThat(awaitLog("webhook - route saas: request from")).contains("window is 300 s");
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).noneMatch(m -> m.contains(STANDARD_SECRET.substring(6)));
    }

    @Test
    void githubsPingOnWebhookCreation_isAnsweredWithoutATurn() throws Exception {
        String ping = "{\"zen\":\"Keep it logically awesome.\",\"hook_id\":1}";

        HttpResponse<String> r = post("github", ping, "X-Hub-Signature-256", githubSignature(ping), "X-GitHub-Event", "ping");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).path("status").asText()).isEqualTo("pong");
        assertThat(turns()).isEmpty();
    }

    @Test
    void aPayloadThatReadsAsASlashCommand_startsAMarkedTurn_insteadOfRunningTheCommand() throws Exception {
        HttpResponse<String> r = post("comments", "{\"comment\":\"/new\"}");

        assertThat(r.statusCode()).isEqualTo(202);
        assertThat(agent.awaitCalls(1, WAIT).getFirst().userMessage()).isEqualTo("[webhook comments] /new");
    }

    @Test
    void anEmptyTemplate_givesTheModelThePrettyPrintedPayload() throws Exception {
        post("raw", "{\"a\":{\"b\":[1,2]}}");

        assertThat(agent.awaitCalls(1, WAIT).getFirst().userMessage()).isEqualTo("{\n  \"a\" : {\n    \"b\" : [ 1, 2 ]\n  }\n}");
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** Every log event, kept in a list that tests may read while the server logs. */
    static final class LogLines extends AppenderBase<ILoggingEvent> {
        final List<ILoggingEvent> list = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        protected void append(ILoggingEvent e) {
            list.add(e);
        }
    }

    private HttpResponse<String> post(String route, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + "/webhooks/" + route))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A Standard Webhooks request whose signature covers {@code signedBody} but which sends {@code sentBody}. */
    private HttpResponse<String> postStandard(String id, long timestamp, String signedBody, String sentBody) throws Exception {
        return post("saas", sentBody, "webhook-id", id, "webhook-timestamp", Long.toString(timestamp), "webhook-signature",
                "v1,bm90LXRoaXMtb25l " + standardSignature(id, timestamp, signedBody));
    }

    private static String standardSignature(String id, long timestamp, String body) {
        byte[] key = java.util.Base64.getDecoder().decode(STANDARD_SECRET.substring(6));
        return "v1," + java.util.Base64.getEncoder().encodeToString(
                SignatureCheck.hmac(key, (id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
    }

    private static String githubSignature(String body) {
        return "sha256=" + HexFormat.of().formatHex(SignatureCheck.hmac(GITHUB_SECRET, body.getBytes(StandardCharsets.UTF_8)));
    }

    /** Every stored turn once, in its latest state (states only move forward, in the enum's order). */
    private List<TurnRecord> turns() {
        Map<Long, TurnRecord> all = new java.util.TreeMap<>();
        for (TurnState s : TurnState.values()) {
            storage.turns().inState(s, 1000).forEach(t -> all.put(t.id(), t));
        }
        return new ArrayList<>(all.values());
    }

    private String awaitLog(String prefix) {
        AtomicReference<String> found = new AtomicReference<>();
        await().atMost(WAIT).until(() -> {
            for (ILoggingEvent e : logs.list) {
                if (e.getFormattedMessage().startsWith(prefix)) {
                    found.set(e.getFormattedMessage());
                    return true;
                }
            }
            return false;
        });
        return found.get();
    }
}
