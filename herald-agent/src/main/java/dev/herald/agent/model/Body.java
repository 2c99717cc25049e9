package dev.herald.agent.model;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * A request body as a list of byte blocks, handed to the HTTP client as they are: small pieces are gathered into
 * blocks of {@link #BLOCK} bytes, an encoding at least half that size is its own block (spliced, not copied). The
 * length is known, so the request carries a {@code Content-Length} as before, and a retry sends the same blocks again.
 */
record Body(List<byte[]> blocks, long length) {
    static final int BLOCK = 16 * 1024;

    Body {
        blocks = List.copyOf(blocks);
    }

    HttpRequest.BodyPublisher publisher() {
        return HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArrays(blocks), length);
    }

    /** The whole body in one array (tests, logs). */
    byte[] bytes() {
        ByteArrayOutputStream all = new ByteArrayOutputStream((int) length);
        blocks.forEach(all::writeBytes);
        return all.toByteArray();
    }

    static final class Builder {
        private static final byte[] COMMA = {','};
        private final List<byte[]> blocks = new ArrayList<>();
        private byte[] current = new byte[BLOCK];
        private int used;
        private long length;

        Builder raw(byte[] bytes) {
            int from = 0;
            while (from < bytes.length) {
                if (used == current.length) {
                    blocks.add(current);
                    current = new byte[BLOCK];
                    used = 0;
                }
                int n = Math.min(bytes.length - from, current.length - used);
                System.arraycopy(bytes, from, current, used, n);
                used += n;
                from += n;
            }
            length += bytes.length;
            return this;
        }

        Builder comma() {
            return raw(COMMA);
        }

        /** An encoding kept elsewhere: a large one becomes a block of its own (it must not change afterwards). */
        Builder splice(byte[] bytes) {
            if (bytes.length < BLOCK / 2) {
                return raw(bytes);
            }
            flush();
            blocks.add(bytes);
            length += bytes.length;
            return this;
        }

        private void flush() {
            if (used > 0) {
                blocks.add(used == current.length ? current : java.util.Arrays.copyOf(current, used));
                current = new byte[BLOCK];
                used = 0;
            }
        }

        Body build() {
            flush();
            return new Body(blocks, length);
        }
    }
}
