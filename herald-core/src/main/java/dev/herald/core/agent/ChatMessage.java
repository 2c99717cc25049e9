package dev.herald.core.agent;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import java.util.List;
import java.util.Objects;

/**
 * One message as the model sees it: no timestamp, no sequence number.
 *
 * @param role       system, user, assistant or tool (never session_meta)
 * @param content    the text; may be null for an assistant message that only calls tools
 * @param toolCalls  tool calls of an assistant message; empty when none
 * @param toolCallId for a tool message, the call it answers
 * @param name       for a tool message, the tool's name
 * @param images     images a user message shows the model (vision models only); empty when none. They live only
 *                   while a turn runs: the transcript keeps the attachment, never the bytes
 * @param attachments the files a user message carried, as data (the agent fetches them and tells the model where they
 *                   are); empty when none
 */
public record ChatMessage(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String name, List<ImagePart> images,
        List<MessageEvent.MediaRef> attachments) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        if (role == Role.SESSION_META) {
            throw new IllegalArgumentException("session_meta rows are never sent to a model");
        }
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        images = images == null ? List.of() : List.copyOf(images);
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }

    /** A message without attachments. */
    public ChatMessage(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String name, List<ImagePart> images) {
        this(role, content, toolCalls, toolCallId, name, images, List.of());
    }

    /** A message without images. */
    public ChatMessage(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String name) {
        this(role, content, toolCalls, toolCallId, name, List.of());
    }

    /** A user message that also shows the model {@code images}. */
    public static ChatMessage user(String content, List<ImagePart> images) {
        return new ChatMessage(Role.USER, content, List.of(), null, null, images);
    }

    /** This message with {@code newImages} instead of its images. */
    public ChatMessage withImages(List<ImagePart> newImages) {
        return new ChatMessage(role, content, toolCalls, toolCallId, name, newImages, attachments);
    }

    /** A user message that carried {@code attachments}. */
    public static ChatMessage user(String content, List<ImagePart> images, List<MessageEvent.MediaRef> attachments) {
        return new ChatMessage(Role.USER, content, List.of(), null, null, images, attachments);
    }

    /** This message with {@code newContent} instead of its text, all else kept. */
    public ChatMessage withContent(String newContent) {
        return new ChatMessage(role, newContent, toolCalls, toolCallId, name, images, attachments);
    }

    public boolean hasImages() {
        return !images.isEmpty();
    }

    public static ChatMessage system(String content) {
        return new ChatMessage(Role.SYSTEM, content, List.of(), null, null);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage(Role.USER, content, List.of(), null, null);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage(Role.ASSISTANT, content, List.of(), null, null);
    }

    public static ChatMessage assistant(String content, List<ToolCall> calls) {
        return new ChatMessage(Role.ASSISTANT, content, calls, null, null);
    }

    public static ChatMessage tool(String toolCallId, String name, String content) {
        return new ChatMessage(Role.TOOL, content, List.of(), toolCallId, name);
    }

    public boolean hasToolCalls() {
        return !toolCalls.isEmpty();
    }
}
