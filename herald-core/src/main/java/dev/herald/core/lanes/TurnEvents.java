package dev.herald.core.lanes;

import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.cluster.Membership;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.session.Compactions;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one running turn hears from the agent, and where each thing goes: messages into the transcript (an answer with
 * the turn's next write, tool calls durable first), steering texts in, files to send, deltas, usage and tool activity to
 * the platform, approval questions to the chat (or the policy where nobody can answer), a compaction's new session.
 * A turn stops writing as soon as this node lost its lease.
 */
final class TurnEvents implements TurnListener {
    private static final Logger log = LoggerFactory.getLogger(TurnRunner.class);

    /** What every turn's events share: the node's store, turns, lease, steering, compactions, approvals and policy. */
    record Parts(Storage storage, Turns turns, Membership membership, Steering steering, Compactions compactions,
            PendingApprovals approvals, TurnRunner.Policy policy, GatewayMetrics metrics, Clock clock) {
    }

    private final Parts parts;
    private final TurnRecord turn;
    private final PlatformAdapter adapter;
    private final Interrupt interrupt;
    private final List<OutboundFile> files;
    private final boolean streaming;
    private final boolean interactive;
    /** The session the turn writes to: a compaction moves it to the summary's child session. */
    private volatile String current;

    TurnEvents(Parts parts, TurnRecord turn, String sessionId, PlatformAdapter adapter, Interrupt interrupt, List<OutboundFile> files) {
        this.parts = parts;
        this.turn = turn;
        this.adapter = adapter;
        this.interrupt = interrupt;
        this.files = files;
        this.streaming = adapter.capabilities().streaming();
        this.interactive = adapter.capabilities().interactive();
        this.current = sessionId;
    }

    @Override
    public void onMessage(ChatMessage m) {
        if (!parts.membership().holdsLease()) {
            interrupt.raise("this node lost its lease"); // judged dead (paused?): its session is another node's now
            return;
        }
        TranscriptRow row = new TranscriptRow(0, m.role(), m.content(), m.toolCalls(), m.toolCallId(), m.name(), parts.clock().instant());
        if (m.role() == dev.herald.core.transcript.Role.ASSISTANT && !m.hasToolCalls()) {
            if (!files.isEmpty()) { // the answer lists the files it sends, for the web chat's links (never their paths)
                List<dev.herald.core.platform.MessageEvent.MediaRef> sent = new java.util.ArrayList<>();
                for (int k = 0; k < files.size(); k++) {
                    sent.add(files.get(k).asAttachment(turn.id(), k));
                }
                row = row.withAttachments(sent);
            }
            parts.storage().transcripts().appendSoon(current, row); // commits with the turn's next write: its reply record
        } else {
            parts.storage().transcripts().append(current, row); // tool calls run after this: durable first
        }
    }

    @Override
    public List<ChatMessage> steering() {
        return parts.steering().take(turn, current);
    }

    @Override
    public void onFile(OutboundFile file) {
        files.add(file);
    }

    @Override
    public void onDelta(String text) {
        if (streaming && text != null && !text.isEmpty()) {
            progress(new StreamEvent.TextDelta(text));
        }
    }

    /** A streaming platform shows deltas as they come (an edited draft, the page, the API's event stream). */
    @Override
    public boolean showsDeltas() {
        return streaming;
    }

    @Override
    public void onUsage(long in, long out) {
        parts.storage().sessions().addUsage(turn.sessionKey(), in, out);
        parts.turns().addUsage(turn.id(), in, out);
        progress(new StreamEvent.Usage(in, out));
    }

    @Override
    public void onToolActivity(String callId, String toolName, String summary, ToolState state) {
        progress(state.finished() ? new StreamEvent.ToolFinished(callId, toolName, state)
                : new StreamEvent.ToolStarted(callId, toolName, summary));
    }

    @Override
    public ApprovalDecision requestApproval(ApprovalRequest request) {
        if (!senderMayApprove()) {
            log.info("gateway - {} may not approve dangerous tools; {} was denied without asking", turn.sessionKey(), request.toolName());
            return ApprovalDecision.DENIED_NOT_ALLOWED;
        }
        if (!interactive) {
            return parts.policy().allowDangerousWithoutUser() ? ApprovalDecision.APPROVED_ONCE : ApprovalDecision.DENIED_NON_INTERACTIVE;
        }
        parts.metrics().approvalRequested(turn, request);
        return parts.approvals().ask(turn.sessionKey(), turn.source(), request, interrupt);
    }

    @Override
    public boolean canApprove() {
        return senderMayApprove() && (interactive || parts.policy().allowDangerousWithoutUser());
    }

    @Override
    public boolean senderMayApprove() {
        return parts.policy().mayApprove().test(turn.source());
    }

    @Override
    public String onCompaction(Compaction compaction) {
        String child = parts.compactions().apply(current, compaction);
        log.info("gateway - {} compressed {} message(s); continuing in session {}", turn.sessionKey(),
                compaction.summarizedMessages(), child);
        current = child;
        return child;
    }

    private void progress(StreamEvent event) {
        try {
            adapter.progress(turn.source().target(), turn.eventId(), event);
        } catch (RuntimeException e) {
            log.debug("{} - progress update failed: {}", adapter.platform(), e.toString());
        }
    }
}
