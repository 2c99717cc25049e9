package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.cluster.NodeRecord;
import dev.herald.core.cluster.NodeState;
import dev.herald.core.cluster.NodeStore;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node registry and the leases and fences built on it, for every store: two stores on one database are two nodes
 * (a third node is only a registry row). Times are the database's clock; {@link #letTimePass} moves it.
 */
public abstract class NodeStoreContract extends StorageContract {
    protected static final Duration LEASE = Duration.ofMillis(1200);

    /** The second node's store on the same database. */
    protected Storage other;

    @BeforeEach
    protected final void openOther() {
        other = open(dir, clock);
    }

    @AfterEach
    protected final void closeOther() {
        if (other != null) {
            other.close();
        }
    }

    /** Lets {@code d} pass on the database's clock (the store's clock where it is the database's; real time elsewhere). */
    protected void letTimePass(Duration d) {
        clock.advance(d);
    }

    protected static NodeIdentity node(String id) {
        return new NodeIdentity(id, "test-host", 4242, null);
    }

    private NodeStore nodes() {
        return storage.nodes();
    }

    private NodeRecord find(String id) {
        return nodes().list(10).stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
    }

    /** The turns of node {@code id}, on {@code on}'s store: every move fenced by that node. */
    protected static Turns turnsOf(Storage on, String id) {
        return new Turns(on.turns(), Turns.Observer.NONE, id);
    }

    protected TurnRecord waiting(Storage on, String node, String chatId, String text) {
        SessionSource s = dm(chatId);
        on.sessions().getOrCreate(keyOf(s), s);
        return turnsOf(on, node).receive(keyOf(s), MessageEvent.text(s, text, null, clock.instant())).orElseThrow();
    }

    protected java.util.Optional<TurnRecord> start(Storage on, String node, TurnRecord t) {
        SessionEntry lane = on.sessions().find(t.sessionKey()).orElseThrow();
        return turnsOf(on, node).start(t.id(), lane.sessionId(), TranscriptRow.user(t.text(), clock.instant()));
    }

    @Test
    void register_listsTheNodeAsRunning_withALeaseFromTheDatabaseClock() {
        NodeRecord a = nodes().register(node("a"), LEASE, "old");

        assertThat(a.state()).isEqualTo(NodeState.RUNNING);
        assertThat(a.successorOf()).isEqualTo("old");
        assertThat(Duration.between(a.heartbeatAt(), a.expiresAt())).isEqualTo(LEASE);
        assertThat(nodes().list(0)).extracting(NodeRecord::id).containsExactly("a");
        assertThat(other.nodes().list(0)).as("another node sees it").extracting(NodeRecord::id).containsExactly("a");
    }

    @Test
    void lease_runsOutByTheDatabaseClock_unlessTheNodeBeatsAgain() {
        nodes().register(node("a"), LEASE, null);
        nodes().register(node("b"), LEASE, null);

        letTimePass(LEASE.dividedBy(2));
        assertThat(other.nodes().heartbeat("b", LEASE)).isTrue();
        letTimePass(LEASE.dividedBy(2).plusMillis(200));

        assertThat(other.nodes().expired()).extracting(NodeRecord::id).containsExactly("a");
        assertThat(nodes().markGone("b", true)).as("b beat in time: its lease still runs").isFalse();
        assertThat(nodes().markGone("a", true)).isTrue();
        assertThat(find("a").state()).isEqualTo(NodeState.GONE);
    }

    @Test
    void judgingADeadNode_twoSurvivorsAtOnce_exactlyOneMarksItGone() throws Exception {
        nodes().register(node("dead"), LEASE, null);
        letTimePass(LEASE.plusMillis(200));

        List<Boolean> won = Together.run(8, i -> (i % 2 == 0 ? storage : other).nodes().markGone("dead", true));

        assertThat(won).containsOnlyOnce(true);
    }

