package dev.herald.core.platform;

import java.util.Optional;

/** The audio type bytes show (a download's or an upload's declared type is often generic, or a lie). */
public final class AudioTypes {
    private AudioTypes() {
    }

    /** {@code audio/ogg}, {@code audio/wav}, {@code audio/mpeg}, {@code audio/mp4} or {@code audio/webm}; empty for anything else. */
    public static Optional<String> sniff(byte[] b) {
        if (b.length >= 4 && b[0] == 'O' && b[1] == 'g' && b[2] == 'g' && b[3] == 'S') {
            return Optional.of("audio/ogg");
        }
        if (b.length >= 12 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'A' && b[10] == 'V' && b[11] == 'E') {
            return Optional.of("audio/wav");
        }
        if (b.length >= 3 && (b[0] == 'I' && b[1] == 'D' && b[2] == '3' || (b[0] & 0xff) == 0xff && (b[1] & 0xe0) == 0xe0)) {
            return Optional.of("audio/mpeg");
        }
        if (b.length >= 8 && b[4] == 'f' && b[5] == 't' && b[6] == 'y' && b[7] == 'p') {
            return Optional.of("audio/mp4");
        }
        if (b.length >= 4 && (b[0] & 0xff) == 0x1a && (b[1] & 0xff) == 0x45 && (b[2] & 0xff) == 0xdf && (b[3] & 0xff) == 0xa3) {
            return Optional.of("audio/webm");
        }
        return Optional.empty();
    }
}
