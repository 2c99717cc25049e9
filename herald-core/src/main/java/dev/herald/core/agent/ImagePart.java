package dev.herald.core.agent;

import java.util.Base64;
import java.util.Objects;

/**
 * One image a user message shows a vision model: its media type and its bytes, base64-encoded (sent to the
 * model as a {@code data:} URL). Built by whoever fetched or received the bytes, already size-checked.
 *
 * @param mimeType such as {@code image/png}
 * @param base64   the bytes, standard base64 without line breaks
 */
public record ImagePart(String mimeType, String base64) {
    public ImagePart {
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(base64, "base64");
    }

    public static ImagePart of(String mimeType, byte[] bytes) {
        return new ImagePart(mimeType, Base64.getEncoder().encodeToString(bytes));
    }

    /** {@code data:<mime>;base64,<bytes>}. */
    public String dataUrl() {
        return "data:" + mimeType + ";base64," + base64;
    }

    /** The decoded size in bytes (from the base64 length). */
    public long size() {
        long padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
        return base64.length() / 4L * 3 - padding;
    }

    @Override
    public String toString() {
        return "ImagePart[" + mimeType + ", " + size() + " bytes]";
    }
}
