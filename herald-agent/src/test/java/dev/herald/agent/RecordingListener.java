package dev.herald.agent;

import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.TurnListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A turn listener that plays the gateway in tests: keeps every call in order as short text events, answers
 * approvals with a scripted function, and "continues in a child session" on compaction.
 */
final class RecordingListener implements TurnListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<ChatMessage> messages = new CopyOnWriteArrayList<>();
    final List<String> deltas = new CopyOnWriteArrayList<>();
    final List<ApprovalRequest> approvals = new CopyOnWriteArrayList<>();
    final List<Compaction> compactions = new CopyOnWriteArrayList<>();
    final List<String> activity = new CopyOnWriteArrayList<>();
    final List<long[]> usage = new CopyOnWriteArrayList<>();
    final List<dev.herald.core.platform.OutboundFile> files = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstDelta = new CountDownLatch(1);
    private final CountDownLatch firstApproval = new CountDownLatch(1);
    volatile Function<ApprovalRequest, ApprovalDecision> approver = request -> ApprovalDecision.APPROVED_ONCE;
    /** Whether deltas reach a person as they come (a streaming chat); false plays a platform that shows only the reply. */
    volatile boolean showsDeltas;

    /** A listener that plays a streaming chat: deltas are shown as they come. */
    static RecordingListener showing() {
        RecordingListener listener = new RecordingListener();
        listener.showsDeltas = true;
        return listener;
    }

    @Override
    public boolean showsDeltas() {
        return showsDeltas;
    }

    @Override
    public void onMessage(ChatMessage message) {
        messages.add(message);
        events.add("message:" + message.role().wire() + ":" + message.content());
    }

    @Override
    public void onDelta(String text) {
        deltas.add(text);
        events.add("delta:" + text);
        firstDelta.countDown();
    }

    @Override
    public void onUsage(long inputTokens, long outputTokens) {
        usage.add(new long[] {inputTokens, outputTokens});
        events.add("usage:" + inputTokens + "/" + outputTokens);
    }

    @Override
    public void onToolActivity(String callId, String toolName, String summary, ToolState state) {
        String event = switch (state) {
            case RUNNING -> "start:" + toolName;
            case OK, ERROR -> "done:" + toolName + ":" + (state == ToolState.OK);
            case DENIED, INTERRUPTED -> state.wire() + ":" + toolName;
        };
        activity.add(event);
        events.add(event);
    }

    @Override
    public ApprovalDecision requestApproval(ApprovalRequest request) {
        approvals.add(request);
        events.add("approval:" + request.toolName());
        firstApproval.countDown();
        return approver.apply(request);
    }

    @Override
    public String onCompaction(Compaction compaction) {
        compactions.add(compaction);
        events.add("compaction:" + compaction.summarizedMessages());
        return "child-" + compactions.size();
    }

    /** The recorded messages of one role, in order. */
    List<ChatMessage> toolResults() {
        return messages.stream().filter(m -> m.role() == dev.herald.core.transcript.Role.TOOL).toList();
    }

    void awaitDelta() throws InterruptedException {
        if (!firstDelta.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("no delta within 5 s");
        }
    }

    void awaitApproval() throws InterruptedException {
        if (!firstApproval.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("no approval request within 5 s");
        }
    }

    @Override
    public void onFile(dev.herald.core.platform.OutboundFile file) {
        files.add(file);
    }
}
