package dev.herald.testkit.gateway;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.lanes.ActiveTurn;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The store invariants of {@link Invariant}, read from a store (and from what the platforms accepted) after a test.
 * Each check returns one line per violation, naming the turn or session and what is wrong; an empty list means the
 * invariant holds.
 */
public final class StoreInvariants {
    /** Outcome kinds of a turn that succeeded, read from {@link TurnOutcome} itself: after one, no resume mark stays (A1). */
    static final Set<String> SUCCESS_KINDS = Stream.<TurnOutcome>of(new TurnOutcome.Final(""), new TurnOutcome.Completed(),
                    new TurnOutcome.Interrupted(""), new TurnOutcome.NotCompleted("", ""), new TurnOutcome.Failed(""),
                    new TurnOutcome.Partial("", ""), new TurnOutcome.Errored(""),
                    new TurnOutcome.ToolCallsRequested("", List.of(new ToolCall("c", "f", "{}"))))
            .filter(TurnOutcome::clearsResumePending).map(TurnOutcome::kind).collect(Collectors.toUnmodifiableSet());
    private static final int MAX_TURNS = 100_000;

    private StoreInvariants() {
    }

    /**
     * While {@code gateway} runs: every RUNNING turn in the store is run by one of its lanes. A turn is RUNNING a
     * moment before its lane reports it, so an orphan must stay unowned for {@code grace} to count.
     */
    public static List<String> ownedWhileRunning(Storage storage, Gateway gateway, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        List<TurnRecord> orphans;
        do {
            Set<Long> owned = new HashSet<>();
            for (ActiveTurn t : gateway.activeTurns()) {
                owned.add(t.turnId());
            }
            orphans = storage.turns().inState(TurnState.RUNNING, MAX_TURNS).stream().filter(t -> !owned.contains(t.id())).toList();
            if (!orphans.isEmpty()) {
                pause();
            }
        } while (!orphans.isEmpty() && System.nanoTime() < deadline);
        return orphans.stream().map(t -> describe(t) + " is RUNNING in the store, but no lane of the running gateway has run it for "
                + grace.toMillis() + " ms (left RUNNING by a failure?)").toList();
    }

    /** The checks that hold once no gateway runs on the store, except those in {@code skipped}. */
    public static List<String> afterStop(Storage storage, List<RecordingAdapter.Sent> sent, Set<Invariant> skipped) {
        Map<Long, TurnRecord> turns = allTurns(storage);
        List<String> problems = new ArrayList<>();
        if (!skipped.contains(Invariant.NO_TURN_LEFT_RUNNING)) {
            problems.addAll(noneRunning(turns.values()));
        }
        if (!skipped.contains(Invariant.ONE_FINAL_REPLY_PER_TURN)) {
            problems.addAll(oneFinalReplyPerTurn(turns.values(), sent));
        }
        if (!skipped.contains(Invariant.NO_RESUME_MARK_ON_FINISHED_LANE)) {
            problems.addAll(noResumeMarkOnFinishedLane(storage));
        }
        if (!skipped.contains(Invariant.DENSE_TRANSCRIPTS)) {
            problems.addAll(denseTranscripts(storage, turns.values()));
        }
        return problems;
    }

    static List<String> noneRunning(java.util.Collection<TurnRecord> turns) {
        return turns.stream().filter(t -> t.state() == TurnState.RUNNING)
                .map(t -> describe(t) + " is still RUNNING after the gateway stopped (a stop ends or interrupts every turn it runs; "
                        + "nothing else will)")
                .toList();
    }

