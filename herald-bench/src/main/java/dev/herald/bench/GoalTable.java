package dev.herald.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The goals of issue 15 beside what one benchmark run measured. A goal about 8 clients reads the 8-client run of
 * its scenario (the first client count when 8 was not run, named in the line); a goal whose scenario was not run
 * reads "n/a". "Flat" means the overhead p50 of turns 1001-1010 of a 1,000-turn conversation is at most 1.5 times
 * that of turns 1-10 of a new one, both from the flatness probe (one client, alternating, after the runs: the same
 * JIT state and load on both sides); without a probe, the last and first turns of the continuing run's conversations.
 */
final class GoalTable {
    static final int GOAL_CLIENTS = 8;
    static final double FLAT_RATIO = 1.5;
    private static final long MS = 1_000_000;
    private static final String FLAT = "continuing: flat from turn 1 to 1,000 (overhead p50 at turn 1,000 <= " + FLAT_RATIO + "x turns 1-10)";

    private GoalTable() {
    }

    static List<Report.Goal> of(List<Report.Row> rows, GatewayProcess.Ready ready, Optional<LoadDriver.Probe> probe, Optional<Report.Goal> soak,
                                boolean warmup) {
        List<Report.Goal> goals = new ArrayList<>();
        Optional<Report.Row> fresh = measured(rows, Scenario.NEW);
        Optional<Report.Row> continuing = measured(rows, Scenario.CONTINUING);
        Optional<Report.Row> streaming = measured(rows, Scenario.STREAMING);
        goals.add(below("new conversation: overhead p50 < 1 ms", fresh, r -> r.result().overhead().percentile(50), MS));
        goals.add(below("new conversation: overhead p99 < 5 ms", fresh, r -> r.result().overhead().percentile(99), 5 * MS));
        goals.add(below("continuing: overhead p50 < 1 ms", continuing, r -> r.result().overhead().percentile(50), MS));
        goals.add(below("continuing: overhead p99 < 5 ms", continuing, r -> r.result().overhead().percentile(99), 5 * MS));
        goals.add(probe.map(GoalTable::flat).orElseGet(() -> flat(continuing)));
        goals.add(new Report.Goal("CPU per turn < 1 ms" + at(fresh) + " (new conversation, whole tree)",
                fresh.map(r -> String.format("%.2f ms (JIT %.2f of it)", r.cpuPerTurn(), r.jitPerTurn())).orElse("not run"), fresh.map(r -> r.cpuPerTurn() < 1.0)));
        goals.add(new Report.Goal(">= 1,000 durable turns/s" + at(fresh) + " (new conversation)",
                fresh.map(r -> String.format("%.0f turns/s", r.result().turnsPerSecond())).orElse("not run"),
                fresh.map(r -> r.result().turnsPerSecond() >= 1000)));
        goals.add(below("client latency p99 < 20 ms" + at(fresh) + " (new conversation)", fresh,
                r -> r.result().latency().percentile(99), 20 * MS));
        goals.add(new Report.Goal("ready < 2 s after herald run (to /health/ready 200)", String.format("%.2f s", ready.elapsed().toMillis() / 1e3),
                Optional.of(ready.elapsed().toMillis() < 2000)));
        goals.add(new Report.Goal("process tree RSS idle (at ready) < 200 MB", Report.mb(ready.tree().rssMb()),
                Optional.of(ready.tree().rssMb() < 200)));
        Optional<Report.Row> tenThousand = rows.stream().filter(r -> r.turnsSoFar() >= 10_000).findFirst();
        goals.add(new Report.Goal("process tree RSS after 10,000 turns < 300 MB",
                tenThousand.map(r -> Report.mb(r.rssMbAfter()) + " after " + String.format("%,d", r.turnsSoFar()) + " turns")
                        .orElse("the run made fewer turns"),
                tenThousand.map(r -> r.rssMbAfter() < 300)));
        goals.add(soak.orElse(new Report.Goal("no RSS growth trend over 100,000 turns", "not run (--soak 100000)", Optional.empty())));
        goals.add(new Report.Goal("streaming: first byte < 1 ms after the model's first token (p50" + at(streaming).replace(" at", ",") + ")",
                streaming.map(r -> Report.ms(r.result().firstByte().percentile(50)) + " (p99 " + Report.ms(r.result().firstByte().percentile(99)) + ")")
                        .orElse("not run"),
                streaming.filter(r -> !r.result().firstByte().isEmpty()).map(r -> r.result().firstByte().percentile(50) < MS)));
        if (warmup) {
            rows.stream().filter(r -> r.label().startsWith("warm-up")).findFirst().ifPresent(w -> fresh.ifPresent(f -> goals.add(
                    new Report.Goal("(JIT warm-up: CPU per turn, first turns vs steady state)",
                            String.format("%.2f vs %.2f ms (%.1fx)", w.cpuPerTurn(), f.cpuPerTurn(), w.cpuPerTurn() / Math.max(0.01, f.cpuPerTurn())),
                            Optional.empty()))));
        }
        return goals;
    }

