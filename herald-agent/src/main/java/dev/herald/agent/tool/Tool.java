package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A function the model can call. Implementations are thread-safe: calls of one assistant message run
 * concurrently, and one tool serves every session.
 *
 * <p>The loop parses the model's arguments before anything else: {@link #danger} and {@link #execute}
 * always get a JSON object. {@link #execute} must return promptly once {@link ToolContext#interrupt()} is
 * raised (kill processes, abort requests) and report failures as {@link ToolResult#error} results the
 * model can read; an exception escaping it is turned into such a result by the loop.
 */
public interface Tool {

    /** The name the model calls, {@code [A-Za-z0-9_-]{1,64}}. */
    String name();

    /** What the tool does, for the model. */
    String description();

    /** The JSON schema of the arguments (an object schema). */
    JsonNode parameters();

    /** Whether this call needs a person's approval before it runs, and why. */
    Danger danger(JsonNode args, ToolContext context);

    /**
     * True when every call of this tool needs a person's approval whatever its arguments ({@code shell}, an untrusted
     * MCP server's tools). A turn where nobody can approve (an API caller that brings its own tools) is not offered it:
     * each call would only be denied, a wasted round trip.
     */
    default boolean alwaysAsks() {
        return false;
    }

    /** What this call would do, in one short line free of secrets (progress, logs). */
    String summarize(JsonNode args);

    /** The longest text an approval question shows in full ({@value} characters); longer calls are refused, not asked about. */
    int APPROVAL_LIMIT = 4_000;

    /**
     * Everything a person approving this call must see, in full, never clipped: the whole command, the resolved
     * absolute path, a preview of the content. Called only for dangerous calls.
     *
     * @throws TooLongToApprove when the call cannot be shown within {@link #APPROVAL_LIMIT} characters
     */
    default String approvalText(JsonNode args, ToolContext context) {
        return TooLongToApprove.check(summarize(args), "call", APPROVAL_LIMIT);
    }

    /** Runs the call. */
    ToolResult execute(JsonNode args, ToolContext context);
}
