package dev.herald.platforms.ntfy;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A topic as a chat: what a person publishes is answered on the topic, Herald's own messages (which come back on the
 * stream) are never answered, a dropped stream is opened again with since=<last id> (nothing lost, nothing answered
 * twice), a restart resumes from the stored id, and every call carries the configured credentials.
 */
class NtfyStreamTest {
    static final String TOPIC = FakeNtfy.TOPIC;

    final FakeNtfy ntfy = new FakeNtfy();
    @RegisterExtension
    final GatewayFixture herald = ntfy.herald();

    @Test
    void aPublishedMessage_isAnsweredOnTheTopic_withTheTokenAndTheOwnTag_andTheAnswerIsNotAnswered() {
        herald.start();

        ntfy.userPublishes(TOPIC, "what is the weather?", null);

        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        FakeNtfy.Message answer = ntfy.byHerald(TOPIC).getFirst();
        assertThat(answer.text()).isEqualTo("echo: what is the weather?");
        assertThat(answer.json().path("tags").get(0).asText()).isEqualTo("robot");
        assertThat(answer.headers().get("authorization")).isEqualTo("Bearer " + FakeNtfy.TOKEN);
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        assertThat(herald.agent.calls()).as("its own answer came back on the stream and was passed over").hasSize(1);
        assertThat(ntfy.auth).allMatch(a -> a.equals("Bearer " + FakeNtfy.TOKEN));
    }

