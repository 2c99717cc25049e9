package dev.herald.agent.model;

import dev.herald.core.retry.Backoff;
import static dev.herald.agent.model.Clients.KEY;
import static dev.herald.agent.model.Clients.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.agent.Interrupt;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Errors, retries, timeouts and interrupts, against the fake server on loopback. */
class ClientFailureTest {
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private OpenAiCompatibleClient withIdleTimeout(Duration idle, int retries) {
        return Clients.against(Clients.settings(fake.baseUrl()).withTimeouts(Duration.ofSeconds(1), idle).withMaxRetries(retries));
    }

    @Test
    void complete_429WithRetryAfter_waitsThatLongThenSucceeds() throws Exception {
        fake.enqueue(Reply.rateLimited(1), Reply.text("after the wait"));
        long start = System.nanoTime();

        ModelResponse response = client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("after the wait");
        assertThat(fake.requests()).hasSize(2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("Retry-After: 1 honoured").isGreaterThanOrEqualTo(950);
    }

    @Test
    void complete_500ThenSuccess_retriesAndSucceeds() throws Exception {
        fake.enqueue(Reply.error(500, "overloaded"), Reply.error(503, "still loading"), Reply.text("ok"));

        ModelResponse response = client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("ok");
        assertThat(fake.requests()).hasSize(3);
    }

    @Test
    void complete_500OnEveryAttempt_failsWithAttemptsElapsedAndServerMessage() {
        fake.enqueue(Reply.error(500, "overloaded"), Reply.error(500, "overloaded"), Reply.error(500, "overloaded"));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.kind()).isEqualTo(ModelException.Kind.SERVER);
        assertThat(e.retryable()).isTrue();
        assertThat(e.getMessage()).matches("model - http://127\\.0\\.0\\.1:\\d+/v1 failed after 3 attempts in [\\d,]+ ms "
                + "\\(last: HTTP 500: overloaded\\); check the model server's log");
        assertThat(fake.requests()).hasSize(3);
    }

    @Test
    void complete_connectionDroppedBeforeAnyResponse_isRetried() throws Exception {
        fake.enqueue(Reply.text("unused").droppedAfter(0), Reply.text("second try"));

        ModelResponse response = client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("second try");
        assertThat(fake.requests()).hasSize(2);
    }

    @Test
    void complete_streamDroppedAfterContent_failsWithoutRetry() {
        fake.enqueue(Reply.stream("a", "b", "c").droppedAfter(2), Reply.text("must not be used"));
        Recorder observer = Recorder.showing();

        ModelException e = failure(client, Clients.streamed("hi"), observer, new Interrupt());

        assertThat(e.kind()).isEqualTo(ModelException.Kind.BROKEN);
        assertThat(e.getMessage()).startsWith("model - " + fake.baseUrl() + " dropped the connection after 1 attempt in ")
                .endsWith("the reply was cut off; try again");
        assertThat(observer.content).containsExactly("a", "b");
        assertThat(fake.requests()).as("text was shown, so no retry").hasSize(1);
    }

    @Test
    void complete_errorObjectMidStreamAfterContent_failsWithTheServersMessage() {
        fake.enqueue(Reply.sse("{\"choices\":[{\"delta\":{\"content\":\"par\"}}]}", "{\"error\":{\"message\":\"CUDA out of memory\"}}"));

        ModelException e = failure(client, Clients.streamed("hi"), Recorder.showing(), new Interrupt());

        assertThat(e.kind()).isEqualTo(ModelException.Kind.SERVER);
        assertThat(e.getMessage()).contains("reported an error mid-stream (CUDA out of memory)");
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_errorObjectBeforeAnyContent_isRetried() throws Exception {
        fake.enqueue(Reply.sse("{\"error\":{\"message\":\"slot unavailable\"}}"), Reply.text("fine"));

        assertThat(client.complete(Clients.streamed("hi"), new Recorder(), new Interrupt()).content()).isEqualTo("fine");
        assertThat(fake.requests()).hasSize(2);
    }

    @Test
    void complete_401_failsAtOnceNamingTheSettingAndNeverTheKey() {
        fake.enqueue(Reply.error(401, "Incorrect API key provided: " + KEY));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.getMessage()).isEqualTo("model - " + fake.baseUrl() + " rejected the API key (HTTP 401); check model.api_key");
        assertThat(e.kind()).isEqualTo(ModelException.Kind.AUTH);
        assertThat(e.retryable()).isFalse();
        assertThat(e.httpStatus()).isEqualTo(401);
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_401WithoutAKey_asksForOne() {
        fake.requireApiKey("sk-server-side");
        try (OpenAiCompatibleClient keyless = Clients.against(Clients.settings(fake.baseUrl()).withApiKey(null))) {
            ModelException e = failure(keyless, Clients.streamed("hi"));

            assertThat(e.getMessage()).isEqualTo("model - " + fake.baseUrl() + " requires an API key (HTTP 401); set model.api_key");
        }
    }

    @Test
    void complete_403_namesModelAndKeySettings() {
        fake.enqueue(Reply.error(403, "not allowed"));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.getMessage()).isEqualTo("model - " + fake.baseUrl() + " refused access to 'llama3.1' (HTTP 403: not allowed); "
                + "check that model.api_key may use model.name");
    }