    /** The run of {@code s} at 8 clients, else at the first client count measured. */
    private static Optional<Report.Row> measured(List<Report.Row> rows, Scenario s) {
        List<Report.Row> of = rows.stream().filter(r -> r.label().equals(s.label)).toList();
        return of.stream().filter(r -> r.result().clients() == GOAL_CLIENTS).findFirst().or(() -> of.stream().findFirst());
    }

    private static String at(Optional<Report.Row> row) {
        return " at " + row.map(r -> r.result().clients()).orElse(GOAL_CLIENTS) + " clients";
    }

    private static Report.Goal below(String goal, Optional<Report.Row> row, java.util.function.ToLongFunction<Report.Row> figure, long bound) {
        return new Report.Goal(goal, row.map(r -> Report.ms(figure.applyAsLong(r))).orElse("not run"),
                row.filter(r -> r.result().turns() > r.result().errors()).map(r -> figure.applyAsLong(r) < bound));
    }

    /** Flatness from the probe: the same client alternating turns 1-10 of a new conversation and turns 1001-1010 of a long one. */
    private static Report.Goal flat(LoadDriver.Probe p) {
        if (p.fresh().isEmpty() || p.continued().isEmpty()) {
            return new Report.Goal(FLAT, "the probe's turns failed", Optional.empty());
        }
        long early = p.fresh().percentile(50);
        long late = p.continued().percentile(50);
        String measured = String.format("probe: turns %d-%d %s vs turns 1-%d %s (%.1fx)", p.length() + 1, p.length() + p.continued().count(),
                Report.ms(late), LoadDriver.PROBE_FRESH, Report.ms(early), (double) late / Math.max(1, early));
        if (p.length() < 1000) {
            return new Report.Goal(FLAT, measured + ": conversation too short to judge", Optional.empty());
        }
        return new Report.Goal(FLAT, measured, Optional.of(late <= early * FLAT_RATIO));
    }

    /** Flatness from a continuing run (used when there was no probe). */
    private static Report.Goal flat(Optional<Report.Row> continuing) {
        String goal = FLAT;
        if (continuing.isEmpty()) {
            return new Report.Goal(goal, "not run", Optional.empty());
        }
        LoadDriver.Result r = continuing.get().result();
        if (r.late().isEmpty() || r.early().isEmpty()) {
            return new Report.Goal(goal, "conversations of " + r.conversationLength() + " turns: too short (--continuing-turns >= clients x 1000)",
                    Optional.empty());
        }
        long early = r.early().percentile(50);
        long late = r.late().percentile(50);
        String measured = String.format("turns %d-%d %s vs turns 1-10 %s (%.1fx)", r.conversationLength() - 10, r.conversationLength(),
                Report.ms(late), Report.ms(early), (double) late / Math.max(1, early));
        if (r.conversationLength() < 1000) {
            return new Report.Goal(goal, measured + ": conversations too short to judge", Optional.empty());
        }
        return new Report.Goal(goal, measured, Optional.of(late <= early * FLAT_RATIO));
    }
}