    @Test
    void heartbeat_ofANodeJudgedDead_isRefused_andItStaysGone() {
        nodes().register(node("a"), LEASE, null);
        letTimePass(LEASE.plusMillis(200));
        assertThat(other.nodes().markGone("a", true)).isTrue();

        assertThat(nodes().heartbeat("a", LEASE)).isFalse();
        assertThat(find("a").state()).isEqualTo(NodeState.GONE);
        assertThat(nodes().move("a", NodeState.RUNNING, NodeState.DRAINING)).isFalse();
    }

    @Test
    void markGoneExcept_marksEveryOtherLiveNode_andKeepsTheNamedOnes() {
        for (String id : List.of("a", "b", "c")) {
            nodes().register(node(id), LEASE, null);
        }

        List<String> gone = nodes().markGoneExcept(Set.of("a", "b"));

        assertThat(gone).containsExactly("c");
        assertThat(nodes().list(0)).extracting(NodeRecord::id).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void start_takesTheSessionsLease_andAnotherRunningNodeCannotStartTheSessionsTurns() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord first = waiting(storage, "a", "1", "first");
        assertThat(start(storage, "a", first)).isPresent();
        turnsOf(storage, "a").complete(first.id(), "final");
        TurnRecord second = waiting(other, "b", "1", "second");

        assertThat(start(other, "b", second)).as("a holds the lease and lives").isEmpty();

        assertThat(other.turns().find(second.id()).orElseThrow().state()).as("left waiting for a").isEqualTo(TurnState.RECEIVED);
        assertThat(start(storage, "a", second)).as("a runs it").isPresent();
        assertThat(find("a").sessions()).isEqualTo(1);
        assertThat(find("a").runningTurns()).isEqualTo(1);
    }

    @Test
    void start_ofASessionWhoseHolderIsGone_takesTheLease() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord first = waiting(storage, "a", "1", "first");
        start(storage, "a", first).orElseThrow();
        turnsOf(storage, "a").complete(first.id(), "final");
        other.nodes().markGone("a", false);

        TurnRecord next = waiting(other, "b", "1", "next");

