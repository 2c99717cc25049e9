package dev.herald.agent.model;

import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP exchange turned into a queue of events the calling thread polls: the response headers, then
 * body lines one at a time (demand is one line, so the queue stays short), then the end or the failure.
 * Polling with a timeout is the idle watchdog; a cancel from another thread is just one more event, so
 * the reader wakes at once. {@link #abort()} cancels the body subscription and the request, which closes
 * the connection; an answer that is complete is {@link #drain drained} instead, so its connection is reused.
 */
final class Exchange {

    /** What the reader sees, in order: {@code Headers}, any number of {@code Line}s, one terminal event. */
    sealed interface Event {
        record Headers(int status, HttpHeaders headers) implements Event {
            String header(String name) {
                return headers.firstValue(name).orElse(null);
            }

            String contentType() {
                return headers.firstValue("content-type").orElse("").toLowerCase(Locale.ROOT);
            }
        }

        record Line(String text) implements Event {
        }

        record End() implements Event {
        }

        record Failed(Throwable error) implements Event {
        }

        record Cancelled() implements Event {
        }
    }

    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile CompletableFuture<HttpResponse<Void>> future;
    /** The reader has seen the body's end (read on the reader's thread only). */
    private boolean ended;

    private Exchange() {
    }

    /** Sends the request; events start arriving on the HTTP client's threads. */
    static Exchange start(HttpClient http, HttpRequest request) {
        Exchange exchange = new Exchange();
        exchange.future = http.sendAsync(request, exchange::onHeaders);
        exchange.future.whenComplete((response, error) -> {
            if (error != null) {
                exchange.events.offer(new Event.Failed(error));
            }
        });
        return exchange;
    }

    /** The next event, or null when none came within {@code idle}. */
    Event next(Duration idle) throws InterruptedException {
        Event event = events.poll(idle.toNanos(), TimeUnit.NANOSECONDS);
        if (event instanceof Event.End) {
            ended = true;
        }
        if (event instanceof Event.Line) {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.request(1);
            }
        }
        return event;
    }

    /** Wakes the reader with {@link Event.Cancelled}; safe from any thread, any number of times. */
    void cancelFromOutside() {
        events.offer(new Event.Cancelled());
    }

    /**
     * Reads what is left of a body whose answer is complete (a stream past {@code [DONE]}: the last empty line and
     * the end of the chunked body) so the connection goes back to the client's pool instead of being cut; true when
     * the body ended within {@code max}. At most 16 more lines are read.
     */
    boolean drain(Duration max) throws InterruptedException {
        if (ended) {
            return true;
        }
        long deadline = System.nanoTime() + max.toNanos();
        for (int lines = 0; lines <= 16; lines++) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            Event event = next(Duration.ofNanos(left));
            if (event == null || event instanceof Event.Failed || event instanceof Event.Cancelled) {
                return false;
            }
            if (event instanceof Event.End) {
                return true;
            }
        }
        return false;
    }

    /** Stops the exchange and closes its connection; a no-op once the body has ended. */
    void abort() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
        CompletableFuture<HttpResponse<Void>> f = future;
        if (f != null) {
            f.cancel(true);
        }
    }

    private HttpResponse.BodySubscriber<Void> onHeaders(HttpResponse.ResponseInfo info) {
        events.offer(new Event.Headers(info.statusCode(), info.headers()));
        return BodySubscribers.fromLineSubscriber(new LineSink(), sink -> null, charsetOf(info.headers()), null);
    }

    private static Charset charsetOf(HttpHeaders headers) {
        String type = headers.firstValue("content-type").orElse("");
        int at = type.toLowerCase(Locale.ROOT).indexOf("charset=");
        if (at < 0) {
            return StandardCharsets.UTF_8;
        }
        String name = type.substring(at + "charset=".length()).split(";")[0].trim().replace("\"", "");
        try {
            return Charset.forName(name);
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    private final class LineSink implements Flow.Subscriber<String> {
        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(String line) {
            events.offer(new Event.Line(line));
        }

        @Override
        public void onError(Throwable error) {
            events.offer(new Event.Failed(error));
        }

        @Override
        public void onComplete() {
            events.offer(new Event.End());
        }
    }
}
