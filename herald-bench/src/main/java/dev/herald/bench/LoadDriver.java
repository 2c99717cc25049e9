package dev.herald.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * Drives the gateway's OpenAI-compatible API with N concurrent clients, each a virtual thread sending one request
 * at a time over keep-alive HTTP/1.1 ({@code java.net.http}), and records per turn: the client's latency, the
 * overhead (latency minus what the {@link InstantModel} spent on that turn), and for streamed answers the time
 * from the model flushing its first token to the client reading it. Every answer is checked: a turn whose
 * status is not 200 or whose text is not the model's answer counts as an error, with its first few messages kept.
 */
final class LoadDriver {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
    private static final int CLIENTS_PER_HTTP_CLIENT = 32;
    private static final String ANSWER = "Noted, thanks.";
    /** Turns per new conversation on the probe's new side. */
    static final int PROBE_FRESH = 10;

    /** The figures of one scenario run. {@code early}/{@code late}: overheads of the first and last 10 turns of conversations. */
    record Result(Scenario scenario, int clients, int turns, int errors, List<String> errorSamples, long wallNanos,
                  Samples overhead, Samples latency, Samples firstByte, Samples early, Samples late, int conversationLength,
                  long modelNanos, long modelCalls) {
        double turnsPerSecond() {
            return wallNanos == 0 ? 0 : (turns - errors) / (wallNanos / 1e9);
        }
    }

    /** A durable conversation a continuing run left behind, and how many turns it holds. */
    record Conversation(String session, int turns) {
    }

    /**
     * The flatness probe: one client, idle otherwise, alternating a turn of a new conversation (turns 1-10, a new one
     * every 10) with a turn of the longest conversation a continuing run left ({@code length + 1 .. length + n}), so both
     * see the same JIT state and load.
     */
    record Probe(int length, Samples fresh, Samples continued, int errors, List<String> errorSamples) {
    }

    private final URI endpoint;
    private final InstantModel model;
    private final String runId;
    private final PrintStream progress;
    private final BooleanSupplier gatewayAlive;
    private final AtomicLong turnIds = new AtomicLong();
    private final AtomicReference<Conversation> longest = new AtomicReference<>(new Conversation(null, 0));
    private final AtomicInteger runs = new AtomicInteger();

    LoadDriver(URI endpoint, InstantModel model, String runId, PrintStream progress, BooleanSupplier gatewayAlive) {
        this.endpoint = endpoint;
        this.model = model;
        this.runId = runId;
        this.progress = progress;
        this.gatewayAlive = gatewayAlive;
    }

