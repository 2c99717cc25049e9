package dev.herald.core.platform;

import java.util.Objects;

/**
 * A file the agent sends to its chat (the {@code send_file} tool): recorded with the turn's reply and delivered by the
 * outbox as one part of it, after the text.
 *
 * @param path     the absolute path of the file inside the conversation's workspace, checked when the tool ran; read
 *                 again (without following links) when the part is sent
 * @param name     the file name the chat shows
 * @param mimeType the media type (decides photo, voice note or document where a platform tells them apart)
 * @param size     the size in bytes when the tool ran
 * @param caption  text shown with the file, or null
 * @param ref      where the file is kept for a download link ({@code reply:<turn>:<index>}, {@link #replyRef}), set by the
 *                 outbox on the part it sends; null when the file is recorded (it is derived, never stored)
 */
public record OutboundFile(String path, String name, String mimeType, long size, String caption, String ref) {
    /** A file as the tool records it, before the outbox gives it its {@link #ref}. */
    public OutboundFile(String path, String name, String mimeType, long size, String caption) {
        this(path, name, mimeType, size, caption, null);
    }

    public OutboundFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(name, "name");
        mimeType = mimeType == null || mimeType.isBlank() ? "application/octet-stream" : mimeType;
        caption = caption == null || caption.isBlank() ? null : caption;
    }

    /**
     * The file's bytes, read without following a symbolic link at any step: the tool recorded the file's real path inside
     * the workspace when it ran, so a path that no longer resolves to itself has had a link put in it since (a directory
     * swapped for a link out of the workspace, say), and is refused rather than followed.
     *
     * @throws java.io.IOException when it is gone, is not a regular file, has a link in its path, or has grown past
     *                             {@code maxBytes}
     */
    public byte[] read(long maxBytes) throws java.io.IOException {
        java.nio.file.Path p = java.nio.file.Path.of(path);
        if (!present()) {
            throw new java.io.IOException("file " + name + " is no longer a regular file in the workspace, or is reached through a link");
        }
        try (var in = java.nio.file.Files.newInputStream(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (bytes.length > maxBytes) {
                throw new java.io.IOException("file " + name + " is larger than " + maxBytes + " bytes");
            }
            return bytes;
        }
    }

    /** True while the recorded path is still a regular file reached without any link (what {@link #read} sends). */
    public boolean present() {
        java.nio.file.Path p = java.nio.file.Path.of(path);
        try {
            return java.nio.file.Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && p.toRealPath().equals(p.toAbsolutePath().normalize());
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** This file as the part at {@code index} (0-based, among the reply's files) of turn {@code turnId}'s reply. */
    public OutboundFile withRef(long turnId, int index) {
        return new OutboundFile(path, name, mimeType, size, caption, replyRef(turnId, index));
    }

    /**
     * The reference of file {@code index} (0-based) of turn {@code turnId}'s reply: what the web chat's and the API's
     * download links name, and what the answer's transcript row lists. It names the turn, never the path: the path is
     * read from the turn's record when the file is asked for.
     */
    public static String replyRef(long turnId, int index) {
        return "reply:" + turnId + ":" + index;
    }

    /** The turn id and file index a {@link #replyRef} names, or empty for any other text. */
    public static java.util.Optional<long[]> parseReplyRef(String ref) {
        if (ref == null) {
            return java.util.Optional.empty();
        }
        java.util.regex.Matcher m = REPLY_REF.matcher(ref);
        return m.matches() ? java.util.Optional.of(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))})
                : java.util.Optional.empty();
    }

    private static final java.util.regex.Pattern REPLY_REF = java.util.regex.Pattern.compile("reply:([1-9][0-9]{0,17}):([0-9]{1,4})");

    /** The transcript's entry for this file, as the {@code index}th file of turn {@code turnId}'s answer. */
    public MessageEvent.MediaRef asAttachment(long turnId, int index) {
        return new MessageEvent.MediaRef(isImage() ? "image" : isVoice() ? "voice" : "file", replyRef(turnId, index), mimeType, name, size);
    }

    /** The size for people: bytes, KB or MB. */
    public static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        if (bytes < 1024 * 1024) {
            return (bytes + 1023) / 1024 + " KB";
        }
        return String.format(java.util.Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
    }

    /** True for an image a chat shows inline. */
    public boolean isImage() {
        return mimeType.equals("image/png") || mimeType.equals("image/jpeg") || mimeType.equals("image/gif") || mimeType.equals("image/webp");
    }

    /** True for audio a chat can play as a voice note (OGG with Opus). */
    public boolean isVoice() {
        return mimeType.equals("audio/ogg");
    }
}
