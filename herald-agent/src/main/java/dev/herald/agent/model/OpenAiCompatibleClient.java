package dev.herald.agent.model;

import dev.herald.core.retry.Backoff;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.model.Exchange.Event;
import dev.herald.core.agent.Interrupt;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ModelClient} for any server that speaks OpenAI's {@code POST {base_url}/chat/completions}
 * (OpenAI, Ollama, vLLM, llama.cpp, LM Studio...), over the JDK's {@code java.net.http} and Jackson.
 *
 * <p><b>Threads.</b> A call runs on the caller's thread (the turn's virtual thread). The HTTP client's own
 * threads only move response events (headers, body lines, end, failure) into the {@link Exchange}'s queue;
 * all parsing and every observer callback happen on the caller's thread, in order. One instance serves
 * any number of concurrent calls.
 *
 * <p><b>Timeouts.</b> The connect timeout is the HTTP client's. Everything after that is one idle timeout:
 * the caller polls the exchange's queue with it, so "no headers and no body line for N seconds" fails the
 * attempt with a retryable timeout, whether the server is still loading the model or a stream stalled.
 * There is no total deadline: a model that keeps streaming is allowed to finish.
 *
 * <p><b>Complete answers.</b> A streamed answer is complete at {@code [DONE]}, or when a chunk carried a finish reason
 * (then the end of the body, a dropped connection or a stall after it no longer matters). A stream that ends, drops or
 * stalls before either is cut off: that attempt failed ({@link ModelException.Kind#BROKEN} or
 * {@link ModelException.Kind#TIMEOUT}), never a shorter answer passed off as the whole one. A non-streamed body that
 * breaks off is the same.
 *
 * <p><b>Retries.</b> Up to {@code maxRetries} more attempts on 408/409/429/5xx, connection failures, idle
 * timeouts and cut-off streams, with {@link Backoff}; a {@code Retry-After} or {@code retry-after-ms} header of the
 * failed attempt's response replaces the computed wait, whichever way it failed (an error status, or a stream that
 * broke off after its headers). Only while no content has reached a person ({@link StreamObserver#showsContent()}):
 * once text was shown, a retry would show it twice, so the failure ends the call instead and the caller says the
 * answer was cut off. An observer that shows nothing is told {@link StreamObserver#onRestart()} before the next
 * attempt. 400/401/403/404 and other 4xx fail at once with a message naming the setting to check.
 *
 * <p><b>Cancellation.</b> The call registers one cleanup on the turn's {@link Interrupt}. Raising it puts
 * a cancel event into the current exchange's queue (the reader wakes at once, aborts the exchange, which
 * closes the connection) and cuts any backoff pause short. The call then throws a {@link ModelException}
 * with {@link ModelException#isInterrupted()} true. Interrupting the calling thread has the same effect.
 *
 * <p><b>Secrets.</b> The API key goes only into the Authorization header. Server error text is redacted
 * before it is put into a message; 401 messages never quote the server.
 */
public final class OpenAiCompatibleClient implements ModelClient, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OpenAiCompatibleClient.class);
    private static final int ERROR_BODY_LIMIT = 64 * 1024;
    private static final int BODY_LIMIT = 32 * 1024 * 1024;
    /** How long a complete answer's remaining body may take to end before its connection is cut instead. */
    private static final Duration DRAIN = Duration.ofSeconds(1);

    private final ModelSettings settings;
    /** 0.5 s growing to 8 s, jittered; a retry-after over a minute fails the call rather than hold a turn. */
    public static final Backoff DEFAULT_BACKOFF = Backoff.jittered(Duration.ofMillis(500), Duration.ofSeconds(8), Duration.ofSeconds(60));

    private final Backoff backoff;
    private final HttpClient http;

    public OpenAiCompatibleClient(ModelSettings settings) {
        this(settings, DEFAULT_BACKOFF);
    }

    public OpenAiCompatibleClient(ModelSettings settings, Backoff backoff) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public ModelSettings settings() {
        return settings;
    }

    @Override
    public String describe() {
        return settings.model() + " at " + settings.endpoint();
    }

    @Override
    public String modelName() {
        return settings.model();
    }

    @Override
    public List<String> reasoningEfforts() {
        return settings.reasoningEfforts();
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) throws ModelException {
        Objects.requireNonNull(request, "request");
        Call call = new Call(interrupt == null ? new Interrupt() : interrupt, observer == null ? StreamObserver.NONE : observer);
        Runnable cancel = call::cancel;
        call.interrupt.onRaise(cancel);
        try {
            return withRetries(request, call);
        } finally {
            call.interrupt.forget(cancel);
        }
    }

    /** Stops the HTTP client; calls still running fail. */
    @Override
    public void close() {
        http.shutdownNow();
    }

    private ModelResponse withRetries(ModelRequest request, Call call) throws ModelException {
        String model = request.model() == null ? settings.model() : request.model();
        HttpRequest httpRequest = httpRequest(request, model);
        for (int attempt = 1; ; attempt++) {
            call.throwIfCancelled();
            try {
                ModelResponse response = attempt(httpRequest, request.stream(), model, call);
                logAnswer(model, attempt, call, response);
                return response;
            } catch (AttemptFailure failure) {
                Optional<Duration> waitFor = backoff.wait(attempt, failure.retryAfter); // empty: a retry-after too long to wait for
                if (call.shown || attempt > settings.maxRetries() || waitFor.isEmpty()) {
                    throw failure.toException(attempt, call.elapsedMs());
                }
                Duration wait = waitFor.get();
                log.info("model - {} {}, retrying (attempt {} of {}, wait {} ms)", settings.endpoint(), failure.summary(), attempt,
                        settings.maxRetries() + 1, ModelException.number(wait.toMillis()));
                call.pause(wait);
                call.restart();
            }
        }
    }

    /** {@code reasoning_effort} goes out only when the model's settings list the request's effort. */
    private HttpRequest httpRequest(ModelRequest request, String model) {
        if (request.reasoningEffort() != null && !settings.reasoningEfforts().contains(request.reasoningEffort())) {
            log.debug("model - {} takes no reasoning effort '{}' (model.reasoning_efforts {}); not sent", settings.endpoint(),
                    request.reasoningEffort(), settings.reasoningEfforts());
            request = request.withReasoningEffort(null);
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(settings.chatCompletionsUri())
                .header("Content-Type", "application/json")
                .header("Accept", request.stream() ? "text/event-stream" : "application/json")
                .POST(Wire.encode(request, model).publisher());
        if (settings.hasApiKey()) {
            builder.header("Authorization", "Bearer " + settings.apiKey());
        }
        return builder.build();
    }

    private ModelResponse attempt(HttpRequest request, boolean stream, String model, Call call) throws ModelException, AttemptFailure {
        Exchange exchange = Exchange.start(http, request);
        call.attach(exchange);
        boolean reusable = false;
        try {
            Event.Headers headers = awaitHeaders(exchange, call);
            if (headers.status() / 100 != 2) {
                throw classify(headers, readBody(exchange, call, ERROR_BODY_LIMIT), model);
            }
            String type = headers.contentType();
            if (type.contains("html")) {
                throw ModelException.protocol(settings.endpoint(), "HTTP " + headers.status() + " with " + type + " instead of JSON");
            }
            ModelResponse response;
            try {
                response = stream && !(type.contains("json") && !type.contains("ndjson"))
                        ? readStream(exchange, call) : readWhole(exchange, call, stream);
            } catch (AttemptFailure failure) {
                throw failure.retryAfter == null ? failure.withRetryAfter(retryAfter(headers)) : failure;
            }
            // a stream answers at [DONE], before its body ends: read the rest so the connection is reused, not cut
            reusable = exchange.drain(DRAIN);
            return response;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ModelException.interrupted("thread interrupted");
        } finally {
            call.detach();
            if (!reusable) {
                exchange.abort();
            }
        }
    }

    private Event next(Exchange exchange, Call call) throws ModelException, AttemptFailure {
        Event event;
        try {
            event = exchange.next(settings.idleTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ModelException.interrupted("thread interrupted");
        }
        if (event == null) {
            throw new AttemptFailure(ModelException.Kind.TIMEOUT, 0, "sent nothing for " + settings.idleTimeout().toMillis() + " ms",
                    null, null);
        }
        if (event instanceof Event.Cancelled) {
            throw call.interrupted();
        }
        return event;
    }

    private Event.Headers awaitHeaders(Exchange exchange, Call call) throws ModelException, AttemptFailure {
        Event event = next(exchange, call);
        if (event instanceof Event.Headers headers) {
            return headers;
        }
        Throwable error = event instanceof Event.Failed failed ? failed.error() : null;
        String why = connecting(error) ? why(error) : "the connection closed before a response: " + why(error);
        throw new AttemptFailure(ModelException.Kind.UNREACHABLE, 0, why, null, error);
    }

    /** An error body as text, up to {@code limit} characters; what arrived so far when the connection fails. */
    private String readBody(Exchange exchange, Call call, int limit) throws ModelException, AttemptFailure {
        return readBody(exchange, call, limit, false);
    }

    /**
     * The body as text, up to {@code limit} characters. When the connection fails first, {@code whole} (an answer, which
     * is useless in part) fails the attempt as cut off; otherwise what arrived so far is returned.
     */
    private String readBody(Exchange exchange, Call call, int limit, boolean whole) throws ModelException, AttemptFailure {
        StringBuilder body = new StringBuilder();
        while (true) {
            Event event = next(exchange, call);
            if (event instanceof Event.Line line) {
                if (body.length() + line.text().length() > limit) {
                    return body.append(line.text(), 0, Math.max(0, limit - body.length())).toString();
                }
                body.append(line.text()).append('\n');
            } else if (event instanceof Event.Failed failed && whole) {
                throw new AttemptFailure(ModelException.Kind.BROKEN, 0, why(failed.error()) + " after " + ModelException.number(body.length())
                        + " characters of the body", null, failed.error());
            } else if (event instanceof Event.End || event instanceof Event.Failed) {
                return body.toString();
            }
        }
    }

    /**
     * Reads a stream until its answer is complete ({@code [DONE]}, or a finish reason and then the end of the body, a
     * failure or silence); anything else that ends it fails the attempt as cut off, saying how far it got.
     */
    private ModelResponse readStream(Exchange exchange, Call call) throws ModelException, AttemptFailure {
        StreamAssembler stream = new StreamAssembler(call.observer);
        while (true) {
            Event event;
            try {
                event = next(exchange, call);
            } catch (AttemptFailure silent) {
                if (stream.finished()) {
                    return finished(stream);
                }
                throw silent.midReply(stream.sawChunks());
            }
            if (event instanceof Event.Line line) {
                try {
                    if (stream.accept(line.text()) == StreamAssembler.Step.DONE) {
                        return finished(stream);
                    }
                } catch (StreamAssembler.StreamFailure failure) {
                    throw new AttemptFailure(ModelException.Kind.SERVER, 0, redact(failure.getMessage()), null, null);
                }
            } else if (stream.finished() && (event instanceof Event.End || event instanceof Event.Failed)) {
                return finished(stream);
            } else if (event instanceof Event.End) {
                String why = stream.sawChunks()
                        ? "the stream ended without [DONE] or a finish reason after " + progress(stream)
                        : "the stream ended before any data";
                throw new AttemptFailure(ModelException.Kind.BROKEN, 0, why, null, null).endedEarly();
            } else if (event instanceof Event.Failed failed) {
                throw new AttemptFailure(ModelException.Kind.BROKEN, 0, why(failed.error()) + " after " + progress(stream), null,
                        failed.error());
            }
        }
    }

    /** How far a stream got: {@code 3 chunks (21 characters)}. */
    private static String progress(StreamAssembler stream) {
        return stream.chunks() + (stream.chunks() == 1 ? " chunk (" : " chunks (") + ModelException.number(stream.contentLength())
                + " characters)";
    }

    private ModelResponse finished(StreamAssembler stream) {
        if (stream.skipped() > 0) {
            log.warn("model - {} sent unreadable stream data, skipped ({} payloads of {} chunks)", settings.endpoint(),
                    stream.skipped(), stream.chunks());
        }
        return stream.finish();
    }

    private ModelResponse readWhole(Exchange exchange, Call call, boolean stream) throws ModelException, AttemptFailure {
        String body = readBody(exchange, call, BODY_LIMIT, true);
        JsonNode document;
        try {
            document = Wire.JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw ModelException.protocol(settings.endpoint(), "the body is not JSON (" + body.length() + " characters: "
                    + redact(Wire.clip(body.strip())) + ")");
        }
        if (document != null && document.hasNonNull("error")) {
            throw ModelException.rejected(settings.endpoint(), 200, redact(Wire.errorDetail(body)));
        }
        ModelResponse response = document == null ? null : Wire.decodeCompletion(document);
        if (response == null) {
            throw ModelException.protocol(settings.endpoint(), "a JSON body without 'choices'");
        }
        if (stream && !response.reasoning().isEmpty()) {
            call.observer.onReasoning(response.reasoning());
        }
        if (stream && !response.content().isEmpty()) {
            call.observer.onContent(response.content());
        }
        return response;
    }

    /** Throws the non-retryable failures; returns the retryable ones for the retry loop. */
    private AttemptFailure classify(Event.Headers headers, String body, String model) throws ModelException {
        int status = headers.status();
        String detail = redact(Wire.errorDetail(body));
        String endpoint = settings.endpoint();
        switch (status) {
            case 401 -> throw ModelException.unauthorized(endpoint, status, settings.hasApiKey());
            case 403 -> throw ModelException.forbidden(endpoint, model, status, detail);
            case 404 -> throw detail.toLowerCase(Locale.ROOT).contains("model")
                    ? ModelException.modelNotFound(model, endpoint, status)
                    : ModelException.endpointNotFound(settings.chatCompletionsUri().toString(), status);
            case 429 -> {
                if (Wire.errorCode(body).equals("insufficient_quota")) {
                    throw ModelException.quotaExhausted(endpoint, status, detail);
                }
                return new AttemptFailure(ModelException.Kind.RATE_LIMITED, status, detail, retryAfter(headers), null);
            }
            case 408, 409 -> {
                return new AttemptFailure(ModelException.Kind.SERVER, status, detail, retryAfter(headers), null);
            }
            default -> {
                if (status >= 500) {
                    return new AttemptFailure(ModelException.Kind.SERVER, status, detail, retryAfter(headers), null);
                }
                String location = headers.header("location");
                throw ModelException.rejected(endpoint, status, location != null ? "redirected to " + location : detail);
            }
        }
    }

    /** {@code retry-after-ms}, else {@code Retry-After} in seconds or as an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(Event.Headers headers) {
        String millis = headers.header("retry-after-ms");
        String value = headers.header("retry-after");
        try {
            if (millis != null) {
                return Duration.ofMillis(Math.max(0, (long) Double.parseDouble(millis.trim())));
            }
            if (value == null) {
                return null;
            }
            if (value.trim().matches("\\d+(\\.\\d+)?")) {
                return Duration.ofMillis((long) (Double.parseDouble(value.trim()) * 1000));
            }
            Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME));
            return until.isNegative() ? Duration.ZERO : until;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private String why(Throwable error) {
        if (error == null) {
            return "no response";
        }
        Throwable root = error;
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return "connect timed out after " + ModelException.number(settings.connectTimeout().toMillis()) + " ms";
            }
            if (t instanceof ConnectException) {
                return t.getMessage() == null ? "connection refused" : redact(t.getMessage().toLowerCase(Locale.ROOT));
            }
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "unknown host " + settings.baseUrl().getHost();
            }
            if (t instanceof SSLException) {
                return "TLS failed: " + redact(String.valueOf(t.getMessage()));
            }
            root = t;
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : redact(Wire.clip(message));
    }

    /** True when the failure happened while connecting (refused, timed out, unknown host, TLS), not after. */
    private static boolean connecting(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException || t instanceof UnresolvedAddressException
                    || t instanceof UnknownHostException || t instanceof SSLException) {
                return true;
            }
        }
        return error == null;
    }

    private String redact(String text) {
        return text == null || !settings.hasApiKey() ? text : text.replace(settings.apiKey(), "***");
    }

    private void logAnswer(String model, int attempt, Call call, ModelResponse response) {
        if (log.isDebugEnabled()) {
            Usage usage = response.usage();
            log.debug("model - '{}' answered ({} ms, attempt {}, {} characters, {} tool calls, {} in / {} out tokens, finish {})", model,
                    ModelException.number(call.elapsedMs()), attempt, response.content().length(), response.toolCalls().size(),
                    usage == null ? "?" : usage.promptTokens(), usage == null ? "?" : usage.completionTokens(), response.finishReason());
        }
    }

    /**
     * One {@link #complete} call: its interrupt, its observer, whether content was shown to a person (then no retry) or
     * only fed to an observer that keeps it (then it is told to forget it before a retry), its current exchange.
     */
    private static final class Call {
        final Interrupt interrupt;
        final StreamObserver observer;
        private final StreamObserver downstream;
        final long startNanos = System.nanoTime();
        final CountDownLatch cancelled = new CountDownLatch(1);
        volatile Exchange current;
        /** Content reached a person (written and read on the calling thread only). */
        boolean shown;
        /** The current attempt gave the observer something (calling thread only). */
        boolean fed;

        Call(Interrupt interrupt, StreamObserver downstream) {
            this.interrupt = interrupt;
            this.downstream = downstream;
            boolean shows = downstream.showsContent();
            this.observer = new StreamObserver() {
                @Override
                public void onContent(String delta) {
                    fed = true;
                    shown |= shows;
                    downstream.onContent(delta);
                }

                @Override
                public void onReasoning(String delta) {
                    fed = true;
                    downstream.onReasoning(delta);
                }
            };
        }

        /** Before the next attempt: an observer that was fed by the failed one forgets it. */
        void restart() {
            if (fed) {
                fed = false;
                downstream.onRestart();
            }
        }

        /** Runs on the raising thread; idempotent. */
        void cancel() {
            cancelled.countDown();
            Exchange exchange = current;
            if (exchange != null) {
                exchange.cancelFromOutside();
            }
        }

        void attach(Exchange exchange) {
            current = exchange;
            if (cancelled.getCount() == 0) {
                exchange.cancelFromOutside();
            }
        }

        void detach() {
            current = null;
        }

        void throwIfCancelled() throws ModelException {
            if (cancelled.getCount() == 0 || interrupt.isRaised()) {
                throw interrupted();
            }
        }

        void pause(Duration wait) throws ModelException {
            try {
                if (cancelled.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                    throw interrupted();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw ModelException.interrupted("thread interrupted");
            }
        }

        ModelException interrupted() {
            return ModelException.interrupted(interrupt.reason());
        }

        long elapsedMs() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        }
    }

    /** A failure of one attempt that a retry may cure; becomes a {@link ModelException} when retries end. */
    private final class AttemptFailure extends Exception {
        final ModelException.Kind kind;
        final int status;
        final String detail;
        final Duration retryAfter;
        /** A timeout after part of the answer had come. */
        final boolean midReply;
        /** A stream whose body ended cleanly but too early (no connection was dropped). */
        final boolean endedEarly;

        AttemptFailure(ModelException.Kind kind, int status, String detail, Duration retryAfter, Throwable cause) {
            this(kind, status, detail, retryAfter, cause, false, false);
        }

        private AttemptFailure(ModelException.Kind kind, int status, String detail, Duration retryAfter, Throwable cause, boolean midReply,
                boolean endedEarly) {
            super(detail, cause, false, false);
            this.kind = kind;
            this.status = status;
            this.detail = detail;
            this.retryAfter = retryAfter;
            this.midReply = midReply;
            this.endedEarly = endedEarly;
        }

        AttemptFailure withRetryAfter(Duration wait) {
            return new AttemptFailure(kind, status, detail, wait, getCause(), midReply, endedEarly);
        }

        AttemptFailure midReply(boolean afterContent) {
            return new AttemptFailure(kind, status, detail, retryAfter, getCause(), afterContent, endedEarly);
        }

        AttemptFailure endedEarly() {
            return new AttemptFailure(kind, status, detail, retryAfter, getCause(), midReply, true);
        }

        String summary() {
            return switch (kind) {
                case RATE_LIMITED -> "is rate limiting (HTTP 429)";
                case SERVER -> status > 0 ? "answered HTTP " + status : "reported an error mid-stream";
                case UNREACHABLE -> "is unreachable (" + detail + ")";
                case TIMEOUT -> (midReply ? "went silent mid-reply for " : "sent nothing for ")
                        + ModelException.number(settings.idleTimeout().toMillis()) + " ms";
                default -> (endedEarly ? "cut its reply short (" : "dropped the connection (") + detail + ")";
            };
        }

        ModelException toException(int attempts, long elapsedMs) {
            String endpoint = settings.endpoint();
            return switch (kind) {
                case RATE_LIMITED -> ModelException.rateLimited(endpoint, attempts, elapsedMs, retryAfter, detail);
                case SERVER -> status > 0 ? ModelException.serverError(endpoint, status, attempts, elapsedMs, detail)
                        : ModelException.streamError(endpoint, detail);
                case UNREACHABLE -> ModelException.unreachable(endpoint, attempts, elapsedMs, detail, getCause());
                case TIMEOUT -> ModelException.idleTimeout(endpoint, settings.idleTimeout(), attempts, elapsedMs, midReply);
                default -> endedEarly ? ModelException.endedEarly(endpoint, attempts, elapsedMs, detail)
                        : ModelException.broken(endpoint, attempts, elapsedMs, detail, getCause());
            };
        }
    }
}
