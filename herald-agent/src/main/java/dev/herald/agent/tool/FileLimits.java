package dev.herald.agent.tool;

/**
 * How much a chat may put into a conversation's workspace: files its users send are saved there only within these.
 *
 * @param maxFileBytes      {@code agent.file_max_bytes}: the largest file saved (default 20 MiB, Telegram's own download
 *                          limit for bots)
 * @param maxWorkspaceBytes {@code agent.workspace_max_bytes}: all files of one workspace together (default 200 MiB); a
 *                          file that would pass it is not saved
 */
public record FileLimits(long maxFileBytes, long maxWorkspaceBytes) {
    public static final long DEFAULT_MAX_FILE_BYTES = 20L * 1024 * 1024;
    public static final long DEFAULT_MAX_WORKSPACE_BYTES = 200L * 1024 * 1024;
    public static final FileLimits DEFAULT = new FileLimits(DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_WORKSPACE_BYTES);

    public FileLimits {
        if (maxFileBytes < 1024) {
            throw new IllegalArgumentException("agent.file_max_bytes must be at least 1,024 (got " + maxFileBytes + ")");
        }
        if (maxWorkspaceBytes < maxFileBytes) {
            throw new IllegalArgumentException("agent.workspace_max_bytes must be at least agent.file_max_bytes (got "
                    + maxWorkspaceBytes + " < " + maxFileBytes + ")");
        }
    }
}