    /**
     * Per turn, the final messages (a reply or an error, its last part) the platforms accepted: two sends are one
     * message only when the platform answered both with the same id for the same idempotency key (Discord's nonce).
     * A delivered turn must name the message its platform answered. Fakes must therefore give every message an id of
     * its own across processes (a fake that numbers its messages from 1 in every process would make a resend look
     * like the message it repeats).
     */
    static List<String> oneFinalReplyPerTurn(java.util.Collection<TurnRecord> turns, List<RecordingAdapter.Sent> sent) {
        Map<String, TurnRecord> byEvent = new LinkedHashMap<>();
        turns.forEach(t -> byEvent.put(t.eventId(), t));
        Map<String, List<RecordingAdapter.Sent>> finals = new LinkedHashMap<>();
        for (RecordingAdapter.Sent s : sent) {
            MessageKind kind = s.message().kind();
            if (kind.isAnswer() && s.message().correlationId() != null && s.message().isLastPart()) {
                finals.computeIfAbsent(s.message().correlationId(), k -> new ArrayList<>()).add(s);
            }
        }
        List<String> problems = new ArrayList<>();
        finals.forEach((event, sends) -> {
            Set<String> messages = new LinkedHashSet<>();
            for (int i = 0; i < sends.size(); i++) {
                RecordingAdapter.Sent s = sends.get(i);
                boolean identified = s.messageId() != null && s.message().idempotencyKey() != null;
                messages.add(identified ? s.platform() + "|" + s.message().idempotencyKey() + "|" + s.messageId() : "send " + i);
            }
            TurnRecord turn = byEvent.get(event);
            String who = turn == null ? "event " + event : describe(turn);
            if (messages.size() > 1) {
                problems.add(who + " got " + messages.size() + " final replies: " + sends.stream().map(StoreInvariants::describe)
                        .collect(Collectors.joining("; ")));
            }
            if (turn != null && turn.state() == TurnState.DELIVERED && turn.replyMessageId() != null
                    && sends.stream().noneMatch(s -> turn.replyMessageId().equals(s.messageId()))) {
                problems.add(who + " is DELIVERED as message " + turn.replyMessageId() + ", but its platform answered its final part with "
                        + sends.stream().map(RecordingAdapter.Sent::messageId).toList());
            }
        });
        Map<String, List<TurnRecord>> answered = turns.stream()
                .filter(t -> t.platformMessageId() != null && t.reply() != null && t.state() == TurnState.DELIVERED)
                .collect(Collectors.groupingBy(t -> t.source().platform() + " message " + t.platformMessageId(), LinkedHashMap::new,
                        Collectors.toList()));
        answered.forEach((message, ts) -> {
            if (ts.size() > 1) {
                problems.add(message + " was answered by " + ts.size() + " delivered turns: " + ts.stream().map(StoreInvariants::describe)
                        .collect(Collectors.joining("; ")));
            }
        });
        return problems;
    }

    /** A lane whose newest started turn succeeded has nothing to resume: its mark must be gone (A1; the drain's clearing). */
    static List<String> noResumeMarkOnFinishedLane(Storage storage) {
        List<String> problems = new ArrayList<>();
        for (SessionEntry e : storage.sessions().listResumePending(Optional.empty())) {
            storage.turns().latestStarted(e.key()).ifPresent(t -> {
                boolean finished = (t.state() == TurnState.DELIVERED || t.state() == TurnState.AWAITING_DELIVERY)
                        && t.outcome() != null && SUCCESS_KINDS.contains(t.outcome());
                if (finished) {
                    problems.add("session " + e.key().value() + " is resume-pending (" + e.effectiveResumeReason().code() + ", marked at "
                            + e.lastResumeMarkedAt() + "), but its newest turn " + t.id() + " ended by itself (" + t.state() + ", outcome "
                            + t.outcome() + "): a finished lane must not be resumed");
                }
            });
        }
        return problems;
    }

    static List<String> denseTranscripts(Storage storage, java.util.Collection<TurnRecord> turns) {
        Set<String> sessionIds = new LinkedHashSet<>();
        turns.forEach(t -> {
            if (t.sessionId() != null) {
                sessionIds.add(t.sessionId());
            }
        });
        List<String> problems = new ArrayList<>();
        for (String id : sessionIds) {
            List<TranscriptRow> rows = storage.transcripts().load(id);
            for (int i = 0; i < rows.size(); i++) {
                if (rows.get(i).seq() != i + 1) {
                    problems.add("transcript " + id + " has seq " + rows.get(i).seq() + " at position " + (i + 1));
                    break;
                }
            }
        }
        return problems;
    }

    /** Every stored turn once, in its latest state. */
    static Map<Long, TurnRecord> allTurns(Storage storage) {
        Map<Long, TurnRecord> all = new TreeMap<>();
        for (TurnState s : TurnState.values()) {
            storage.turns().inState(s, MAX_TURNS).forEach(t -> all.put(t.id(), t));
        }
        return all;
    }

    static String describe(TurnRecord t) {
        return "turn " + t.id() + " (session " + t.sessionKey().value() + ", " + t.origin().name().toLowerCase(java.util.Locale.ROOT)
                + " event " + t.eventId() + ", " + t.state() + ")";
    }

    private static String describe(RecordingAdapter.Sent s) {
        String text = s.message().text();
        return s.platform() + " message " + s.messageId() + " (" + s.message().kind() + " part " + s.message().part() + "/"
                + s.message().parts() + ", process " + s.process() + ", \"" + (text.length() <= 40 ? text : text.substring(0, 40) + "...")
                + "\")";
    }

    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