    @Test
    void complete_404ForTheModel_namesTheModelAndTheSetting() {
        fake.enqueue(Reply.modelNotFound("llama3.1"));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.getMessage()).isEqualTo("model - 'llama3.1' not found at " + fake.baseUrl() + " (HTTP 404); check model.name");
        assertThat(e.kind()).isEqualTo(ModelException.Kind.NOT_FOUND);
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_404ForThePath_pointsAtTheBaseUrl() {
        URI root = URI.create("http://127.0.0.1:" + fake.port());
        try (OpenAiCompatibleClient wrongPath = Clients.against(Clients.settings(root))) {
            ModelException e = failure(wrongPath, Clients.streamed("hi"));

            assertThat(e.getMessage()).isEqualTo("model - " + root + "/chat/completions does not exist (HTTP 404); check model.base_url "
                    + "(OpenAI-compatible servers usually end in /v1)");
        }
    }

    @Test
    void complete_400EchoingTheKey_isRedactedAndNotRetried() {
        fake.enqueue(Reply.error(400, "context too long for key " + KEY));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.kind()).isEqualTo(ModelException.Kind.REJECTED);
        assertThat(e.getMessage()).contains("(HTTP 400: context too long for key ***)").doesNotContain(KEY);
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_429OutOfQuota_failsAtOnce() {
        fake.enqueue(Reply.error(429, "You exceeded your current quota").withCode("insufficient_quota"));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("out of quota");
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_retryAfterLongerThanTheLimit_failsAtOnceSayingHowLong() {
        fake.enqueue(Reply.rateLimited(120));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.kind()).isEqualTo(ModelException.Kind.RATE_LIMITED);
        assertThat(e.getMessage()).contains("is rate limiting after 1 attempt in").contains("(HTTP 429, retry after 120 s: ");
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_unreachablePort_failsAfterAllAttemptsSayingConnectionRefused() {
        URI nowhere = URI.create("http://127.0.0.1:1/v1");
        try (OpenAiCompatibleClient unreachable = Clients.against(Clients.settings(nowhere))) {
            ModelException e = failure(unreachable, Clients.streamed("hi"));

            assertThat(e.kind()).isEqualTo(ModelException.Kind.UNREACHABLE);
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).matches("model - http://127\\.0\\.0\\.1:1/v1 unreachable after 3 attempts in [\\d,]+ ms "
                    + "\\(connection refused\\); is the server running\\?");
            assertThat(e.getMessage()).doesNotContain(KEY);
        }
    }

    @Test
    void complete_htmlPageInsteadOfJson_failsAsProtocolError() {
        fake.enqueue(new Reply.Raw(200, "text/html", java.util.List.of("<html>login</html>"), Reply.Pacing.NONE));

        ModelException e = failure(client, Clients.streamed("hi"));

        assertThat(e.kind()).isEqualTo(ModelException.Kind.PROTOCOL);
        assertThat(e.getMessage()).contains("check model.base_url");
    }

    @Test
    void stream_silentMidReply_failsWithIdleTimeoutWithoutRetry() {
        fake.enqueueHeld(Reply.stream("Hel", "lo"), 1);
        Recorder observer = Recorder.showing();
        long start = System.nanoTime();

        try (OpenAiCompatibleClient impatient = withIdleTimeout(Duration.ofMillis(300), 2)) {
            ModelException e = failure(impatient, Clients.streamed("hi"), observer, new Interrupt());

            assertThat(e.kind()).isEqualTo(ModelException.Kind.TIMEOUT);
            assertThat(e.getMessage()).startsWith("model - " + fake.baseUrl() + " went silent mid-reply for 300 ms (idle timeout, 1 attempt in ");
        }
        assertThat(observer.content).containsExactly("Hel");
        assertThat(fake.requests()).hasSize(1);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
    }

