package dev.herald.web.chat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.cluster.NodeRecord;
import dev.herald.core.cluster.NodeState;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.web.WebJson;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the open event streams of this node about turns of their conversations that ended on another node.
 *
 * <p>A conversation's turn runs on the node that holds its lease or received its message; the page's event stream may
 * be open on another node (a load balancer, a failover, the old process of a handover). The transcript is the source
 * of truth and the page fetches the rows it lacks whenever a {@code reply} frame arrives, so all this poller does is
 * send that frame: once a second, only while a stream is open here and another node runs on the store, it reads each
 * such conversation's newest started turn (one indexed query) and, when that turn has ended since the last look and
 * this node did not send its reply itself, publishes a {@code reply} frame for it. Where a conversation stood is
 * noted when its stream opens (the page fetches everything up to there itself). Streamed deltas and tool progress of
 * another node's turn are not relayed; its reply shows up within about a second of the turn's end.
 *
 * <p>One virtual thread; {@link #poll} is also called directly by tests. A store error is logged and the next tick
 * tries again.
 */
final class OtherNodeReplies {
    static final Duration EVERY = Duration.ofSeconds(1);
    private static final Logger log = LoggerFactory.getLogger(OtherNodeReplies.class);
    private static final int REMEMBERED = 1_000;

    private final Storage storage;
    private final ChatStreams streams;
    private final Function<String, SessionKey> keys;
    /** Per conversation with an open stream: the newest started turn seen, as "id:state". */
    private final Map<String, String> seen = new HashMap<>();
    /** Turns (their event ids) whose reply or error this node published itself, newest last. */
    private final Set<String> publishedHere = new LinkedHashSet<>();
    private volatile boolean stopped;
    private Thread thread;

    OtherNodeReplies(Storage storage, ChatStreams streams, Function<String, SessionKey> keys) {
        this.storage = storage;
        this.streams = streams;
        this.keys = keys;
    }

    /** Notes that this node sent the final frame of the turn answering {@code eventId}: the poller leaves it alone. */
    void sentHere(String eventId) {
        if (eventId == null) {
            return;
        }
        synchronized (publishedHere) {
            publishedHere.remove(eventId);
            publishedHere.add(eventId);
            if (publishedHere.size() > REMEMBERED) {
                publishedHere.remove(publishedHere.iterator().next());
            }
        }
    }

    private boolean wasSentHere(String eventId) {
        synchronized (publishedHere) {
            return publishedHere.contains(eventId);
        }
    }

    synchronized void start() {
        if (thread == null) {
            thread = Thread.ofVirtual().name("webchat-other-nodes").start(this::run);
        }
    }

    void stop() {
        stopped = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.interrupt();
        }
    }

    private void run() {
        while (!stopped) {
            try {
                Thread.sleep(EVERY);
                poll();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("webchat - could not look for replies from other nodes ({}); trying again in {} s", e.toString(),
                        EVERY.toSeconds());
            }
        }
    }

    /**
     * Takes note of where a conversation whose stream just opened stands (its page fetches everything up to here), so
     * that a turn of another node that ends before the next look is still announced. One query per stream opened.
     */
    synchronized void opened(String conversation) {
        if (!seen.containsKey(conversation)) {
            try {
                seen.put(conversation, look(conversation).map(OtherNodeReplies::mark).orElse("none"));
            } catch (RuntimeException e) {
                log.warn("webchat - could not read where conversation {} stands ({}); its first look waits for the next tick", conversation,
                        e.toString());
            }
        }
    }

    /** One look: returns how many reply frames it published. */
    synchronized int poll() {
        List<String> conversations = streams.openConversations();
        seen.keySet().retainAll(conversations);
        if (conversations.isEmpty() || !otherNodesRun()) {
            return 0;
        }
        int published = 0;
        for (String conversation : conversations) {
            Optional<TurnRecord> latest = look(conversation);
            String now = latest.map(OtherNodeReplies::mark).orElse("none");
            String before = seen.put(conversation, now);
            if (latest.isEmpty() || before == null || before.equals(now)) {
                continue;
            }
            TurnRecord t = latest.get();
            if (!t.state().terminal() || wasSentHere(t.eventId())) {
                continue;
            }
            ObjectNode frame = WebJson.MAPPER.createObjectNode().put("type", "reply").put("turn", t.eventId())
                    .put("text", t.reply() == null ? "" : t.reply()).put("part", 1).put("parts", 1);
            streams.publish(conversation, WebJson.bytes(frame));
            published++;
        }
        return published;
    }

    private Optional<TurnRecord> look(String conversation) {
        return storage.turns().latestStarted(keys.apply(conversation));
    }

    private static String mark(TurnRecord t) {
        return t.id() + ":" + t.state();
    }

    private boolean otherNodesRun() {
        int running = 0;
        for (NodeRecord n : storage.nodes().list(0)) {
            if (n.state() != NodeState.GONE) {
                running++;
            }
        }
        return running > 1;
    }
}
