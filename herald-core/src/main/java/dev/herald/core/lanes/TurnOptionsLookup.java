package dev.herald.core.lanes;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The options a turn runs with, and the scheduled task a resume turn continues.
 *
 * <p>Stored options win: {@link StoredTurnOptions} (a scheduled job's profile and tools) for the turn's own request,
 * or, for a resume turn, for the request of the turn it continues. A resume turn continues its lane's newest turn that
 * started before it (the turn the {@code Resumer} found cut off, whose message the resumed answer quotes); a resume of a
 * resume is followed back, at most {@value #MAX_HOPS} turns (a lane cut off that often is suspended as a stuck loop
 * long before). Otherwise the turn runs with what its event asked ({@link MessageEvent#options()}: the API server's
 * request fields), kept here in memory from the moment the event is stored until the turn starts, and so lost in a
 * restart. At most {@value #MAX_ASKED} events' options are kept: an event whose turn never starts (withdrawn, cancelled)
 * gives way to newer ones.
 */
public final class TurnOptionsLookup {
    static final int MAX_HOPS = 10;
    static final int MAX_ASKED = 4096;

    private final Turns turns;
    private volatile StoredTurnOptions stored = StoredTurnOptions.NONE;
    private volatile ChannelOverrides channels = ChannelOverrides.NONE;
    private final Map<String, TurnOptions> askedByEvent = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TurnOptions> eldest) {
            return size() > MAX_ASKED;
        }
    };

    public TurnOptionsLookup(Turns turns) {
        this.turns = turns;
    }

    public void use(StoredTurnOptions source) {
        this.stored = Objects.requireNonNull(source, "source");
    }

    /** Where a turn's chat finds the operator's settings for it ({@code platforms.<type>.channels}). */
    public void use(ChannelOverrides source) {
        this.channels = Objects.requireNonNull(source, "source");
    }

    /** Keeps what {@code event}, just stored as a turn, asked of that turn, until the turn starts. */
    public void remember(MessageEvent event) {
        if (!event.options().equals(TurnOptions.NONE)) {
            synchronized (askedByEvent) {
                askedByEvent.put(event.eventId(), event.options());
            }
        }
    }

    /** The options {@code turn} runs with; called once, as it starts (what its event asked is forgotten then). */
    TurnOptions of(TurnRecord turn) {
        TurnOptions asked;
        synchronized (askedByEvent) {
            asked = askedByEvent.remove(turn.eventId());
        }
        TurnOptions options = stored.of(asked(turn)).orElse(asked == null ? TurnOptions.NONE : asked);
        return withChannel(options, turn);
    }

    /**
     * {@code options} with the settings of the turn's channel: its profile and persona as defaults under the chat's own
     * choices, its tool list as a limit that never widens the platform's (unless the turn already has a limit, such as
     * a configured job's).
     */
    private TurnOptions withChannel(TurnOptions options, TurnRecord turn) {
        Optional<ChannelOverrides.Channel> channel = channels.of(turn.source().platform(), turn.source().chatId());
        if (channel.isEmpty()) {
            return options;
        }
        ChannelOverrides.Channel o = channel.get();
        TurnOptions out = options;
        if (o.profile() != null || o.personality() != null) {
            out = out.withChannel(new TurnOptions.ChannelDefaults(o.profile(), o.personality()));
        }
        if (o.tools() != null && out.toolAllowlist() == null) {
            out = out.withToolAllowlist(new TurnOptions.ToolAllowlist(o.tools(), false));
        }
        return out;
    }

    /**
     * For a resume turn that continues a cut-off scheduled run (directly, or through resumes that were cut off too), the
     * text the scheduler gave that run; else null. Only turns the scheduler made count, as for their options.
     */
    String continuedTask(TurnRecord turn) {
        if (turn.origin() != MessageEvent.Origin.RESUME) {
            return null;
        }
        TurnRecord asked = asked(turn);
        return asked.origin() == MessageEvent.Origin.SCHEDULE ? asked.text() : null;
    }

    /** The turn whose request {@code turn} answers: itself, or for a resume turn the turn it continues. */
    private TurnRecord asked(TurnRecord turn) {
        TurnRecord t = turn;
        for (int hops = 0; t.origin() == MessageEvent.Origin.RESUME && hops < MAX_HOPS; hops++) {
            Optional<TurnRecord> before = turns.latestStartedBefore(t.sessionKey(), t.id());
            if (before.isEmpty()) {
                return turn;
            }
            t = before.get();
        }
        return t.origin() == MessageEvent.Origin.RESUME ? turn : t;
    }
}
