package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.PriorMessage;
import dev.herald.core.platform.SendResult;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Durable-session mode: the request's last user message goes to the gateway, the reply comes back through send. */
class SessionCompletionTest {
    private static final String SESSION = "X-Herald-Session-Id";
    private ApiFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("stateless must not run"));
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    @Test
    void session_heraldHeader_handsTheLastUserMessageToTheGatewayAndReturnsItsReply() {
        String request = """
                {"messages":[{"role":"system","content":"ignored"},{"role":"user","content":"old"},
                  {"role":"assistant","content":"old answer"},{"role":"user","content":"new message"}]}""";

        HttpResponse<String> r = fx.post(request, SESSION, "project-x.1");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode c = json(r.body());
        assertThat(c.path("object").asText()).isEqualTo("chat.completion");
        assertThat(c.path("choices").path(0).path("message").path("content").asText()).isEqualTo("echo: new message");
        assertThat(c.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        MessageEvent event = fx.gateway.lastEvent();
        assertThat(event.text()).isEqualTo("new message");
        assertThat(event.source().platform().id()).isEqualTo("api_server");
        assertThat(event.source().chatId()).isEqualTo("project-x.1");
        assertThat(event.source().chatType()).isEqualTo(ChatType.DM);
        assertThat(event.source().userId()).isEqualTo("api");
        assertThat(event.messageId()).isNull();
        assertThat(event.internal()).isFalse();
        assertThat(fx.agent.requests).as("the gateway runs session turns, not the adapter").isEmpty();
        assertThat(fx.gateway.sendResults).singleElement().satisfies(s -> assertThat(s.success()).isTrue());
    }

    @Test
    void session_hermesHeader_isAcceptedToo() {
        HttpResponse<String> r = fx.post(body("hello", false), "X-Hermes-Session-Id", "legacy:client");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(fx.gateway.lastEvent().source().chatId()).isEqualTo("legacy:client");
    }

    @Test
    void session_requestIdHeader_becomesTheMessageIdForDedupe_scopedToTheSession() {
        fx.post(body("hello", false), SESSION, "s1", "X-Herald-Request-Id", "req-42");

        assertThat(fx.gateway.lastEvent().messageId()).isEqualTo("s1:req-42");
    }

    @Test
    void session_replySplitIntoParts_isJoinedInOrder() {
        fx.gateway.answer((event, gw) -> {
            gw.send(event, "first half, ", MessageKind.REPLY, 1, 3);
            gw.send(event, "second half", MessageKind.REPLY, 2, 3);
            gw.send(event, ".", MessageKind.REPLY, 3, 3);
        });

        HttpResponse<String> r = fx.post(body("long answer please", false), SESSION, "s1");

        assertThat(json(r.body()).path("choices").path(0).path("message").path("content").asText()).isEqualTo("first half, second half.");
    }

    @Test
    void session_streaming_forwardsProgressDeltasAndEndsOnTheFinalSend() throws Exception {
        fx.gateway.answer((event, gw) -> {
            gw.delta(event, "Thinking ");
            gw.delta(event, "done");
            gw.reply(event, "Thinking done, and a tail.");
        });

        List<String> events = ApiFixture.events(fx.postStream(body("stream it", true), SESSION, "s1"));

        assertThat(ApiFixture.contents(events)).containsExactly("Thinking ", "done", ", and a tail.");
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(json(events.get(events.size() - 2)).path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
    }

    @Test
    void session_failedTurn_is502WithTheErrorText() {
        fx.gateway.answer((event, gw) -> gw.send(event, "The model is unreachable (connection refused); try again later.", MessageKind.ERROR, 1, 1));

        HttpResponse<String> r = fx.post(body("hi", false), SESSION, "s1");

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(json(r.body()).path("error").path("message").asText()).isEqualTo("The model is unreachable (connection refused); try again later.");
    }

    @Test
    void session_slashCommandAnsweredInline_returnsTheCommandResponse() {
        fx.gateway.admission(Admission.ANSWERED);
        fx.gateway.answer((event, gw) -> gw.send(event, "Session s1: idle, 3 messages", MessageKind.COMMAND_RESPONSE, 1, 1));

        HttpResponse<String> r = fx.post(body("/status", false), SESSION, "s1");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r.body()).path("choices").path(0).path("message").path("content").asText()).isEqualTo("Session s1: idle, 3 messages");
    }

    @Test
    void session_answeredWithoutText_doesNotWaitForTheFullTimeout() throws Exception {
        fx.close();
        fx = ApiFixture.start(ApiFixture.settings().withRequestTimeout(Duration.ofMillis(300)), ScriptedAgent.replying("x"));
        fx.gateway.admission(Admission.ANSWERED);
        fx.gateway.answer((event, gw) -> { });

        HttpResponse<String> r = fx.post(body("/status", false), SESSION, "s1");

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(json(r.body()).path("error").path("message").asText()).contains("answered '/status' inline");
    }

    @Test
    void session_refused_is403() {
        fx.gateway.admission(Admission.REFUSED);

        HttpResponse<String> r = fx.post(body("hi", false), SESSION, "s1");

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(json(r.body()).path("error").path("type").asText()).isEqualTo("permission_error");
    }

    @Test
    void session_requestIdSentAgain_whileItsFirstAttemptRuns_waitsForAndReturnsItsAnswer() {
        fx.gateway.admission(Admission.DUPLICATE);
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        fx.gateway.prior(() -> java.util.Optional.of(looks.incrementAndGet() < 3 ? new PriorMessage.Pending()
                : new PriorMessage.Answered("the first attempt's answer")));

        HttpResponse<String> r = fx.post(body("hi", false), SESSION, "s1", "X-Herald-Request-Id", "req-1");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r.body()).path("choices").path(0).path("message").path("content").asText()).isEqualTo("the first attempt's answer");
        assertThat(looks.get()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void session_requestIdSentAgain_whoseFirstAttemptEndedWithoutAnAnswer_is409SayingWhy() {
        fx.gateway.admission(Admission.DUPLICATE);
        fx.gateway.prior(() -> java.util.Optional.of(new PriorMessage.Ended("it was cancelled before it ran")));

        HttpResponse<String> r = fx.post(body("hi", false), SESSION, "s1", "X-Herald-Request-Id", "req-1");

        assertThat(r.statusCode()).isEqualTo(409);
        JsonNode error = json(r.body()).path("error");
        assertThat(error.path("message").asText()).contains("req-1").contains("it was cancelled before it ran");
        assertThat(error.path("param").asText()).isEqualTo("X-Herald-Request-Id");
    }

    @Test
    void session_gatewayStopping_is503WithRetryAfter() {
        fx.gateway.admission(Admission.REJECTED_STOPPING);

        HttpResponse<String> r = fx.post(body("hi", false), SESSION, "s1");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
    }

    @Test
    void send_withNoWaitingRequest_isSentWithoutAnId() {
        SendResult resumeReply = fx.api.send(new OutboundMessage(ChatTarget.of("s1"), "resumed reply", MessageKind.REPLY, null, "event-nobody-waits-for", 1, 1));
        SendResult notice = fx.api.send(OutboundMessage.notice(ChatTarget.of("s1"), "Herald restarted"));

        assertThat(resumeReply).isEqualTo(SendResult.sent(null));
        assertThat(notice).isEqualTo(SendResult.sent(null));
    }

    @Test
    void session_slowerThanTheRequestTimeout_is504AndALaterReplyIsSentToNobody() throws Exception {
        fx.close();
        fx = ApiFixture.start(ApiFixture.settings().withRequestTimeout(Duration.ofMillis(300)), ScriptedAgent.replying("x"));
        CountDownLatch timedOut = new CountDownLatch(1);
        fx.gateway.answer((event, gw) -> {
            timedOut.await(10, TimeUnit.SECONDS);
            gw.reply(event, "late reply");
        });

        HttpResponse<String> r = fx.post(body("slow", false), SESSION, "s1");
        timedOut.countDown();

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(json(r.body()).path("error").path("message").asText()).contains("continues").contains("s1");
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.gateway.sendResults.size() == 1);
        assertThat(fx.gateway.sendResults.getFirst()).isEqualTo(SendResult.sent(null));
    }

    @Test
    void close_failsWaitingSessionRequestsWith503AndReportsStopped() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        fx.gateway.answer((event, gw) -> never.await(10, TimeUnit.SECONDS));
        var pending = fx.http.sendAsync(fx.request("/v1/chat/completions").header(SESSION, "s1")
                .POST(HttpRequest.BodyPublishers.ofString(body("wait", false))).build(), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(5)).until(() -> !fx.gateway.events.isEmpty());

        fx.api.close();

        assertThat(pending.get().statusCode()).isEqualTo(503);
        assertThat(fx.gateway.connections).containsExactly(ConnectionState.CONNECTED, ConnectionState.STOPPED);
        assertThat(fx.post(body("after close", false), SESSION, "s1").statusCode()).isEqualTo(503);
        never.countDown();
    }
}
