package dev.herald.agent;

import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.platform.MessageEvent.MediaRef;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a conversation's voice notes were heard as, for pages that show it under the note (the web chat): the
 * transcript the agent kept in the conversation's workspace when it transcribed the note, read back and never
 * transcribed again. Empty for a note not transcribed (yet), and for one whose workspace was removed.
 */
public final class HeardVoiceNotes {
    private final Path workspaceRoot;

    /** @param workspaceRoot where the conversations' workspaces are ({@code agent.workspace_root}) */
    public HeardVoiceNotes(Path workspaceRoot) {
        this.workspaceRoot = Objects.requireNonNull(workspaceRoot, "workspaceRoot");
    }

    /**
     * What {@code ref}, a voice note of the conversation of {@code sessionKey}, was heard as:
     * {@code [voice note, 4 s] words}.
     */
    public Optional<String> of(String sessionKey, MediaRef ref) {
        if (sessionKey == null || sessionKey.isBlank() || ref == null || ref.ref() == null) {
            return Optional.empty();
        }
        return VoiceNotes.kept(ref, ToolRegistry.workspaceOf(workspaceRoot, sessionKey));
    }
}