    /**
     * Runs {@code turns} turns of {@code scenario} with {@code clients} clients. In a continuing run each client
     * holds conversations of {@code conversationLength} turns (fewer when its share of {@code turns} is smaller).
     */
    Result run(Scenario scenario, int clients, int turns, int conversationLength) throws InterruptedException {
        Recorder rec = new Recorder(turns);
        List<HttpClient> pool = new ArrayList<>();
        for (int i = 0; i < (clients + CLIENTS_PER_HTTP_CLIENT - 1) / CLIENTS_PER_HTTP_CLIENT; i++) {
            pool.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build());
        }
        AtomicInteger remaining = new AtomicInteger(turns);
        AtomicBoolean abort = new AtomicBoolean();
        String label = scenario.label + ", " + clients + " clients";
        int runNo = runs.incrementAndGet();
        long t0 = System.nanoTime();
        Thread ticker = Thread.ofVirtual().start(() -> tick(label, rec, turns, t0, abort));
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                HttpClient http = pool.get(c / CLIENTS_PER_HTTP_CLIENT);
                int share = turns / clients + (c < turns % clients ? 1 : 0);
                String prefix = runId + "-r" + runNo + "-" + scenario.option + "-c" + c;
                running.add(threads.submit(() -> {
                    if (scenario == Scenario.CONTINUING) {
                        converse(http, prefix, share, Math.max(1, conversationLength), rec, abort);
                    } else {
                        for (int k = 0; !abort.get() && remaining.getAndDecrement() > 0; k++) {
                            turn(http, scenario, scenario.durable() ? prefix + "-" + k : null, 0, rec);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    rec.error("client - " + e.getCause());
                }
            }
        } finally {
            ticker.interrupt();
            pool.forEach(HttpClient::close);
        }
        long wall = System.nanoTime() - t0;
        if (abort.get()) {
            throw new IllegalStateException("bench - the gateway process ended during '" + label + "' after " + rec.done.get() + " turns");
        }
        int shortest = scenario == Scenario.CONTINUING ? Math.min(conversationLength, turns / clients) : 1;
        return rec.result(scenario, clients, wall, shortest);
    }

    private void converse(HttpClient http, String prefix, int share, int length, Recorder rec, AtomicBoolean abort) {
        int conversation = 0;
        for (int done = 0; done < share && !abort.get(); conversation++) {
            String session = prefix + "-conv" + conversation;
            int i = 1;
            for (; i <= length && done < share && !abort.get(); i++, done++) {
                turn(http, Scenario.CONTINUING, session, i, rec);
            }
            Conversation held = new Conversation(session, i - 1);
            longest.accumulateAndGet(held, (a, b) -> b.turns() > a.turns() ? b : a);
        }
    }

    /**
     * Runs the flatness probe: {@code turns} turns on each side, the new side in conversations of {@value #PROBE_FRESH}
     * turns (so always turns 1-10); empty when no continuing run left a conversation.
     */
    Optional<Probe> probe(int turns) {
        Conversation c = longest.get();
        if (c.session() == null) {
            return Optional.empty();
        }
        Recorder fresh = new Recorder(turns);
        Recorder continued = new Recorder(turns);
        String prefix = runId + "-probe-" + runs.incrementAndGet() + "-";
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build()) {
            for (int i = 1; i <= turns; i++) {
                turn(http, Scenario.CONTINUING, prefix + (i - 1) / PROBE_FRESH, (i - 1) % PROBE_FRESH + 1, fresh);
                turn(http, Scenario.CONTINUING, c.session(), c.turns() + i, continued);
            }
        }
        longest.set(new Conversation(c.session(), c.turns() + turns));
        List<String> errors = new ArrayList<>(fresh.errorSamples);
        errors.addAll(continued.errorSamples);
        return Optional.of(new Probe(c.turns(), fresh.overheads(), continued.overheads(), fresh.errors.get() + continued.errors.get(), errors));
    }

