package dev.herald.bench;

import java.time.Duration;

/**
 * One node on PostgreSQL (the shipped {@code store.outage_wait_seconds}, 60 s) under steady load; the database is
 * stopped as {@code pg_ctl stop -m fast} does (its sessions cut off) for {@code --outage-seconds}, then started again on
 * the same port and data. Turns that were running wait for it; new requests are answered 503 meanwhile and sent again.
 */
final class StoreOutageSoak {
    private static final Duration BEFORE = Duration.ofSeconds(8);
    private static final Duration AFTER = Duration.ofSeconds(10);

    private StoreOutageSoak() {
    }

    static FaultSoak.Result run(FaultSoak.Soak soak) throws Exception {
        FaultSoak.Options o = soak.options();
        soak.phase("outage", "starting PostgreSQL and a node on it");
        SoakPostgres pg = soak.cleanup().add(SoakPostgres.start(soak.dir().resolve("outage-pgdata")));
        String db = pg.database("outage");
        EchoModel model = soak.cleanup().add(new EchoModel(o.seed(), Duration.ofMillis(200), Duration.ofMillis(10)));
        SoakNode node = soak.cleanup().add(SoakNode.configure("the outage node", o.launcher(), soak.dir().resolve("outage-home"),
                soak.dir().resolve("outage-node.log"), model.baseUrl(), 120, "store:\n  url: " + db + "\n  user: postgres\n"));
        node.start();
        ReadyWatch watch = soak.cleanup().add(new ReadyWatch(node));

        soak.phase("outage", o.clients() + " clients send, each pausing up to 0.5 s between messages");
        SoakLedger ledger = new SoakLedger();
        SoakClient.Counters counters = new SoakClient.Counters();
        SoakLoad load = new SoakLoad("outage-" + o.seed(), () -> node.uri("/"), ledger, counters, -1, Duration.ofMillis(500)).start(o.clients(), (c, m) -> c % 2 == 0);
        Thread.sleep(BEFORE);
        soak.phase("outage", "stopping PostgreSQL for " + o.outageSeconds() + " s");
        long stopped = System.nanoTime();
        pg.stop();
        Thread.sleep(Math.max(0, o.outageSeconds() * 1000L - (System.nanoTime() - stopped) / 1_000_000));
        soak.phase("outage", "starting PostgreSQL again on the same port and data");
        pg.start();
        long started = System.nanoTime();
        Thread.sleep(AFTER);
        soak.phase("outage", "load stopping; waiting for the turns to settle");
        load.stop();
        if (!node.alive()) {
            throw new IllegalStateException("soak - the outage node exited during the outage; see " + node.log());
        }
        SoakLedger.Store store = SoakLedger.Store.postgres(db);
        int stuck = store.awaitSettled();
        SoakLedger.Counts counts = ledger.count(store.transcript(), stuck);
        long failed = store.turns("FAILED");
        long resumed = store.count("SELECT COUNT(*) FROM turns WHERE origin = 'RESUME'");
        long firstDown = watch.firstStoreDownAfter(stopped);
        long readyAgain = watch.firstReadyAfter(started);
        watch.close();
        soak.cleanup().runNow(node);

        String readiness = firstDown < 0 ? "/health/ready never said store_unavailable"
                : "/health/ready said 503 store_unavailable for " + seconds(watch.storeDownMillis(stopped, System.nanoTime()))
                        + " (from " + seconds((firstDown - stopped) / 1_000_000) + " after the stop"
                        + (readyAgain < 0 ? ", never ready again" : " to " + seconds((readyAgain - started) / 1_000_000) + " after it was up again") + ")";
        long answered = load.firstAnswerAfter(started);
        return FaultSoak.Result.counted("outage", counts, "PostgreSQL stopped for " + o.outageSeconds() + " s; " + readiness
                + "; answers again " + (answered < 0 ? "never" : seconds(answered) + " after it was up") + "; " + failed + " turns FAILED, "
                + resumed + " resumed; " + counters.summary());
    }

    static String seconds(long ms) {
        return String.format("%.1f s", ms / 1000.0);
    }
}
