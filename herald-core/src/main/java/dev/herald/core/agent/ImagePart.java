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
    /**
     * The largest image taken in for a vision model unless configured otherwise (5 MiB, {@code model.max_image_bytes}):
     * fetched from a platform, uploaded to the web chat, or sent in an API request.
     */
    public static final long DEFAULT_MAX_BYTES = 5L * 1024 * 1024;

    public ImagePart {
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(base64, "base64");
    }

    public static ImagePart of(String mimeType, byte[] bytes) {
        return new ImagePart(mimeType, Base64.getEncoder().encodeToString(bytes));
    }

    /**
     * The image type the bytes really are (PNG, JPEG, GIF or WebP, from their first bytes), or empty: a declared
     * type is never trusted alone, so a file that only claims to be an image is not sent to a model as one.
     */
    public static java.util.Optional<String> sniff(byte[] b) {
        if (b.length >= 8 && (b[0] & 0xFF) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
            return java.util.Optional.of("image/png");
        }
        if (b.length >= 3 && (b[0] & 0xFF) == 0xFF && (b[1] & 0xFF) == 0xD8 && (b[2] & 0xFF) == 0xFF) {
            return java.util.Optional.of("image/jpeg");
        }
        if (b.length >= 6 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F' && b[3] == '8' && (b[4] == '7' || b[4] == '9') && b[5] == 'a') {
            return java.util.Optional.of("image/gif");
        }
        if (b.length >= 12 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'E' && b[10] == 'B'
                && b[11] == 'P') {
            return java.util.Optional.of("image/webp");
        }
        return java.util.Optional.empty();
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
