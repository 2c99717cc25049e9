package dev.herald.agent.model;

import static dev.herald.agent.model.Clients.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A model stream that breaks off mid-answer is never taken for the whole answer: a chunked body that stops after three
 * chunks (the connection closed), a stream that stalls past the idle timeout, and a body that ends cleanly without
 * {@code [DONE]} and without a finish reason. While nothing was shown the call is asked again and returns the whole
 * answer; after text was shown it fails, saying how far the stream got, and is not asked again.
 */
class CutStreamTest {
    static final String WHOLE = "ECHO: u02-m0005 oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee";
    /** Long enough for a cold first request on a busy machine; the stalled stream's test waits it out once. */
    static final Duration IDLE = Duration.ofMillis(1_500);

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(Clients.settings(fake.baseUrl())
            .withTimeouts(Duration.ofSeconds(2), IDLE).withMaxRetries(2));

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    /** The three ways a stream breaks off, each after the first three words of {@link #WHOLE}. */
    enum Cut {
        DROPPED, STALLED, ENDED_EARLY;

        void enqueue(FakeModelServer fake) {
            switch (this) {
                case DROPPED -> fake.enqueue(Reply.text(WHOLE).droppedAfter(3));
                case STALLED -> fake.enqueueHeld(Reply.text(WHOLE), 3);
                case ENDED_EARLY -> fake.enqueue(Reply.rawLines(chunk("ECHO: "), "", chunk("u02-m0005 "), "", chunk("oscar "), ""));
            }
        }

        static String chunk(String content) {
            return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                    + content + "\"},\"finish_reason\":null}]}";
        }
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void stream_cutOffBeforeAnythingWasShown_isAskedAgainAndReturnsTheWholeAnswer(Cut cut) throws Exception {
        cut.enqueue(fake);
        fake.enqueue(Reply.text(WHOLE));
        Recorder collector = new Recorder();

        ModelResponse response = client.complete(Clients.streamed("hi"), collector, new Interrupt());

        assertThat(response.content()).isEqualTo(WHOLE);
        assertThat(collector.text()).as("the broken attempt's text was dropped before the retry").isEqualTo(WHOLE);
        assertThat(collector.restarts).isEqualTo(1);
        assertThat(fake.requests()).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void stream_cutOffAfterTextWasShown_failsSayingHowFarItGotWithoutAskingAgain(Cut cut) {
        cut.enqueue(fake);
        fake.enqueue(Reply.text("a second answer must not be asked for"));
        Recorder reader = Recorder.showing();

        ModelException e = failure(client, Clients.streamed("hi"), reader, new Interrupt());

        assertThat(reader.text()).isEqualTo("ECHO: u02-m0005 oscar ");
        assertThat(fake.requests()).as("text was shown, so no retry").hasSize(1);
        assertThat(e.retryable()).isTrue();
        String endpoint = "model - " + fake.baseUrl();
        switch (cut) {
            case DROPPED -> assertThat(e.getMessage()).startsWith(endpoint + " dropped the connection after 1 attempt in ")
                    .contains(" after 3 chunks (22 characters)").endsWith("the reply was cut off; try again");
            case STALLED -> assertThat(e.getMessage()).startsWith(endpoint + " went silent mid-reply for 1,500 ms");
            case ENDED_EARLY -> assertThat(e.getMessage()).matches(Pattern.quote(endpoint + " ended its reply early after 1 attempt in ")
                    + "[\\d,]+" + Pattern.quote(" ms (the stream ended without [DONE] or a finish reason after 3 chunks (22 characters)); "
                    + "the reply was cut off; check the model server's log"));
        }
        assertThat(e.kind()).isEqualTo(cut == Cut.STALLED ? ModelException.Kind.TIMEOUT : ModelException.Kind.BROKEN);
    }

    @Test
    void stream_cutOffOnEveryAttempt_failsWithOnlyTheLastAttemptsText() {
        fake.enqueue(Reply.text(WHOLE).droppedAfter(2), Reply.text(WHOLE).droppedAfter(4), Reply.text(WHOLE).droppedAfter(1));
        Recorder collector = new Recorder();

        ModelException e = failure(client, Clients.streamed("hi"), collector, new Interrupt());

        assertThat(e.kind()).isEqualTo(ModelException.Kind.BROKEN);
        assertThat(e.getMessage()).contains("after 3 attempts").contains("after 1 chunk (6 characters)");
        assertThat(collector.text()).isEqualTo("ECHO: ");
        assertThat(fake.requests()).hasSize(3);
    }

    @Test
    void stream_finishReasonThenTheConnectionDrops_isTheWholeAnswer() throws Exception {
        Reply.Completion answer = Reply.stream("all ", "of ", "it");
        fake.enqueue(answer.droppedAfter(answer.chunks().size() + 1)); // the chunks, the finish chunk, then no [DONE]

        ModelResponse response = client.complete(Clients.streamed("hi"), Recorder.showing(), new Interrupt());

        assertThat(response.content()).isEqualTo("all of it");
        assertThat(response.finishReason()).isEqualTo("stop");
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_503WithRetryAfter_waitsThatLongThenSucceeds() throws Exception {
        fake.enqueue(Reply.error(503, "loading the model").withHeader("Retry-After", "1"), Reply.text("loaded"));
        long start = System.nanoTime();

        ModelResponse response = client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("loaded");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("Retry-After: 1 honoured").isGreaterThanOrEqualTo(950);
    }

    @Test
    void stream_droppedAfterHeadersThatSayRetryAfter_waitsThatLongThenSucceeds() throws Exception {
        fake.enqueue(Reply.rawLines(Cut.chunk("half "), "").withHeader("retry-after-ms", "1000").droppedAfter(2), Reply.text("whole"));
        long start = System.nanoTime();

        ModelResponse response = client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("whole");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("retry-after-ms: 1000 honoured").isGreaterThanOrEqualTo(950);
    }

    @Test
    void complete_wholeBodyCutShort_isAskedAgainRatherThanReadAsABrokenAnswer() throws Exception {
        String whole = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"whole\"},\"finish_reason\":\"stop\"}]}";
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> serve(server, List.of(whole.substring(0, 30), whole)));
            ModelSettings settings = Clients.settings(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1"));
            try (OpenAiCompatibleClient blocking = Clients.against(settings)) {
                ModelResponse response = blocking.complete(Clients.blocking("hi"), StreamObserver.NONE, new Interrupt());

                assertThat(response.content()).isEqualTo("whole");
            }
        }
    }

    /** Answers one request per body: each promises the whole length, sends {@code body}, and closes the connection. */
    private static void serve(ServerSocket server, List<String> bodies) {
        String full = bodies.getLast();
        for (String body : bodies) {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[65536];
                StringBuilder request = new StringBuilder();
                while (!request.toString().contains("\r\n\r\n") || !request.toString().endsWith("}")) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    request.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + full.length() + "\r\n\r\n" + body)
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                return;
            }
        }
    }
}
