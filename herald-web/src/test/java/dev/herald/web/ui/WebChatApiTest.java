package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web chat's wire without a browser: the event stream, dedupe by client id, kept answers, transcript paging. */
class WebChatApiTest {
    @TempDir
    Path dir;

    @Test
    void stream_sendsHelloDeltasAndReply_forItsConversationOnly() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new BrowserAgent());
                Frames frames = Frames.open(fx, "conv-stream")) {
            assertThat(frames.next().path("type").asText()).isEqualTo("hello");
            fx.chat("conv-other", "m-o-0001", "elsewhere");
            fx.chat("conv-stream", "m-s-0001", "hi there");
            StringBuilder streamed = new StringBuilder();
            JsonNode f;
            while ((f = frames.next()).path("type").asText().equals("delta")) {
                streamed.append(f.path("text").asText());
            }
            assertThat(f.path("type").asText()).isEqualTo("reply");
            assertThat(f.path("text").asText()).isEqualTo("You said: hi there");
            assertThat(streamed.toString()).isEqualTo("You said: hi there");
            assertThat(frames.poll(300)).as("nothing from conv-other").isNull();
        }
    }

    @Test
    void stream_modelAnswerCutOffMidStream_endsWithAReplyFrame_andTheTranscriptShowsThePartWithTheNotice() throws Exception {
        String expected = "ECHO: u02-m0005 oscar\n\n(This answer is incomplete: the model's answer broke off. Send your message again "
                + "for a complete answer.)";
        try (FakeModelServer model = FakeModelServer.start();
                OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "m").withMaxRetries(2));
                WebUiFixture fx = WebUiFixture.start(dir, new ModelAgent(client));
                Frames frames = Frames.open(fx, "conv-cut")) {
            model.enqueue(Reply.text("ECHO: u02-m0005 oscar papa quebec romeo sierra").droppedAfter(3));
            assertThat(frames.next().path("type").asText()).isEqualTo("hello");
            fx.chat("conv-cut", "m-c-0001", "u02-m0005 oscar");
            StringBuilder streamed = new StringBuilder();
            JsonNode f;
            while ((f = frames.next()).path("type").asText().equals("delta")) {
                streamed.append(f.path("text").asText());
            }

            assertThat(streamed.toString()).isEqualTo("ECHO: u02-m0005 oscar ");
            assertThat(f.path("type").asText()).as("the page drops its draft and shows the transcript's answer").isEqualTo("reply");
            assertThat(f.path("text").asText()).isEqualTo(expected);
            assertThat(fx.awaitReply("conv-cut", expected).path("rows")).extracting(r -> r.path("text").asText()).last().isEqualTo(expected);
            assertThat(model.requests()).as("the page showed the part, so the model was not asked again").hasSize(1);
        }
    }

    @Test
    void transcript_afterACompression_marksTheCopiedRowsAndTheSummary_andNamesTheSessionItContinues() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-compress", "m-c-0001", "one");
            fx.awaitReply("conv-compress", "echo: one");
            fx.awaitIdle();
            String parent = fx.storage.sessions().find(fx.key("conv-compress")).orElseThrow().sessionId();
            java.time.Instant at = java.time.Instant.now();
            fx.storage.transcripts().continueInChild(parent, "child-of-conv-compress", at);
            fx.storage.transcripts().append("child-of-conv-compress", dev.herald.core.transcript.TranscriptRow.user(
                    "[System note: The earlier conversation was summarized to fit the model's context. Summary:]\n\nthey said one", at));
            fx.storage.transcripts().append("child-of-conv-compress", dev.herald.core.transcript.TranscriptRow.user("one", at));
            fx.storage.transcripts().append("child-of-conv-compress", dev.herald.core.transcript.TranscriptRow.assistant("new answer",
                    at.plusMillis(5)));

            JsonNode t = WebUiFixture.json(fx.get("/chat/api/transcript?c=conv-compress"));

            assertThat(t.path("sessionId").asText()).isEqualTo("child-of-conv-compress");
            assertThat(t.path("continues").asText()).isEqualTo(parent);
            JsonNode rows = t.path("rows");
            assertThat(rows.path(0).path("event").asText()).isEqualTo("summary");
            assertThat(rows.path(1).path("carried").asBoolean()).as("the copied message").isTrue();
            assertThat(rows.path(2).path("carried").asBoolean()).as("written after the compression").isFalse();
        }
    }

    @Test
    void renameAndDelete_storeTheTitleAndHideTheConversation_whichTheListThenMarks() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            assertThat(WebUiFixture.json(fx.post("/chat/api/rename", "{\"conversation\":\"conv-later\",\"title\":\"Not yet\"}"))
                    .path("status").asText()).as("not stored yet: the page keeps the title").isEqualTo("local");
            fx.chat("conv-named", "m-n-0001", "hello");
            fx.awaitReply("conv-named", "echo: hello");

            assertThat(WebUiFixture.json(fx.post("/chat/api/rename", "{\"conversation\":\"conv-named\",\"title\":\"Trip plans\"}"))
                    .path("status").asText()).isEqualTo("renamed");
            assertThat(WebUiFixture.json(fx.post("/chat/api/delete", "{\"conversation\":\"conv-named\"}")).path("status").asText())
                    .isEqualTo("hidden");

            JsonNode listed = WebUiFixture.json(fx.get("/chat/api/conversations")).path("conversations").path(0);
            assertThat(listed.path("title").asText()).isEqualTo("Trip plans");
            assertThat(listed.path("hidden").asBoolean()).isTrue();
            assertThat(fx.post("/chat/api/rename", "{\"conversation\":\"conv-named\",\"title\":\"" + "x".repeat(201) + "\"}").statusCode())
                    .isEqualTo(400);
            assertThat(fx.post("/chat/api/delete", "{\"conversation\":\"no\"}").statusCode()).isEqualTo(400);
        }
    }

    @Test
    void send_sameClientIdTwice_deliveredOnce_secondIsDuplicate() {
        BrowserAgent agent = new BrowserAgent();
        try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
            assertThat(WebUiFixture.json(fx.chat("conv-dedupe", "m-same-1", "only once")).path("status").asText()).isEqualTo("accepted");
            assertThat(WebUiFixture.json(fx.chat("conv-dedupe", "m-same-1", "only once")).path("status").asText()).isEqualTo("duplicate");
            JsonNode t = fx.awaitReply("conv-dedupe", "You said: only once");
            assertThat(agent.count("only once")).isEqualTo(1);
            assertThat(t.path("rows")).filteredOn(r -> r.path("role").asText().equals("user")).hasSize(1);
        }
    }

    @Test
    void transcript_afterSeq_returnsOnlyLaterRows_andCommandAnswersAreKeptForTheNextStream() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-page", "m-p-0001", "one");
            JsonNode all = fx.awaitReply("conv-page", "echo: one");
            long last = all.path("rows").path(1).path("seq").asLong();
            fx.chat("conv-page", "m-p-0002", "two");
            fx.awaitReply("conv-page", "echo: two");
            JsonNode later = WebUiFixture.json(fx.get("/chat/api/transcript?c=conv-page&after=" + last));
            assertThat(later.path("rows")).extracting(r -> r.path("text").asText()).containsExactly("two", "echo: two");
            assertThat(later.path("sessionId").asText()).isEqualTo(all.path("sessionId").asText());

            assertThat(WebUiFixture.json(fx.chat("conv-page", "k-status-1", "/status")).path("status").asText()).isEqualTo("answered");
            try (Frames frames = Frames.open(fx, "conv-page")) {
                assertThat(frames.next().path("type").asText()).isEqualTo("hello");
                JsonNode kept = frames.next();
                assertThat(kept.path("type").asText()).isEqualTo("command");
                assertThat(kept.path("text").asText()).contains("Session:");
            }
        }
    }

    @Test
    void send_invalidInput_400_withAMessage() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            HttpResponse<String> r = fx.post("/chat/api/send", "{\"conversation\":\"x\",\"clientId\":\"m-1234567\",\"text\":\"hi\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("conversation must be 6-64");
            assertThat(fx.post("/chat/api/send", "not json").statusCode()).isEqualTo(400);
            assertThat(fx.get("/chat/api/transcript?c=conv-none").statusCode()).isEqualTo(200);
        }
    }

    /** The frames of one open event stream, read on a virtual thread. */
    static final class Frames implements AutoCloseable {
        private final BlockingQueue<JsonNode> queue = new LinkedBlockingQueue<>();
        private final HttpResponse<Stream<String>> response;

        private Frames(HttpResponse<Stream<String>> response) {
            this.response = response;
            Thread.ofVirtual().start(() -> response.body().filter(l -> l.startsWith("data: "))
                    .forEach(l -> queue.add(parse(l.substring(6)))));
        }

        static Frames open(WebUiFixture fx, String conversation) throws Exception {
            HttpRequest req = HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/chat/api/stream?c=" + conversation)).GET().build();
            HttpResponse<Stream<String>> res = fx.http.send(req, HttpResponse.BodyHandlers.ofLines());
            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
            return new Frames(res);
        }

        JsonNode next() throws InterruptedException {
            JsonNode n = queue.poll(Duration.ofSeconds(20).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(n).as("a frame within 20 s").isNotNull();
            return n;
        }

        JsonNode poll(long millis) throws InterruptedException {
            return queue.poll(millis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            response.body().close();
        }

        private static JsonNode parse(String json) {
            try {
                return WebUiFixture.JSON.readTree(json);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