    /** One request; {@code session} null means stateless; {@code index} is the turn's place in its conversation (0: not one). */
    private void turn(HttpClient http, Scenario scenario, String session, int index, Recorder rec) {
        long id = turnIds.incrementAndGet();
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + InstantModel.MARKER + id
                + "] Please note item " + id + " and answer briefly.\"}]" + (scenario.streamed() ? ",\"stream\":true" : "") + "}";
        HttpRequest.Builder req = HttpRequest.newBuilder(endpoint).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            req.header("X-Herald-Session-Id", session);
        }
        long t0 = System.nanoTime();
        long firstToken = 0;
        String failure;
        try {
            if (scenario.streamed()) {
                HttpResponse<InputStream> r = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
                long[] first = new long[1];
                failure = readStream(r, first);
                firstToken = first[0];
            } else {
                HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
                failure = r.statusCode() != 200 ? "HTTP " + r.statusCode() + ": " + abbreviate(r.body())
                        : r.body().contains(ANSWER) ? null : "unexpected answer: " + abbreviate(r.body());
            }
        } catch (IOException e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted";
        }
        long latency = System.nanoTime() - t0;
        InstantModel.Spent spent = model.take(id);
        if (failure != null) {
            rec.error(failure);
            return;
        }
        long afterToken = firstToken > 0 && spent.firstTokenAt() > 0 ? firstToken - spent.firstTokenAt() : -1;
        rec.add(latency, latency - spent.nanos(), afterToken, index, spent.nanos(), spent.calls());
    }

    /** Reads a streamed answer to its end; notes when the first token's line arrived; returns a failure or null. */
    private static String readStream(HttpResponse<InputStream> r, long[] firstTokenAt) throws IOException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            if (r.statusCode() != 200) {
                StringBuilder sb = new StringBuilder();
                in.lines().forEach(sb::append);
                return "HTTP " + r.statusCode() + ": " + abbreviate(sb.toString());
            }
            boolean done = false;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (firstTokenAt[0] == 0 && line.contains(InstantModel.FIRST_TOKEN)) {
                    firstTokenAt[0] = System.nanoTime();
                }
                done |= line.startsWith("data: [DONE]");
            }
            return firstTokenAt[0] == 0 ? "the stream never carried the model's first token"
                    : done ? null : "the stream ended without [DONE]";
        }
    }

    private void tick(String label, Recorder rec, int turns, long t0, AtomicBoolean abort) {
        long lastDone = 0;
        long last = t0;
        try {
            while (true) {
                Thread.sleep(PROGRESS_EVERY);
                if (!gatewayAlive.getAsBoolean()) {
                    abort.set(true);
                    return;
                }
                long now = System.nanoTime();
                long done = rec.done.get();
                progress.printf("  ... %s: %,d / %,d turns, %.0f turns/s, %d errors%n", label, done, turns,
                        (done - lastDone) / ((now - last) / 1e9), rec.errors.get());
                lastDone = done;
                last = now;
            }
        } catch (InterruptedException finished) {
            // the run ended
        }
    }

    private static String abbreviate(String s) {
        String oneLine = s.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }

    /** Thread-safe per-turn figures, in completion order. */
    private static final class Recorder {
        final AtomicInteger done = new AtomicInteger();
        final AtomicInteger errors = new AtomicInteger();
        final List<String> errorSamples = new CopyOnWriteArrayList<>();
        private final AtomicInteger slot = new AtomicInteger();
        private final long[] latency;
        private final long[] overhead;
        private final long[] afterToken;
        private final int[] index;
        private final AtomicLong modelNanos = new AtomicLong();
        private final AtomicLong modelCalls = new AtomicLong();

        Recorder(int turns) {
            latency = new long[turns];
            overhead = new long[turns];
            afterToken = new long[turns];
            index = new int[turns];
        }

        void add(long lat, long over, long token, int idx, long model, long calls) {
            int i = slot.getAndIncrement();
            latency[i] = lat;
            overhead[i] = over;
            afterToken[i] = token;
            index[i] = idx;
            modelNanos.addAndGet(model);
            modelCalls.addAndGet(calls);
            done.incrementAndGet();
        }

        void error(String message) {
            errors.incrementAndGet();
            done.incrementAndGet();
            if (errorSamples.size() < 5) {
                errorSamples.add(message);
            }
        }

        Samples overheads() {
            return new Samples(Arrays.copyOf(overhead, slot.get()));
        }

        Result result(Scenario scenario, int clients, long wall, int conversationLength) {
            int n = slot.get();
            long[] tokens = Arrays.stream(afterToken, 0, n).filter(t -> t >= 0).toArray();
            List<Long> early = new ArrayList<>();
            List<Long> late = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (index[i] >= 1 && index[i] <= 10) {
                    early.add(overhead[i]);
                }
                if (conversationLength > 20 && index[i] >= conversationLength - 10 && index[i] <= conversationLength) {
                    late.add(overhead[i]);
                }
            }
            return new Result(scenario, clients, n + errors.get(), errors.get(), List.copyOf(errorSamples), wall,
                    new Samples(Arrays.copyOf(overhead, n)), new Samples(Arrays.copyOf(latency, n)), new Samples(tokens),
                    new Samples(early.stream().mapToLong(Long::longValue).toArray()),
                    new Samples(late.stream().mapToLong(Long::longValue).toArray()), conversationLength,
                    modelNanos.get(), modelCalls.get());
        }
    }
}
