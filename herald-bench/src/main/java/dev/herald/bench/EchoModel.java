package dev.herald.bench;

import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault soak's model: the testkit's scripted server on loopback, answering every message with
 * {@code ECHO: <message> alpha bravo ... lima} (the message and twelve fixed words, streamed one word per chunk), so a
 * client can tell a whole answer from a part. The message is the last user message of the request, with a recovery
 * note Herald put before it taken off; a resume turn, whose last user message is only the note, answers the message
 * before it. Each answer waits a random delay first, and may be cut off on its first attempt ({@link #cutFirstAttempts}).
 * Decisions are drawn from the seed and the message, so a run can be repeated.
 */
final class EchoModel implements AutoCloseable {
    static final List<String> WORDS = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
            "juliet", "kilo", "lima");
    private static final String NOTE = "[System note:";

    /** How a first attempt is cut off. */
    enum Cut {
        /** The connection is closed before any byte: nothing was shown, so Herald asks the model again. */
        BEFORE_ANY_TEXT("closed before any text"),
        /** The chunked body is closed after some words. */
        DROPPED("closed mid-answer"),
        /** The stream goes silent after some words, past the node's {@code model.idle_timeout_seconds}. */
        STALLED("stalled past the idle timeout"),
        /** The body ends after some words, without a finish reason and without {@code [DONE]}. */
        ENDED_EARLY("ended without [DONE] or a finish reason");

        final String label;

        Cut(String label) {
            this.label = label;
        }
    }

    private final FakeModelServer server = FakeModelServer.start();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "soak-model-timer");
        t.setDaemon(true);
        return t;
    });
    private final long seed;
    private final Duration maxDelay;
    private final Duration gap;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final Map<Cut, AtomicInteger> cuts = new EnumMap<>(Cut.class);
    private volatile double cutFraction;
    private volatile Duration stall = Duration.ZERO;

    /** Answers after a random delay up to {@code maxDelay}, with {@code gap} between streamed words. */
    EchoModel(long seed, Duration maxDelay, Duration gap) {
        this.seed = seed;
        this.maxDelay = maxDelay;
        this.gap = gap;
        for (Cut c : Cut.values()) {
            cuts.put(c, new AtomicInteger());
        }
        server.defaultReply(this::answer);
    }

    /** The whole answer to {@code message}. */
    static String whole(String message) {
        return "ECHO: " + message + " " + String.join(" ", WORDS);
    }

    /** Cuts off the first attempt at {@code fraction} of the messages; a stall lasts {@code stall}. */
    EchoModel cutFirstAttempts(double fraction, Duration stall) {
        this.stall = stall;
        this.cutFraction = fraction;
        return this;
    }

    String baseUrl() {
        return server.baseUrl().toString();
    }

    /** Model requests for {@code message} so far (a retry or a resume asks again). */
    int attempts(String message) {
        AtomicInteger n = attempts.get(message);
        return n == null ? 0 : n.get();
    }

    int cuts(Cut cut) {
        return cuts.get(cut).get();
    }

    int cuts() {
        return cuts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public void close() {
        timers.shutdownNow();
        server.close();
    }

    private Reply answer(RecordedRequest request) {
        String message = message(request);
        int attempt = attempts.computeIfAbsent(message, k -> new AtomicInteger()).incrementAndGet();
        SplittableRandom random = new SplittableRandom(seed * 31 + message.hashCode() * 17L + attempt);
        Duration delay = Duration.ofMillis(random.nextLong(maxDelay.toMillis() + 1));
        Reply whole = Reply.text(whole(message)).delayed(delay).pacedBy(gap);
        if (attempt > 1 || random.nextDouble() >= cutFraction) {
            return whole;
        }
        Cut cut = request.stream() ? Cut.values()[random.nextInt(Cut.values().length)] : Cut.BEFORE_ANY_TEXT;
        cuts.get(cut).incrementAndGet();
        // the answer has 14 words: a cut after 1 to 13 leaves part of the text, shown and incomplete
        int words = 1 + random.nextInt(WORDS.size() + 1);
        return switch (cut) {
            case BEFORE_ANY_TEXT -> whole.droppedAfter(0);
            case DROPPED -> whole.droppedAfter(words);
            case STALLED -> {
                Hold hold = new Hold();
                timers.schedule(hold::drop, delay.plus(stall).toMillis(), TimeUnit.MILLISECONDS);
                yield whole.heldAfter(words, hold);
            }
            case ENDED_EARLY -> endedEarly(whole(message), words).delayed(delay).pacedBy(gap);
        };
    }

    /** The first {@code words} chunks of {@code text} as a stream whose body then simply ends. */
    private static Reply endedEarly(String text, int words) {
        List<String> events = new ArrayList<>();
        String[] parts = text.split(" ");
        for (int i = 0; i < words; i++) {
            String chunk = parts[i] + " ";
            events.add("data: {\"id\":\"chatcmpl-soak\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"soak-model\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + chunk + "\"},\"finish_reason\":null}]}\n\n");
        }
        return new Reply.Raw(200, "text/event-stream", events, Reply.Pacing.NONE);
    }

    /** The message a request answers: its last user message without a recovery note, else the one before. */
    static String message(RecordedRequest request) {
        List<RecordedRequest.Message> messages = request.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            RecordedRequest.Message m = messages.get(i);
            if (!"user".equals(m.role()) || m.content() == null) {
                continue;
            }
            String text = withoutNote(m.content());
            if (!text.isEmpty()) {
                return text;
            }
        }
        return "";
    }

    /** A user message's text without the recovery note Herald may put before it ({@code [System note: ...]\n\n}). */
    static String withoutNote(String content) {
        if (!content.startsWith(NOTE)) {
            return content;
        }
        int end = content.indexOf("]\n\n");
        return end < 0 ? "" : content.substring(end + 3);
    }
}