    @Test
    void stream_slowerInTotalThanTheIdleTimeoutButNeverSilentThatLong_succeeds() throws Exception {
        fake.enqueue(Reply.stream("a", "b", "c", "d", "e", "f").delayed(Duration.ofMillis(150)).pacedBy(Duration.ofMillis(100)));

        try (OpenAiCompatibleClient impatient = withIdleTimeout(Duration.ofMillis(400), 0)) {
            long start = System.nanoTime();
            ModelResponse response = impatient.complete(Clients.streamed("hi"), new Recorder(), new Interrupt());

            assertThat(response.content()).isEqualTo("abcdef");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("longer than one idle period").isGreaterThan(400);
        }
    }

    @Test
    void complete_noResponseWithinIdleTimeout_isRetriedThenFails() {
        fake.enqueueHeld(Reply.text("never"));
        fake.enqueueHeld(Reply.text("never"));

        try (OpenAiCompatibleClient impatient = withIdleTimeout(Duration.ofMillis(250), 1)) {
            ModelException e = failure(impatient, Clients.streamed("hi"));

            assertThat(e.kind()).isEqualTo(ModelException.Kind.TIMEOUT);
            assertThat(e.getMessage()).contains("sent nothing for 250 ms (idle timeout, 2 attempts in ").contains("raise model.idle_timeout");
        }
        assertThat(fake.requests()).hasSize(2);
    }

    @Test
    void stream_interruptDuringAHeldStream_endsTheCallPromptly() throws Exception {
        Hold hold = fake.enqueueHeld(Reply.stream("Hello ", "world"), 1);
        Interrupt interrupt = new Interrupt();
        Recorder observer = new Recorder();
        CompletableFuture<Long> raisedAt = CompletableFuture.supplyAsync(() -> {
            hold.awaitArrived(Duration.ofSeconds(5));
            try {
                observer.awaitContent();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            long at = System.nanoTime();
            interrupt.raise("/stop");
            return at;
        });

        ModelException e = failure(client, Clients.streamed("hi"), observer, interrupt);
        long ended = System.nanoTime();

        assertThat(e.isInterrupted()).isTrue();
        assertThat(e.getMessage()).isEqualTo("model - call interrupted (/stop)");
        assertThat(TimeUnit.NANOSECONDS.toMillis(ended - raisedAt.get(5, TimeUnit.SECONDS))).as("well inside the 3 s idle timeout").isLessThan(1_000);
        assertThat(observer.content).containsExactly("Hello ");
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void complete_interruptDuringBackoff_endsWithoutAnotherAttempt() throws Exception {
        fake.enqueue(Reply.error(503, "busy"));
        Interrupt interrupt = new Interrupt();
        Backoff slow = Backoff.jittered(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(60));
        try (OpenAiCompatibleClient patient = new OpenAiCompatibleClient(Clients.settings(fake.baseUrl()), slow)) {
            CompletableFuture<ModelException> call = CompletableFuture.supplyAsync(
                    () -> failure(patient, Clients.streamed("hi"), new Recorder(), interrupt));
            await().atMost(Duration.ofSeconds(5)).until(() -> fake.requests().size() == 1);

            interrupt.raise("shutdown");

            assertThat(call.get(2, TimeUnit.SECONDS).isInterrupted()).isTrue();
        }
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void stream_callingThreadInterrupted_endsAsInterruptedAndKeepsTheFlag() throws Exception {
        fake.enqueueHeld(Reply.stream("Hello ", "world"), 1);
        Recorder observer = new Recorder();
        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        CompletableFuture<ModelException> call = new CompletableFuture<>();
        Thread turn = Thread.ofVirtual().start(() -> {
            call.complete(failure(client, Clients.streamed("hi"), observer, new Interrupt()));
            flagKept.complete(Thread.currentThread().isInterrupted());
        });
        observer.awaitContent();

        turn.interrupt();

        assertThat(call.get(2, TimeUnit.SECONDS).isInterrupted()).isTrue();
        assertThat(flagKept.get(2, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void complete_interruptAlreadyRaised_sendsNothing() {
        Interrupt interrupt = new Interrupt();
        interrupt.raise("stopped before start");

        ModelException e = failure(client, Clients.streamed("hi"), new Recorder(), interrupt);

        assertThat(e.isInterrupted()).isTrue();
        assertThat(fake.requests()).isEmpty();
    }
}