    @Test
    void aMessageWithHeraldsTag_fromAnyone_isNotAnswered_butTheNextOneIs() {
        herald.start();
        ntfy.pushRaw("{\"id\":\"tagged1\",\"time\":1,\"event\":\"message\",\"topic\":\"" + TOPIC + "\",\"message\":\"loop?\",\"tags\":[\"robot\"]}");
        ntfy.userPublishes(TOPIC, "real question", "From my phone");

        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        assertThat(ntfy.byHerald(TOPIC).getFirst().text()).isEqualTo("echo: From my phone\nreal question");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aDroppedStream_isOpenedAgainSinceTheLastId_nothingLost_nothingAnsweredTwice() {
        herald.start();
        ntfy.userPublishes(TOPIC, "one", null);
        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        await().atMost(WAIT).until(() -> herald.storage.platformState().get(NtfyAdapter.PLATFORM, NtfyAdapter.SINCE_KEY)
                .equals(java.util.Optional.of(ntfy.byHerald(TOPIC).getFirst().id())));

        ntfy.down = true;
        ntfy.dropStreams();
        await().atMost(WAIT).until(() -> ntfy.openStreams.get() == 0);
        ntfy.userPublishes(TOPIC, "two", null); // published while Herald cannot read
        ntfy.down = false;

        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 2);
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 2);
        assertThat(ntfy.byHerald(TOPIC)).extracting(FakeNtfy.Message::text).containsExactly("echo: one", "echo: two");
        assertThat(ntfy.subscriptions).as("the first subscription reads from the time it began; the next after the last one done")
                .first().asString().matches("since=[0-9]+");
        assertThat(ntfy.subscriptions).anyMatch(q -> q.equals("since=" + ntfy.byHerald(TOPIC).getFirst().id()));
        assertThat(herald.agent.calls()).hasSize(2);
    }

    @Test
    void aRestart_resumesFromTheStoredId_andAnswersWhatCameMeanwhile_once() {
        herald.start();
        ntfy.userPublishes(TOPIC, "before", null);
        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        String lastSeen = ntfy.byHerald(TOPIC).getFirst().id();
        await().atMost(WAIT).until(() -> herald.storage.platformState().get(NtfyAdapter.PLATFORM, NtfyAdapter.SINCE_KEY)
                .equals(java.util.Optional.of(lastSeen)));

        herald.stop(StopKind.SHUTDOWN);
        ntfy.userPublishes(TOPIC, "while stopped", null);
        herald.restart();

        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).stream().anyMatch(m -> m.text().equals("echo: while stopped")));
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).stream()
                .filter(m -> m.text().startsWith("echo:")).count() == 2);
        assertThat(ntfy.subscriptions.getLast()).isEqualTo("since=" + lastSeen);
        assertThat(herald.agent.calls()).as("the new process answered only what came while it was stopped").hasSize(1);
    }

    @Test
    void withAReplyTopic_answersGoThere_andANoticeToTheTopicToo() {
        ntfy.settings = ntfy.settings.withReplyTopic("herald_answers_7c1f").withLook("Herald", 4, true);
        herald.start();

        ntfy.userPublishes(TOPIC, "**status?**", null);

        await().atMost(WAIT).until(() -> ntfy.byHerald("herald_answers_7c1f").size() == 1);
        FakeNtfy.Message answer = ntfy.byHerald("herald_answers_7c1f").getFirst();
        assertThat(answer.text()).isEqualTo("echo: **status?**");
        assertThat(answer.json().path("title").asText()).isEqualTo("Herald");
        assertThat(answer.json().path("priority").asInt()).isEqualTo(4);
        assertThat(answer.headers().get("markdown")).isEqualTo("yes");
        assertThat(ntfy.byHerald(TOPIC)).isEmpty();

        var r = herald.current.send(OutboundMessage.notice(ChatTarget.of(TOPIC), "Nightly backup finished ✅"));
        assertThat(r.success()).isTrue();
        assertThat(ntfy.byHerald("herald_answers_7c1f")).extracting(FakeNtfy.Message::text).contains("Nightly backup finished ✅");
    }

    @Test
    void basicAuth_isSent_andRefusedCredentials_failThePublishForGood_namingTheKey() {
        ntfy.token = null;
        ntfy.settings = ntfy.settings.withBasicAuth("phil", "s3cret-pass");
        herald.start();
        ntfy.userPublishes(TOPIC, "hi", null);
        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString("phil:s3cret-pass".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(ntfy.auth).contains(basic);

        ntfy.token = "tk_other";
        var r = herald.current.send(OutboundMessage.notice(ChatTarget.of(TOPIC), "refused"));
        assertThat(r.success()).isFalse();
        assertThat(r.retryable()).isFalse();
        assertThat(r.error()).contains("HTTP 401").contains("platforms.ntfy.token").doesNotContain("s3cret-pass");
    }

    @Test
    void aRefusedToken_stopsTheStart_namingTheKey_butNotTheToken() {
        ntfy.settings = NtfySettings.of(ntfy.baseUrl(), TOPIC, "tk_wrong0token0value");
        NtfyAdapter adapter = new NtfyAdapter(ntfy.settings, FakeNtfy.timing(), java.time.Clock.systemUTC(), herald.storage.platformState());
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> adapter.start(new dev.herald.platforms.RecordingSink()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("HTTP 401").hasMessageContaining("platforms.ntfy.token")
                    .hasMessageNotContaining("tk_wrong0token0value");
        } finally {
            adapter.close();
        }
    }

    @Test
    void onAnOpenTopic_anApprovalQuestion_hasThreeActionButtons_thatPublishTheCommand_andOnAProtectedOneNone() {
        ntfy.token = null;
        ntfy.settings = NtfySettings.of(ntfy.baseUrl(), TOPIC, null);
        herald.start();
        String question = "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.";

        assertThat(herald.current.send(new OutboundMessage(ChatTarget.of(TOPIC), question, dev.herald.core.platform.MessageKind.PROMPT, null,
                null, 1, 1)).success()).isTrue();

        FakeNtfy.Message prompt = ntfy.cache.stream().filter(m -> m.text().contains("rm -rf build")).findFirst().orElseThrow();
        String url = ntfy.baseUrl() + "/" + TOPIC;
        assertThat(prompt.headers().get("actions")).isEqualTo("http, Approve, " + url + ", method=POST, body=/approve, clear=true; http, Always, "
                + url + ", method=POST, body=/approve always, clear=true; http, Deny, " + url + ", method=POST, body=/deny, clear=true");
        ntfy.userPublishes(TOPIC, "/deny", null); // what the app publishes when Deny is pressed
        await().atMost(WAIT).until(() -> ntfy.cache.stream().anyMatch(m -> m.text().equals("Nothing is waiting for approval.")));
        assertThat(herald.agent.calls()).as("a command, answered inline").isEmpty();

        NtfyAdapter prot = new NtfyAdapter(NtfySettings.of(ntfy.baseUrl(), TOPIC, "tk_x"), FakeNtfy.timing(), java.time.Clock.systemUTC(),
                herald.storage.platformState());
        assertThat(prot.capabilities().buttons()).isFalse();
        assertThat(prot.send(new OutboundMessage(ChatTarget.of(TOPIC), question, dev.herald.core.platform.MessageKind.PROMPT, null, null, 1, 1))
                .success()).isTrue();
        assertThat(ntfy.cache.getLast().headers()).doesNotContainKey("actions");
        prot.close();
    }
}
