package dev.herald.bench;

import java.time.Duration;

/**
 * One node on SQLite whose model cuts off the first attempt of {@code --cut-fraction} of its answers: the connection
 * closed before any text, the chunked body closed after some words, a stall after some words past the node's
 * {@code model.idle_timeout_seconds} ({@value #IDLE_SECONDS} s here), or a body that ends after some words without
 * {@code [DONE]} and without a finish reason. Clients send {@code --messages} messages to API sessions, streamed and not
 * in turn. A cut before any text can be retried unseen; a cut after text was shown must reach the client as incomplete
 * (a 502 or an error event with code {@code answer_cut_off}), never as a complete answer.
 */
final class StreamSoak {
    static final int IDLE_SECONDS = 2;

    private StreamSoak() {
    }

    static FaultSoak.Result run(FaultSoak.Soak soak) throws Exception {
        FaultSoak.Options o = soak.options();
        EchoModel model = soak.cleanup().add(new EchoModel(o.seed(), Duration.ofMillis(100), Duration.ofMillis(15))
                .cutFirstAttempts(o.cutFraction(), Duration.ofSeconds(IDLE_SECONDS + 3)));
        soak.phase("streams", "starting a node on SQLite (model idle timeout " + IDLE_SECONDS + " s)");
        SoakNode node = soak.cleanup().add(SoakNode.configure("the streams node", o.launcher(), soak.dir().resolve("streams-home"),
                soak.dir().resolve("streams-node.log"), model.baseUrl(), IDLE_SECONDS, ""));
        node.start();

        soak.phase("streams", o.clients() + " clients send " + o.messages() + " messages, streamed and not in turn; the model cuts "
                + Math.round(o.cutFraction() * 100) + "% of first attempts off");
        SoakLedger ledger = new SoakLedger();
        SoakClient.Counters counters = new SoakClient.Counters();
        SoakLoad load = new SoakLoad("streams-" + o.seed(), () -> node.uri("/"), ledger, counters, o.messages(), Duration.ZERO);
        load.start(o.clients(), (c, m) -> (c + m) % 2 == 0);
        load.join();
        soak.phase("streams", "load done; waiting for the turns to settle");
        SoakLedger.Store store = SoakLedger.Store.sqlite(node.home.resolve("herald.db"));
        int stuck = store.awaitSettled();
        SoakLedger.Counts counts = ledger.count(store.transcript(), stuck);
        long partial = store.count("SELECT COUNT(*) FROM turns WHERE outcome = 'partial'");
        soak.cleanup().runNow(node);

        int retried = 0;
        for (SoakLedger.Sent s : ledger.sent()) {
            if (s.outcome().kind() == SoakClient.Kind.ANSWERED && model.attempts(s.text()) > 1
                    && s.outcome().text().equals(EchoModel.whole(s.text()))) {
                retried++;
            }
        }
        StringBuilder cuts = new StringBuilder();
        for (EchoModel.Cut c : EchoModel.Cut.values()) {
            cuts.append(cuts.isEmpty() ? "" : ", ").append(model.cuts(c)).append(' ').append(c.label);
        }
        return FaultSoak.Result.counted("streams", counts, model.cuts() + " answers cut off (" + cuts + "): " + retried
                + " retried to completion, " + counts.kind(SoakClient.Kind.CUT_OFF) + " delivered as incomplete (502 or error event "
                + "answer_cut_off; " + partial + " turns partial); " + counts.kind(SoakClient.Kind.FAILED) + " failed; "
                + counters.summary());
    }
}
