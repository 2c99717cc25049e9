package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.store.sqlite.WriteCounts;
import org.junit.jupiter.api.Test;

/**
 * How many writes a turn waits on, each until its commit is on disk (issue 15, item 4): a continuing turn four (the
 * message received; the start with the user's row and the lane's bump; the reply recorded with its first part's send
 * intent, and the assistant's row deferred into that commit; the delivery), a turn that opens a conversation one more
 * (the lane and its transcript created). Counted by the SQLite store's writer, over turns one after the other; a
 * node's background writes (its heartbeat) may add a few.
 */
class StoreWritesPerTurnTest extends GatewaySpec {
    static final int TURNS = 20;
    static final int BACKGROUND = 4;

    private WriteCounts counts() {
        return ((SqliteStorage) h.storage).writeCounts();
    }

    /** One message, answered and its delivery recorded before the next. */
    private void turn(LoopbackPlatform chat, SessionSource from, String text) {
        chat.say(from, text, text);
        chat.awaitSent(t -> t.equals("echo: " + text), Harness.WAIT);
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(h.key(from))
                .map(t -> t.platformMessageId().equals(text) && t.state() == TurnState.DELIVERED).orElse(false));
    }

    @Test
    void aContinuingTurnWaitsOnFourWrites_andOneThatOpensAConversationOnFive() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        LoopbackPlatform chat = h.loopback("telegram");
        turn(chat, alice, "first"); // opens alice's conversation

        WriteCounts before = counts();
        for (int i = 0; i < TURNS; i++) {
            turn(chat, alice, "continuing-" + i);
        }
        WriteCounts continuing = counts().since(before);

        before = counts();
        for (int i = 0; i < TURNS; i++) {
            turn(chat, Harness.dm("telegram", "chat-" + i, "u1"), "opening-" + i);
        }
        WriteCounts opening = counts().since(before);

        assertThat(continuing.waited()).as("writes waited on by %d continuing turns: %s", TURNS, continuing)
                .isLessThanOrEqualTo(4L * TURNS + BACKGROUND);
        assertThat(opening.waited()).as("writes waited on by %d turns that open a conversation: %s", TURNS, opening)
                .isLessThanOrEqualTo(5L * TURNS + BACKGROUND);
        assertThat(continuing.deferred()).as("the assistant's row of each turn is deferred").isGreaterThanOrEqualTo(TURNS);
    }
}
