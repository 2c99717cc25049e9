package dev.herald.store.ops;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.util.List;

/** Writes a small real conversation into a store through its own API: a lane, a turn, user, tool and assistant rows. */
final class Conversation {
    private Conversation() {
    }

    /** One finished turn on lane {@code chat}: the user's question, a tool call and its result, the answer. */
    static SessionEntry write(Storage storage, String chat, String question, String answer, Clock clock) {
        SessionSource source = SessionSource.dm(Platform.of("loopback"), chat, "u-" + chat);
        SessionKey key = SessionKey.of(source);
        SessionEntry lane = storage.sessions().getOrCreate(key, source);
        TurnRecord turn = storage.turns().receive(key, MessageEvent.text(source, question, "m-" + chat + "-" + question.hashCode(),
                clock.instant())).orElseThrow();
        new Turns(storage.turns()).start(turn.id(), lane.sessionId(), TranscriptRow.user(question, clock.instant())).orElseThrow();
        storage.transcripts().append(lane.sessionId(), TranscriptRow.assistantToolCalls(null,
                List.of(new ToolCall("call-1", "read_file", "{\"path\":\"notes.txt\"}")), clock.instant()));
        storage.transcripts().append(lane.sessionId(), TranscriptRow.tool("call-1", "read_file", "line one\nline \"two\"", clock.instant()));
        storage.transcripts().append(lane.sessionId(), TranscriptRow.assistant(answer, clock.instant()));
        new Turns(storage.turns()).recordReply(turn.id(), "final", answer);
        new Turns(storage.turns()).delivered(turn.id(), "r-1");
        return lane;
    }
}