        assertThat(start(other, "b", next)).isPresent();
        assertThat(other.turns().find(next.id()).orElseThrow().ownerNode()).isEqualTo("b");
    }

    @Test
    void start_ofASessionWhoseHolderDrains_waitsWhileItRunsATurnOfIt_andTakesItOnceIdle() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord running = waiting(storage, "a", "1", "long task");
        start(storage, "a", running).orElseThrow();
        nodes().move("a", NodeState.RUNNING, NodeState.DRAINING);
        TurnRecord next = waiting(other, "b", "1", "next");

        assertThat(start(other, "b", next)).as("a still runs a turn of the session").isEmpty();
        turnsOf(storage, "a").complete(running.id(), "final");
        assertThat(start(other, "b", next)).as("a drains and is done with it").isPresent();
    }

    @Test
    void aNodeJudgedDead_canMoveNothing_andASurvivorEndsItsTurn() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord t = waiting(storage, "a", "1", "work");
        start(storage, "a", t).orElseThrow();
        assertThat(turnsOf(other, "b").interrupt(t.id(), "not b's")).as("a live node's turn is not b's").isFalse();
        letTimePass(LEASE.plusMillis(200));
        other.nodes().heartbeat("b", LEASE);
        assertThat(other.nodes().markGone("a", true)).isTrue();

        assertThat(turnsOf(storage, "a").recordReply(t.id(), "final", "late answer")).as("fenced").isFalse();
        assertThat(turnsOf(storage, "a").fail(t.id(), "error", "late")).as("fenced").isFalse();
        List<dev.herald.core.session.SessionKey> marked = new OrphanedTurns(turnsOf(other, "b"), Freshness.defaults(), clock)
                .end(other.turns().running(), "takeover").marked();

        assertThat(other.turns().find(t.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        assertThat(marked).containsExactly(t.sessionKey());
        assertThat(other.sessions().find(t.sessionKey()).orElseThrow().resumePending()).isTrue();
    }

    @Test
    void aReplyOfANodeJudgedDead_isClaimedBySendingIt_andTheDeadNodeCanNoLongerSendIt() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord t = waiting(storage, "a", "1", "work");
        start(storage, "a", t).orElseThrow();
        turnsOf(storage, "a").recordReply(t.id(), "final", "the answer");
        assertThat(turnsOf(other, "b").recordSendIntent(t.id(), 1)).as("a lives: its reply is its own").isFalse();
        other.nodes().markGone("a", false);

        assertThat(turnsOf(other, "b").recordSendIntent(t.id(), 1)).isTrue();

        assertThat(turnsOf(storage, "a").recordSendIntent(t.id(), 1)).isFalse();
        assertThat(turnsOf(storage, "a").delivered(t.id(), "m-1")).isFalse();
        assertThat(turnsOf(other, "b").delivered(t.id(), "m-1")).isTrue();
        assertThat(other.turns().find(t.id()).orElseThrow().ownerNode()).isEqualTo("b");
    }

    @Test
    void aNodeThatIsNotRunning_startsNothing_andAGoneNodeCancelsNothing() {
        nodes().register(node("a"), LEASE, null);
        TurnRecord t = waiting(storage, "a", "1", "work");
        nodes().move("a", NodeState.RUNNING, NodeState.DRAINING);
        assertThat(start(storage, "a", t)).as("a draining node starts no turn").isEmpty();
        nodes().markGone("a", false);

        assertThat(turnsOf(storage, "a").cancel(t.id(), "no")).isFalse();
        assertThat(other.turns().find(t.id()).orElseThrow().state()).isEqualTo(TurnState.RECEIVED);
    }

    @Test
    void takeLease_fromALiveHolder_onlyWhenItIsIdleAndTheTakerAsks() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord t = waiting(storage, "a", "1", "work");
        start(storage, "a", t).orElseThrow();

        assertThat(other.sessions().takeLease(t.sessionKey(), "b", false)).isFalse();
        assertThat(other.sessions().takeLease(t.sessionKey(), "b", true)).as("a runs a turn of it").isFalse();
        turnsOf(storage, "a").complete(t.id(), "final");
        assertThat(other.sessions().takeLease(t.sessionKey(), "b", false)).as("affinity: a keeps it while it lives").isFalse();
        assertThat(other.sessions().takeLease(t.sessionKey(), "b", true)).as("idle, and b holds a request for it").isTrue();

        assertThat(storage.sessions().leaseHolder(t.sessionKey())).contains("b");
        assertThat(storage.sessions().takeLease(t.sessionKey(), "a", false)).isFalse();
    }

    @Test
    void claimWaiting_takesTurnsOfAGoneReceiverAndTurnsHandedOver_notTurnsALiveNodeRuns() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        nodes().register(node("gone"), LEASE, null);
        TurnRecord orphan = waiting(storage, "gone", "1", "left behind");
        nodes().markGone("gone", false);
        TurnRecord held = waiting(storage, "a", "2", "first");
        start(storage, "a", held).orElseThrow();
        turnsOf(storage, "a").complete(held.id(), "final");
        TurnRecord handedOver = waiting(other, "b", "2", "for a's session");
        TurnRecord fresh = waiting(other, "b", "3", "b runs this itself");

        List<TurnRecord> forB = turnsOf(other, "b").claimWaiting(Set.of(), clock.instant().minusSeconds(3), 10);
        List<TurnRecord> forA = turnsOf(storage, "a").claimWaiting(Set.of(), clock.instant().minusSeconds(3), 10);

        assertThat(forB).extracting(TurnRecord::id).as("the gone node's; not a's session, not its own fresh turn").containsExactly(orphan.id());
        assertThat(forB.getFirst().ownerNode()).isEqualTo("b");
        assertThat(forA).extracting(TurnRecord::id).as("a holds lane 2's lease: b could not start it").containsExactly(handedOver.id());
        clock.advance(Duration.ofSeconds(4));
        assertThat(turnsOf(storage, "a").claimWaiting(Set.of(), clock.instant().minusSeconds(3), 10)).extracting(TurnRecord::id)
                .as("after the grace: the turn handed over to a, and turns of lanes no live node holds that b did not run")
                .containsExactly(orphan.id(), handedOver.id(), fresh.id());
        assertThat(turnsOf(other, "b").claimWaiting(Set.of(), clock.instant().minusSeconds(3), 10)).extracting(TurnRecord::id)
                .as("lane 2 is a's; the others a just claimed, and they are a's for a grace again").isEmpty();
    }

    @Test
    void claimWaiting_neverTakesATurnBoundToTheRequestItsLiveReceiverHolds() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        waiting(storage, "a", "1", "held open on a");
        clock.advance(Duration.ofSeconds(10));

        assertThat(turnsOf(other, "b").claimWaiting(Set.of(CHAT.id()), clock.instant().minusSeconds(3), 10)).isEmpty();
        nodes().markGone("a", false);
        assertThat(turnsOf(other, "b").claimWaiting(Set.of(CHAT.id()), clock.instant().minusSeconds(3), 10))
                .as("its receiver is gone: the request is lost anyway, the turn is not").hasSize(1);
    }

    @Test
    void claimWaiting_twoNodesAtOnce_eachWaitingTurnGoesToOne() throws Exception {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        nodes().register(node("gone"), LEASE, null);
        for (int i = 0; i < 20; i++) {
            waiting(storage, "gone", "c" + i, "message " + i);
        }
        nodes().markGone("gone", false);

        List<List<TurnRecord>> claims = Together.run(2, i -> turnsOf(i == 0 ? storage : other, i == 0 ? "a" : "b")
                .claimWaiting(Set.of(), clock.instant(), 100));

        List<Long> all = claims.stream().flatMap(List::stream).map(TurnRecord::id).toList();
        assertThat(all).doesNotHaveDuplicates().hasSize(20);
    }

    @Test
    void resumePendingOfGoneNodes_listsTheLanesAGoneNodeHeldAndLeftResumePending() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);
        TurnRecord ofA = waiting(storage, "a", "1", "work");
        start(storage, "a", ofA).orElseThrow();
        TurnRecord ofB = waiting(other, "b", "2", "work");
        start(other, "b", ofB).orElseThrow();
        storage.sessions().markResumePending(ofA.sessionKey(), dev.herald.core.session.ResumeReason.RESTART_INTERRUPTED);
        storage.sessions().markResumePending(ofB.sessionKey(), dev.herald.core.session.ResumeReason.RESTART_INTERRUPTED);
        assertThat(other.sessions().resumePendingOfGoneNodes(10)).isEmpty();

        nodes().markGone("a", false);

        assertThat(other.sessions().resumePendingOfGoneNodes(10)).containsExactly(ofA.sessionKey());
    }

    @Test
    void platformLease_oneRunningNodeHoldsIt_andItIsFreeOnceThatNodeDrainsOrIsGone() {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);

        assertThat(nodes().takePlatform("telegram", "a")).isTrue();
        assertThat(nodes().takePlatform("telegram", "a")).as("its own").isTrue();
        assertThat(other.nodes().takePlatform("telegram", "b")).as("a runs").isFalse();
        nodes().move("a", NodeState.RUNNING, NodeState.DRAINING);
        assertThat(other.nodes().takePlatform("telegram", "b")).as("a drains").isTrue();
        assertThat(nodes().takePlatform("telegram", "a")).as("a draining node takes nothing").isFalse();
        assertThat(storage.nodes().platformHolders()).containsEntry("telegram", "b");
        other.nodes().markGone("b", false);
        nodes().register(node("c"), LEASE, null);
        assertThat(nodes().takePlatform("telegram", "c")).as("b is gone").isTrue();
        assertThat(nodes().releasePlatform("telegram", "b")).as("not b's any more").isFalse();
        assertThat(nodes().releasePlatform("telegram", "c")).isTrue();
        assertThat(storage.nodes().platformHolders()).doesNotContainKey("telegram");
    }

    @Test
    void platformLease_twoNodesAtOnce_oneWins() throws Exception {
        nodes().register(node("a"), LEASE, null);
        other.nodes().register(node("b"), LEASE, null);

        List<Boolean> won = Together.run(2, i -> (i == 0 ? storage : other).nodes().takePlatform("discord", i == 0 ? "a" : "b"));

        assertThat(won).containsOnlyOnce(true);
    }
}
